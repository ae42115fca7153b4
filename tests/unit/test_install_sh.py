"""scripts/install.sh: shellcheck, its command line, and the checks and steps of the Pi mode on made-up inputs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from appliance import EXIT_CONFIG, EXIT_USAGE

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install.sh"
VENV_BIN = Path(sys.executable).parent
TIMEOUT_S = 60
NOT_ROOT = 'id() { if [[ "$1" == -u ]]; then echo 1000; else command id "$@"; fi; }\n'  # is_root says no


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=TIMEOUT_S,
                          env={**os.environ, **(env or {})})


def sourced(snippet: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run bash code with the script's functions defined (sourcing it runs nothing)."""
    return subprocess.run(["bash", "-c", f'source "{SCRIPT}"\n{snippet}'], capture_output=True, text=True,
                          timeout=TIMEOUT_S, env={**os.environ, **(env or {})})


def test_shellcheck_is_clean() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (scripts/install.sh --dev installs it)")
    result = subprocess.run([shellcheck, "--severity=style", str(SCRIPT)], capture_output=True, text=True,
                            timeout=TIMEOUT_S)
    assert result.returncode == 0, result.stdout + result.stderr


def test_script_uses_strict_mode() -> None:
    head = SCRIPT.read_text().splitlines()[:10]
    assert "set -euo pipefail" in head


@pytest.mark.parametrize(("args", "message"), [
    (["--bogus"], "unknown option: --bogus"),
    (["--quant", "Q8_0"], "--quant must be Q4_K_M or Q5_K_M"),
    (["--quant"], "--quant needs a value"),
    (["--bench-models"], "--bench-models goes with --dev"),
    (["--purge"], "--purge goes with --uninstall"),
    (["--models-from"], "--models-from needs a folder"),
])
def test_usage_errors_exit_64_and_name_the_problem(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.returncode == EXIT_USAGE
    assert message in result.stderr


def test_help_names_both_modes() -> None:
    result = run("--help")
    assert result.returncode == 0
    assert "--dev" in result.stdout and "--uninstall" in result.stdout and "--no-blas" in result.stdout


def test_pi_mode_without_root_says_to_use_sudo() -> None:
    result = sourced(NOT_ROOT + "main")
    assert result.returncode == 77
    assert "sudo" in result.stderr and "--dev" in result.stderr


def _os_release(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "os-release"
    path.write_text(text)
    return {"APPLIANCE_OS_RELEASE": str(path)}


@pytest.mark.parametrize(("text", "ok", "message"), [
    ('ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n', True, "OS: Debian GNU/Linux 12"),
    ('ID=raspbian\nID_LIKE=debian\nVERSION_ID="12"\nPRETTY_NAME="Raspbian GNU/Linux 12 (bookworm)"\n', True,
     "OS: Raspbian"),
    ('ID=debian\nVERSION_ID="11"\nPRETTY_NAME="Debian GNU/Linux 11 (bullseye)"\n', False, "needs Debian 12"),
    ('ID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04"\n', False, "needs Debian 12"),
    ('ID=fedora\nVERSION_ID="40"\nPRETTY_NAME="Fedora Linux 40"\n', False, "Raspberry Pi OS Lite (64-bit"),
])
def test_os_check(tmp_path: Path, text: str, ok: bool, message: str) -> None:
    result = sourced("check_os", _os_release(tmp_path, text))
    assert (result.returncode == 0) == ok
    assert message in result.stdout + result.stderr


@pytest.mark.parametrize(("arch", "ok", "message"), [
    ("aarch64", True, "architecture: aarch64"),
    ("x86_64", True, "not a Pi"),
    ("armv7l", False, "32-bit"),
    ("riscv64", False, "not supported"),
])
def test_architecture_check(arch: str, ok: bool, message: str) -> None:
    result = sourced("check_arch", {"APPLIANCE_ARCH": arch})
    assert (result.returncode == 0) == ok
    assert message in result.stdout + result.stderr


@pytest.mark.parametrize(("model", "ok", "message"), [
    ("Raspberry Pi 5 Model B Rev 1.0\0", True, "board: Raspberry Pi 5"),
    ("Raspberry Pi 4 Model B Rev 1.5\0", True, "twice as long"),
    ("Raspberry Pi 3 Model B Plus Rev 1.3\0", False, "too slow"),
    (None, True, "not a Raspberry Pi"),
])
def test_board_check(tmp_path: Path, model: str | None, ok: bool, message: str) -> None:
    path = tmp_path / "model"
    if model is not None:
        path.write_bytes(model.encode())
    result = sourced("check_board", {"APPLIANCE_DT_MODEL": str(path)})
    assert (result.returncode == 0) == ok
    assert message in result.stdout + result.stderr


@pytest.mark.parametrize(("kib", "ok", "message"), [
    (8_000_000, True, "memory: 7812 MB"),
    (2_000_000, True, "use_mlock"),
    (1_000_000, False, "needs at least 2 GB"),
])
def test_memory_check(tmp_path: Path, kib: int, ok: bool, message: str) -> None:
    path = tmp_path / "meminfo"
    path.write_text(f"MemTotal:       {kib} kB\nMemFree:        1000 kB\n")
    result = sourced("check_memory", {"APPLIANCE_MEMINFO": str(path)})
    assert (result.returncode == 0) == ok
    assert message in result.stdout + result.stderr


def test_disk_check_names_the_shortfall(tmp_path: Path) -> None:
    result = sourced(f'PI_PREFIX="{tmp_path}/opt"; STATE_DIR="{tmp_path}/var"; MIN_DISK_FIRST_MB=999999999\ncheck_disk')
    assert result.returncode != 0
    assert "needs 999999999 MB" in result.stderr and "apt-get clean" in result.stderr
    fine = sourced(f'PI_PREFIX="{tmp_path}/opt"; STATE_DIR="{tmp_path}/var"; MIN_DISK_FIRST_MB=1\ncheck_disk')
    assert fine.returncode == 0, fine.stderr


NEON_INFO = "info: CPU : NEON = 1 | ARM_FMA = 1 | FP16_VA = 1 | DOTPROD = 1 | LLAMAFILE = 1 |"


@pytest.mark.parametrize(("arch", "blas", "report", "problem"), [
    ("aarch64", 1, NEON_INFO + "\nbackends: BLAS CPU", ""),
    ("aarch64", 0, NEON_INFO + "\nbackends: CPU", ""),
    ("aarch64", 1, "info: CPU : ARM_FMA = 1 |\nbackends: BLAS CPU", "no NEON"),
    ("aarch64", 1, NEON_INFO + "\nbackends: CPU", "no BLAS backend"),
    ("aarch64", 0, NEON_INFO + "\nbackends: BLAS CPU", "--no-blas"),
    ("x86_64", 0, "info: CPU : AVX2 = 1 |\nbackends: CPU", ""),
])
def test_llama_build_check(tmp_path: Path, arch: str, blas: int, report: str, problem: str) -> None:
    (tmp_path / "report").write_text(report + "\n")
    fake = f'llama_build_report() {{ cat "{tmp_path}/report"; }}'
    result = sourced(f"{fake}\nBLAS={blas}\nllama_build_problems", {"APPLIANCE_ARCH": arch})
    assert result.returncode == 0, result.stderr
    if problem:
        assert problem in result.stdout
    else:
        assert result.stdout.strip() == ""


def _config_step(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    # the real `appliance config check` of this venv checks the installed file
    return sourced(f'CONFIG_DIR="{tmp_path}"; PI_VENV="{VENV_BIN.parent}"\nensure_config\necho "CHANGED=$CHANGED"')


def test_config_is_installed_only_when_absent(tmp_path: Path) -> None:
    shipped = (ROOT / "config" / "appliance.yaml").read_text()
    first = _config_step(tmp_path)
    assert first.returncode == 0, first.stderr
    assert "installed" in first.stdout and "CHANGED=1" in first.stdout
    assert (tmp_path / "appliance.yaml").read_text() == shipped

    again = _config_step(tmp_path)
    assert "CHANGED=0" in again.stdout and "kept" in again.stdout

    owned = shipped.replace("n_ctx: 1024", "n_ctx: 2048")
    assert owned != shipped
    (tmp_path / "appliance.yaml").write_text(owned)
    changed = _config_step(tmp_path)
    assert changed.returncode == 0, changed.stderr
    assert (tmp_path / "appliance.yaml").read_text() == owned  # the owner's file is kept
    assert (tmp_path / "appliance.yaml.new").read_text() == shipped
    assert "appliance.yaml.new" in changed.stdout and "CHANGED=1" in changed.stdout
    assert "CHANGED=0" in _config_step(tmp_path).stdout  # .new already up to date


def test_a_bad_config_stops_before_the_service(tmp_path: Path) -> None:
    (tmp_path / "appliance.yaml").write_text("llm: {n_ctxx: 1024}\n")
    result = _config_step(tmp_path)
    assert result.returncode == EXIT_CONFIG
    assert "n_ctx" in result.stdout + result.stderr and "not (re)started" in result.stderr


def test_missing_debian_packages_without_root_are_named_with_the_command() -> None:
    result = sourced(NOT_ROOT + "ensure_debian_packages 0 bash no-such-package-xyz; echo carried-on")
    assert result.returncode == 0
    assert "no-such-package-xyz" in result.stderr and "sudo apt-get install -y no-such-package-xyz" in result.stderr
    assert "bash" not in result.stderr.replace("bash:", "")  # installed ones are not listed
    assert "carried-on" in result.stdout
    required = sourced(NOT_ROOT + "ensure_debian_packages 1 no-such-package-xyz")
    assert required.returncode == 77 and "sudo apt-get install -y no-such-package-xyz" in required.stderr

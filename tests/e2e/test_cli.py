"""The real `appliance` command in a subprocess: exit codes, messages, no tracebacks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from appliance import EXIT_CONFIG, EXIT_FAILURE, EXIT_USAGE, __version__
from tests.fixtures.waits import LOAD_WAIT_S, SLOW_WAIT_S

APPLIANCE = [sys.executable, "-m", "appliance.cli"]


def run(*args: str, env: dict[str, str] | None = None,
        timeout: float = SLOW_WAIT_S) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_CONFIG", "JOURNAL_STREAM")}
    full_env.update(env or {})
    return subprocess.run([*APPLIANCE, *args], capture_output=True, text=True, timeout=timeout,
                          env=full_env, check=False)


def test_version_and_help() -> None:
    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"appliance {__version__}"
    helped = run("--help")
    assert helped.returncode == 0
    for command in ("config", "doctor"):
        assert command in helped.stdout


def test_usage_errors_exit_64() -> None:
    assert run().returncode == EXIT_USAGE
    bad = run("no-such-command")
    assert bad.returncode == EXIT_USAGE and "invalid choice" in bad.stderr


def test_config_check_ok_names_the_source(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("llm:\n  n_ctx: 2048\n")
    out = run("config", "check", str(good))
    assert out.returncode == 0
    assert out.stdout.strip() == f"ok: {good}"
    # the environment variable is the second choice, the shipped default the last
    assert run("config", "check", env={"APPLIANCE_CONFIG": str(good)}).stdout.strip() == f"ok: {good}"


def test_config_check_names_each_problem_with_its_key_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("llm: {n_ctxx: 1024}\naudio: {rate: fast}\n")
    out = run("config", "check", str(bad))
    assert out.returncode == EXIT_CONFIG
    assert "Traceback" not in out.stderr
    assert f"llm.n_ctxx: unknown key in section 'llm'; did you mean 'n_ctx'? ({bad} line 1)" in out.stderr
    assert f"audio.rate: must be a whole number, got 'fast' (str) ({bad} line 2)" in out.stderr


@pytest.mark.parametrize("text", ["", "[1, 2]\n", "llm:\n  n_ctx: [\n"])
def test_config_check_bad_files_exit_78_without_traceback(tmp_path: Path, text: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    out = run("config", "check", str(bad))
    assert out.returncode == EXIT_CONFIG
    assert "Traceback" not in out.stderr and str(bad) in out.stderr


def test_global_config_option_is_used(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("wake: {threshold: 7}\n")
    out = run("--config", str(bad), "config", "check")
    assert out.returncode == EXIT_CONFIG and "wake.threshold: must be between 0.01 and 1" in out.stderr


def test_doctor_fails_on_a_bad_config_and_a_missing_model(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"models:\n  dir: {tmp_path}/none\n  dev_packages: false\n")
    out = run("doctor", "--config", str(bad), timeout=LOAD_WAIT_S)
    assert out.returncode == EXIT_FAILURE
    lines = out.stdout.splitlines()
    llm_line = next(line for line in lines if "model llm" in line)
    assert llm_line.startswith("fail") and "appliance models fetch" in llm_line
    assert next(line for line in lines if line.split()[1] == "python").startswith("ok")
    assert "Traceback" not in out.stderr

"""appliance/setup/llama_build.py: a llama.cpp build judged against the CPU it is to run on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from appliance.setup import llama_build
from tests.fixtures.waits import SLOW_WAIT_S

PI5_FEATURES = "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp"
PI4_FEATURES = "fp asimd evtstrm crc32 cpuid"
# qemu-user's default "max" CPU: what a native build detected under it would use.
QEMU_MAX_FEATURES = PI5_FEATURES + " sve i8mm sve2"
PI5_BUILD = "CPU : NEON = 1 | ARM_FMA = 1 | FP16_VA = 1 | DOTPROD = 1 | OPENMP = 1 | REPACK = 1 |"
GENERIC_ARM_BUILD = "CPU : NEON = 1 | ARM_FMA = 1 | OPENMP = 1 | REPACK = 1 |"
SVE_BUILD = "CPU : NEON = 1 | ARM_FMA = 1 | FP16_VA = 1 | MATMUL_INT8 = 1 | SVE = 1 | DOTPROD = 1 |"


def cpuinfo(features: str) -> str:
    core = f"processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: {features}\nCPU implementer\t: 0x41\n"
    return core + "\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0\n"


def test_features_on_reads_only_what_is_set() -> None:
    info = "CPU : NEON = 1 | ARM_FMA = 1 | SVE = 0 | LLAMAFILE = 1 | "
    assert llama_build.features_on(info) == ("NEON", "ARM_FMA", "LLAMAFILE")
    assert llama_build.features_on("") == ()


def test_cpu_flags_from_arm_and_x86_cpuinfo() -> None:
    assert {"asimddp", "asimdhp"} <= llama_build.cpu_flags(cpuinfo(PI5_FEATURES))
    assert {"avx2", "fma"} <= llama_build.cpu_flags("model name\t: X\nflags\t\t: fpu avx2 fma f16c\n")


def judge(info: str, features: str, backends: tuple[str, ...] = ("CPU",), blas: str = "any",
          machine: str = "aarch64") -> llama_build.BuildReport:
    flags = llama_build.cpu_flags(cpuinfo(features))
    return llama_build.judge(llama_build.features_on(info), backends, machine, flags, blas)


def test_a_pi5_build_on_a_pi5_is_accepted_with_or_without_blas() -> None:
    assert judge(PI5_BUILD, PI5_FEATURES).problems == ()
    assert judge(PI5_BUILD, PI5_FEATURES, ("CPU", "BLAS"), blas="yes").problems == ()
    assert judge(PI5_BUILD, PI5_FEATURES, blas="no").problems == ()


def test_a_generic_armv8_build_on_a_pi5_names_the_missing_kernels() -> None:
    (problem,) = judge(GENERIC_ARM_BUILD, PI5_FEATURES).problems
    assert "without FP16_VA DOTPROD" in problem and "slower" in problem


def test_a_build_with_sve_would_die_on_a_pi5() -> None:
    (problem,) = judge(SVE_BUILD, PI5_FEATURES).problems
    assert "built with SVE MATMUL_INT8," in problem and "illegal instruction" in problem
    assert judge(SVE_BUILD, QEMU_MAX_FEATURES).problems == ()  # fine on the CPU it was made for


def test_a_pi4_needs_only_neon_and_fma() -> None:
    assert judge(GENERIC_ARM_BUILD, PI4_FEATURES).problems == ()
    (problem,) = judge(PI5_BUILD, PI4_FEATURES).problems
    assert "FP16_VA DOTPROD" in problem and "illegal instruction" in problem


def test_blas_is_checked_both_ways() -> None:
    (missing,) = judge(PI5_BUILD, PI5_FEATURES, ("CPU",), blas="yes").problems
    assert "no BLAS backend" in missing
    (unwanted,) = judge(PI5_BUILD, PI5_FEATURES, ("CPU", "BLAS"), blas="no").problems
    assert "asked for none" in unwanted


def test_x86_builds_are_judged_by_the_cpu_flags() -> None:
    flags = {"avx2", "fma", "f16c"}
    assert llama_build.judge(("SSE3", "AVX2", "FMA", "F16C"), ("CPU",), "x86_64", flags).problems == ()
    (problem,) = llama_build.judge(("AVX2", "FMA", "F16C", "AVX512"), ("CPU",), "x86_64", flags).problems
    assert "AVX512" in problem


def test_summary_lists_features_and_backends() -> None:
    report = judge(PI5_BUILD, PI5_FEATURES, ("CPU", "BLAS"))
    assert report.summary() == "features: NEON ARM_FMA FP16_VA DOTPROD OPENMP REPACK; backends: CPU BLAS"


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    # As install.sh runs it: the file itself, by path, with no package around it.
    return subprocess.run([sys.executable, str(Path(llama_build.__file__)), *args], capture_output=True, text=True,
                          timeout=SLOW_WAIT_S, check=False)


def test_script_on_a_folder_without_a_build_says_so(tmp_path: Path) -> None:
    result = run_script("--lib-dir", str(tmp_path))
    assert result.returncode == llama_build.EXIT_UNREADABLE
    assert f"no libggml library in {tmp_path}" in result.stderr and "Traceback" not in result.stderr


def installed_lib() -> Path:
    lib = llama_build.installed_lib_dir()
    if lib is None:
        pytest.fail("llama-cpp-python is not installed: run scripts/install.sh --dev")
    return lib


def test_script_reads_the_installed_build(tmp_path: Path) -> None:
    # The development build (GGML_NATIVE=OFF) has no BLAS backend: asked for one, the check fails.
    cpu = tmp_path / "cpuinfo"
    cpu.write_text(Path("/proc/cpuinfo").read_text())
    fine = run_script("--lib-dir", str(installed_lib()), "--blas", "no", "--cpuinfo", str(cpu))
    assert fine.returncode == 0, fine.stdout + fine.stderr
    assert fine.stdout.startswith("features: ") and "backends: CPU" in fine.stdout
    refused = run_script("--lib-dir", str(installed_lib()), "--blas", "yes", "--cpuinfo", str(cpu))
    assert refused.returncode == llama_build.EXIT_PROBLEM
    assert "problem: no BLAS backend" in refused.stdout

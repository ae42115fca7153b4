"""What a llama.cpp build can do, read from the built library itself, and whether it suits this CPU.

Standard library only: install.sh runs this file on a freshly built wheel (unpacked, before it is
installed) and `appliance doctor` on the installed one, so both judge a build by the same rules:

    python llama_build.py --lib-dir DIR [--blas yes|no|any] [--cpuinfo FILE]

prints the build's features and backends, then one line per problem, and exits 1 when there is one
(`--where` prints the installed build's folder; `--smoke GGUF [--package-dir DIR]` runs a real prompt
through a build in a child process, so that a build this CPU cannot run is refused by how it died).
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import platform
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

if __package__:
    from appliance.setup.preflight import cpu_flags
else:  # run by path (install.sh, before the package is installed): preflight.py lies beside this file
    from preflight import cpu_flags  # type: ignore[no-redef]

# The CPU kernels llama.cpp compiles in on Arm, by the name its system info gives them, and the
# /proc/cpuinfo feature that says this CPU can run them. A Pi 5 (Cortex-A76) has the first four.
ARM_BASE: Final = ("NEON", "ARM_FMA")
ARM_BY_CPU_FLAG: Final = {"asimdhp": "FP16_VA", "asimddp": "DOTPROD"}
# Kernels a Cortex-A76 lacks: a build with them runs under an emulator's default CPU and dies with
# SIGILL on a Pi.
ARM_ONLY_WITH_CPU_FLAG: Final = {"SVE": "sve", "MATMUL_INT8": "i8mm", "SME": "sme"}
X86_BY_CPU_FLAG: Final = {"avx2": "AVX2", "fma": "FMA", "f16c": "F16C"}
X86_ONLY_WITH_CPU_FLAG: Final = {"AVX512": "avx512f", "AMX_INT8": "amx_int8"}
EXIT_PROBLEM: Final = 1
EXIT_UNREADABLE: Final = 2


class BuildUnreadable(Exception):
    """The library could not be loaded or asked what it was built with."""


@dataclass(frozen=True)
class BuildReport:
    """A build's CPU features (those set to 1) and its ggml backends, and what is wrong with them."""

    features: tuple[str, ...]
    backends: tuple[str, ...]
    problems: tuple[str, ...] = field(default=())

    def summary(self) -> str:
        return f"features: {' '.join(self.features) or 'none'}; backends: {' '.join(self.backends) or 'none'}"


def installed_lib_dir() -> Path | None:
    """The lib folder of the installed llama_cpp package, found without importing it."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "lib"


def _load(lib_dir: Path, stem: str) -> ctypes.CDLL:
    candidates = sorted(lib_dir.glob(f"{stem}.so*")) + sorted(lib_dir.glob(f"{stem}.dylib"))
    if not candidates:
        raise BuildUnreadable(f"no {stem} library in {lib_dir}")
    try:
        return ctypes.CDLL(str(candidates[0]), mode=ctypes.RTLD_GLOBAL)
    except OSError as exc:
        raise BuildUnreadable(f"{candidates[0]} does not load: {exc}") from exc


def read_build(lib_dir: Path) -> tuple[str, tuple[str, ...]]:
    """llama.cpp's own system info line and the names of its registered ggml backends."""
    if not lib_dir.is_dir():
        raise BuildUnreadable(f"{lib_dir} is not a folder")
    ggml = _load(lib_dir, "libggml")
    llama = _load(lib_dir, "libllama")
    llama.llama_print_system_info.restype = ctypes.c_char_p
    info = (llama.llama_print_system_info() or b"").decode(errors="replace").strip()
    ggml.ggml_backend_reg_count.restype = ctypes.c_size_t
    ggml.ggml_backend_reg_get.restype = ctypes.c_void_p
    ggml.ggml_backend_reg_get.argtypes = [ctypes.c_size_t]
    ggml.ggml_backend_reg_name.restype = ctypes.c_char_p
    ggml.ggml_backend_reg_name.argtypes = [ctypes.c_void_p]
    names = tuple(ggml.ggml_backend_reg_name(ggml.ggml_backend_reg_get(i)).decode()
                  for i in range(ggml.ggml_backend_reg_count()))
    return info, names


def features_on(info: str) -> tuple[str, ...]:
    """The features a system info line sets to 1: 'CPU : NEON = 1 | SVE = 0 |' -> ('NEON',)."""
    found = []
    for part in info.replace("|", "\n").splitlines():
        name, sep, value = part.rpartition("=")
        name = name.split(":")[-1].strip()
        if sep and value.strip() == "1" and name and name not in found:
            found.append(name)
    return tuple(found)


def expected(machine: str, flags: set[str]) -> tuple[list[str], list[str]]:
    """(features the build must have, features it must not have) on this machine and CPU.

    With no CPU flags to go by (an unreadable /proc/cpuinfo), only the architecture's base is judged.
    """
    if machine in ("aarch64", "arm64"):
        if not flags:
            return list(ARM_BASE), []
        required = list(ARM_BASE) + [feature for flag, feature in ARM_BY_CPU_FLAG.items() if flag in flags]
        forbidden = [feature for flag, feature in ARM_BY_CPU_FLAG.items() if flag not in flags]
        forbidden += [feature for feature, flag in ARM_ONLY_WITH_CPU_FLAG.items() if flag not in flags]
        return required, forbidden
    if not flags:
        return [], []
    if machine in ("x86_64", "amd64", "AMD64"):
        required = [feature for flag, feature in X86_BY_CPU_FLAG.items() if flag in flags]
        forbidden = [feature for feature, flag in X86_ONLY_WITH_CPU_FLAG.items() if flag not in flags]
        return required, forbidden
    return [], []


def judge(features: tuple[str, ...], backends: tuple[str, ...], machine: str, flags: set[str],
          blas: str = "any") -> BuildReport:
    """The problems of a build with these features and backends on this machine ('blas': yes, no, any)."""
    required, forbidden = expected(machine, flags)
    problems = []
    missing = [name for name in required if name not in features]
    if missing:
        problems.append(f"built without {' '.join(missing)}, which this CPU has: the model would run slower "
                        "than it should")
    extra = [name for name in forbidden if name in features]
    if extra:
        problems.append(f"built with {' '.join(extra)}, which this CPU does not have: it would stop with "
                        "'illegal instruction'")
    if blas == "yes" and "BLAS" not in backends:
        problems.append("no BLAS backend, but the build was asked for OpenBLAS")
    if blas == "no" and "BLAS" in backends:
        problems.append("a BLAS backend, but the build was asked for none")
    return BuildReport(features, backends, tuple(problems))


def check(lib_dir: Path, blas: str = "any", cpuinfo: Path = Path("/proc/cpuinfo"),
          machine: str | None = None) -> BuildReport:
    """Read the build in lib_dir and judge it for this CPU."""
    info, backends = read_build(lib_dir)
    try:
        flags = cpu_flags(cpuinfo.read_text(errors="replace"))
    except OSError:
        flags = set()
    return judge(features_on(info), backends, machine or platform.machine(), flags, blas)


SMOKE_TOKENS: Final = 96  # prompt tokens in one batch: prompt processing takes the batched kernels
SMOKE_TIMEOUT_S: Final = 1800.0  # seconds; under an emulator one prompt takes minutes
SMOKE_PROMPT: Final = ("The kitchen speaker heard a question about the weather, the time, a timer and the "
                       "shopping list, and it answered each of them in one short sentence. ")


class SmokeFailed(Exception):
    """The build died or failed on a real prompt: it must not be installed."""


def _smoke_here(model: Path) -> str:
    """One batch of SMOKE_TOKENS prompt tokens and two generated ones, in this process."""
    import contextlib
    import io

    from llama_cpp import Llama

    with contextlib.redirect_stderr(io.StringIO()):
        llm = Llama(str(model), n_ctx=512, n_batch=512, n_threads=1, verbose=False)
        tokens = llm.tokenize((SMOKE_PROMPT * 8).encode())[:SMOKE_TOKENS]
        llm.eval(tokens)
        for _ in range(2):
            llm.eval([llm.sample(temp=0.0)])
    return f"llama.cpp ran a {len(tokens)}-token prompt and wrote 2 tokens"


def _signal_name(returncode: int) -> str:
    import signal

    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def smoke(model: Path, package_dir: Path | None = None, timeout_s: float = SMOKE_TIMEOUT_S) -> str:
    """Run a real prompt through a build in a child process, the build in package_dir (an unpacked wheel,
    before it is installed) or the installed one; SmokeFailed says how it died."""
    import os
    import subprocess

    env = dict(os.environ)
    if package_dir is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(package_dir), env.get("PYTHONPATH"))))
    command = [sys.executable, str(Path(__file__).resolve()), "--smoke-here", str(model)]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        raise SmokeFailed(f"a {SMOKE_TOKENS}-token prompt did not finish in {timeout_s:g} s") from exc
    if done.returncode == 0:
        return done.stdout.strip()
    detail = (done.stderr.strip().splitlines() or [""])[-1]
    if done.returncode == -4:  # SIGILL
        raise SmokeFailed(f"illegal instruction: the build died (SIGILL) on a {SMOKE_TOKENS}-token prompt; it "
                          "uses an instruction this CPU does not have")
    if done.returncode < 0:
        raise SmokeFailed(f"the build died ({_signal_name(done.returncode)}) on a {SMOKE_TOKENS}-token prompt")
    raise SmokeFailed(f"the build failed on a {SMOKE_TOKENS}-token prompt (exit {done.returncode}): {detail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check a llama.cpp build against this CPU.")
    parser.add_argument("--where", action="store_true", help="print the installed build's lib folder and stop")
    parser.add_argument("--smoke", type=Path, metavar="GGUF",
                        help=f"run a {SMOKE_TOKENS}-token prompt through this model, in a child process")
    parser.add_argument("--package-dir", type=Path, metavar="DIR",
                        help="with --smoke: the folder holding llama_cpp (an unpacked wheel; default: installed)")
    parser.add_argument("--smoke-here", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--lib-dir", type=Path, help="the llama_cpp/lib folder (default: the installed one)")
    parser.add_argument("--blas", choices=("yes", "no", "any"), default="any",
                        help="whether the build must (yes) or must not (no) have the BLAS backend")
    parser.add_argument("--cpuinfo", type=Path, default=Path("/proc/cpuinfo"))
    parser.add_argument("--machine", help="the architecture (default: this machine's)")
    args = parser.parse_args(argv)
    if args.smoke_here:
        print(_smoke_here(args.smoke_here))
        return 0
    if args.smoke:
        try:
            print(smoke(args.smoke, args.package_dir))
        except SmokeFailed as exc:
            print(exc, file=sys.stderr)
            return EXIT_PROBLEM
        return 0
    lib_dir = args.lib_dir or installed_lib_dir()
    if args.where:
        print(lib_dir or "")
        return 0 if lib_dir else EXIT_UNREADABLE
    if lib_dir is None:
        print("llama-cpp-python is not installed", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        report = check(lib_dir, args.blas, args.cpuinfo, args.machine)
    except BuildUnreadable as exc:
        print(f"cannot read the llama.cpp build: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    print(report.summary())
    for problem in report.problems:
        print(f"problem: {problem}")
    return EXIT_PROBLEM if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())

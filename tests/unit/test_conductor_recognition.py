"""Recognition off the conductor's thread: while a transcription runs, the loop runs on and barge-in is heard."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from appliance.config import Config
from appliance.contracts import Stages
from appliance.conversation.conductor import ECHO_TAIL_S, Conductor, State
from appliance.conversation.turn import TurnRecord
from tests.fixtures.fakes import (
    FakeChat,
    FakeEarcons,
    FakeSink,
    FakeSkills,
    FakeSplitter,
    FakeTimers,
    FakeTts,
    FakeWake,
)
from tests.fixtures.slow_asr import PacedSource, SlowRecognizer
from tests.fixtures.waits import WAIT_S, wait_for

RUN_S = 0.4  # seconds each fake transcription takes: five times the longest gap allowed below
MAX_GAP_S = 0.05  # seconds one loop step may take away from the source at most: less than one 80 ms chunk
ENDPOINT = ["SIL"] * 8  # 8 x 80 ms of silence: asr.endpoint_silence_s (0.6 s) is reached


class Running:
    """A conductor over a paced source and a slow recognizer, turning on its own thread."""

    def __init__(self, labels: list[str], cfg: Config | None = None) -> None:
        self.source = PacedSource(labels)
        self.asr = SlowRecognizer(RUN_S)
        self.skills = FakeSkills()
        self.records: list[TurnRecord] = []
        self.states: list[State] = []
        stages = Stages(source=self.source, sink=FakeSink(), wake=FakeWake(), asr=self.asr, chat=FakeChat(),
                        tts=FakeTts(), splitter_factory=FakeSplitter, skills=self.skills,
                        earcons=FakeEarcons(), timers=FakeTimers())
        self.c = Conductor(stages, cfg or Config(), on_turn=self.records.append, on_state=self.states.append)
        self.source.heartbeat = lambda: self.c.heartbeat
        self.thread = threading.Thread(target=self.c.run, daemon=True)

    def __enter__(self) -> Running:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.c.stop()
        self.thread.join(WAIT_S)
        assert not self.thread.is_alive()

    def gaps_during_runs(self) -> list[float]:
        """Seconds the conductor spent between two reads of its source (one loop step: its own work,
        not the source's wait for audio), for each step made while a transcription ran."""
        beats = self.source.beats
        return [b[0] - b[2] for a, b in zip(beats, beats[1:])
                if b[1] == a[1] + 1 and any(start <= b[0] and b[2] <= end for start, end in self.asr.runs)]


def test_the_loop_keeps_running_while_whisper_transcribes() -> None:
    """A bound on blocking, not on speed: inline, a loop step would take RUN_S (0.4 s) when a
    transcription runs; off the thread, a step does a chunk's bookkeeping (well under a millisecond
    with these fakes), so 50 ms is missed only if the conductor waits for the recognizer."""
    words = ["SAY:what is", "SAY:the capital", "SAY:of France"]
    with Running(["WAKE", *words, "SIL", "SIL", "SIL", "SAY:and Germany", *ENDPOINT]) as r:
        wait_for(lambda: r.records, "the turn to be recorded")
    (rec,) = r.records
    assert rec.outcome == "answered" and rec.transcript == "what is the capital of France and Germany"
    assert len(r.asr.runs) >= 1
    gaps = r.gaps_during_runs()
    assert len(gaps) >= RUN_S / 0.05, "the loop did not run while the transcriptions ran"
    assert max(gaps) < MAX_GAP_S, max(gaps)


def test_an_early_transcript_made_stale_by_more_speech_is_dropped_not_waited_for() -> None:
    # Two pauses: the first one's early run is still going when speech goes on, then a second
    # pause's early run is asked for; only runs that started were logged, none was waited for.
    pause = ["SIL"] * 3  # 0.24 s: past asr.early_silence_s (two voiced chunks make speech)
    with Running(["WAKE", "SAY:what", "SAY:is", *pause, "SAY:the", "SAY:capital", *pause,
                  "SAY:of", "SAY:France", *ENDPOINT]) as r:
        wait_for(lambda: r.records, "the turn to be recorded")
    (rec,) = r.records
    assert rec.transcript == "what is the capital of France"
    assert len(r.asr.runs) <= 2  # the middle pause's run never started: a newer one replaced it


@pytest.mark.parametrize("follow_up", [False, True], ids=["question", "follow-up"])
def test_the_wake_word_during_recognition_barges_in(follow_up: bool) -> None:
    base = Config()
    cfg = dataclasses.replace(base, conversation=dataclasses.replace(base.conversation, follow_up="always"))
    first = ["WAKE", "SAY:what time", "SAY:is it", *ENDPOINT] if follow_up else []
    with Running(first, cfg) as r:
        if follow_up:
            wait_for(lambda: r.records and r.c.state is State.FOLLOW_UP, "the follow-up")
            time.sleep(ECHO_TAIL_S)  # the conductor's own real-time wait: what it hears before is ignored
        else:
            r.source.push("WAKE")
        # The question ends, its transcription starts; "hey jarvis, stop" comes before it is done.
        r.source.push("SAY:what is the capital", "SAY:of France", *ENDPOINT, "BARGE", "SAY:stop", "SAY:",
                      *ENDPOINT)
        wait_for(lambda: any(rec.intent == "stop" for rec in r.records), "the 'stop' turn")
    cancelled, stopped = r.records[-2:]
    assert cancelled.outcome == "cancelled" and cancelled.follow_up == follow_up
    assert (stopped.transcript, stopped.outcome, stopped.wake_word) == ("stop", "answered", "hey_jarvis")
    assert "what is the capital of France" not in r.c.stages.chat.questions  # the question was given up

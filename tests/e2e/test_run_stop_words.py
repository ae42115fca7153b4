"""`appliance run` through PulseAudio's null sink: a timer set by voice rings, and a plain "stop" with no wake
word, said between its repeats, silences it; the journal says so, and it does not ring again.

The daemon's speaker plays into the same sink its microphone hears, so its own answer ("Timer set for
five seconds") and its ringing reach the microphone at full level: neither may stop anything.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import pytest

from tests.e2e.test_run_alarms import _config, _start, _stop
from tests.e2e.test_run_service import listening
from tests.fixtures.journal import Entry, Journal
from tests.fixtures.pulse import Pulse
from tests.fixtures.speech import SpeechMaker
from tests.fixtures.waits import LOAD_WAIT_S, SLOW_WAIT_S

REPEAT_INTERVAL_S: Final = 12.0  # skills.timer_repeat_interval_s here: a gap after each announcement to speak in
AFTER_RING_S: Final = 6.0  # seconds after the ring's journal entry: the chime and the announcement are over


@dataclass
class Stopped:
    set_turn: Entry
    """The journal's turn for "hey jarvis, set a timer for five seconds"."""
    ring: Entry
    stop: Entry
    """The journal's stop_word event."""
    stop_turn: Entry
    rings_after: list[Entry]
    """Ring entries after the stop, over more than a repeat interval."""
    before_stop: list[Entry]
    """stop_word events before the person said stop (the hub's own voice must cause none)."""


@pytest.fixture(scope="module")
def stopped(pulse: Pulse, journal: Journal, speech: SpeechMaker,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stopped]:
    tmp_path = tmp_path_factory.mktemp("stop_words")
    config, state = _config(tmp_path, f"asr:\n  engine: whisper\nconversation:\n  follow_up: never\n"
                                      f"skills:\n  timer_repeat_interval_s: {REPEAT_INTERVAL_S}\n")
    pulse.start()
    daemon = _start(tmp_path, "stop", config, state, pulse)
    try:
        daemon.wait(lambda ls: "READY=1" in ls, LOAD_WAIT_S)
        daemon.wait(listening)
        pid = daemon.proc.pid
        pulse.play(speech.join([speech("hey jarvis"), 0.4, speech("set a timer for five seconds"), 1.0]))
        set_turn = journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "turn", pid=pid, timeout=SLOW_WAIT_S)[0]
        ring = journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "ring", pid=pid, timeout=SLOW_WAIT_S)[0]
        time.sleep(AFTER_RING_S)
        before = journal.entries(pid=pid, match={"APPLIANCE_EVENT": "stop_word"})
        pulse.play(speech.join([speech("stop"), 0.8]))
        stop = journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "stop_word", pid=pid, timeout=SLOW_WAIT_S)[0]
        stop_turn = journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "turn" and e.get("WAKE_WORD") == "stop_word",
                                     pid=pid, timeout=SLOW_WAIT_S)[0]
        time.sleep(REPEAT_INTERVAL_S + 4.0)
        rings = journal.entries(pid=pid, match={"APPLIANCE_EVENT": "ring"})
        yield Stopped(set_turn, ring, stop, stop_turn, rings[1:], before)
    finally:
        _stop(daemon)


def test_the_timer_was_set_by_voice_and_rang(stopped: Stopped) -> None:
    assert stopped.set_turn.get("INTENT", "").startswith("timer"), stopped.set_turn
    assert stopped.ring


def test_the_hubs_own_voice_and_ringing_stopped_nothing(stopped: Stopped) -> None:
    assert stopped.before_stop == []


def test_a_plain_stop_between_the_repeats_is_journaled(stopped: Stopped) -> None:
    assert stopped.stop.get("STOPPED") == "ringing", stopped.stop
    assert stopped.stop_turn.get("INTENT") == "stop" and stopped.stop_turn.get("OUTCOME") == "answered"


def test_the_timer_does_not_ring_again(stopped: Stopped) -> None:
    assert stopped.rings_after == []

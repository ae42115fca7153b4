"""A plain "stop" with no wake word: armed only while the hub speaks or rings, and it ends the answer or the ringing."""

from __future__ import annotations

import dataclasses

from appliance.assembly import load_stop_words
from appliance.config import Config
from appliance.conversation.conductor import State
from tests.fixtures.fakes import FakeChat, FakeStop, Harness, chunk
from tests.fixtures.waits import WAIT_S


def test_never_armed_or_fed_while_idle_so_it_cannot_wake_the_hub() -> None:
    stop = FakeStop()
    h = Harness(stop=stop)
    h.feed("SIL", "STOP", "SIL", "STOP")
    assert h.c.state is State.IDLE
    assert stop.arms == 0 and stop.seen == []
    assert h.records == [] and h.sink.played == []


def test_not_armed_while_listening_or_thinking() -> None:
    stop = FakeStop()
    h = Harness(stop=stop, chat=FakeChat("One. Two. Three.", delay_s=0.05))
    h.feed("WAKE", "SAY:what is the capital")
    assert h.c.state is State.LISTENING and not stop.armed
    h.feed("SAY:of France", "SIL", "SIL")
    h.wait(lambda: h.c.state is State.SPEAKING)
    assert stop.armed  # armed once it speaks
    h.wait_idle()
    assert not stop.armed and [r.outcome for r in h.records] == ["answered"]


def test_a_plain_stop_while_speaking_stops_the_answer_and_is_journaled() -> None:
    stop = FakeStop()
    h = Harness(stop=stop, chat=FakeChat("One. Two. Three. Four. Five. Six. Seven. Eight.", delay_s=0.05))
    h.ask()
    h.wait(lambda: h.c.state is State.SPEAKING)
    assert stop.armed
    h.feed("STOP")
    assert h.c.state is State.IDLE and not stop.armed
    assert h.chat.cancelled.wait(WAIT_S)
    assert "stop" in h.sink.events  # the speaker was stopped in the same tick
    cancelled, stopped = h.records
    assert cancelled.outcome == "cancelled" and cancelled.route == "llm"
    assert (stopped.wake_word, stopped.transcript, stopped.intent, stopped.outcome) == \
        ("stop_word", "stop", "stop", "answered")
    (event,) = [f for name, f in h.events if name == "stop_word"]
    assert event["stop_word"] == "stop" and event["stopped"] == "speaking"
    assert event["turn_id"] == stopped.turn_id == 2
    h.feed("WAKE")  # the hub listens for the wake word again at once
    assert h.c.state is State.LISTENING


def test_a_plain_stop_silences_a_ringing_timer() -> None:
    stop = FakeStop()
    h = Harness(stop=stop)
    h.timers.pending = ["Your 5 minute timer is done."]
    h.feed("SIL")
    assert h.c.state is State.SPEAKING and stop.armed  # ringing
    h.feed("STOP")
    assert h.c.state is State.IDLE and not stop.armed
    assert h.skills.rooms == [""]  # the stop skill was asked: it acknowledges the ringing timers
    (stopped,) = h.records  # the ringing itself is not a turn; the stop is
    assert stopped.intent == "stop" and stopped.route == "skill"
    (event,) = [f for name, f in h.events if name == "stop_word"]
    assert event["stopped"] == "ringing"


def captured(text: str, at: float):  # type: ignore[no-untyped-def]
    """A chunk as the microphone gives it: stamped with when it was captured."""
    return dataclasses.replace(chunk(text), captured_at=at)


def test_the_question_itself_is_never_a_stop_however_late_it_is_read() -> None:
    stop = FakeStop()
    h = Harness(stop=stop, chat=FakeChat("One. Two. Three. Four. Five. Six. Seven. Eight.", delay_s=0.05))
    h.feed("WAKE")
    for k, text in enumerate(["SAY:what is the capital", "SAY:of France", "SIL", "SIL"]):
        h.clock.t += 0.08
        h.c.tick(captured(text, 500.0 + 0.08 * k), h.clock.t)  # as the microphone captured them
    h.wait(lambda: h.c.state is State.SPEAKING)
    h.clock.t += 0.08  # the question's own audio, read late by a busy loop
    h.c.tick(captured("STOP", 500.0 + 0.08), h.clock.t)
    assert h.c.state is State.SPEAKING and "STOP" not in stop.seen
    h.clock.t += 0.08  # said over the answer
    h.c.tick(captured("STOP", 500.0 + 0.08 * 5), h.clock.t)
    assert h.c.state is State.IDLE and stop.seen == ["STOP"]
    assert [r.outcome for r in h.records] == ["cancelled", "answered"]


def test_a_stop_over_a_ringing_chime_counts_before_its_words_sound() -> None:
    stop = FakeStop()
    h = Harness(stop=stop)
    h.timers.pending = ["Your 5 minute timer is done."]
    h.feed("SIL")
    assert h.c.state is State.SPEAKING and stop.armed
    h.clock.t += 0.08
    h.c.tick(captured("STOP", h.clock.t - 1.0), h.clock.t)
    assert h.c.state is State.IDLE and stop.seen[-1] == "STOP"


def test_a_stop_heard_after_playback_ended_does_nothing() -> None:
    stop = FakeStop()
    h = Harness(stop=stop, chat=FakeChat("One.", delay_s=0.0))
    h.ask()
    h.wait_idle()
    h.feed("STOP", "STOP")
    assert h.c.state is State.IDLE and not stop.armed
    assert [r.outcome for r in h.records] == ["answered"]
    assert not [name for name, _ in h.events if name == "stop_word"]


def test_a_failing_detector_is_reported_and_the_answer_goes_on() -> None:
    class Broken(FakeStop):
        def process(self, c):  # type: ignore[no-untyped-def]
            raise RuntimeError("onnx session broke")

    stop = Broken()
    h = Harness(stop=stop, chat=FakeChat("One. Two.", delay_s=0.02))
    h.ask()
    h.wait(lambda: h.c.state is State.SPEAKING)
    h.feed("SIL")
    h.wait_idle()
    assert [r.outcome for r in h.records] == ["answered"]
    assert any(name == "error" and f["stage"] == "stop" for name, f in h.events)


def test_the_switch_off_builds_no_detector() -> None:
    cfg = Config()
    off = dataclasses.replace(cfg, wake=dataclasses.replace(cfg.wake, stop_words=False))
    assert load_stop_words(off, None) is None  # type: ignore[arg-type]
    assert cfg.wake.stop_words is True


def test_between_a_timers_repeats_a_plain_stop_still_silences_it() -> None:
    stop = FakeStop()
    h = Harness(stop=stop)
    h.timers.pending = ["Your 5 minute timer is done."]
    h.feed("SIL")
    h.wait_idle()  # the announcement was said; the timer rings again after the repeat interval
    assert stop.armed
    h.feed("SIL", "STOP")
    assert h.c.state is State.IDLE and not stop.armed
    (stopped,) = h.records
    assert stopped.intent == "stop" and h.skills.rooms == [""]
    (event,) = [f for name, f in h.events if name == "stop_word"]
    assert event["stopped"] == "ringing"


def test_once_the_repeat_interval_has_passed_with_no_ring_it_is_disarmed() -> None:
    stop = FakeStop()
    h = Harness(stop=stop)
    h.timers.pending = ["Your 5 minute timer is done."]
    h.feed("SIL")
    h.wait_idle()
    assert stop.armed
    h.clock.t += h.cfg.skills.timer_repeat_interval_s + 5  # acknowledged elsewhere, or rung out: no repeat
    h.feed("SIL")
    assert not stop.armed
    seen = len(stop.seen)
    h.feed("STOP")
    assert len(stop.seen) == seen and h.records == []  # idle again: not even looked at


def test_a_wake_word_between_repeats_disarms_it_for_the_question() -> None:
    stop = FakeStop()
    h = Harness(stop=stop)
    h.timers.pending = ["Your 5 minute timer is done."]
    h.feed("SIL")
    h.wait_idle()
    h.feed("WAKE")
    assert h.c.state is State.LISTENING and not stop.armed


def test_the_detector_is_told_what_the_hub_says_and_rings() -> None:
    stop = FakeStop()
    h = Harness(stop=stop, chat=FakeChat("One. Two. Three.", delay_s=0.01))
    h.ask()
    h.wait_idle()
    assert stop.said == ["One.", "Two.", "Three."]
    ring = FakeStop()
    h = Harness(stop=ring)
    h.timers.pending = ["Your 5 minute timer is done."]
    h.feed("SIL")
    assert ring.armed and ring.said[:1] == ["Your 5 minute timer is done."]

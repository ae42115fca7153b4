"""A timer that ends in the middle of an answer is announced after the current sentence."""

from __future__ import annotations

from appliance.conversation.conductor import State
from tests.fixtures.fakes import FakeChat, Harness
from tests.fixtures.waits import wait_for


def test_timer_due_mid_answer_is_spoken_after_the_current_sentence() -> None:
    h = Harness(chat=FakeChat("One is first. Two is second. Three is third.", delay_s=0.05))
    h.ask()
    wait_for(lambda: "One is first." in h.tts.texts, "the answer to begin to be spoken",
             between=lambda: h.c.tick(None, h.clock.t))
    h.clock.t += 1.0  # past the next look at the timers
    h.timers.pending = ["Your pasta timer is done."]
    h.wait_idle()
    texts = h.tts.texts
    assert "Your pasta timer is done." in texts
    at = texts.index("Your pasta timer is done.")
    assert 0 < at < len(texts) - 1, texts  # between two sentences of the answer, not after it
    (rec,) = h.records
    assert rec.answer == "One is first. Two is second. Three is third."  # not part of the answer
    assert h.c.state is State.IDLE and h.timers.pending == []

"""Preemptive answers: started from the early transcript, heard only once the question is confirmed over."""

from __future__ import annotations

import dataclasses
import time

from appliance.config import Config
from appliance.conversation.conductor import State
from appliance.language import pack
from tests.fixtures.fakes import (
    FakeChat,
    FakeSink,
    cfg_with,
    early_harness,
)
from tests.fixtures.waits import WAIT_S, wait_for

REPLIES = pack().replies


def answer_played(sink: FakeSink) -> list[str]:
    return [p for p in sink.played if p.startswith("TTS:")]


def test_the_answer_starts_early_but_is_heard_only_after_the_endpoint() -> None:
    h = early_harness()
    h.feed("WAKE", "SAY:what is the capital", "SAY:of France", "SIL")  # one chunk of pause: early text
    assert h.c.state is State.LISTENING and h.c.answers.early.counts["started"] == 1
    wait_for(lambda: len(h.tts.texts) == 2, "the early answer to be synthesized")
    assert h.chat.questions == ["what is the capital of France"]
    assert answer_played(h.sink) == []  # synthesized and held back: the question may not be over
    h.feed("SIL")  # the endpoint confirms the same words
    h.wait_idle()
    assert answer_played(h.sink) == ["TTS:Paris is the capital.#1", "TTS:Paris is the capital.#2",
                                     "TTS:It is in France.#1", "TTS:It is in France.#2"]
    assert h.chat.questions == ["what is the capital of France"]  # asked once, not again
    assert h.c.answers.early.counts == {"started": 1, "used": 1, "dropped": 0} and h.chat.forgotten == []
    (rec,) = h.records
    assert rec.outcome == "answered" and rec.preemptive and rec.route == "llm"
    assert rec.early_at is not None and rec.early_at < rec.transcript_at  # started a chunk before the end
    assert rec.answer == "Paris is the capital. It is in France."
    assert rec.journal_fields()["PREEMPTIVE"] == "1"
    t = rec.timings_ms()
    terms = [t["speech_end_to_transcript"], t["transcript_to_first_token"], t["first_token_to_first_sentence"],
             t["first_sentence_to_first_audio"]]
    assert all(v is not None and v >= 0 for v in terms), t  # every term runs between marks as they happened
    # The model's term starts at the early transcript, so the terms overlap the confirmation wait once.
    overlap = (rec.transcript_at - rec.early_at) * 1000.0
    assert abs(sum(terms) - overlap - t["speech_end_to_first_audio"]) < 1.0


def test_speech_after_the_pause_drops_the_early_answer_unheard_and_forgets_it() -> None:
    h = early_harness(chat=FakeChat("Paris is the capital. It is in France.", delay_s=0.01))
    h.feed("WAKE", "SAY:what is the capital", "SIL")
    assert h.c.answers.early.counts["started"] == 1
    h.feed("SAY:of France")  # the person goes on
    assert h.c.answers.early.counts["dropped"] == 1
    wait_for(lambda: h.chat.forgotten == ["what is the capital"], "the chat to forget the dropped turn")
    h.feed("SIL", "SIL")
    h.wait_idle()
    assert h.chat.questions == ["what is the capital", "what is the capital of France"]
    (rec,) = h.records
    assert rec.transcript == "what is the capital of France" and rec.answer == "Paris is the capital. It is in France."
    # Only the confirmed question's answer was heard, once.
    assert answer_played(h.sink) == ["TTS:Paris is the capital.#1", "TTS:Paris is the capital.#2",
                                     "TTS:It is in France.#1", "TTS:It is in France.#2"]
    assert h.c.answers.early.counts == {"started": 2, "used": 1, "dropped": 1}


def test_different_final_words_drop_the_early_answer() -> None:
    h = early_harness()
    h.asr.final_suffix = " please"
    h.ask()
    h.wait_idle()
    assert h.c.answers.early.counts["dropped"] == 1 and h.c.answers.early.counts["used"] == 0
    assert h.chat.questions == ["what is the capital of France", "what is the capital of France please"]
    assert h.chat.forgotten == ["what is the capital of France"]
    assert h.records[0].transcript.endswith("please") and not h.records[0].preemptive
    assert len(answer_played(h.sink)) == 4  # one answer heard


def test_a_local_skill_answer_drops_the_early_answer() -> None:
    h = early_harness()
    h.feed("WAKE", "SAY:what time is it", "SIL", "SIL")
    h.wait_idle()
    assert h.records[0].route == "skill" and h.c.answers.early.counts["dropped"] == 1
    # Only the skill's answer is heard: the early one may still be synthesizing, but its Gate is shut.
    assert answer_played(h.sink) == ["TTS:It's 7:20 PM.#1", "TTS:It's 7:20 PM.#2"]


def test_preemptive_off_waits_for_the_endpoint() -> None:
    h = early_harness(cfg_with(preemptive=False))
    h.feed("WAKE", "SAY:what is the capital", "SAY:of France", "SIL")
    time.sleep(0.05)
    assert h.chat.questions == [] and h.c.answers.early.counts["started"] == 0
    h.feed("SIL")
    h.wait_idle()
    assert h.records[0].outcome == "answered" and not h.records[0].preemptive


def test_a_time_limit_while_the_early_answer_waits_drops_it() -> None:
    h = early_harness()
    h.feed("WAKE", "SAY:blah", "SIL")
    assert h.c.answers.early.counts["started"] == 1
    h.feed(*["SAY:blah"] * round((h.cfg.conversation.listen_timeout_s + 1) / 0.08))
    h.wait_idle()
    assert h.records[0].outcome == "timeout" and h.c.answers.early.counts["dropped"] == 1
    assert answer_played(h.sink) == [f"TTS:{REPLIES.timeout_apology}#1", f"TTS:{REPLIES.timeout_apology}#2"]  # only the apology
    assert not any("Paris" in p for p in h.sink.played)


def test_stop_during_an_early_answer_cancels_it() -> None:
    h = early_harness(chat=FakeChat("One. Two. Three.", delay_s=0.05))
    h.feed("WAKE", "SAY:count", "SIL")
    h.c.stop()
    h.c.run()  # returns at once: stop was asked for; the turn is recorded as cancelled
    assert h.c.answers.early.counts["dropped"] == 1 and h.chat.cancelled.wait(WAIT_S)
    assert answer_played(h.sink) == []




def test_early_silence_must_be_shorter_than_the_endpoint(tmp_path) -> None:
    from appliance.config import ConfigError, load

    path = tmp_path / "a.yaml"
    path.write_text("asr:\n  endpoint_silence_s: 0.4\n  early_silence_s: 0.5\n")
    try:
        load(path)
    except ConfigError as exc:
        assert "asr.early_silence_s" in str(exc) and "less than asr.endpoint_silence_s" in str(exc)
    else:
        raise AssertionError("an early silence longer than the endpoint was accepted")
    path.write_text("asr:\n  early_silence_s: 0\n")
    assert load(path).asr.early_silence_s == 0
    assert dataclasses.replace(Config()).conversation.preemptive

"""The conductor's state machine with fake stages: transitions, barge-in, follow-ups, limits, errors."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from appliance.config import Config
from appliance.conversation.conductor import State
from appliance.conversation.turn import TIMING_KEYS
from appliance.language import pack
from tests.fixtures.fakes import QUESTION, FakeChat, Harness, cfg_with, chunk
from tests.fixtures.waits import WAIT_S, wait_for

REPLIES = pack().replies


def test_wake_word_starts_listening_with_earcon_and_preroll() -> None:
    h = Harness()
    h.feed("SIL", "SIL", "WAKE")
    assert h.c.state is State.LISTENING
    assert h.sink.played == ["EARCON:wake"]
    assert h.asr.prerolls == [["SIL", "SIL", "WAKE"]]
    assert h.events[0][0] == "wake" and h.events[0][1]["wake_word"] == "hey_jarvis"


def test_silence_stays_idle() -> None:
    h = Harness()
    h.feed("SIL", "SIL", "SIL")
    assert h.c.state is State.IDLE and h.sink.played == [] and h.asr.prerolls == []
    assert all(threshold is None for _, threshold in h.wake.calls)  # the normal threshold when idle


def test_llm_turn_goes_through_every_state_and_records_timings() -> None:
    h = Harness()
    h.ask()
    h.wait_idle()
    assert h.states == [State.LISTENING, State.THINKING, State.SPEAKING, State.IDLE]
    assert h.chat.questions == ["what is the capital of France"]
    assert h.tts.texts == ["Paris is the capital.", "It is in France."]
    assert h.sink.played[1:] == ["TTS:Paris is the capital.#1", "TTS:Paris is the capital.#2",
                                 "TTS:It is in France.#1", "TTS:It is in France.#2"]
    (rec,) = h.records
    assert (rec.outcome, rec.route, rec.wake_word) == ("answered", "llm", "hey_jarvis")
    assert rec.answer == "Paris is the capital. It is in France."
    timings = rec.timings_ms()
    assert set(timings) == set(TIMING_KEYS) and all(v is not None for v in timings.values()), timings
    # The fake ASR reports speech ending two chunks (160 ms) before the transcript.
    assert timings["speech_end_to_transcript"] == pytest.approx(160.0, abs=1.0)
    fields = rec.journal_fields()
    assert fields["LLM_TOKENS"] == "8" and fields["PROMPT_TOKENS"] == "40" and fields["CACHED_TOKENS"] == "30"
    assert "TRANSCRIPT" not in fields and rec.journal_fields(with_text=True)["TRANSCRIPT"] == rec.transcript
    assert h.wake.resets >= 1  # the turn's audio cannot fire the next wake
    # ... and its refractory time (counted only over frames heard while idle) is over with the turn
    assert h.wake.new_streams >= 1


def test_skill_answers_without_the_language_model() -> None:
    h = Harness()
    h.feed("WAKE", "SAY:what time is it", "SIL", "SIL")
    h.wait_idle()
    (rec,) = h.records
    assert (rec.route, rec.intent, rec.outcome, rec.answer) == ("skill", "time", "answered", "It's 7:20 PM.")
    assert h.chat.questions == []
    assert h.tts.texts == ["It's 7:20 PM."]


def test_stop_skill_ends_the_turn_in_silence() -> None:
    h = Harness(cfg_with(follow_up="always"))
    h.feed("WAKE", "SAY:stop", "SIL", "SIL")
    h.wait_idle()
    assert h.records[0].intent == "stop" and h.records[0].outcome == "answered"
    assert h.tts.texts == [] and h.c.state is State.IDLE


def test_skills_disabled_sends_everything_to_the_model() -> None:
    base = Config()
    h = Harness(dataclasses.replace(base, skills=dataclasses.replace(base.skills, enabled=False)))
    h.feed("WAKE", "SAY:what time is it", "SIL", "SIL")
    h.wait_idle()
    assert h.records[0].route == "llm" and h.chat.questions == ["what time is it"]


def test_no_speech_after_wake_word_goes_back_to_idle() -> None:
    h = Harness()
    h.asr.no_speech_chunks = 3
    h.feed("WAKE", "SIL", "SIL", "SIL")
    assert h.c.state is State.IDLE
    assert h.records[0].outcome == "no_speech" and h.chat.questions == [] and h.tts.texts == []


def test_follow_up_after_a_question_needs_no_wake_word() -> None:
    h = Harness(chat=FakeChat("Which city do you mean?"))
    h.ask()
    h.wait(lambda: h.c.state is State.FOLLOW_UP)
    assert len(h.records) == 1
    h.clock.t += 1.0  # past the echo guard
    h.feed("SAY:Paris please", "SIL", "SIL")
    assert h.c.state in (State.THINKING, State.SPEAKING)
    assert h.asr.prerolls[-1] == []  # no audio from while it was speaking
    h.wait(lambda: len(h.records) == 2)
    second = h.records[1]
    assert second.follow_up and second.wake_word is None and second.transcript == "Paris please"
    assert second.journal_fields()["WAKE_WORD"] == "follow_up"


def test_follow_up_ignores_the_echo_right_after_speaking() -> None:
    h = Harness(chat=FakeChat("Which city do you mean?"))
    h.ask()
    h.wait(lambda: h.c.state is State.FOLLOW_UP)
    h.feed("SAY:echo of its own voice")  # within ECHO_TAIL_S of the end of playback
    assert h.c._utt.words == []


def test_follow_up_times_out_without_speech() -> None:
    h = Harness(chat=FakeChat("Which city do you mean?"))
    h.ask()
    h.wait(lambda: h.c.state is State.FOLLOW_UP)
    h.clock.t += h.cfg.conversation.follow_up_s + 0.1
    h.feed("SIL")
    assert h.c.state is State.IDLE and len(h.records) == 1


def test_follow_up_never_and_always() -> None:
    never = Harness(cfg_with(follow_up="never"), chat=FakeChat("Which city?"))
    never.ask()
    never.wait_idle()
    assert State.FOLLOW_UP not in never.states
    always = Harness(cfg_with(follow_up="always"), chat=FakeChat("It is Paris."))
    always.ask()
    always.wait(lambda: always.c.state is State.FOLLOW_UP)


def test_barge_in_cancels_generation_and_playback_at_once() -> None:
    h = Harness(chat=FakeChat("One. Two. Three. Four. Five. Six. Seven. Eight.", delay_s=0.05))
    h.ask()
    h.wait(lambda: h.c.state is State.SPEAKING)
    h.feed("BARGE")
    # Within the same tick that heard the wake word: the speaker was stopped and the model cancelled.
    stop_at = len(h.sink.events) - 1 - h.sink.events[::-1].index("stop")
    assert h.chat.cancelled.wait(WAIT_S)
    assert h.c.state is State.LISTENING
    assert h.records[0].outcome == "cancelled"
    assert h.sink.events[stop_at + 1:] == ["play:EARCON:wake"]  # nothing of the old answer after the stop
    assert "BARGE" in h.asr.prerolls[-1]
    h.feed("SAY:stop", "SIL", "SIL")
    h.wait_idle()
    assert h.records[1].intent == "stop"


@pytest.mark.parametrize("heard", ["start", "of Scott"])
def test_a_word_or_two_nothing_reads_after_interrupting_the_answer_ends_it_in_silence(heard: str) -> None:
    """A "stop" said under the answer and misheard must not go to the model, which took "start." for a
    request to go on and said its whole answer over again."""
    h = Harness(chat=FakeChat("One. Two. Three. Four. Five. Six. Seven. Eight.", delay_s=0.05))
    h.ask()
    h.wait(lambda: h.c.state is State.SPEAKING)
    h.feed("BARGE", f"SAY:{heard}", "SIL", "SIL")
    h.wait_idle()
    assert h.chat.questions == ["what is the capital of France"]  # the first question only
    interrupted = h.records[1]
    assert (interrupted.outcome, interrupted.intent, interrupted.answer) == ("answered", "nevermind", "")
    assert interrupted.journal_fields()["INTERRUPTED"] == "1" and "INTERRUPTED" not in h.records[0].journal_fields()
    assert "TTS:" not in "".join(h.sink.played[h.sink.played.index("EARCON:wake", 1):])  # nothing more was said


def test_a_question_after_interrupting_the_answer_and_a_short_one_asked_anew_go_to_the_model() -> None:
    h = Harness(chat=FakeChat("One. Two. Three. Four. Five. Six. Seven. Eight.", delay_s=0.05))
    h.ask()
    h.wait(lambda: h.c.state is State.SPEAKING)
    h.feed("BARGE", "SAY:how far is the moon", "SIL", "SIL")
    h.wait(lambda: len(h.chat.questions) == 2)
    h.wait_idle()
    h.feed("WAKE", "SAY:start", "SIL", "SIL")  # asked while the hub is quiet: not an interruption
    h.wait(lambda: len(h.chat.questions) == 3)
    h.wait_idle()
    assert h.chat.questions == ["what is the capital of France", "how far is the moon", "start"]
    assert [r.interrupted for r in h.records] == [False, True, False]


def test_barge_in_uses_the_higher_threshold_so_its_own_voice_cannot_wake_it() -> None:
    h = Harness(chat=FakeChat("One. Two. Three.", delay_s=0.02))
    h.ask()
    h.wait(lambda: h.c.state in (State.THINKING, State.SPEAKING))
    h.feed("ECHO", "ECHO", "WAKE")  # 0.52 and 0.55: above the idle threshold, below barge_in_threshold
    h.wait_idle()
    assert [r.outcome for r in h.records] == ["answered"]
    answering = [t for (lbl, t) in h.wake.calls if lbl in ("ECHO",)]
    assert answering and all(t == h.cfg.wake.barge_in_threshold for t in answering)


@pytest.mark.parametrize("answer, barged", [
    ("Say hey Jarvis, then your question. Two. Three. Four. Five. Six. Seven. Eight.", False),
    ("Say hey-jarvis and ask. Two. Three. Four. Five. Six. Seven. Eight.", False),
    ("Jarvis was a butler. Two. Three. Four. Five. Six. Seven. Eight.", True),  # the name alone is not the phrase
])
def test_an_answer_that_says_the_wake_phrase_is_not_interrupted_by_it(answer: str, barged: bool) -> None:
    h = Harness(chat=FakeChat(answer, delay_s=0.05))
    h.ask()
    h.wait(lambda: len(h.tts.texts) >= 2)
    h.feed("SIL", "BARGE")  # a tick that takes in the sentences written so far, then the wake word
    assert (h.c.state is State.LISTENING) is barged, h.c.state
    if barged:
        h.feed("SAY:stop", "SIL", "SIL")
    h.wait_idle()
    assert h.records[0].outcome == ("cancelled" if barged else "answered")
    if not barged:  # the next answer, without the phrase, can be interrupted again
        h.chat.answer = "One. Two. Three. Four. Five. Six. Seven. Eight."
        h.ask()
        h.wait(lambda: h.c.state is State.SPEAKING)
        h.feed("BARGE")
        assert h.c.state is State.LISTENING


def speech_for(seconds: float) -> list[str]:
    """SAY chunks (80 ms each) for `seconds` of someone talking on."""
    return ["SAY:blah"] * round(seconds / 0.08)


def test_a_question_that_goes_on_past_the_listening_limit_times_out() -> None:
    h = Harness()
    h.feed("WAKE", *speech_for(h.cfg.conversation.listen_timeout_s - 1))
    assert h.c.state is State.LISTENING
    h.feed(*speech_for(2))
    h.wait_idle()
    assert h.records[0].outcome == "timeout"
    assert "over 20 s" in h.records[0].error
    assert "EARCON:error" in h.sink.played and h.tts.texts == [REPLIES.timeout_apology]


def test_a_recognizer_slower_than_the_listening_limit_is_waited_for_within_the_turn() -> None:
    """A slow CPU: the question ended, its transcript comes after listen_timeout_s of wall time."""
    h = Harness()
    h.asr.hold_final = True
    h.ask()
    assert h.c.state is State.LISTENING
    h.clock.t += h.cfg.conversation.listen_timeout_s + 5
    h.feed("SIL")
    assert h.c.state is State.LISTENING
    h.asr.hold_final = False
    h.wait_idle()
    assert h.records[0].outcome == "answered" and "Paris" in h.records[0].answer


def test_a_recognizer_that_never_ends_is_held_to_the_turn_limit() -> None:
    h = Harness()
    h.asr.hold_final = True
    h.ask()
    h.clock.t += h.cfg.conversation.turn_timeout_s + 1
    h.feed("SIL")
    h.wait_idle()
    assert h.records[0].outcome == "timeout" and "turn took over" in h.records[0].error


def test_thinking_time_limit_cancels_a_hung_model() -> None:
    h = Harness()
    h.chat.hang.set()
    h.ask()
    h.clock.t += h.cfg.conversation.think_timeout_s + 1
    h.wait_idle()
    assert h.chat.cancelled.is_set()
    assert h.records[0].outcome == "timeout" and h.tts.texts == [REPLIES.timeout_apology]


def test_thinking_earcon_plays_once_while_waiting() -> None:
    h = Harness()
    h.chat.hang.set()
    h.ask()
    h.clock.t += h.cfg.conversation.thinking_earcon_s + 0.1
    h.feed("SIL", "SIL")
    assert h.sink.played.count("EARCON:thinking") == 1
    h.c.stop()


def test_turn_time_limit_cuts_a_long_answer() -> None:
    h = Harness(chat=FakeChat(" ".join(f"Sentence {i}." for i in range(50)), delay_s=0.01))
    h.ask()
    h.wait(lambda: h.c.state is State.SPEAKING)
    h.clock.t += h.cfg.conversation.turn_timeout_s + 1
    h.wait_idle()
    assert h.records[0].outcome == "timeout"
    # What is heard last is the apology: a sentence of the cut answer its speech thread was still
    # synthesizing may come after it, but its gate is shut and it is never played.
    heard = [p.split("#")[0] for p in h.sink.played if p.startswith("TTS:")]
    assert heard[-1] == f"TTS:{REPLIES.timeout_apology}"
    assert h.chat.cancelled.wait(WAIT_S)


@pytest.mark.parametrize("stage", ["asr_start", "asr_feed", "skills", "chat_first", "chat_mid", "tts"])
def test_an_exception_in_a_stage_apologises_and_returns_to_idle(stage: str) -> None:
    h = Harness()
    if stage == "asr_start":
        h.asr.fail_start = True
    elif stage == "asr_feed":
        h.asr.fail_feed = True
    elif stage == "skills":
        h.skills.fail = True
    elif stage == "chat_first":
        h.chat.fail_after = 0
    elif stage == "chat_mid":
        h.chat.fail_after = 3
    elif stage == "tts":
        h.tts.fail = True  # fails for the answer; the apology then fails too
    h.feed("WAKE", "SAY:what is the capital", "SIL", "SIL")
    h.wait_idle()
    (rec,) = h.records
    assert rec.outcome == "error" and rec.error
    assert "EARCON:error" in h.sink.played
    if stage != "tts":
        assert h.tts.texts[-1] == REPLIES.apology
    errors = [f for name, f in h.events if name == "error"]
    assert errors and errors[0]["traceback"]
    # And the next question works.
    h.asr.fail_start = h.asr.fail_feed = h.skills.fail = h.tts.fail = False
    h.chat.fail_after = None
    h.ask()
    h.wait(lambda: len(h.records) == 2)
    assert h.records[1].outcome == "answered"


def test_a_broken_speaker_ends_the_turn_quietly() -> None:
    h = Harness()
    h.feed("WAKE")
    h.sink.fail_play = True
    h.feed("SAY:what is it", "SIL", "SIL")
    h.wait_idle()
    assert h.records[0].outcome == "error"


def test_a_failing_wake_detector_keeps_the_loop_turning() -> None:
    h = Harness()
    h.wake.fail = True
    h.feed("SIL", "WAKE")
    assert h.c.state is State.IDLE and [n for n, _ in h.events] == ["error", "error"]
    h.wake.fail = False
    h.feed("WAKE")
    assert h.c.state is State.LISTENING


def test_a_failing_microphone_read_keeps_the_loop_turning() -> None:
    h = Harness()
    h.source.raise_next = OSError("device gone")
    before = h.c.heartbeat
    h.c.step()
    h.source.chunks = [chunk("WAKE")]
    h.c.step()
    assert h.c.heartbeat == before + 2 and h.c.state is State.LISTENING
    assert h.events[0][1]["stage"] == "source"


def test_due_timers_are_announced_when_idle() -> None:
    h = Harness()
    h.timers.pending = ["Your 5 minute timer is done."]
    h.feed("SIL")
    h.wait_idle()
    assert h.sink.played[0] == "EARCON:timer" and h.tts.texts == ["Your 5 minute timer is done."]
    assert h.records == []  # an announcement is not a turn


def test_run_and_stop_from_another_thread() -> None:
    h = Harness(chat=FakeChat("One. Two. Three. Four.", delay_s=0.2))
    h.source.chunks = [chunk(x) for x in QUESTION]
    h.c.clock = time.monotonic
    thread = threading.Thread(target=h.c.run)
    thread.start()
    wait_for(lambda: h.c.state is State.SPEAKING, "the answer to be spoken")
    h.c.stop()
    thread.join(WAIT_S)
    assert not thread.is_alive()
    assert h.records[0].outcome == "cancelled" and h.chat.cancelled.wait(WAIT_S)


def test_freeze_hook_stops_the_heartbeat() -> None:
    h = Harness()
    h.c.freeze.set()
    thread = threading.Thread(target=h.c.run)
    thread.start()
    time.sleep(0.1)
    frozen = h.c.heartbeat
    time.sleep(0.2)
    assert h.c.heartbeat == frozen <= 1
    h.c.freeze.clear()
    wait_for(lambda: h.c.heartbeat > frozen + 2, "the heartbeat to go on")
    h.c.stop()
    thread.join(WAIT_S)
    assert not thread.is_alive()


def test_a_model_call_that_ignores_cancel_is_never_run_twice_at_once() -> None:
    h = Harness()
    h.chat.hang_hard.set()  # llama_decode hung: cancel is not seen
    h.ask()
    h.clock.t += h.cfg.conversation.think_timeout_s + 1
    h.wait_idle()
    assert h.records[0].outcome == "timeout"
    assert h.c.stuck_s() is not None  # the service's watchdog stops feeding after STUCK_LIMIT_S
    h.ask()  # the chat refuses a second call into the model while the first has not returned: an apology
    h.wait(lambda: len(h.records) == 2)
    assert h.records[1].outcome == "error" and "not returned from an earlier answer" in h.records[1].error
    assert h.chat.questions == ["what is the capital of France"] and h.chat.most_active == 1
    h.chat.hang_hard.clear()  # the call returns at last: the model is usable again
    h.wait(lambda: h.c.stuck_s() is None)
    h.ask()
    h.wait(lambda: len(h.records) == 3)
    assert h.records[2].outcome == "answered"

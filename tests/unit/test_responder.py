"""The one answer path: what its workers report, in what order, what is spoken, and the Gate to the speaker."""

from __future__ import annotations

import threading
import time

from appliance.conversation.gate import Gate
from appliance.conversation.responder import (
    Answer,
    Delta,
    Ended,
    Failed,
    FirstToken,
    ModelDone,
    Part,
    Responder,
    Sentence,
    Spoken,
    Update,
)
from tests.fixtures.fakes import FakeChat, FakeSink, FakeTts
from tests.fixtures.waits import WAIT_S, wait_for


def responder(chat: FakeChat | None = None, tts: FakeTts | None = None) -> Responder:
    from appliance.speaking.sentences import SentenceSplitter

    return Responder(chat or FakeChat(), tts or FakeTts(), SentenceSplitter, time.monotonic)


def collect(answer: Answer) -> list[Update]:
    """Every update until the answer is done."""
    seen: list[Update] = []
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        update = answer.next_update(0.05)
        if update is not None:
            seen.append(update)
        elif answer.done:
            return seen
    raise AssertionError(f"the answer did not end; seen {[type(u).__name__ for u in seen]}")


def texts(updates: list[Update], kind: type[Sentence | Delta] = Sentence) -> list[str]:
    return [u.text for u in updates if isinstance(u, kind)]


def test_the_model_answer_is_reported_in_order_and_spoken_sentence_by_sentence() -> None:
    tts, sink = FakeTts(), FakeSink()
    answer = responder(tts=tts).think("what is the capital of France", sink)
    updates = collect(answer)
    kinds = [type(u) for u in updates if not isinstance(u, Delta)]
    assert kinds[0] is FirstToken
    assert texts(updates) == ["Paris is the capital.", "It is in France."]
    assert kinds.index(ModelDone) > max(i for i, k in enumerate(kinds) if k is Sentence)
    assert kinds.index(Spoken) > kinds.index(ModelDone) and kinds[-1] is Ended
    assert [u.at for u in updates] == sorted(u.at for u in updates)  # timestamped as posted
    assert "".join(texts(updates, Delta)) == "Paris is the capital. It is in France."
    spoken = next(u for u in updates if isinstance(u, Spoken))
    assert spoken.first_audio_at is not None
    assert tts.texts == ["Paris is the capital.", "It is in France."]
    assert sink.played == ["TTS:Paris is the capital.#1", "TTS:Paris is the capital.#2",
                           "TTS:It is in France.#1", "TTS:It is in France.#2"]
    stats = next(u.stats for u in updates if isinstance(u, ModelDone))
    assert stats is not None and stats.tokens == 8


def test_text_is_cleaned_for_speech_once_and_what_is_spoken_is_what_is_reported() -> None:
    chat = FakeChat("**Paris** is the capital 🇫🇷. See https://example.com for more.\n- It is big.")
    tts = FakeTts()
    updates = collect(responder(chat, tts).think("capital?", FakeSink()))
    sentences = texts(updates)
    assert sentences == tts.texts  # the voice gets exactly what was reported, nothing cleaned again
    assert sentences[0] == "Paris is the capital." and sentences[-1] == "It is big."
    assert not any("*" in s or "http" in s or "🇫🇷" in s or s.startswith("-") for s in sentences)


def test_fixed_words_are_spoken_cleaned_through_the_same_path_without_the_model() -> None:
    tts, chat = FakeTts(), FakeChat()
    answer = responder(chat, tts).say(["It's **7:20** PM."], FakeSink())
    updates = collect(answer)
    assert texts(updates) == ["It's 7:20 PM."] == tts.texts
    assert chat.questions == [] and any(isinstance(u, Spoken) for u in updates) and answer.route == "skill"


def test_without_a_sink_the_answer_is_written_and_nothing_is_spoken() -> None:
    tts = FakeTts()
    updates = collect(responder(tts=tts).think("capital?", None))
    assert texts(updates) == ["Paris is the capital.", "It is in France."]
    assert tts.texts == [] and not any(isinstance(u, Spoken) for u in updates)


def test_a_failing_model_is_reported_then_the_answer_ends() -> None:
    chat = FakeChat()
    chat.fail_after = 2
    updates = collect(responder(chat).think("capital?", FakeSink()))
    errors = [u for u in updates if isinstance(u, Failed)]
    assert len(errors) == 1 and errors[0].part is Part.MODEL and "llama_decode" in str(errors[0].error)
    assert errors[0].traceback and "RuntimeError" in errors[0].traceback
    assert sorted(u.part.value for u in updates if isinstance(u, Ended)) == ["model", "speech"]


def test_stop_cuts_the_answer_off_the_speaker_at_once() -> None:
    chat = FakeChat("One. Two. Three. Four. Five.", delay_s=0.05)
    sink = FakeSink()
    answer = responder(chat).think("count", sink)
    wait_for(lambda: any(p.startswith("TTS:One") for p in sink.played), "the first sentence to be heard")
    answer.stop()
    heard = list(sink.played)
    assert chat.cancelled.wait(WAIT_S)
    collect(answer)
    assert sink.played == heard and "stop" in sink.events  # nothing of it after the stop


def test_the_chat_runs_one_answer_at_a_time_and_the_second_waits_for_the_first() -> None:
    chat = FakeChat("One. Two.", delay_s=0.05)
    r = responder(chat)
    first = r.think("first", FakeSink())
    wait_for(lambda: chat.active == 1, "the first answer to start")
    first.stop()
    second = r.think("second", FakeSink())
    assert texts(collect(second)) == ["One.", "Two."]
    assert chat.questions == ["first", "second"] and chat.most_active == 1


def test_gate_holds_audio_until_release_then_passes_it_through_in_order() -> None:
    sink, tts = FakeSink(), FakeTts()
    gate = Gate(sink, held=True, clock=time.monotonic)
    gate.mark_turn()
    for c in tts.synthesize("one"):
        gate.play(c)
    assert sink.played == [] and gate.first_audio_at() is None
    assert not gate.drain(0.01)  # nothing can play out before the release
    done = threading.Event()
    threading.Thread(target=lambda: (gate.drain(WAIT_S), done.set()), daemon=True).start()
    gate.release()
    assert done.wait(WAIT_S)
    for c in tts.synthesize("two"):
        gate.play(c)
    assert sink.played == ["TTS:one#1", "TTS:one#2", "TTS:two#1", "TTS:two#2"]
    assert gate.first_audio_at() is not None  # the turn mark was passed on at the release


def test_gate_stopped_before_release_leaves_the_speaker_alone_and_stays_shut() -> None:
    sink = FakeSink()
    gate = Gate(sink, held=True, clock=time.monotonic)
    for c in FakeTts().synthesize("one"):
        gate.play(c)
    gate.stop()
    gate.release()
    for c in FakeTts().synthesize("two"):
        gate.play(c)
    assert sink.played == [] and sink.events == []
    assert gate.drain(0.01)  # a shut gate has nothing left to play


def test_gate_stopped_after_release_stops_the_speaker_once() -> None:
    sink = FakeSink()
    gate = Gate(sink, held=False, clock=time.monotonic)
    for c in FakeTts().synthesize("one"):
        gate.play(c)
    gate.stop()
    gate.stop()
    for c in FakeTts().synthesize("two"):
        gate.play(c)
    assert sink.played == ["TTS:one#1", "TTS:one#2"] and sink.events.count("stop") == 1

"""The early answer (early.EarlyAnswer): started on the early transcript with its audio held, heard when the
confirmed words are the same, else dropped unheard and taken back out of the model's history."""

from __future__ import annotations

import time

from appliance.contracts import Transcript
from appliance.conversation.early import EarlyAnswer, same_words
from appliance.conversation.responder import Answer, Responder
from appliance.speaking.sentences import SentenceSplitter
from tests.fixtures.fakes import FakeChat, FakeSink, FakeTts
from tests.fixtures.waits import WAIT_S


def until_done(answer: Answer) -> None:
    deadline = time.monotonic() + WAIT_S
    while not answer.done and time.monotonic() < deadline:
        answer.next_update(0.05)
    assert answer.done


def early_answer(chat: FakeChat) -> EarlyAnswer:
    return EarlyAnswer(Responder(chat, FakeTts(), SentenceSplitter, time.monotonic), prefill=False, preemptive=True)


def test_an_early_answer_with_the_confirmed_words_is_heard() -> None:
    chat, sink = FakeChat(), FakeSink()
    early = early_answer(chat)
    early.follow(sink, Transcript("What is the capital of France", "early"))
    taken = early.take("what is the capital of  France")
    assert taken is not None
    until_done(taken)
    assert sink.played[0] == "TTS:Paris is the capital.#1" and chat.forgotten == []
    assert early.counts == {"started": 1, "used": 1, "dropped": 0}


def test_an_early_answer_that_heard_other_words_is_dropped_unheard_and_forgotten() -> None:
    chat, sink = FakeChat(), FakeSink()
    early = early_answer(chat)
    early.follow(sink, Transcript("What is the capital", "early"))
    assert early.take("What is the capital of France") is None
    dropped = early.drop("the final transcript differs")
    assert dropped is not None
    until_done(dropped)
    assert sink.played == [] and chat.forgotten == ["What is the capital"]


def test_the_person_going_on_after_the_pause_drops_the_early_answer() -> None:
    chat, sink = FakeChat(), FakeSink()
    early = early_answer(chat)
    early.follow(sink, Transcript("What is the capital", "early"))
    dropped = early.follow(sink, None, "what is the capital of", speaking=True)
    assert dropped is not None and early.pending is None
    until_done(dropped)
    assert sink.played == [] and chat.forgotten == ["What is the capital"]
    assert early.counts == {"started": 1, "used": 0, "dropped": 1}


def test_nothing_starts_early_unless_preemptive() -> None:
    chat = FakeChat()
    early = EarlyAnswer(Responder(chat, FakeTts(), SentenceSplitter, time.monotonic), prefill=False, preemptive=False)
    assert early.follow(FakeSink(), Transcript("What is the capital of France", "early")) is None
    assert early.pending is None and chat.questions == []


def test_same_words() -> None:
    assert same_words("What is  the time", "what is the time")
    assert not same_words("what is the time", "what is the time please")

"""The chat model with SmolLM2: answers, context budget, prefix reuse, cancel, idle reset, limits,
one answer at a time in the context."""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Callable, Iterator
from typing import Any, Final

import pytest

from appliance.thinking.llm import TOO_LONG_REPLY, LlamaChat
from appliance.thinking.prompt import messages_for
from tests.fixtures.waits import SLOW_WAIT_S

TOPICS: Final = ["gardening", "trains", "the ocean", "bread", "mountains", "jazz", "bicycles", "rain",
                 "owls", "chess", "volcanoes", "tea", "bridges", "the moon", "honey bees"]
FILLER: Final = ("I have been thinking about {t} for a long while now, and my family keeps asking me "
                 "questions about {t} that I cannot answer, because every book about {t} says something "
                 "different and the people at the library were not sure either. ")


def ask(chat: LlamaChat, question: str) -> str:
    return "".join(chat.stream(question, threading.Event()))


def long_question(rng: random.Random) -> str:
    topic = rng.choice(TOPICS)
    return FILLER.format(t=topic) * rng.randint(2, 4) + f"What is the most interesting fact about {topic}?"


def test_capital_of_france_streams_paris(llm: LlamaChat) -> None:
    deltas = list(llm.stream("What is the capital of France?", threading.Event()))
    answer = "".join(deltas)
    assert "Paris" in answer
    assert len(deltas) > 1  # streamed piece by piece, not in one go
    stats = llm.last_stats
    assert stats.ttft_ms is not None and stats.ttft_ms > 0
    assert 0 < stats.tokens <= stats.max_new_tokens
    assert llm.turns[-1].assistant.strip() == answer.strip()  # the history keeps what was said
    assert stats.stop_reason in ("stop", "length")
    assert stats.tokens_per_s is not None and stats.tokens_per_s > 0


def test_system_prompt_is_cached_and_a_follow_up_reuses_the_first_turn(llm: LlamaChat) -> None:
    ask(llm, "What is the capital of France?")
    first = llm.last_stats
    # The system prompt was processed at load: the first question only processes its own tokens.
    assert llm.system_tokens > 20
    assert first.cached_prompt_tokens >= llm.system_tokens
    assert first.evaluated_prompt_tokens == first.prompt_tokens - first.cached_prompt_tokens
    ask(llm, "And what is the capital of Italy?")
    second = llm.last_stats
    assert second.history_turns == 1
    # The follow-up keeps the first question (and usually its answer) from the cache.
    first_question_end = llm.count_messages(messages_for(llm.system, [], "What is the capital of France?"))
    assert second.cached_prompt_tokens >= first_question_end - 1
    assert second.evaluated_prompt_tokens < second.prompt_tokens - llm.system_tokens
    # What was counted as cached is what llama.cpp kept: the KV cache holds exactly the tokens asked.
    prompt = llm.tokenize_messages(messages_for(llm.system, llm.turns[:-1], llm.turns[-1].user))
    assert llm._llama.input_ids[: second.cached_prompt_tokens].tolist() == prompt[: second.cached_prompt_tokens]


def test_thirty_long_turns_never_overflow_the_context(llm: LlamaChat) -> None:
    rng = random.Random(7)
    n_ctx = llm.cfg.n_ctx
    dropped_any = False
    original = llm.cfg
    # A shorter answer budget keeps 30 turns quick on a busy machine; the budget rule is the same.
    llm.cfg = dataclasses.replace(original, max_new_tokens=48)
    try:
        for i in range(30):
            dropped_any |= _long_turn(llm, long_question(rng), i, n_ctx)
    finally:
        llm.cfg = original
    assert dropped_any  # 30 long turns cannot all fit: the budget really was exercised
    assert 1 <= len(llm.turns) < 30


def _long_turn(llm: LlamaChat, question: str, i: int, n_ctx: int) -> bool:
    """One turn of the 30; True when older turns had to be dropped."""
    ask(llm, question)
    stats = llm.last_stats
    # The model's own tokenizer count of the prompt actually sent, plus the answer budget.
    prompt = llm.tokenize_messages(messages_for(llm.system, llm.turns[:-1], question))
    assert stats.prompt_tokens == len(prompt)
    assert stats.prompt_tokens + stats.max_new_tokens <= n_ctx, f"turn {i}"
    assert llm._llama.n_tokens <= n_ctx
    assert stats.tokens <= stats.max_new_tokens
    assert llm.turns[-1].user == question  # the newest turn is always whole and present
    return stats.history_turns < i


def test_cancel_stops_within_one_token(llm: LlamaChat) -> None:
    cancel = threading.Event()
    stream = llm.stream("Write a long story about a lighthouse keeper and his dog.", cancel)
    first = next(stream)
    assert first
    tokens_at_cancel = llm.last_stats.tokens
    cancel.set()
    after = list(stream)
    assert after == []
    assert llm.last_stats.stop_reason == "cancelled"
    assert llm.last_stats.tokens - tokens_at_cancel <= 1


def test_cancel_from_another_thread(llm: LlamaChat) -> None:
    cancel = threading.Event()
    got_first = threading.Event()
    seen: list[int] = []
    after_cancel: list[str] = []

    def consume() -> None:
        for delta in llm.stream("Tell me a long story about a dragon who loves gardening.", cancel):
            if cancel.is_set():
                after_cancel.append(delta)
            seen.append(llm.last_stats.tokens)
            got_first.set()

    worker = threading.Thread(target=consume, daemon=True)
    worker.start()
    assert got_first.wait(SLOW_WAIT_S)
    cancel.set()
    at_cancel = llm.last_stats.tokens
    worker.join(SLOW_WAIT_S)
    assert not worker.is_alive()
    assert llm.last_stats.stop_reason == "cancelled"
    assert llm.last_stats.tokens - at_cancel <= 1
    assert len(after_cancel) <= 1


def test_cancel_before_start_says_nothing(llm: LlamaChat) -> None:
    cancel = threading.Event()
    cancel.set()
    assert list(llm.stream("What is the capital of France?", cancel)) == []
    assert llm.last_stats.stop_reason == "cancelled" and llm.last_stats.tokens == 0


def test_idle_reset_forgets_the_conversation(llm: LlamaChat) -> None:
    now = [1000.0]
    llm.clock = lambda: now[0]
    llm.idle_reset_s = 300.0
    ask(llm, "My name is Zorblax.")
    now[0] += 299.0
    ask(llm, "What is my name?")
    assert llm.last_stats.history_turns == 1  # within the idle time: the name is in the prompt
    now[0] += 301.0
    ask(llm, "What is my name?")
    assert llm.last_stats.history_turns == 0  # idle too long: started afresh
    assert [t.user for t in llm.turns] == ["What is my name?"]
    # The system prompt is still cached after the reset.
    assert llm.last_stats.cached_prompt_tokens >= llm.system_tokens


def test_too_long_question_gets_a_short_spoken_reply(llm: LlamaChat) -> None:
    ask(llm, "What is the capital of France?")
    question = "please " * 1500 + "answer me?"
    deltas = list(llm.stream(question, threading.Event()))
    assert "".join(deltas) == TOO_LONG_REPLY
    stats = llm.last_stats
    assert stats.stop_reason == "too_long" and stats.tokens == 0
    assert stats.prompt_tokens + llm.cfg.max_new_tokens > llm.cfg.n_ctx
    assert [t.user for t in llm.turns] == ["What is the capital of France?"]  # not kept in the history
    assert "Paris" in ask(llm, "What is the capital of France?")  # and the chat carries on


def test_explain_gets_the_long_budget(llm: LlamaChat) -> None:
    ask(llm, "Explain how a steam engine works.")
    assert llm.last_stats.max_new_tokens == llm.cfg.max_new_tokens_long
    ask(llm, "What is the capital of France?")
    assert llm.last_stats.max_new_tokens == llm.cfg.max_new_tokens


def test_time_limit_ends_a_runaway_answer_cleanly(llm: LlamaChat) -> None:
    original = llm.cfg
    llm.cfg = dataclasses.replace(original, answer_timeout_s=0.05)  # below any real answer's length
    try:
        answer = ask(llm, "Tell me a long story about the sea.")
    finally:
        llm.cfg = original
    stats = llm.last_stats
    assert stats.stop_reason == "timeout"
    assert 1 <= stats.tokens < stats.max_new_tokens
    assert answer  # what was said so far is kept, and the chat carries on
    assert llm.turns[-1].assistant.strip() == answer.strip()


def test_house_facts_are_in_the_cached_system_prompt(llm: LlamaChat) -> None:
    base = llm.system_tokens
    llm.set_facts("The guest Wi-Fi network is called BlueMeadow.\nAnna and Ben live here.\n")
    assert "BlueMeadow" in llm.system
    assert llm.system_tokens > base
    answer = ask(llm, "What is the guest Wi-Fi network called?")
    assert llm.last_stats.cached_prompt_tokens >= llm.system_tokens  # facts were cached with the prompt
    assert "BlueMeadow" in answer or "Blue Meadow" in answer


def test_two_questions_at_once_take_turns_in_the_context(llm: LlamaChat,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    real = llm._llama.generate
    lock = threading.Lock()
    running = [0, 0]  # now, at most

    def counted(*args: Any, **kwargs: Any) -> Iterator[int]:
        with lock:
            running[0] += 1
            running[1] = max(running)
        try:
            yield from real(*args, **kwargs)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(llm._llama, "generate", counted)
    questions = ["What is the capital of France?", "What is the capital of Italy?"]
    answers: dict[str, str] = {}
    together = threading.Barrier(len(questions))

    def ask_together(question: str) -> None:
        together.wait(SLOW_WAIT_S)
        answers[question] = ask(llm, question)

    askers = [threading.Thread(target=ask_together, args=(q,), daemon=True) for q in questions]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join(SLOW_WAIT_S)
        assert not asker.is_alive()
    assert running == [0, 1]  # never two generations in the llama context at once
    assert "Paris" in answers[questions[0]] and "Rome" in answers[questions[1]]
    # The later answer is a normal follow-up: its prompt held the earlier turn, and the cache holds
    # exactly that prompt.
    turns, stats = llm.turns, llm.last_stats
    assert sorted(t.user for t in turns) == questions
    assert stats.history_turns == 1 and stats.stop_reason in ("stop", "length")
    prompt = llm.tokenize_messages(messages_for(llm.system, turns[:-1], turns[-1].user))
    assert stats.cached_prompt_tokens >= llm.system_tokens
    assert llm._llama.input_ids[: stats.cached_prompt_tokens].tolist() == prompt[: stats.cached_prompt_tokens]


def test_forget_during_a_real_answer_leaves_the_history_as_before(llm: LlamaChat) -> None:
    ask(llm, "What is the capital of France?")
    before = llm.turns
    question = "What do lighthouse keepers do all day?"
    first, forgotten = threading.Event(), threading.Event()
    deltas: list[str] = []

    def consume() -> None:
        for delta in llm.stream(question, threading.Event()):
            deltas.append(delta)
            first.set()
            forgotten.wait(SLOW_WAIT_S)  # the answer stays under way until forget() has returned

    worker = threading.Thread(target=consume, daemon=True)
    worker.start()
    assert first.wait(SLOW_WAIT_S)
    assert returns_at_once(lambda: llm.forget(question))
    forgotten.set()
    worker.join(SLOW_WAIT_S)
    assert not worker.is_alive()
    assert len(deltas) > 1 and llm.last_stats.stop_reason in ("stop", "length")  # it ran to its end
    assert llm.turns == before
    ask(llm, "And what is the capital of Italy?")
    assert llm.last_stats.history_turns == 1


def returns_at_once(fn: Callable[[], bool]) -> bool:
    """fn() on another thread; it must return while an answer is under way, not wait for it."""
    result: list[bool] = []
    caller = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    caller.start()
    caller.join(SLOW_WAIT_S)
    assert result, "it waited for the answer"
    return result[0]

"""Reading the question into the real model while it is spoken (LlamaChat.prefill), with SmolLM2.

The answer after a prefill is the answer without one, token for token at temperature 0; a partial
transcript heard differently later rolls the cache back to exactly the common token prefix; an
answer takes the model from a prefill under way without waiting for it to finish.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator

import llama_cpp
import pytest

from appliance.thinking.llm import LlamaChat
from appliance.thinking.prompt import common_prefix
from tests.fixtures.waits import WAIT_S

# (partial transcripts as a recognizer gives them while the person speaks, the final question)
SPOKEN = [
    (["What is", "What is the capital", "What is the capital of France"], "What is the capital of France?"),
    # a word heard wrong at first ("boil a leg"), then right: the cache rolls back and reads it again
    (["How long", "How long should I boil a leg", "How long should I boil an egg"],
     "How long should I boil an egg?"),
    (["Tell me", "Tell me a fact about the moon"], "Tell me a fact about the moon."),
]


@pytest.fixture
def greedy(llm: LlamaChat) -> Iterator[LlamaChat]:
    """The session chat at temperature 0: the model's most likely token every time."""
    cfg = llm.cfg
    llm.cfg = dataclasses.replace(cfg, temperature=0.0)
    try:
        yield llm
    finally:
        llm.cfg = cfg


def answer(chat: LlamaChat, question: str) -> tuple[str, int]:
    text = "".join(chat.stream(question, threading.Event()))
    return text, chat.last_stats.tokens


def in_cache(chat: LlamaChat) -> list[int]:
    llama = chat._llama
    return llama.input_ids[: llama.n_tokens].tolist()


def never() -> bool:
    return False


@pytest.mark.models
@pytest.mark.parametrize(("partials", "question"), SPOKEN)
def test_the_answer_after_a_prefill_is_the_same_token_for_token(greedy: LlamaChat, partials: list[str],
                                                                 question: str) -> None:
    greedy.reset()
    greedy.warm()  # the cache holds the system prompt only, as after a fresh start
    plain = answer(greedy, question)
    plain_left = greedy.last_stats.prompt_tokens - greedy.last_stats.cached_prompt_tokens
    greedy.reset()
    greedy.warm()
    for heard in partials:
        assert greedy.prefill(heard, never) > 0
    prefilled = answer(greedy, question)
    stats = greedy.last_stats
    assert prefilled == plain, (prefilled, plain)
    assert stats.prefilled_tokens > 0
    left = stats.prompt_tokens - stats.cached_prompt_tokens
    assert left < plain_left  # only the last words (and the assistant's header) were left to read


@pytest.mark.models
def test_a_partial_heard_differently_rolls_back_to_exactly_the_common_prefix(
        greedy: LlamaChat, monkeypatch: pytest.MonkeyPatch) -> None:
    greedy.reset()
    greedy.warm()
    first, second = "How long should I boil a leg", "How long should I boil an egg"
    greedy.prefill(first, never)
    before = in_cache(greedy)
    assert before == greedy._prompt_through(first)  # the whole prompt through the words heard, nothing more
    reads: list[tuple[int, int]] = []  # (tokens in the cache when llama.cpp was asked to read, tokens read)
    real_eval = llama_cpp.Llama.eval

    def watched(llama: llama_cpp.Llama, tokens: list[int]) -> None:
        reads.append((llama.n_tokens, len(tokens)))
        real_eval(llama, tokens)

    monkeypatch.setattr(llama_cpp.Llama, "eval", watched)
    greedy.prefill(second, never)
    after = in_cache(greedy)
    assert after == greedy._prompt_through(second)
    kept = common_prefix(before, after)
    assert 0 < kept < len(before)  # "a leg" and "an egg" share everything up to " a"/" an"
    assert reads[0][0] == kept  # reading started right after the common prefix...
    assert sum(n for _, n in reads) == len(after) - kept  # ...and read only what followed it


@pytest.mark.models
def test_an_answer_takes_the_model_from_a_prefill_under_way(greedy: LlamaChat) -> None:
    greedy.reset()
    greedy.warm()
    long_question = " ".join(["Tell me everything you know about the history of bread and baking"] * 12)
    inside, prefill_done = threading.Event(), threading.Event()
    result: list[int] = []

    def stop() -> bool:
        """At the first step: hold the prefill here until the answer below waits for the model."""
        if not inside.is_set():
            inside.set()
            for _ in range(int(WAIT_S / 0.005)):
                if greedy._waiting:
                    break
                threading.Event().wait(0.005)
        return False

    def run() -> None:
        result.append(greedy.prefill(long_question, stop))
        prefill_done.set()

    threading.Thread(target=run, daemon=True).start()
    assert inside.wait(WAIT_S)
    text, _ = answer(greedy, "What is the capital of France?")  # waits for one step of the prefill at most
    assert prefill_done.wait(WAIT_S)
    assert result[0] < len(greedy._prompt_through(long_question))  # it gave the model up unfinished
    assert "paris" in text.lower()
    assert greedy.last_stats.prefilled_tokens == 0  # nothing of the long question was of use here

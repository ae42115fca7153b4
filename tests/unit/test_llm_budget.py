"""Prompt budget of the chat model, with a fake tokenizer: whole newest turns within n_ctx."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from appliance.config import LlmConfig
from appliance.thinking.llm import LONG_ANSWER, LlamaChat
from appliance.thinking.prompt import (
    FACTS_HEADER,
    Turn,
    common_prefix,
    fit_answer,
    fit_turns,
    messages_for,
    trim_to_tokens,
    with_facts,
)

PER_MESSAGE = 4  # role header and end marker, like ChatML's <|im_start|>role\n ... <|im_end|>\n


def count(messages: list[dict[str, str]]) -> int:
    """A fake tokenizer: one token per word, plus a few per message."""
    return sum(len(m["content"].split()) + PER_MESSAGE for m in messages)


def words(n: int, tag: str) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def test_everything_fits_when_short() -> None:
    turns = [Turn(words(5, "u"), words(5, "a")) for _ in range(3)]
    assert fit_turns("sys", turns, "question?", count, limit=100) == (0, count(messages_for("sys", turns, "question?")))


def test_oldest_turns_are_dropped_first_and_whole() -> None:
    turns = [Turn(words(10, f"u{i}_"), words(10, f"a{i}_")) for i in range(5)]
    # Each turn costs 28 tokens, system 6, question 6: 12 + 2 turns (56) = 68 fits in 70, 3 turns do not.
    first, tokens = fit_turns("the system", turns, "q1 q2", count, limit=70)
    assert first == 3
    kept = turns[first:]
    assert kept == turns[-2:]  # the newest two, untouched
    assert tokens == count(messages_for("the system", kept, "q1 q2")) == 68
    messages = messages_for("the system", kept, "q1 q2")
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert messages[1]["content"] == turns[3].user and messages[-1]["content"] == "q1 q2"


def test_a_question_that_alone_does_not_fit_gives_none() -> None:
    turns = [Turn("hi", "hello")]
    assert fit_turns("sys", turns, words(100, "w"), count, limit=50) is None
    # Exactly at the limit still fits (prompt + answer budget may equal n_ctx).
    alone = count(messages_for("sys", [], words(10, "w")))
    assert fit_turns("sys", turns, words(10, "w"), count, limit=alone) == (1, alone)


def test_overflow_trims_to_the_low_water_mark_so_later_turns_reuse_the_cache() -> None:
    turns = [Turn(words(10, f"u{i}_"), words(10, f"a{i}_")) for i in range(5)]
    # 5 turns: 12 + 140 = 152 > 100. Without a low-water mark, one turn at a time: 3 turns (96).
    assert fit_turns("the system", turns, "q1 q2", count, limit=100) == (2, 96)
    # Trimmed to 60: only the newest turn (40) stays; the next turns then extend this prompt.
    assert fit_turns("the system", turns, "q1 q2", count, limit=100, trim_to=60) == (4, 40)
    # While everything fits, nothing is trimmed, whatever the mark.
    assert fit_turns("the system", turns[:3], "q1 q2", count, limit=100, trim_to=10) == (0, 96)
    # A question alone over the mark (70 > 30): as many turns as fit the limit stay (one, 98).
    assert fit_turns("the system", turns, words(60, "q"), count, limit=100, trim_to=30) == (4, 98)


@settings(max_examples=300, deadline=None)
@given(sizes=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 60)), max_size=30),
       question=st.integers(0, 80), limit=st.integers(10, 400), share=st.sampled_from([None, 0.3, 0.6, 1.0]))
def test_budget_properties(sizes: list[tuple[int, int]], question: int, limit: int, share: float | None) -> None:
    turns = [Turn(words(u, f"u{i}_"), words(a, f"a{i}_")) for i, (u, a) in enumerate(sizes)]
    q = words(question, "q")
    trim_to = None if share is None else int(limit * share)
    fit = fit_turns("system prompt", turns, q, count, limit, trim_to)
    alone = count(messages_for("system prompt", [], q))
    if alone > limit:
        assert fit is None
        return
    assert fit is not None
    first, tokens = fit
    assert tokens == count(messages_for("system prompt", turns[first:], q)) <= limit
    full = count(messages_for("system prompt", turns, q))
    if full <= limit:
        assert first == 0  # nothing is dropped while everything fits
    elif first > 0:
        # Only as many turns dropped as needed to get under the mark (or, failing that, the limit).
        one_more = count(messages_for("system prompt", turns[first - 1:], q))
        target = limit if trim_to is None else min(trim_to, limit)
        if tokens <= target:
            assert one_more > target
        else:  # the mark cannot be reached even with no history: keep what fits the limit
            assert alone > target and one_more > limit


def test_facts_are_trimmed_to_whole_lines_within_the_budget() -> None:
    def tokens(text: str) -> int:
        return len(text.split())

    facts = "Anna and Ben live here.\nThe guest Wi-Fi is called Meadow.\nThe cat is Tom.\n"
    assert trim_to_tokens(facts, 100, tokens) == facts.strip()
    assert trim_to_tokens(facts, 11, tokens) == "Anna and Ben live here.\nThe guest Wi-Fi is called Meadow."
    assert trim_to_tokens(facts, 3, tokens) == "Anna and Ben"  # a first line alone too long: its first words
    assert trim_to_tokens(facts, 0, tokens) == ""


def test_facts_join_the_system_prompt_under_a_header() -> None:
    def tokens(text: str) -> int:
        return len(text.split())

    system, whole = with_facts(" Be brief. ", "Anna lives here.\nThe cat is Tom.\n", 3, tokens)
    assert system == "Be brief." + FACTS_HEADER + "Anna lives here." and not whole
    whole_facts = "Be brief." + FACTS_HEADER + "Anna lives here."
    assert with_facts("Be brief.", "Anna lives here.", 3, tokens) == (whole_facts, True)
    assert with_facts("Be brief.", "", 10, tokens) == ("Be brief.", True)


def test_a_long_answer_falls_back_to_the_short_budget_when_the_question_needs_the_room() -> None:
    question = words(40, "q")  # 44 tokens, 49 with the system prompt
    # n_ctx 100: a 64-token answer leaves 36 for the prompt (too few), a 32-token one leaves 68.
    assert fit_answer("sys", [], question, count, 100, [64, 32], 0.6) == (0, 49, 32)
    assert fit_answer("sys", [], question, count, 100, [64], 0.6) is None
    assert fit_answer("sys", [], "hi", count, 100, [64, 32], 0.6) == (0, 10, 64)


def test_common_prefix() -> None:
    assert common_prefix([1, 2, 3, 4], [1, 2, 5]) == 2
    assert common_prefix([], [1]) == 0
    assert common_prefix([1, 2], [1, 2, 3]) == 2


def test_long_budget_when_asked_for_more() -> None:
    chat = LlamaChat(LlmConfig(max_new_tokens=96, max_new_tokens_long=256), "unused.gguf")
    assert chat.budget_for("What is the capital of France?") == 96
    assert chat.budget_for("Can you explain how rainbows form?") == 256
    assert chat.budget_for("Tell me more") == 256
    assert chat.budget_for("What is the capital of France?", long=True) == 256
    assert chat.budget_for("Explain it", long=False) == 96
    assert LONG_ANSWER.search("unexplained") is None


def test_threads_default_to_cores_minus_one_and_all_cores() -> None:
    chat = LlamaChat(LlmConfig(), "unused.gguf")
    assert chat.n_threads >= 1 and chat.n_threads_batch >= chat.n_threads
    chat = LlamaChat(LlmConfig(n_threads=3, n_threads_batch=4), "unused.gguf")
    assert (chat.n_threads, chat.n_threads_batch) == (3, 4)

"""All cores for an answer's first phrase, then one fewer while Piper speaks (PhraseThreads)."""

from __future__ import annotations

from appliance.thinking.llm_threads import PHRASE_TOKENS, PhraseThreads


def run(tokens: list[str], first: int = 2, rest: int = 1) -> list[tuple[int, int, int]]:
    """(tokens written, generation threads, batch threads) at each change of the threads."""
    calls: list[tuple[int, int, int]] = []
    written = [0]
    threads = PhraseThreads(lambda n, nb: calls.append((written[0], n, nb)), first, rest, batch=2)
    for text in tokens:
        written[0] += 1
        threads.wrote(text)
    threads.end()
    return calls


def test_all_cores_until_the_first_phrase_ends_then_one_fewer() -> None:
    assert run(["The", " capital", " of", " France", " is", " Paris", ".", " It", " is"]) == [(0, 2, 2), (7, 1, 2)]


def test_a_mark_in_the_first_tokens_does_not_end_the_phrase() -> None:
    assert run(["Sure", ",", " the", " moon", " is", " far", "."]) == [(0, 2, 2), (7, 1, 2)]


def test_without_a_mark_the_phrase_ends_after_a_fixed_number_of_tokens() -> None:
    assert run([" word"] * (PHRASE_TOKENS + 5)) == [(0, 2, 2), (PHRASE_TOKENS, 1, 2)]


def test_a_short_answer_gets_its_threads_back_when_it_ends() -> None:
    assert run(["Yes"]) == [(0, 2, 2), (1, 1, 2)]


def test_the_same_count_for_both_changes_nothing() -> None:
    assert run(["The", " moon", "."], first=1, rest=1) == []

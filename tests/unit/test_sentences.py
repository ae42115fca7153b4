"""The streaming sentence splitter: its cases, and the same output however the text is chunked."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from appliance.speaking.sentences import SentenceSplitter, split_all


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello there. How are you?", ["Hello there.", "How are you?"]),
        ("Wow!! Really?! Yes.", ["Wow!!", "Really?!", "Yes."]),
        ("Pi is about 3.14 today. Yes.", ["Pi is about 3.14 today.", "Yes."]),
        ("Meet me at 7:30 tomorrow. Bye.", ["Meet me at 7:30 tomorrow.", "Bye."]),
        ("Dr. Smith and Mr. Jones met in the U.S. last year. Then they left.",
         ["Dr. Smith and Mr. Jones met in the U.S. last year.", "Then they left."]),
        ("Add spice, e.g. salt or pepper. Done.", ["Add spice, e.g. salt or pepper.", "Done."]),
        ("It opens at 9 a.m. every day. It closes at 5 p.m. Come early.",
         ["It opens at 9 a.m. every day.", "It closes at 5 p.m.", "Come early."]),
        ("1. Preheat the oven.\n2. Mix the flour. 3. Bake it.",
         ["1. Preheat the oven.", "2. Mix the flour.", "3. Bake it."]),
        ("I counted to 10. Then I stopped.", ["I counted to 10.", "Then I stopped."]),
        ("He said \"hi.\" Then he left.", ["He said \"hi.\"", "Then he left."]),
        ("Visit example.com today. Thanks.", ["Visit example.com today.", "Thanks."]),
        ("First line\nSecond line\n\nThird", ["First line", "Second line", "Third"]),
        ("你好。今天天气很好！你呢？", ["你好。", "今天天气很好！", "你呢？"]),
        ("Well… I think so. Wait... let me check.", ["Well…", "I think so.", "Wait... let me check."]),
        ("It costs 3,000 dollars. Ok.", ["It costs 3,000 dollars.", "Ok."]),
        ("J. R. R. Tolkien wrote it. Yes.", ["J. R. R. Tolkien wrote it.", "Yes."]),
        ("No trailing terminator", ["No trailing terminator"]),
        ("   ", []),
        ("", []),
    ],
)
def test_cases(text: str, expected: list[str]) -> None:
    assert split_all(text) == expected


def test_first_clause_leaves_early_after_enough_words() -> None:
    text = "The capital of France, as you surely know, is Paris. It is big, old and lovely."
    assert split_all(text, first_clause_min_words=4) == [
        "The capital of France,", "as you surely know, is Paris.", "It is big, old and lovely."]
    # Too few words before the comma: no early cut; only the first piece may be a clause.
    assert split_all("Yes, it is. Paris, the capital, is big.", first_clause_min_words=4) == [
        "Yes, it is.", "Paris, the capital, is big."]
    assert split_all(text, first_clause_min_words=0)[0] == "The capital of France, as you surely know, is Paris."
    # Never inside a time or a number.
    assert split_all("The train leaves at 7:30 on the dot, so hurry.", first_clause_min_words=2) == [
        "The train leaves at 7:30 on the dot,", "so hurry."]


def test_first_phrase_leaves_before_a_phrase_word_when_no_punctuation_comes() -> None:
    assert split_all("The capital of France is Paris. It is big.", 4, 6) == [
        "The capital of France", "is Paris.", "It is big."]
    assert split_all("Romeo and Juliet were written by William Shakespeare.", 4, 6) == [
        "Romeo and Juliet were written", "by William Shakespeare."]
    # Not before word 4 (min), not after word 6 (max), never inside a number, and only the first piece.
    assert split_all("A spider has eight legs.", 4, 6) == ["A spider has eight legs."]
    assert split_all("The moon is approximately 384,000 kilometres away from Earth.", 4, 6) == [
        "The moon is approximately 384,000 kilometres away from Earth."]
    # A number's own marks are no punctuation: the phrase word after it still lets the first piece go.
    assert split_all("Paris has 2,100,000 people and is the capital.", 3, 6) == [
        "Paris has 2,100,000 people", "and is the capital."]
    assert split_all("Tea steeps for 3.5 minutes in hot water.", 4, 6) == [
        "Tea steeps for 3.5 minutes", "in hot water."]
    assert split_all("Light from the Sun is scattered by the air and blue light is scattered most.", 4, 6) == [
        "Light from the Sun", "is scattered by the air and blue light is scattered most."]
    # Punctuation inside the window decides instead; 0 turns the phrase cut off.
    assert split_all("Bees produce honey, which is sweet.", 3, 6) == ["Bees produce honey,", "which is sweet."]
    assert split_all("The capital of France is Paris.", 4, 0) == ["The capital of France is Paris."]
    # A line break ends the piece before any phrase word after it can.
    assert split_all("France\n  Hello there is big", 1, 6) == ["France", "Hello there is big"]


def test_first_phrase_waits_until_the_phrase_word_is_complete() -> None:
    splitter = SentenceSplitter(4, 6)
    assert splitter.add("The capital of France is") == []  # "is" could still become "island"
    assert splitter.add("land") == []
    assert splitter.add(" is") == []
    assert splitter.add(" big.") == ["The capital of France island"]
    assert splitter.finish() == ["is big."]


def test_streaming_yields_a_sentence_once_the_next_word_arrives() -> None:
    splitter = SentenceSplitter()
    assert splitter.add("The capital") == []
    assert splitter.add(" of France is Paris.") == []  # "Paris." could still be "Paris.com"
    assert splitter.add(" It") == ["The capital of France is Paris."]
    assert splitter.add(" is big") == []
    assert splitter.finish() == ["It is big"]
    # finish() starts afresh: the splitter can be reused for the next answer.
    assert splitter.add("Next. One") == ["Next."]
    assert splitter.finish() == ["One"]


def test_cjk_terminator_needs_no_space_but_waits_for_the_run_to_end() -> None:
    splitter = SentenceSplitter()
    assert splitter.add("好。") == []  # "。」" or "。！" may follow
    assert splitter.add("谢谢") == ["好。"]


# Text made of the pieces that matter to the splitter, so random chunkings hit every rule.
_ATOMS = st.sampled_from([
    "Hello", " world", ".", " ", "!", "?", "…", "...", ",", ";", ":", "\n", "3.14", "7:30", "Dr.",
    " Mr.", " e.g.", " U.S.", " a.m.", "1.", " 2.", "\"", ")", "。", "！", "你好", " the", " Then",
    " it", "3,000", "J.", "  ", "p.m.", "etc.", " is", " and", " island", " by", " because", " capital",
])
_TEXTS = st.lists(_ATOMS, max_size=40).map("".join) | st.text(
    alphabet=st.sampled_from(list("ab .!?,:;\n3。…\"'AB")), max_size=80)


@settings(max_examples=400, deadline=None)
@given(text=_TEXTS, cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=12),
       min_words=st.sampled_from([0, 1, 3]), phrase_words=st.sampled_from([0, 2, 6]))
def test_output_does_not_depend_on_chunking(text: str, cuts: list[int], min_words: int, phrase_words: int) -> None:
    whole = split_all(text, min_words, phrase_words)
    bounds = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    splitter = SentenceSplitter(min_words, phrase_words)
    chunked: list[str] = []
    for a, b in itertools.pairwise(bounds):
        chunked += splitter.add(text[a:b])
    chunked += splitter.finish()
    assert chunked == whole
    # One character at a time, too; and no text is lost or invented.
    splitter = SentenceSplitter(min_words, phrase_words)
    by_char = [p for ch in text for p in splitter.add(ch)] + splitter.finish()
    assert by_char == whole
    assert "".join("".join(whole).split()) == "".join(text.split())
    assert all(p == p.strip() and p for p in whole)

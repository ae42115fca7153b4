"""How the tests judge what Whisper heard of Piper's speech (tests/fixtures/speech.py): a name heard a little
wrong or split in two still counts, another name never does, and a whole answer is another answer's only
when their letters are close."""

from __future__ import annotations

import pytest

from tests.fixtures.speech import heard_name, letters, similarity, spoken_as


def test_letters_join_the_words_and_fold_spellings_of_one_sound() -> None:
    assert letters("Toki vo!") == "tokivo"
    assert letters("Tokyo") == "tokio"
    assert letters("Parris, I can't") == "parisicant"
    assert letters("set a timer for 10 minutes") == letters("set a timer for ten minutes")


def test_similarity_is_one_for_the_same_letters_and_falls_with_each_edit() -> None:
    assert similarity("Tokyo.", "to kyo") == 1.0
    assert similarity("paris", "peris") == pytest.approx(0.8)
    assert similarity("paris", "tokyo") == pytest.approx(0.2)  # one letter of five in place: "i"
    assert similarity("", "") == 1.0 and similarity("paris", "") == 0.0


@pytest.mark.parametrize(("heard", "name"), [
    ("the capital of japan is toki vo", "tokyo"),  # heard so on a fresh machine
    ("the capital of japan is tokyo", "tokyo"),
    ("the capital of france is peris", "paris"),
    ("tokyo's the capital", "tokyo"),
    ("your three second timer is done", "timer is done"),
])
def test_a_name_heard_a_little_wrong_or_split_is_heard(heard: str, name: str) -> None:
    assert heard_name(heard, name)


@pytest.mark.parametrize(("heard", "name"), [
    ("the capital of japan is paris", "tokyo"),  # the wrong answer: must fail
    ("the capital of france is tokyo", "paris"),
    ("the capital of japan is kyoto", "tokyo"),
    ("the capital of japan is", "tokyo"),  # cut off before the name
    ("", "paris"),
    ("timer set for three seconds", "timer is done"),
])
def test_another_name_or_none_is_not_heard(heard: str, name: str) -> None:
    assert not heard_name(heard, name)


def test_spoken_as_passes_a_word_heard_a_little_wrong_and_fails_another_or_half_an_answer() -> None:
    assert spoken_as("The capital of Japan is Tokyo.", "the capital of japan is toki vo")
    assert spoken_as("Turned on the light", "perned on the light")
    assert spoken_as("I can't reach Home Assistant right now, so I can't do that.",
                     "i can't reach home assistant right now so i can't do that")
    assert not spoken_as("The capital of Japan is Tokyo.", "the capital of france is paris")
    assert not spoken_as("The capital of Japan is Tokyo. It is a big city with many people.",
                         "the capital of japan is tokyo")
    assert not spoken_as("The capital of Japan is Tokyo.", "")

"""for_speech: markdown, emoji and URLs removed, symbols spelled out, whitespace collapsed."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from appliance.speaking.textclean import for_speech


@pytest.mark.parametrize(
    ("raw", "spoken"),
    [
        ("**Paris** is the *capital* of France.", "Paris is the capital of France."),
        ("__Bold__ and _italic_ and ~~gone~~ text.", "Bold and italic and gone text."),
        ("# Weather today", "Weather today."),
        ("## Steps ##", "Steps."),
        ("- eggs\n- milk\n* bread", "eggs. milk. bread."),
        ("1. Preheat the oven.\n2) Bake it", "Preheat the oven. Bake it."),
        ("> A quoted line.", "A quoted line."),
        ("Intro.\n\n---\n\nAfter.", "Intro. After."),
        ("Run `pip install vosk` first.", "Run pip install vosk first."),
        ("```python\nprint('hi')\n```", "print, 'hi'"),
        ("Paris (the capital) is big.", "Paris, the capital, is big."),
        ("It is far (384,400 km).", "It is far, 384,400 kilometres."),
        ("Really?!... Yes.", "Really? Yes."),
        ("See [the guide](https://example.org/guide) now.", "See the guide now."),
        ("A picture ![a cat](cat.png) here.", "A picture a cat here."),
        ("Go to https://example.com/a?b=1 for more.", "Go to for more."),
        ("Visit www.example.org.", "Visit."),
        ("Link <https://x.y/z> here.", "Link here."),
        ("It is 20°C and 68 °F outside.", "It is 20 degrees Celsius and 68 degrees Fahrenheit outside."),
        ("Turn it 90° left.", "Turn it 90 degrees left."),
        ("Humidity is 45%.", "Humidity is 45 percent."),
        ("Salt & pepper.", "Salt and pepper."),
        ("2 + 2 = 4.", "2 plus 2 equals 4."),
        ("3×4 is 12 and 2*3 is 6.", "3 times 4 is 12 and 2 times 3 is 6."),
        ("yes/no and cats/dogs", "yes or no and cats or dogs"),
        ("Drive at 50 km/h for 5 km.", "Drive at 50 kilometres per hour for 5 kilometres."),
        ("Wait ~5 minutes.", "Wait about 5 minutes."),
        ("It takes 5-10 minutes.", "It takes 5 to 10 minutes."),
        ("Code 5- 5- 5, dated 2024-05-01.", "Code 5- 5- 5, dated 2024-05-01."),  # a chain is no range
        ("Born 1969-07-20.", "Born 1969-07-20."),
        ("It costs $5, or $1, or €3 million.", "It costs 5 dollars, or 1 dollar, or 3 million euros."),
        ("Rated 4/5 with 1/2 cup of sugar.", "Rated 4 out of 5 with a half cup of sugar."),
        ("The #1 song.", "The number 1 song."),
        ("Good morning! 😀🌞", "Good morning!"),
        ("Hi 👋🏽 there 1️⃣ 👨‍👩‍👧 ✓", "Hi there 1"),
        ("a -> b", "a to b"),
        ("x ≤ 5 and y >= 3", "x at most 5 and y at least 3"),
        ("e.g. this, i.e. that", "for example this, that is that"),
        ("Cats vs. dogs", "Cats versus dogs"),
        ("Paris — the capital — is big.", "Paris, the capital, is big."),
        ("  lots \t of\n\n spaces  ", "lots of spaces"),
        ("| City | Temp |\n|---|---|\n| Oslo | 3 |", "City, Temp. Oslo, 3."),
        (r"Not \*bold\* here", "Not bold here"),
        ("snake_case_name", "snake case name"),
        ("", ""),
        ("🎉🎉", ""),
        ("https://example.com", ""),
        ("See HTTP:// for it.", "See for it."),  # a bare scheme is not read out either
    ],
)
def test_for_speech(raw: str, spoken: str) -> None:
    assert for_speech(raw) == spoken


def test_plain_sentences_pass_through_unchanged() -> None:
    text = "The Moon is about 384,400 kilometres away, and it takes 27.3 days to orbit Earth."
    assert for_speech(text) == text


_MARKDOWN_CHARS = re.compile(r"[*_`#|\[\]<>~]")
_URL = re.compile(r"https?://|www\.", re.I)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=120))
def test_output_is_always_speakable(raw: str) -> None:
    out = for_speech(raw)
    assert not _MARKDOWN_CHARS.search(out), out
    assert not _URL.search(out), out
    assert out == out.strip() and "  " not in out and "\n" not in out
    for char in out:
        assert unicodedata.category(char) not in ("So", "Sk", "Co", "Cn") or char in "©®™", (char, out)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["**", "*", "_", "`", "# ", "- ", "[", "](", ")", "https://a.b/c",
                                 "word", " ", "\n", "5", "%", "°C", "&", "😀", ".", "/", "~", "$"]),
                max_size=30))
def test_cleaning_is_stable(pieces: list[str]) -> None:
    once = for_speech("".join(pieces))
    assert for_speech(once) == once

"""The wake word as words: its name and words (wake_name.py), its echo at the start of a transcript, and
the phrase in what the hub itself says."""

from __future__ import annotations

import difflib
import re
from typing import Final

from appliance.wake_name import wake_name as wake_name
from appliance.wake_name import wake_words as wake_words

SOUNDALIKE_RATIO: Final = 0.45  # letters in common with the name ("service" for "jarvis" is 0.46)
_PUNCT: Final = ".,!?;:'\""


def strip_wake_echo(text: str, words: tuple[str, ...]) -> str:
    """The transcript without the wake word's remnant the pre-roll lets in ("Jarvis. What time is it?").

    Leading words of the wake phrase go, and one leading word cut off by a full stop or comma that
    sounds like the name ("Service. What time is it?", as Whisper hears the end of "hey jarvis").
    """
    wake = set(words)
    name = words[-1] if words else ""
    tokens = text.split()
    while tokens and tokens[0].lower().strip(_PUNCT) in wake:
        tokens.pop(0)
    if len(tokens) > 1 and name and tokens[0][-1:] in ".,":
        word = tokens[0].lower().strip(_PUNCT)
        if difflib.SequenceMatcher(None, word, name).ratio() >= SOUNDALIKE_RATIO:
            tokens.pop(0)
    out = " ".join(tokens)
    return out[:1].upper() + out[1:] if out and text[:1].isupper() else out


def says_wake_phrase(text: str, words: tuple[str, ...]) -> bool:
    """Whether `text` has the whole wake phrase in it, in any case and punctuation ("say hey-Jarvis")."""
    return bool(words) and re.search(r"\b" + r"\W+".join(map(re.escape, words)) + r"\b", text, re.I) is not None

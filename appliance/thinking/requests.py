"""What a request is about, where that decides who may answer it: a device in the home (Home
Assistant's, never the model's to claim), or something only the internet knows (the weather).

Plain word patterns, on purpose: they must be instant, offline and predictable, and a miss only
means the question goes on to the next in line (Home Assistant or the model), never an action.
A question that asks how or why something works ("how does a thermostat work", "why does it
rain") is general knowledge, for the model, even when it names a device or the weather.
"""

from __future__ import annotations

from appliance.language import RequestWords, pack


def _plain(text: str, words: RequestWords) -> str:
    """Lower case, curly apostrophes straightened, "what's" as "whats", punctuation as spaces."""
    text = text.lower().replace("\u2019", "'").replace("'", "")
    return " ".join(words.not_plain.sub(" ", text).split())


def controls_device(text: str, words: RequestWords | None = None) -> bool:
    """Whether `text` asks to switch, set or read a device in the home ("turn on the kitchen light",
    "is the front door locked", "what's the temperature in the bedroom"); in the default pack's words
    unless given."""
    words = words or pack().requests
    plain = _plain(text, words)
    return bool(words.controls.search(plain)) and not words.own_speaker.search(plain)


def needs_internet(text: str, words: RequestWords | None = None) -> bool:
    """Whether only the internet could answer `text` (the weather, the news, scores, prices)."""
    words = words or pack().requests
    plain = _plain(text, words)
    return bool(words.internet.search(plain)) and not words.why.search(plain) and not controls_device(text, words)

"""What a request is about, where that decides who may answer it: a device in the home (Home
Assistant's, never the model's to claim), or something only the internet knows (the weather).

Home Assistant's own sentences decide first (thinking/intents.py): the requests Assist carries
out are told apart as Assist tells them. The language pack's short patterns catch what those
sentences do not say ("is the heating on", "make it warmer", the news and the scores). A
question that asks how or why something works ("how does a thermostat work", "why does it rain")
is general knowledge, for the model, even when it names a device or the weather. A miss only
means the question goes on to the next in line (Home Assistant or the model), never an action.
"""

from __future__ import annotations

from appliance.language import LanguagePack, RequestWords, pack
from appliance.thinking.intents import Kind, Recognized, understanding


def plain(text: str, words: RequestWords) -> str:
    """Lower case, curly apostrophes straightened, "what's" as "whats", punctuation as spaces."""
    text = text.lower().replace("\u2019", "'").replace("'", "")
    return " ".join(words.not_plain.sub(" ", text).split())


def controls_device(text: str, words: LanguagePack | None = None) -> bool:
    """Whether `text` asks to switch, set or read a device in the home ("turn on the kitchen light",
    "is the front door locked", "what's the temperature in the bedroom"); in the default pack unless given."""
    words = words or pack()
    said = plain(text, words.requests)
    if words.requests.own_speaker.search(said):
        return False
    return for_device(said, understanding(words).recognize(text), words.requests)


def for_device(said: str, found: Recognized | None, words: RequestWords) -> bool:
    """controls_device, from the plain words (not the hub's own speaker) and Home Assistant's reading."""
    if found is not None:
        return found.for_home
    return bool(words.controls.search(said))


def needs_internet(text: str, words: LanguagePack | None = None) -> bool:
    """Whether only the internet could answer `text` (the weather, the news, scores, prices)."""
    words = words or pack()
    found = understanding(words).recognize(text)
    if found is not None:
        return found.kind is Kind.WEATHER
    said = plain(text, words.requests)
    return for_internet(said, None, False, words.requests) and not controls_device(text, words)


def for_internet(said: str, found: Recognized | None, device: bool, words: RequestWords) -> bool:
    """needs_internet, from the plain words, Home Assistant's reading and whether it is for a device."""
    if found is not None:
        return found.kind is Kind.WEATHER
    return bool(words.internet.search(said)) and not words.why.search(said) and not device

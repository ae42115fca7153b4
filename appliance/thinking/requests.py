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
from appliance.thinking.intents import Kind, understanding
from appliance.thinking.meaning import meanings


def _plain(text: str, words: RequestWords) -> str:
    """Lower case, curly apostrophes straightened, "what's" as "whats", punctuation as spaces."""
    text = text.lower().replace("\u2019", "'").replace("'", "")
    return " ".join(words.not_plain.sub(" ", text).split())


def controls_device(text: str, words: LanguagePack | None = None) -> bool:
    """Whether `text` asks to switch, set or read a device in the home ("turn on the kitchen light",
    "is the front door locked", "what's the temperature in the bedroom"); in the default pack unless given."""
    words = words or pack()
    plain = _plain(text, words.requests)
    if words.requests.own_speaker.search(plain):
        return False
    found = understanding(words).recognize(text)
    if found is not None:
        return found.for_home
    if words.requests.controls.search(plain):
        return True
    if words.honesty.about.match(plain):  # "how do i turn the heating down": a question, the model's
        return False
    read = meanings(words)
    return read is not None and read.for_home(text)


def needs_internet(text: str, words: LanguagePack | None = None) -> bool:
    """Whether only the internet could answer `text` (the weather, the news, scores, prices)."""
    words = words or pack()
    found = understanding(words).recognize(text)
    if found is not None:
        return found.kind is Kind.WEATHER
    plain = _plain(text, words.requests)
    return bool(words.requests.internet.search(plain)) and not words.requests.why.search(plain) \
        and not controls_device(text, words)

"""True short answers for what the hub cannot do: act on a device without Home Assistant, know what
only the internet knows, or carry out one of its own requests that its skills could not read. Said
instead of letting the model claim an action or make up news."""

from __future__ import annotations

from typing import Final

from appliance.contracts import SkillReply
from appliance.language import LanguagePack, pack
from appliance.thinking.intents import Kind, understanding
from appliance.thinking.requests import controls_device, needs_internet

# The default pack's sentences, for callers that name them.
NO_HOME_ASSISTANT: Final = pack().replies.no_home_assistant
HOME_ASSISTANT_DOWN: Final = pack().replies.home_assistant_down
HOME_ASSISTANT_REFUSED: Final = pack().replies.home_assistant_refused
NO_INTERNET: Final = pack().replies.no_internet


def cannot_act(text: str, words: LanguagePack | None = None) -> SkillReply | None:
    """Without Home Assistant: a device request gets the truth, never a claimed action."""
    words = words or pack()
    if not controls_device(text, words):
        return None
    return SkillReply(words.replies.no_home_assistant, "no_home_assistant")


def unreachable(text: str, refused: bool = False, words: LanguagePack | None = None) -> SkillReply | None:
    """Home Assistant down, or refusing the token: a device request is told which; anything else goes on."""
    words = words or pack()
    if not controls_device(text, words):
        return None
    said = words.replies.home_assistant_refused if refused else words.replies.home_assistant_down
    return SkillReply(said, "home_assistant_down")


def offline(text: str, words: LanguagePack | None = None) -> SkillReply | None:
    """A question only the internet could answer gets "no internet", not an invented answer."""
    words = words or pack()
    if not needs_internet(text, words):
        return None
    return SkillReply(words.replies.no_internet, "no_internet")


OWN: Final = frozenset({Kind.TIMER, Kind.CLOCK, Kind.VOLUME, Kind.LIST})
"""Requests for the hub's own skills: carried out by a skill, or asked again, never the model's to claim."""


def unread(text: str, words: LanguagePack | None = None) -> SkillReply | None:
    """A request Home Assistant's sentences read as one for the hub's own skills (a timer, the time, the
    volume, a list) that no skill took: asked again in other words, for the model would claim it done.
    "Never mind" and a "stop" with nothing to stop end the turn without a word, as in Home Assistant."""
    words = words or pack()
    found = understanding(words).recognize(text)
    if found is None:
        return None
    if found.kind is Kind.STOP:
        return SkillReply("", "nevermind", end_turn=True)
    if found.kind in OWN:
        return SkillReply(words.replies.unread, "not_understood", data={"intent": found.intent})
    return None

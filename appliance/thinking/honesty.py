"""True short answers for what the hub cannot do: act on a device without Home Assistant, or know
what only the internet knows. Said instead of letting the model claim an action or make up news."""

from __future__ import annotations

from typing import Final

from appliance.contracts import SkillReply
from appliance.language import LanguagePack, pack
from appliance.thinking.requests import controls_device, needs_internet

# The default pack's sentences, for callers that name them.
NO_HOME_ASSISTANT: Final = pack().replies.no_home_assistant
HOME_ASSISTANT_DOWN: Final = pack().replies.home_assistant_down
HOME_ASSISTANT_REFUSED: Final = pack().replies.home_assistant_refused
NO_INTERNET: Final = pack().replies.no_internet


def cannot_act(text: str, words: LanguagePack | None = None) -> SkillReply | None:
    """Without Home Assistant: a device request gets the truth, never a claimed action."""
    words = words or pack()
    if not controls_device(text, words.requests):
        return None
    return SkillReply(words.replies.no_home_assistant, "no_home_assistant")


def unreachable(text: str, refused: bool = False, words: LanguagePack | None = None) -> SkillReply | None:
    """Home Assistant down, or refusing the token: a device request is told which; anything else goes on."""
    words = words or pack()
    if not controls_device(text, words.requests):
        return None
    said = words.replies.home_assistant_refused if refused else words.replies.home_assistant_down
    return SkillReply(said, "home_assistant_down")


def offline(text: str, words: LanguagePack | None = None) -> SkillReply | None:
    """A question only the internet could answer gets "no internet", not an invented answer."""
    words = words or pack()
    if not needs_internet(text, words.requests):
        return None
    return SkillReply(words.replies.no_internet, "no_internet")

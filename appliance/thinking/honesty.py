"""True short answers for what the hub cannot do: act on a device without Home Assistant, or know
what only the internet knows. Said instead of letting the model claim an action or make up news."""

from __future__ import annotations

from typing import Final

from appliance.contracts import SkillReply
from appliance.thinking.requests import controls_device, needs_internet

NO_HOME_ASSISTANT: Final = "I can't control devices; Home Assistant isn't connected."
HOME_ASSISTANT_DOWN: Final = "I can't reach Home Assistant right now, so I can't do that."
HOME_ASSISTANT_REFUSED: Final = "Home Assistant refused my access token, so I can't do that."
NO_INTERNET: Final = "I have no internet connection, so I can't look that up."


def cannot_act(text: str) -> SkillReply | None:
    """Without Home Assistant: a device request gets the truth, never a claimed action."""
    return SkillReply(NO_HOME_ASSISTANT, "no_home_assistant") if controls_device(text) else None


def unreachable(text: str, refused: bool = False) -> SkillReply | None:
    """Home Assistant down, or refusing the token: a device request is told which; anything else goes on."""
    if not controls_device(text):
        return None
    return SkillReply(HOME_ASSISTANT_REFUSED if refused else HOME_ASSISTANT_DOWN, "home_assistant_down")


def offline(text: str) -> SkillReply | None:
    """A question only the internet could answer gets "no internet", not an invented answer."""
    return SkillReply(NO_INTERNET, "no_internet") if needs_internet(text) else None

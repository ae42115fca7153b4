"""What a request is about, where that decides who may answer it: a device in the home (Home
Assistant's, never the model's to claim), or something only the internet knows (the weather).

Plain word patterns, on purpose: they must be instant, offline and predictable, and a miss only
means the question goes on to the next in line (Home Assistant or the model), never an action.
"""

from __future__ import annotations

import re
from typing import Final

# Things in a home that Home Assistant switches, sets or reads.
_DEVICE: Final = (r"lights?|lamps?|bulbs?|heating|heater|radiators?|thermostat|boiler|plugs?|sockets?|"
                  r"switch(?:es)?|locks?|doors?|garage|gate|blinds?|shades?|shutters?|curtains?|"
                  r"fans?|air ?con(?:ditioning|ditioner)?|a/?c|tv|television|vacuum|hoover|kettle|"
                  r"coffee (?:machine|maker)|dishwasher|washing machine|dryer|sprinklers?|alarm system|"
                  r"scene|humidifier|dehumidifier|oven|camera|doorbell")
_ACTION: Final = (r"turn|switch|put|dim|brighten|set|open|close|shut|lock|unlock|start|stop|activate|"
                  r"deactivate|enable|disable|raise|lower|increase|decrease|run|arm|disarm|toggle|"
                  r"make|change")
_ROOM_TEMPERATURE: Final = (r"(?:temperature|humidity) (?:in|of) the \w+|how (?:warm|cold|hot) is (?:it in )?the \w+|"
                             r"make it (?:warmer|cooler|colder|brighter|darker)")

_CONTROLS: Final = re.compile(
    rf"\b(?:{_ACTION})\b.*\b(?:{_DEVICE})\b|\b(?:{_DEVICE})\b.*\b(?:on|off|up|down|open|closed?|locked|"
    rf"unlocked|to \d+)\b|\b(?:is|are|was|were)\b.*\b(?:{_DEVICE})\b|{_ROOM_TEMPERATURE}",
    re.IGNORECASE)
# The hub's own speaker is its own to control: never a device for Home Assistant.
_OWN_SPEAKER: Final = re.compile(r"\b(?:volume|louder|quieter|softer|mute|unmute)\b", re.IGNORECASE)

_INTERNET: Final = re.compile(
    r"\b(?:weather|forecast|temperature outside|outside temperature|rain(?:ing|y)?|snow(?:ing|y)?|"
    r"sunny|storm|umbrella|news|headlines?|scores?|who won|match|game (?:last night|today|tonight)|"
    r"stock|share price|exchange rate|traffic|flights?|search (?:the web|online|for)|look (?:it )?up online|"
    r"latest|trending|election results?)\b",
    re.IGNORECASE)


def controls_device(text: str) -> bool:
    """Whether `text` asks to switch, set or read a device in the home ("turn on the kitchen light",
    "is the front door locked", "what's the temperature in the bedroom")."""
    return bool(_CONTROLS.search(text)) and not _OWN_SPEAKER.search(text)


def needs_internet(text: str) -> bool:
    """Whether only the internet could answer `text` (the weather, the news, scores, prices)."""
    return bool(_INTERNET.search(text)) and not controls_device(text)

"""What a request is about, where that decides who may answer it: a device in the home (Home
Assistant's, never the model's to claim), or something only the internet knows (the weather).

Plain word patterns, on purpose: they must be instant, offline and predictable, and a miss only
means the question goes on to the next in line (Home Assistant or the model), never an action.
A question that asks how or why something works ("how does a thermostat work", "why does it
rain") is general knowledge, for the model, even when it names a device or the weather.
"""

from __future__ import annotations

import re
from typing import Final

# Things in a home that Home Assistant switches, sets or reads.
_DEVICE: Final = (r"lights?|lamps?|bulbs?|heating|heat|heater|radiators?|thermostat|boiler|plugs?|sockets?|"
                  r"switch(?:es)?|locks?|doors?|garage|gate|blinds?|shades?|shutters?|curtains?|"
                  r"fans?|air ?con(?:ditioning|ditioner)?|a/?c|tv|telly|television|vacuum(?: cleaner)?|"
                  r"hoover|kettle|coffee (?:machine|maker)|dishwasher|washing machine|dryer|sprinklers?|"
                  r"alarm system|scene|humidifier|dehumidifier|oven|camera|doorbell")
# What is done to them.
_ACTION: Final = (r"turn|switch|put|dim|brighten|set|open|close|shut|lock|unlock|start|stop|activate|"
                  r"deactivate|enable|disable|raise|lower|increase|decrease|run|arm|disarm|toggle|"
                  r"make|change")
# The state a device is asked into or about.
_STATE: Final = r"on|off|up|down|open|closed?|locked|unlocked|to \d+"
# Explanations, not requests: "how does a fan cool you down", "what makes a lamp flicker".
_EXPLAINING: Final = r"(?:how|why|what|whats|who|when|where)\b"
# Rooms of a home, for questions about their temperature.
_ROOM: Final = (r"(?:\w+ )?room|house|flat|home|bedroom|kitchen|lounge|hallway|hall|office|bathroom|nursery|"
                r"study|basement|attic|garage|conservatory|upstairs|downstairs")

_CONTROLS: Final = re.compile(
    # "turn on the kitchen light", "can you lock the front door", "lights off"
    rf"^(?!{_EXPLAINING})(?:.*\b(?:{_ACTION})\b.*\b(?:{_DEVICE})\b|.*\b(?:{_DEVICE})\b.*\b(?:{_STATE})\b)"
    # "is the front door locked", "what is the thermostat set to", "are all the lights off"
    rf"|\b(?:is|are) (?:the|my|our|all the|any of the|any) (?:(?!of )\w+ ){{0,2}}(?:{_DEVICE})\b"
    # "which lights are on"
    rf"|\b(?:{_DEVICE}) (?:is|are)(?: still)? (?:on|off|open|closed|locked|unlocked)\b"
    # "what's the temperature in the bedroom", "make it warmer"
    rf"|\b(?:temperature|humidity) (?:(?:in|of) (?:the|my|our) (?:{_ROOM})|in here|inside)\b"
    rf"|\bhow (?:warm|cold|hot) is (?:it in )?(?:(?:the|my|our) (?:{_ROOM})|here)\b"
    r"|\bmake it (?:warmer|cooler|colder|brighter|darker)\b",
    re.IGNORECASE)
# The hub's own speaker is its own to control: never a device for Home Assistant.
_OWN_SPEAKER: Final = re.compile(r"\b(?:volume|louder|quieter|softer|mute|unmute)\b", re.IGNORECASE)

# What only the internet knows, by subject.
_WEATHER: Final = (r"weather|forecast|temperature outside|outside temperature"
                   r"|(?:will|is) it (?:be |going to )?(?:rain|snow)\w*|going to (?:rain|snow)"
                   r"|(?:rain|snow)\w* (?:today|tonight|tomorrow|later|this (?:morning|afternoon|evening))"
                   r"|chance of (?:rain|snow)|will it be (?:hot|cold|warm|sunny|windy|cloudy|wet|dry|nice)"
                   r"|how (?:hot|cold|warm) will it be|need an? (?:umbrella|coat|jacket)")
_NEWS: Final = r"news|headlines?|latest|trending|election results?"
_RECENT: Final = r"last night|yesterday|today|tonight|this (?:week|weekend|season)|last (?:week|weekend)"
_SPORT: Final = (rf"who won\b.*\b(?:{_RECENT})|who won the (?:match|game|race|election)\b(?!.*\d{{4}})"
                 rf"|(?:the|final|latest) scores?|(?:game|match|race) (?:{_RECENT})")
_MARKETS: Final = (r"(?:bitcoin|ethereum|crypto\w*|stock|share|gold|oil|petrol|gas) prices?|prices? of"
                   r"|how much is (?:a |one )?(?:bitcoin|ethereum|share)|exchange rate|stock market")
_TRAVEL: Final = r"traffic|flight status|train times|next (?:bus|train)"
_WEB: Final = r"search (?:the web|online|for)|look (?:it |that )?up online|google"

_INTERNET: Final = re.compile(rf"\b(?:{_WEATHER}|{_NEWS}|{_SPORT}|{_MARKETS}|{_TRAVEL}|{_WEB})\b",
                              re.IGNORECASE)
# "why does it rain", "why is the news so bad": an explanation the model can give offline.
_WHY: Final = re.compile(r"^why\b", re.IGNORECASE)


def _plain(text: str) -> str:
    """Lower case, curly apostrophes straightened, "what's" as "whats", punctuation as spaces."""
    text = text.lower().replace("\u2019", "'").replace("'", "")
    return " ".join(re.sub(r"[^a-z0-9/ ]+", " ", text).split())


def controls_device(text: str) -> bool:
    """Whether `text` asks to switch, set or read a device in the home ("turn on the kitchen light",
    "is the front door locked", "what's the temperature in the bedroom")."""
    plain = _plain(text)
    return bool(_CONTROLS.search(plain)) and not _OWN_SPEAKER.search(plain)


def needs_internet(text: str) -> bool:
    """Whether only the internet could answer `text` (the weather, the news, scores, prices)."""
    plain = _plain(text)
    return bool(_INTERNET.search(plain)) and not _WHY.search(plain) and not controls_device(text)

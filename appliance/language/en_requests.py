"""English: what a request is about (thinking/requests.py and thinking/intents.py): the home that
Home Assistant's English sentences are matched against, and the few patterns they do not cover."""

from __future__ import annotations

import re
from typing import Final

from appliance.language import RequestWords

# Things in a home that Home Assistant switches, sets or reads.
_DEVICE: Final = (r"lights?|lamps?|bulbs?|heating|heat|heater|radiators?|thermostat|boiler|plugs?|sockets?|"
                  r"switch(?:es)?|locks?|doors?|garage|gate|blinds?|shades?|shutters?|curtains?|"
                  r"fans?|air ?con(?:ditioning|ditioner)?|a/?c|tv|telly|television|vacuum(?: cleaner)?|"
                  r"hoover|kettle|coffee (?:machine|maker)|dishwasher|washing machine|dryer|sprinklers?|"
                  r"alarm system|scene|humidifier|dehumidifier|oven|camera|doorbell")
# What is done to them.
_ACTION: Final = (r"turn|switch|put|dim|brighten|set|open|close|shut|lock|unlock|start|stop|activate|"
                  r"deactivate|enable|disable|raise|lower|increase|decrease|run|arm|disarm|toggle|"
                  r"make|change|kill|knock|crank|flick|pop|bang|whack|stick|fire up|boost")
# The state a device is asked into or about.
_STATE: Final = r"on|off|up|down|open|closed?|locked|unlocked|to \d+"
# Explanations and advice, not requests: "how does a fan cool you down", "what makes a lamp flicker",
# "should I leave the heating on", "does the heating work better on a timer", "is it cheaper to run the dryer".
_EXPLAINING: Final = r"(?:how|why|what|whats|who|when|where|should|does|is it)\b"
# A question after what happens: "my kids never turn the lights off, what can I do?"
_ASKED_AFTER: Final = r".*\b(?:what (?:can|should|do) (?:i|we) do|how (?:can|do|should) (?:i|we)|why (?:is|does|do|would))\b"
# Rooms of a home, for questions about their temperature.
_ROOM: Final = (r"(?:\w+ )?room|house|flat|home|bedroom|kitchen|lounge|hallway|hall|office|bathroom|nursery|"
                r"study|basement|attic|garage|conservatory|upstairs|downstairs")
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

# The kinds of device people name, and the Home Assistant domain each is: the hub's stand-in home
# for Home Assistant's sentences ("lock the front door" matches only where the front door is a lock).
_DEVICES: Final = {
    **dict.fromkeys(("light", "lights", "lamp", "lamps", "bulb", "bulbs", "light strip", "fairy lights",
                     "ceiling light", "floor lamp", "desk lamp", "spotlights"), "light"),
    **dict.fromkeys(("heating", "heat", "heater", "thermostat", "radiator", "radiators", "boiler",
                     "air conditioning", "air conditioner", "air con", "ac", "aircon"), "climate"),
    **dict.fromkeys(("front door", "back door", "side door", "door", "lock", "door lock"), "lock"),
    **dict.fromkeys(("blinds", "blind", "curtains", "curtain", "shutters", "shades", "garage door", "garage",
                     "gate", "awning", "window"), "cover"),
    **dict.fromkeys(("fan", "ceiling fan", "extractor fan"), "fan"),
    **dict.fromkeys(("tv", "telly", "television", "speaker", "stereo", "radio", "soundbar"), "media_player"),
    **dict.fromkeys(("plug", "smart plug", "socket", "switch", "kettle", "coffee machine", "coffee maker",
                     "dishwasher", "washing machine", "dryer", "tumble dryer", "oven", "humidifier",
                     "dehumidifier", "christmas tree"), "switch"),
    **dict.fromkeys(("vacuum", "vacuum cleaner", "hoover", "robot vacuum"), "vacuum"),
    **dict.fromkeys(("sprinkler", "sprinklers", "water valve"), "valve"),
    **dict.fromkeys(("lawn mower", "mower"), "lawn_mower"),
}
_ROOMS: Final = ("kitchen", "living room", "lounge", "sitting room", "front room", "family room", "bedroom",
                 "master bedroom", "guest room", "spare room", "kids room", "nursery", "bathroom", "toilet",
                 "hallway", "hall", "landing", "stairs", "office", "study", "dining room", "utility room",
                 "laundry room", "playroom", "conservatory", "garage", "garden", "patio", "porch", "balcony",
                 "basement", "cellar", "attic", "loft", "shed", "driveway", "house", "home", "outside")

REQUESTS: Final = RequestWords(
    not_plain=re.compile(r"[^a-z0-9/ ]+"),
    # What Home Assistant's sentences do not say: "turn the heating down a bit", "put the telly on",
    # "is the heating on", "what's the humidity in the bedroom", "make it warmer", "I'm freezing in here".
    controls=re.compile(
        rf"^(?!{_EXPLAINING}|{_ASKED_AFTER})(?:.*\b(?:{_ACTION})\b.*\b(?:{_DEVICE})\b|.*\b(?:{_DEVICE})\b.*\b(?:{_STATE})\b)"
        rf"|\b(?:is|are) (?:the|my|our|all the|any of the|any) (?:(?!of |my |our )\w+ ){{0,2}}(?:{_DEVICE})\b"
        rf"|\b(?:{_DEVICE}) (?:is|are)(?: still)? (?:on|off|open|closed|locked|unlocked)\b"
        rf"|\b(?:temperature|humidity) (?:(?:in|of) (?:the|my|our) (?:{_ROOM})|in here|inside)\b"
        r"|\bmake it (?:warmer|cooler|colder|brighter|darker)\b"
        rf"|\b(?:warm|heat|cool) (?:up |down )?(?:the|my|our) (?:{_ROOM})\b"
        # The room's warmth said as a wish: "I'm freezing in here", "it's too hot in here".
        r"|^(?:im|i am) (?:freezing|so cold|too cold|cold|boiling|too hot|roasting)\b"
        r"|\bits (?:freezing|boiling|(?:too|so) (?:hot|cold|warm|chilly)) in here\b"
        # and its light: "it's a bit dark in the study"
        rf"|^its (?:a bit |a little |too |very |so |quite |getting |pretty )?(?:dark|dim|gloomy) in (?:here|the (?:{_ROOM}))$",
        re.IGNORECASE),
    own_speaker=re.compile(r"\b(?:volume|louder|quieter|softer|mute|unmute)\b", re.IGNORECASE),
    internet=re.compile(rf"\b(?:{_WEATHER}|{_NEWS}|{_SPORT}|{_MARKETS}|{_TRAVEL}|{_WEB})\b", re.IGNORECASE),
    # "why does it rain", "why is the news so bad": an explanation the model can give offline.
    why=re.compile(r"^why\b", re.IGNORECASE),
    devices=_DEVICES,
    rooms=_ROOMS,
    floors=("upstairs", "downstairs", "ground floor", "first floor", "second floor", "top floor", "basement",
            "loft"),
    warm_up=("turn on the kitchen light", "set a timer for 10 minutes", "what time is it",
             "add milk to my shopping list", "what is the capital of france"),
    said_as={"HassGetCurrentTime": "what time is it", "HassGetCurrentDate": "what is the date",
             "HassTimerStatus": "how long is left on the timer", "HassCancelAllTimers": "cancel all timers",
             "HassMediaPlayerMute": "mute", "HassMediaPlayerUnmute": "unmute",
             "HassSetVolume": "set the volume to {volume_level} percent"},
)


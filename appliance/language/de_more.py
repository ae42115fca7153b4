"""German: what a request is about, the honest refusals, the days and times of day, the model's instructions,
sentences and speech. The alarms and the reminders have no German words here (ScheduleWords.alarms and
.reminders are None): their skills are off in German, and a request for one is told so (HONESTY)."""

from __future__ import annotations

import re
from typing import Final

from appliance.language import (
    Act,
    EmergencyWords,
    FollowUpWords,
    HonestyWords,
    PromptWords,
    Replies,
    RequestWords,
    SentenceWords,
    SpeechWords,
    WhichWords,
)
from appliance.language.schedule import ScheduleWords, WhenSaid, WhenWords

# --------------------------------------------------------------------------------------
# What a request is about

_DEVICE: Final = (r"licht\w*|lampe\w*|\w*lampe|\w*licht|heizung|heizkörper|thermostat|steckdose\w*|schalter|"
                  r"schloss|\w*tür|garage\w*|tor|rollladen|rollläden|rollo\w*|jalousie\w*|vorhang|vorhänge|"
                  r"ventilator|klimaanlage|fernseher|tv|staubsauger\w*|saugroboter|kaffeemaschine|wasserkocher|"
                  r"spülmaschine|waschmaschine|trockner|backofen|ofen|kamera|klingel|alarmanlage|szene")
_ACTION: Final = (r"schalte?|mach|mache|dreh|drehe|stell|stelle|dimme?|öffne|öffnen|schließe?|schließen|"
                  r"sperre?|entsperre?|starte?|aktiviere?|deaktiviere?|einschalten|ausschalten|anmachen|ausmachen")
_STATE: Final = r"an|aus|ein|auf|zu|hoch|runter|heller|dunkler|wärmer|kälter|offen|geschlossen"
_EXPLAINING: Final = r"(?:wie|warum|wieso|weshalb|was|wer|wann|wo)\b"
_ROOM: Final = (r"küche|wohnzimmer|schlafzimmer|bad|badezimmer|flur|büro|kinderzimmer|esszimmer|keller|"
                r"gästezimmer|arbeitszimmer|wohnung|haus")
_INTERNET: Final = (r"wetter\w*|regnet|regnen|schneit|schneien|nachrichten|schlagzeilen|aktien\w*|börse|"
                    r"bitcoin|wechselkurs|verkehr|stau|fußballergebnis\w*|bundesliga|wahlergebnis\w*|google|"
                    r"im internet|online nach")

_DEVICES: Final = {
    **dict.fromkeys(("licht", "lichter", "lampe", "lampen", "deckenlampe", "stehlampe", "deckenlicht",
                     "lichterkette"), "light"),
    **dict.fromkeys(("heizung", "heizkörper", "thermostat", "klimaanlage"), "climate"),
    **dict.fromkeys(("haustür", "hintertür", "tür", "türschloss", "schloss"), "lock"),
    **dict.fromkeys(("rollladen", "rollläden", "rollo", "jalousie", "jalousien", "vorhang", "vorhänge",
                     "garagentor", "tor", "markise"), "cover"),
    **dict.fromkeys(("ventilator", "deckenventilator"), "fan"),
    **dict.fromkeys(("fernseher", "tv", "lautsprecher", "radio", "soundbar"), "media_player"),
    **dict.fromkeys(("steckdose", "schalter", "wasserkocher", "kaffeemaschine", "spülmaschine",
                     "waschmaschine", "trockner", "backofen", "weihnachtsbaum"), "switch"),
    **dict.fromkeys(("staubsauger", "saugroboter"), "vacuum"),
    **dict.fromkeys(("rasensprenger", "bewässerung"), "valve"),
    **dict.fromkeys(("rasenmäher", "mähroboter"), "lawn_mower"),
}
_ROOMS: Final = ("küche", "wohnzimmer", "schlafzimmer", "bad", "badezimmer", "flur", "diele", "büro",
                 "arbeitszimmer", "kinderzimmer", "esszimmer", "gästezimmer", "keller", "dachboden", "garage",
                 "garten", "terrasse", "balkon", "toilette", "haus", "wohnung")

REQUESTS: Final = RequestWords(
    not_plain=re.compile(r"[^a-z0-9äöüß/ ]+"),
    controls=re.compile(
        rf"^(?!{_EXPLAINING})(?:.*\b(?:{_ACTION})\b.*\b(?:{_DEVICE})\b|.*\b(?:{_DEVICE})\b.*\b(?:{_STATE})\b)"
        rf"|\b(?:ist|sind) (?:das|die|der|mein|meine|unser|unsere) (?:\w+ ){{0,2}}(?:{_DEVICE}) (?:noch )?"
        r"(?:an|aus|offen|zu|geschlossen|abgeschlossen)\b"
        rf"|\b(?:temperatur|luftfeuchtigkeit) (?:im|in der) (?:{_ROOM})\b"
        r"|^mir ist (?:zu |so )?(?:kalt|warm|heiß)\b|^es ist (?:zu |so )?(?:kalt|warm|heiß) hier\b",
        re.IGNORECASE),
    own_speaker=re.compile(r"\b(?:lautstärke|lauter|leiser|stumm|stummschalten)\b", re.IGNORECASE),
    internet=re.compile(rf"\b(?:{_INTERNET})\b", re.IGNORECASE),
    why=re.compile(r"^(?:warum|wieso|weshalb)\b", re.IGNORECASE),
    devices=_DEVICES,
    rooms=_ROOMS,
    floors=("oben", "unten", "erdgeschoss", "obergeschoss", "dachgeschoss", "keller"),
    warm_up=("schalte das licht in der küche an", "stelle einen timer auf 10 minuten", "wie spät ist es",
             "setz milch auf die einkaufsliste", "was ist die hauptstadt von frankreich"),
    said_as={"HassGetCurrentTime": "wie spät ist es", "HassGetCurrentDate": "welches datum ist heute",
             "HassTimerStatus": "wie lange läuft der timer noch", "HassCancelAllTimers": "lösche alle timer",
             "HassMediaPlayerMute": "stumm", "HassMediaPlayerUnmute": "ton an",
             "HassSetVolume": "stell die lautstärke auf {volume_level} prozent"},
)

REPLIES: Final = Replies(
    apology="Entschuldigung, da ist etwas schiefgegangen.",
    timeout_apology="Entschuldigung, das hat zu lange gedauert.",
    busy="Entschuldigung, ich antworte gerade jemand anderem. Frag mich bitte gleich noch einmal.",
    nothing_heard="Ich habe keine Frage gehört.",
    too_long="Entschuldigung, die Frage ist mir zu lang. Kannst du sie kürzer stellen?",
    no_home_assistant="Ich kann keine Geräte steuern; Home Assistant ist nicht verbunden.",
    home_assistant_down="Ich erreiche Home Assistant gerade nicht, also kann ich das nicht tun.",
    home_assistant_refused="Home Assistant hat meinen Zugangsschlüssel abgelehnt, also kann ich das nicht tun.",
    no_internet="Ich habe keine Internetverbindung, also kann ich das nicht nachsehen.",
    in_area="{question} im Raum {area}",
    unread="Entschuldigung, das habe ich nicht verstanden. Kannst du es anders sagen?",
)

PROMPT: Final = PromptWords(
    system=("Du bist ein hilfreicher Sprachassistent in einem Zuhause. Antworte auf Deutsch in ein oder zwei "
            "kurzen gesprochenen Sätzen. Verwende keine Listen, kein Markdown, keine Emojis und keine Links. "
            "Du hast kein Internet, kein Telefon, keine Nachrichten und keinen Shop und kannst nichts tun: "
            "sag nie, dass du etwas getan hast oder tun wirst."),
    facts_header="\n\nFakten über dieses Zuhause:\n",
    long_answer=re.compile(
        r"\b(erzähl mir mehr|erklär|erkläre|ausführlich|im detail|beschreib|beschreibe|eine geschichte"
        r"|schritt für schritt|genauer)\b", re.IGNORECASE),
)

SENTENCES: Final = SentenceWords(
    never_split=frozenset({"z.b", "bzw", "ca", "dr", "nr", "str", "vgl", "inkl", "evtl", "d.h", "u.a", "prof",
                           "hr", "fr", "bspw", "ggf", "sog", "zzgl", "u.s.w"}),
    split_if_capital=frozenset({"usw", "etc", "jan", "feb", "apr", "aug", "sep", "sept", "okt", "nov", "dez",
                                "min", "max", "std", "sek"}),
    phrase_starts=frozenset({"ist", "sind", "war", "waren", "hat", "haben", "kann", "wird", "weil", "denn",
                             "und", "aber", "also", "mit", "für", "in", "auf", "an", "von", "wenn", "wo",
                             "während", "als", "wie", "nach", "vor", "durch", "dass", "damit", "sodass"}),
    unfinished=frozenset({"ein", "eine", "einen", "einem", "der", "die", "das", "den", "dem", "mein", "meine",
                          "dein", "deine", "für", "von", "zu", "zum", "zur", "auf", "und", "oder", "aber", "weil",
                          "wenn", "äh", "ähm", "mit", "über", "in", "an", "wie", "was", "welche", "welcher",
                          "wo", "wann", "wer", "warum", "um"}),
)

SPEECH: Final = SpeechWords(
    scales=("tausend", "Millionen", "Milliarden", "Billionen"),
    units={
        "km/h": "Kilometer pro Stunde", "m/s": "Meter pro Sekunde", "kWh": "Kilowattstunden", "kW": "Kilowatt",
        "km": "Kilometer", "kg": "Kilogramm", "cm": "Zentimeter", "mm": "Millimeter", "ml": "Milliliter",
        "mg": "Milligramm", "g": "Gramm", "l": "Liter", "Std": "Stunden", "Min": "Minuten",
    },
    fractions={"1/2": "ein halb", "1/3": "ein Drittel", "2/3": "zwei Drittel", "1/4": "ein Viertel",
               "3/4": "drei Viertel"},
    currencies={"€": ("Euro", "Euro"), "$": ("Dollar", "Dollar"), "£": ("Pfund", "Pfund"),
                "CHF": ("Franken", "Franken")},
    spelled=[
        (re.compile(r"\s*(?:→|->|⟶|=>)\s*"), " nach "),
        (re.compile(r"\s*[℃]"), " Grad Celsius"),
        (re.compile(r"\s*[°º]\s*C\b"), " Grad Celsius"),
        (re.compile(r"\s*[°º]\s*F\b"), " Grad Fahrenheit"),
        (re.compile(r"(?<=\d)\s*[°º]"), " Grad"),
        (re.compile(r"[°º]"), " Grad "),
        (re.compile(r"\s*%"), " Prozent"),
        (re.compile(r"\s*&\s*"), " und "),
        (re.compile(r"\s*\+\s*"), " plus "),
        (re.compile(r"\s*(?:≈|~=)\s*"), " etwa "),
        (re.compile(r"\s*=+\s*"), " gleich "),
        (re.compile(r"\s*×\s*"), " mal "),
        (re.compile(r"\s*÷\s*"), " geteilt durch "),
        (re.compile(r"~\s*(?=\d)"), "etwa "),
        (re.compile(r"~"), " "),
        (re.compile(r"#\s*(?=\d)"), "Nummer "),
        (re.compile(r"#"), " "),
        (re.compile(r"\bz\.\s?B\.", re.IGNORECASE), "zum Beispiel"),
        (re.compile(r"\bd\.\s?h\.", re.IGNORECASE), "das heißt"),
        (re.compile(r"\busw\.", re.IGNORECASE), "und so weiter"),
        (re.compile(r"\bca\.", re.IGNORECASE), "circa"),
    ],
    times=" mal ",
    range_to=" bis ",
    out_of="{a} von {b}",
    or_=" oder ",
)

# --------------------------------------------------------------------------------------
# Days and times of day: read by the clock ("übermorgen", "am freitag") and the meaning reader

_DAYS: Final = ("montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag")
_MONTHS: Final = ("januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober",
                  "november", "dezember")
_NAMES: Final = tuple(day.capitalize() for day in _DAYS)
_ORDINALS: Final = ("erste zweite dritte vierte fünfte sechste siebte achte neunte zehnte elfte zwölfte dreizehnte "
                    "vierzehnte fünfzehnte sechzehnte siebzehnte achtzehnte neunzehnte zwanzigste").split()


def _clock(hour: int, minute: int, clock: int) -> str:
    """'6:30 Uhr', '18:45 Uhr' ('6:45 Uhr abends' on a 12-hour clock)."""
    if clock == 24:
        return f"{hour}:{minute:02d} Uhr"
    return f"{hour % 12 or 12}:{minute:02d} Uhr {'morgens' if hour < 12 else 'abends'}"


def _bare(hour: int, minute: int) -> str:
    return f"{hour} Uhr" if minute == 0 else f"{hour}:{minute:02d} Uhr"


WHEN: Final = WhenWords(
    past=frozenset({"nach"}),
    to=frozenset({"vor"}),
    half=frozenset(),
    half_hour=frozenset(),  # "halb sieben" is 6:30 (half_to), not the English "half six"
    quarter=frozenset({"viertel"}),
    oclock=frozenset({"uhr"}),
    oh=frozenset({"null"}),
    minute_words=frozenset({"minute", "minuten"}),
    am=frozenset({"vormittags", "früh"}),
    pm=frozenset({"nachmittags", "abends"}),
    noon=frozenset({"mittag", "mittags"}),
    midnight=frozenset({"mitternacht"}),
    cues=frozenset({"um", "gegen", "bis", "ab"}),
    parts={
        ("am", "morgen"): ("am", 9), ("morgens",): ("am", 9), ("am", "vormittag"): ("am", 10),
        ("am", "nachmittag"): ("pm", 15), ("nachmittags",): ("pm", 15), ("am", "abend"): ("pm", 18),
        ("abends",): ("pm", 18), ("in", "der", "nacht"): ("pm", 21), ("nachts",): ("pm", 21),
    },
    tonight=frozenset(),
    today=frozenset({"heute"}),
    tomorrow=frozenset({"morgen"}),
    weekdays={**{day: i for i, day in enumerate(_DAYS)}, **{day + "s": i for i, day in enumerate(_DAYS)}},
    plural_days=frozenset(day + "s" for day in _DAYS),
    groups={"werktags": (0, 1, 2, 3, 4), "wochentags": (0, 1, 2, 3, 4), "wochenende": (5, 6),
            "täglich": tuple(range(7))},
    every=frozenset({"jeden", "jede", "jedes"}),
    day_word=frozenset({"tag"}),
    day_fillers=frozenset({"am", "nächsten", "nächste", "kommenden", "kommende", "diesen", "diese", "und", "an",
                           "den", "der"}),
    offsets={("gestern",): -1, ("übermorgen",): 2, ("vorgestern",): -2},
    in_days=frozenset({"in"}),
    day_units={"tag": 1, "tagen": 1, "tage": 1, "woche": 7, "wochen": 7},
    from_now=(),
    ordinals={**{word: i + 1 for i, word in enumerate(_ORDINALS)},
              **{word + "n": i + 1 for i, word in enumerate(_ORDINALS)}, "dreißigste": 30, "dreißigsten": 30},
    ordinal_ends=frozenset(),
    months={**{month: i + 1 for i, month in enumerate(_MONTHS)}, "jan": 1, "feb": 2, "okt": 10, "dez": 12},
    of=frozenset(),
    half_to=frozenset({"halb"}),
    minutes_after_oclock=True,
)

SAID: Final = WhenSaid(
    clock=_clock,
    bare=_bare,
    today="heute",
    tomorrow="morgen",
    on_day="am {weekday}",
    every_day="jeden Tag",
    weekdays="werktags",
    weekends="am Wochenende",
    on_days="{days}",
    weekday_names=_NAMES,
    plural_names=tuple(day + "s" for day in _DAYS),
    when="{day} um {time}",
)

SCHEDULE: Final = ScheduleWords(when=WHEN, said=SAID)
"""No alarms and no reminders in German yet: those skills are off (LanguagePack.alarm_words)."""

# --------------------------------------------------------------------------------------
# Honest refusals

_POLITE: Final = (r"^(?:(?:bitte|hey|hallo|ok|okay|also|mal|kannst du|könntest du|würdest du|können sie|"
                  r"könnten sie|würden sie|ich möchte,? dass du|ich will,? dass du|sei so gut und|"
                  r"ich hätte gern,? dass du) )+")

ACTS: Final = (
    Act(re.compile(r"(?:weck|wecke) (?:mich|uns)\b|(?:stell|stelle) (?:mir |uns )?(?:einen |den |meinen )?wecker\b"
                   r"|(?:einen |den )?wecker (?:auf|für|um)\b"),
        "Einen Wecker kann ich auf Deutsch noch nicht stellen."),
    Act(re.compile(r"(?:erinner|erinnere) (?:mich|uns)\b"), "Erinnerungen kann ich auf Deutsch noch nicht."),
    Act(re.compile(r"(?:merk|merke) dir\b"), "Auf Deutsch kann ich mir noch nichts merken."),
    Act(re.compile(r"(?:ruf|rufe|telefonier\w*)\b|\w+ anrufen$"), "Ich kann nicht telefonieren."),
    Act(re.compile(r"(?:bestell|bestelle|kauf|kaufe)\b|\w+ bestellen$"), "Ich kann nichts bestellen."),
    Act(re.compile(r"(?:schick|schicke|sende|schreib|schreibe) (?:\w+ )?(?:eine )?(?:nachricht|sms|e ?mail|mail)\b"),
        "Ich kann keine Nachrichten schicken."),
    Act(re.compile(r"(?:spiel|spiele)\b(?!.*\bmit mir\b)"), "Ich kann keine Musik abspielen."),
    Act(re.compile(r"(?:buch|buche|reservier|reserviere)\b"), "Ich kann nichts buchen."),
)

HONESTY: Final = HonestyWords(
    polite=re.compile(_POLITE),
    clauses=re.compile(r"\s*(?:,|;|\bund dann\b|\bdann\b|\baber\b)\s+"),
    about=re.compile(r"^(?:wie|was|warum|wieso|weshalb|wer|wo|wann|welche\w*|woher|wozu|wofür|ob|kann man"
                     r"|gibt es)\b"),
    acts=ACTS,
    cannot="Das kann ich nicht.",
    abilities=(
        ("clock", "sagen", "die Uhrzeit und das Datum"),
        ("timers", "stellen", "Timer"),
        ("lists", "führen", "deine Einkaufsliste"),
        ("volume", "ändern", "meine Lautstärke"),
        ("home_assistant", "steuern", "deine Geräte über Home Assistant"),
    ),
    ability="{things} {verb}",
    can_do="Ich kann {abilities}.",
    claim=re.compile(
        r"^(?:ich habe|ich hab|hab ich|habe ich|erledigt|gemacht|ich schalte|ich stelle|ich rufe|ich bestelle"
        r"|ich schicke|ich sende|ich buche|ich spiele|wird gemacht|ist erledigt|ich werde)\b", re.IGNORECASE),
    agreeing=re.compile(r"^(?:klar|gerne|gern|natürlich|okay|ok|sicher|selbstverständlich|alles klar|na klar)\W*$",
                        re.IGNORECASE),
    granting=re.compile(r"^(?:klar|natürlich|sicher|ja|gerne),? (?:du |ihr )?(?:kannst|könnt|darfst|dürft)\b",
                        re.IGNORECASE),
    permission=re.compile(r"^(?:kann ich|darf ich|soll ich|muss ich|brauche ich|brauch ich|können wir|dürfen wir)\b"),
)

EMERGENCY: Final = EmergencyWords(
    request=re.compile(
        r"^(?:ruf|rufe|hol|hole) (?:sofort |schnell )?(?:einen |den |die )?(?:krankenwagen|notarzt|notruf|polizei"
        r"|feuerwehr|rettungswagen|rettungsdienst)\b|^(?:hilfe|ich bin gestürzt|ich bin hingefallen|es brennt"
        r"|feuer|ich kriege keine luft|ich bekomme keine luft)\b"),
    said="Ich kann nicht telefonieren. Ruf sofort die {number} von einem Telefon aus an.",
)

# --------------------------------------------------------------------------------------
# Follow-ups to the last request

# Answers by reference to "Welchen soll ich ...?", and "den anderen", on normalised words.
_LEAD: Final = r"(?:(?:äh|ähm|oh|ok|okay|also|ja|bitte|und|nein|doch|sorry|eigentlich|ich meinte|was ist mit)\s+)*"
_END: Final = r"(?:\s+(?:timer|wecker|bitte))?"
_ORDINAL: Final = r"(?:erste|zweite|dritte|vierte|fünfte|sechste|letzte|frühere|spätere|kürzere|längere)"
WHICH: Final = WhichWords(
    reference=re.compile(rf"{_LEAD}(?:(?:den|der|die|das)\s+)?(?P<ref>{_ORDINAL})(?:n|r|s)?{_END}"
                         r"|nummer\s+(?P<number>\w+)(?:\s+bitte)?"),
    positions={"erste": 1, "zweite": 2, "dritte": 3, "vierte": 4, "fünfte": 5, "sechste": 6, "letzte": -1},
    earlier=frozenset({"frühere"}),
    later=frozenset({"spätere"}),
    shorter=frozenset({"kürzere"}),
    longer=frozenset({"längere"}),
    other=re.compile(rf"{_LEAD}(?:den|der|die|das)\s+andere(?:n|r|s)?{_END}(?:\s+(?:auch|noch|stattdessen))?"),
    correction=re.compile(r"^(?:nein|doch|sorry|eigentlich|ich meinte)\b|\bstattdessen\b"),
    back_timer="Der {label} läuft wieder wie vorher.",
    back_alarm="Dein Wecker für {when} ist wieder gestellt.",
    back_reminder="Deine Erinnerung, {item}, ist wieder gestellt.",
)

_NOW: Final = r"(?:(?:nein|oh|doch|warte|moment|äh|ähm|ok|okay|also|bitte)\s+)*"
FOLLOW_UPS: Final = FollowUpWords(
    cancel=re.compile(rf"{_NOW}(?:lösch|lösche|streich|streiche|vergiss|stopp|entferne|mach) "
                      r"(?:das|es|ihn|den|die)(?: wieder| rückgängig| bitte)?(?: bitte)?"),
    change=re.compile(rf"{_NOW}(?:mach|stell|stelle|ändere|änder) (?:es|ihn|das|den) (?:auf |zu )?(?P<rest>.+?)"
                      r"(?: stattdessen| bitte)?"),
    also=re.compile(r"(?:und|und noch|auch|noch|und auch|plus)\s+(?P<rest>.+?)(?: auch| dazu| bitte)?"),
    say={
        "timer_set": {"cancel": ("lösche den {timer} timer",), "change": ("ändere den {timer} timer auf {rest}",)},
        "timer_change": {"change": ("ändere den {timer} timer auf {rest}",)},
        "list_add": {"cancel": ("streiche {items} von der {list}liste",),
                     "also": ("setze {rest} auf die {list}liste",)},
    },
    length="{length}",
    hours="stunden",
    minutes="minuten",
    seconds="sekunden",
    which=WHICH,
)

"""German: the words the hub says and matches in German, and how German says numbers, durations and the time.

A smaller pack than the English one: the time and the date, timers, the shopping list, the volume and
"stop" are done in full; the alarms, the reminders and what the hub is told to remember have no German
words here (ScheduleWords.alarms and .reminders are None, `phrases` has no "facts"), so those skills are
off in German (LocalSkills logs it once) and a request for one gets the truth that it cannot be done yet
(de_more.HONESTY), never an English reply.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Final

from appliance.language import (
    ClockWords,
    LanguagePack,
    NumberWords,
    SkillPhrases,
    SkillWords,
    TimerWords,
    VolumeWords,
    de_lists,
    de_meaning,
    de_more,
)

# --------------------------------------------------------------------------------------
# Numbers

ONES: Final = {
    "null": 0, "eins": 1, "zwei": 2, "zwo": 2, "drei": 3,
    "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12,
    "dreizehn": 13, "vierzehn": 14, "fünfzehn": 15, "sechzehn": 16, "siebzehn": 17, "achtzehn": 18,
    "neunzehn": 19,
}
TENS: Final = {"zwanzig": 20, "dreißig": 30, "dreissig": 30, "vierzig": 40, "fünfzig": 50, "sechzig": 60,
               "siebzig": 70, "achtzig": 80, "neunzig": 90}
_UNIT_DIGIT: Final = "ein|zwei|drei|vier|fünf|sechs|sieben|acht|neun"
_TEN_WORD: Final = "zwanzig|dreißig|dreissig|vierzig|fünfzig|sechzig|siebzig|achtzig|neunzig"

NUMBERS: Final = NumberWords(
    ones=ONES,
    tens=TENS,
    homophones={},
    units={
        "sekunde": "second", "sekunden": "second", "sek": "second", "s": "second",
        "minute": "minute", "minuten": "minute", "min": "minute", "minütchen": "minute",
        "stunde": "hour", "stunden": "hour", "std": "hour", "h": "hour", "stündchen": "hour",
    },
    fuzzy_units=("sekunden", "minuten", "stunden"),
    letters="a-zäöüß",
    oclock=(r"\buhr\b", " uhr "),
    contractions=[
        # German writes 21..99 as one word, units first: "fünfundzwanzig" is read as "zwanzig fünf".
        (rf"\beinund({_TEN_WORD})\b", r"\1 eins"),
        (rf"\b({_UNIT_DIGIT})und({_TEN_WORD})\b", r"\2 \1"),
        # "anderthalb", "eineinhalb", "zweieinhalb": the half as a word of its own ("zwei einhalb").
        (r"\b(?:anderthalb|eineinhalb)\b", "eins einhalb"),
        (rf"\b({_UNIT_DIGIT}|zehn)einhalb\b", r"\1 einhalb"),
        # One word for part of an hour: "viertelstunde", "dreiviertelstunde", "halbestunde".
        (r"\bdreiviertel ?stunde\b", "drei viertel stunde"),
        (r"\bviertel ?stunde\b", "viertel stunde"),
        (r"\bhalbe?stunde\b", "halbe stunde"),
        # Compounds with the timer: "nudeltimer", "küchentimer" are a timer with a name before it.
        (r"\b([a-zäöüß]{3,}?)-?timer\b", r"\1 timer"),
        # A verb at the end is said first: "den timer abbrechen" -> "lösche den timer".
        (r"\b(den|die|meinen|meine|unseren|alle|beide) ((?:[a-zäöüß]+ )?timer) "
         r"(?:abbrechen|löschen|stoppen|beenden|ausschalten|ausmachen|canceln)\b", r"lösche \1 \2"),
        (r"\b(?:brich|brecht|brechen sie|schalt|schalte|schalten sie|mach|macht|machen sie|stell|stellen sie) "
         r"((?:(?:den|die|meinen|alle|beide) )?(?:[a-zäöüß]+ )?timer)(?: bitte)? (?:ab|aus)\b", r"lösche \1"),
        (r"^((?:[a-zäöüß]+ )?timer) (?:aus|weg|stopp)\W*$", r"lösche den \1"),  # curt: "timer aus!"
        (r"\bgeht(?:s| es)\b", "geht es"), (r"\bwie ?viel\b", "wie viel"), (r"\bwieviel\b", "wie viel"),
        *de_lists.CONTRACTIONS,
    ],
    phrase_fixes=[("tai mer", "timer")],
    articles=frozenset({"ein", "eine", "einen", "einer"}),
    hundred="hundert",
    point="komma",
    couple="",
    of="von",
    and_="und",
    one_for_hundred=frozenset({"ein", "eins", "einhundert"}),
    bare_joins=frozenset({"oder", "bis"}),
    half="halbe",
    and_a_half=("einhalb",),
    quarters=frozenset({"viertel"}),
    plural_quarters="viertel",
    a_quarter=frozenset({"ein", "eine", "einer"}),
    three=frozenset({"drei", "3"}),
    quarter_fillers=frozenset(),
    doubled_four="",
)

# --------------------------------------------------------------------------------------
# Saying numbers, durations and the time

_WORDS_ONES: Final = ("null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn "
                      "fünfzehn sechzehn siebzehn achtzehn neunzehn").split()
_WORDS_TENS: Final = {20: "zwanzig", 30: "dreißig", 40: "vierzig", 50: "fünfzig", 60: "sechzig", 70: "siebzig",
                      80: "achtzig", 90: "neunzig"}
_UNIT_NAMES: Final = {"hour": ("Stunde", "Stunden"), "minute": ("Minute", "Minuten"),
                      "second": ("Sekunde", "Sekunden")}


def _plural(value: int, unit: str) -> str:
    one, many = _UNIT_NAMES[unit]
    return f"{value} {one if value == 1 else many}"


def _parts(seconds: int) -> list[tuple[int, str]]:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return [(v, u) for v, u in ((hours, "hour"), (minutes, "minute"), (secs, "second")) if v]


class German:
    """German grammar for numbers, durations, dates and the time (the Phrasing protocol)."""

    def number(self, value: int) -> str:
        """0..99 in words: 'dreiundzwanzig'."""
        if value < 20:
            return _WORDS_ONES[value]
        tens, ones = divmod(value, 10)
        if not ones:
            return _WORDS_TENS[tens * 10]
        return ("ein" if ones == 1 else _WORDS_ONES[ones]) + "und" + _WORDS_TENS[tens * 10]

    def duration(self, seconds: float, precision_s: int = 1) -> str:
        """'1 Stunde und 10 Minuten', '1 Minute und 30 Sekunden', rounded to precision_s."""
        total = int(round(seconds / precision_s) * precision_s)
        if total <= 0:
            return "0 Sekunden" if precision_s == 1 else _plural(0, "minute")
        parts = [_plural(v, u) for v, u in _parts(total)]
        return self.join(parts)

    def remaining(self, seconds: float) -> str:
        """Time left, exact to the second under 5 minutes, to the minute after."""
        if seconds < 300:
            return self.duration(max(1.0, seconds))
        return self.duration(seconds, precision_s=60)

    def duration_label(self, seconds: float) -> str:
        """'10-Minuten', '1-Stunden-30-Minuten', '90-Sekunden': what an unnamed timer is called by."""
        return "-".join(f"{v}-{_UNIT_NAMES[u][1]}" for v, u in _parts(round(seconds))) or "0-Sekunden"

    def timer_label(self, name: str | None, duration_s: float) -> str:
        """'Nudel-Timer' or '10-Minuten-Timer'."""
        return f"{name[:1].upper()}{name[1:]}-Timer" if name else f"{self.duration_label(duration_s)}-Timer"

    def ordinal(self, day: int) -> str:
        """4 -> '4.'."""
        return f"{day}."

    def time(self, now: datetime, style: str, clock: int) -> str:
        """'19:20 Uhr' (digits, 24-hour), '7:20 Uhr abends' (12-hour), or 'zwanzig nach sieben' (words)."""
        h, m = now.hour, now.minute
        if style == "digits":
            if clock == 24:
                return f"{h}:{m:02d} Uhr"
            part = "nachts" if h < 5 or h >= 22 else "morgens" if h < 10 else "vormittags" if h < 12 \
                else "mittags" if h < 14 else "nachmittags" if h < 18 else "abends"
            return f"{h % 12 or 12}:{m:02d} Uhr {part}"
        if m == 0 and h in (0, 12):
            return "Mitternacht" if h == 0 else "zwölf Uhr mittags"
        if clock == 24:
            return f"{self.number(h)} Uhr" + (f" {self.number(m)}" if m else "")
        hour = self._hour(h)
        next_hour = self._hour(h + 1)
        if m == 0:
            return f"{hour} Uhr"
        if m == 15:
            return f"Viertel nach {hour}"
        if m == 45:
            return f"Viertel vor {next_hour}"
        if m == 30:
            return f"halb {next_hour}"
        if m < 30:
            return f"{self._minutes(m)} nach {hour}"
        return f"{self._minutes(60 - m)} vor {next_hour}"

    def _hour(self, h: int) -> str:
        word = self.number(h % 12 or 12)
        return "eins" if word == "ein" else word

    def _minutes(self, m: int) -> str:
        word = "eine" if m == 1 else self.number(m)
        return word if m % 5 == 0 else f"{word} {'Minute' if m == 1 else 'Minuten'}"

    def join(self, parts: Sequence[str]) -> str:
        """'a', 'a und b', 'a, b und c'."""
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " und " + parts[-1]


# --------------------------------------------------------------------------------------
# Every skill, and timers

_STOP_PHRASES: Final = (
    r"(?:stopp?(?: jetzt| das| damit)?|halt|aufhören|hör auf(?: damit)?|sei still|ruhe|still|schluss|genug|"
    r"das reicht|es reicht|vergiss es|vergiss das|egal|schon gut|nicht so wichtig|abbrechen|abbruch|"
    r"lass es|lass gut sein|nichts|ton aus|alarm aus|mach (?:es|das) aus)")
_PLAIN_STOP_PHRASES: Final = r"(?:stopp?(?: jetzt)?|hör auf|sei still|das reicht|genug)"

SKILLS: Final = SkillWords(
    fillers=frozenset({"äh", "ähm", "öhm", "hm", "hmm", "mhm", "äh"}),
    leading=[("hey",), ("hallo",), ("ok",), ("okay",), ("also",), ("bitte",), ("mal",), ("doch",),
             ("kannst", "du"), ("könntest", "du"), ("würdest", "du"), ("kannst", "du", "mal"),
             ("können", "sie"), ("könnten", "sie"), ("würden", "sie"), ("sag", "mal"), ("und",)],
    trailing=[("bitte",), ("danke",), ("mal",), ("bitte", "schön"), ("vielen", "dank")],
    stop=(
        r"^(?:(?:nein|ok|okay|oh|ach|bitte|jetzt|einfach{name}) )*"
        rf"{_STOP_PHRASES}(?: (?:{_STOP_PHRASES}|bitte|jetzt|danke{{name}}))*$"),
    yes=frozenset({"ja", "jawohl", "genau", "ok", "okay", "gerne", "klar"}),
    plain_stop=(
        r"^(?:(?:oh|ok|okay|hey{name}) )*"
        rf"{_PLAIN_STOP_PHRASES}(?: (?:{_PLAIN_STOP_PHRASES}|bitte|jetzt{{name}}))*$"),
    plain_stop_hint="Stopp. Hör auf. Das reicht.",
)

_NAME_STOP_TEXT: Final = (
    "ein eine einen einer der die das den dem des mein meine meinen meinem unser unseren dieser diesen neuen "
    "noch weiteren zweiten alle jeden beide stelle stell setze setz starte start mach mache brauche brauch "
    "will möchte lösche lösch stoppe stopp beende brich ab entferne vergiss timer eieruhr countdown wecker "
    "für auf von zu mit und oder bitte jetzt mal genannt namens heißt ist sind läuft laufen wie lange viel "
    "noch übrig zeit was welche habe hast hat gibt es ich du mir dir uns in um")

_TIMERS_IN_GENERAL: Final = r"\b(?:funktioniert|erfunden|geschichte|kaufen|beste|app|handy|genau|lohnt)\b"

TIMERS: Final = TimerWords(
    timer_word="timer",
    cancel_word="lösche",
    timer_words=frozenset({"timer", "eieruhr", "countdown", "kurzzeitwecker"}),
    soundalikes=frozenset(),
    soundalike_after=frozenset(),
    cancel_verbs=frozenset({"lösche", "lösch", "stoppe", "stopp", "stop", "beende", "brich", "entferne",
                            "vergiss", "annulliere", "cancel", "schalte", "schalt", "mach"}),
    cancel_starts=("schalte den", "schalt den", "mach den", "ich brauche den", "ich brauch den"),
    set_verbs=frozenset({"stelle", "stell", "setze", "setz", "starte", "start", "mach", "mache", "leg",
                         "lege", "brauche", "brauch", "will", "möchte", "gib", "neuer", "neuen"}),
    set_starts=("ich brauche", "ich brauch", "ich hätte gern", "ich möchte", "ich will"),
    set_start_re=re.compile(r"^(?:timer|countdown) (?:auf|für|von) "),
    remind_re=re.compile(r"\b(?:sag|gib) mir (?:bescheid |in )|\bsag bescheid in\b|\bmelde? dich in\b"),
    is_words=frozenset({"ist", "sind", "läuft"}),
    all_words=frozenset({"alle", "beide", "sämtliche", "alles"}),
    plural_words=frozenset({"timer"}),
    question_start=frozenset({"wie", "was", "warum", "wieso", "wer", "wann", "wo", "welche", "welcher", "welches",
                              "ist", "sind", "läuft", "laufen", "hat", "habe", "hab", "gibt", "kann"}),
    left_re=re.compile(
        r"\bwie (?:lange|viel zeit|viele minuten|viele sekunden)\b.*\b(?:noch|übrig|bis)\b"
        r"|\bnoch\b.*\bübrig\b|\bwie steht\b|\bstatus\b|\bwann ist\b.*\b(?:fertig|um|abgelaufen)\b"
        r"|\bläuft\b.*\bnoch\b|\bwas macht (?:der|mein)\b"),
    left_alone_re=re.compile(
        r"^wie (?:lange|viel zeit) (?:noch|(?:ist |bleibt )?(?:noch )?übrig|bleibt noch)$|^wie lange noch$"
        r"|^(?:restzeit|noch wie lange)$"),
    generic_re=re.compile(rf"\b(?:ein|einen|eine) (?:\w+ )?timer\b|{_TIMERS_IN_GENERAL}"),
    general_re=re.compile(_TIMERS_IN_GENERAL),
    state_re=re.compile(r"^(?:ist|sind|läuft|laufen|habe|hab|haben|gibt|wann|welche|welcher)\b"
                        r"(?=.*\b(?:mein|meine|meinen|unser|der|noch|ich|wir)\b)"
                        r"(?!.*\b(?:handy|telefon|app|uhr|computer|laptop)\b)"),
    list_re=re.compile(
        r"\bwelche timer\b|\bwie viele timer\b|\b(?:habe ich|hab ich|haben wir|gibt es|läuft|laufen) "
        r"(?:gerade |noch |denn )?(?:irgendwelche |irgendeinen |einen |mehrere )?timer\b(?! noch)"
        r"|^(?:meine |die |alle )?timer$|\b(?:zeig|nenn|lies) (?:mir )?(?:alle |meine |die )?timer\b"),
    name_stop=frozenset(_NAME_STOP_TEXT.split()),
    name_introducers=frozenset({"für", "namens", "genannt", "heißt"}),
    needs_re=re.compile(r"^(?:der |die |das |mein |meine |unser |unsere )?(?P<name>\w+) (?:braucht|brauchen|kocht"
                        r"|kochen|ist drin|sind drin)(?: noch)? (?!.*\btimer\b)"),
    needs_said_as="stell einen {name} timer auf {duration}",
    name_articles=frozenset({"den", "die", "das", "der", "meine", "meinen", "unsere"}),
    name_ends=frozenset({"und", "bitte", "timer", "auf", "für", "jetzt", "stellen", "starten"}),
    name_for="für",
    piece_joins=frozenset({"und", "dann", "plus"}),
    piece_starts=frozenset({"ein", "einen", "eine", "noch", "den", "der"}),
    more_verbs=frozenset({"verlängere", "verlängern", "erhöhe"}),
    off_verbs=frozenset({"zieh", "ziehe", "nimm"}),
    less_verbs=frozenset({"verkürze", "verkürzen", "reduziere"}),
    off_words=frozenset({"ab", "weg"}),
    more_words=frozenset({"mehr", "weitere", "zusätzliche", "länger"}),
    fewer_words=frozenset({"weniger", "kürzer"}),
    to_verbs=frozenset({"ändere", "änder", "verlängere", "verkürze"}),
    to_words=frozenset({"auf"}),
    to_if_running=frozenset({"stelle", "stell", "setze", "setz"}),
    make_verbs=frozenset({"mach", "mache"}),
    definite=frozenset({"ihn", "es", "das", "den", "der", "meinen", "mein"}),
    instead_words=frozenset({"stattdessen", "lieber"}),
    length_for=frozenset({"für", "von"}),
    change_after=frozenset({"auf", "zu", "ab", "weg", "dazu", "drauf", "mehr", "länger", "weniger", "kürzer",
                            "stattdessen", "bitte", "jetzt"}),
    not_changed=frozenset({"wecker"}),
    how_long="Wie lange soll der Timer laufen, zum Beispiel zehn Minuten?",
    how_long_again="Entschuldigung, wie lange soll er laufen, zum Beispiel zehn Minuten?",
    out_of_range="Ein Timer kann von einer Sekunde bis {longest} laufen. Wie lange soll er laufen?",
    cannot_set="Den Timer konnte ich leider nicht stellen: {error}.",
    set_one="Timer auf {duration} gestellt.",
    set_named="{Name}-Timer auf {duration} gestellt.",
    set_many="{count} Timer gestellt: {timers}.",
    set_piece_named="{name} auf {duration}",
    none="Du hast keine Timer.",
    not_found="Ich finde keinen {name}-Timer. {which}",
    cancelled_one="{Label} gelöscht.",
    cancelled_all="Alle {count} Timer gelöscht.",
    cancelled_some="{count} Timer gelöscht: {labels}.",
    done_state="ist abgelaufen",
    left_state="hat noch {remaining}",
    report_one="Dein {label} {state}.",
    report_piece="der {label} {state}",
    report_more="{count} weitere",
    report_many="Du hast {count} Timer: {timers}.",
    which_one="Du hast einen Timer, den {label}. Soll ich ihn löschen?",
    which_piece="den {label}",
    which_listed=": {labels}",
    which_many="Du hast {count} Timer{listed}. Welchen soll ich löschen?",
    ended="Dein {label} ist abgelaufen.",
    ended_while_off="Dein {label} ist abgelaufen, während ich aus war, vor {ago}.",
    changed_more="{duration} dazu. Dein {label} hat noch {remaining}.",
    changed_less="Dein {label} hat jetzt noch {remaining}.",
    changed_to="{Label} auf {duration} geändert.",
    change_none="Du hast keinen Timer, den ich ändern könnte.",
    change_too_short="Dein {label} hat nur noch {remaining}, also kann ich nicht {duration} abziehen.",
    change_out_of_range="Ein Timer läuft höchstens {longest}, also habe ich deinen {label} gelassen, wie er war.",
    change_which_one="Du hast einen Timer, den {label}. Soll ich ihn ändern?",
    change_which_many="Du hast {count} Timer{listed}. Welchen soll ich ändern?",
)

# --------------------------------------------------------------------------------------
# The clock

_REF: Final = "heute|morgen|gestern"
_NOW_WORDS: Final = r"(?: (?:denn|jetzt|gerade|eigentlich|grad|mal))*"

CLOCK: Final = ClockWords(
    time_res=[re.compile(p) for p in (
        rf"\bwie spät ist es{_NOW_WORDS}(?P<rest>(?: \w+)*)$", rf"\bwie viel uhr ist es{_NOW_WORDS}(?P<rest>(?: \w+)*)$",
        rf"\bwie viel uhr haben wir{_NOW_WORDS}(?P<rest>(?: \w+)*)$", r"\bwas ist die (?:aktuelle )?uhrzeit\b",
        r"^(?:die )?(?:aktuelle )?uhrzeit(?: bitte| jetzt)?$", r"\b(?:sag|nenn) (?:mir )?(?:mal )?die uhrzeit\b",
        r"\bweißt du(?: zufällig)?,? wie spät es ist\b", r"\b(?:hast|haben) (?:du|sie) (?:mal )?die uhrzeit\b",
        r"^wie spät$", rf"\bwelche uhrzeit (?:ist es|haben wir){_NOW_WORDS}(?P<rest>(?: \w+)*)$")],
    here_words=frozenset({"jetzt", "gerade", "denn", "eigentlich", "grad", "hier", "bei uns", "gerade eben",
                          "denn jetzt", "jetzt gerade", "mal"}),
    elsewhere_starts=("in ", "drüben "),
    date_res=[re.compile(p) for p in (
        rf"^(?:das )?(?:heutige )?datum(?: (?P<ref1>{_REF}))?(?: bitte)?$",
        rf"\bwelches datum (?:ist|haben wir)(?: (?P<ref1>{_REF}))?{_NOW_WORDS}(?: (?P<ref2>{_REF}))?$",
        rf"\bder wievielte ist (?P<ref1>{_REF}){_NOW_WORDS}$",
        rf"\bden wievielten haben wir(?: (?P<ref1>{_REF}))?{_NOW_WORDS}(?: (?P<ref2>{_REF}))?$",
        r"\bwas ist (?:das )?(?:heutige )?datum\b", r"\bwie ist das (?:heutige )?datum\b",
        rf"\b(?:sag|nenn) (?:mir )?(?:mal )?(?:das )?(?:heutige )?datum(?: von (?P<ref1>{_REF}))?\b")],
    day_res=[re.compile(p) for p in (
        rf"\b(?:welcher|was für ein) (?:wochen)?tag (?:ist|haben wir)(?: (?P<ref1>{_REF}))?{_NOW_WORDS}"
        rf"(?: (?P<ref2>{_REF}))?$",
        rf"\bwelcher (?:wochen)?tag war (?P<ref1>{_REF})$", rf"\bwelchen (?:wochen)?tag haben wir(?: (?P<ref1>{_REF}))?$",
        rf"^welcher (?:wochen)?tag(?: (?P<ref1>{_REF}))?$", rf"\bwas (?:ist|war) (?P<ref1>{_REF}) für ein tag$")],
    month_year_re=re.compile(r"^(?:welche[nrs]?|in welchem) (?P<what>monat|jahr) (?:ist|haben wir|sind wir)"
                             r"(?: jetzt| gerade| eigentlich)?$"),
    month_word="monat",
    is_day_re=re.compile(r"^ist (?:heute|morgen|es heute) "
                         r"(?P<day>montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)$"),
    tomorrow="morgen",
    day_offsets={"heute": 0, "morgen": 1, "gestern": -1},
    today="heute",
    weekdays=("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"),
    months=("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
            "November", "Dezember"),
    time_reply="Es ist {time}.",
    time_here_only="Ich kenne nur die Uhrzeit hier. Es ist {time}.",
    month_year_reply="Wir haben {month} {year}.",
    year_reply="Wir haben das Jahr {year}.",
    day_leads={"heute": "Heute ist", "morgen": "Morgen ist", "gestern": "Gestern war"},
    day_reply="{lead} {weekday}.",
    date_reply="{lead} {weekday}, der {day} {month} {year}.",
    yes="Ja",
    no="Nein",
    is_day_reply="{answer}, {lead} {weekday}.",
    is_day_leads={"heute": "heute ist", "morgen": "morgen ist"},
    date_of_res=[re.compile(p) for p in (
        r"^welches datum (?:ist|hat|haben wir|(?P<past>war|hatten wir)) (?P<when>.+)$",
        r"^der wievielte (?:ist|(?P<past>war)) (?P<when>.+)$", r"^auf welches datum fällt (?P<when>.+)$")],
    day_of_res=[re.compile(p) for p in (
        r"^(?:welcher|was für ein) (?:wochen)?tag (?:ist|(?P<past>war)) (?P<when>.+)$",
        r"^auf welchen (?:wochen)?tag fällt (?P<when>.+)$")],
    offset_leads={2: "Übermorgen ist", -2: "Vorgestern war"},
    in_days_lead="In {count} Tagen ist",
    weekday_reply="{weekday} ist der {day} {month}.",
    month_day_is="{date} ist ein {weekday}.",
    month_day_was="{date} war ein {weekday}.",
    the_day="Der {day}",
    month_day="Der {day} {month}",
    month_day_year="Der {day} {month} {year}",
)

# --------------------------------------------------------------------------------------
# The hub's volume

_SOUND: Final = r"(?:die |deine )?(?:lautstärke|ton|musik)"
_BIT: Final = r"(?: (?:etwas|ein bisschen|ein bissl|ein wenig|ein stück|viel|noch|mal))*"
_UP_END: Final = r"(?: (?:sprechen|reden|machen|stellen|drehen|sein|erhöhen|hochdrehen|aufdrehen))?"
_DOWN_END: Final = r"(?: (?:sprechen|reden|machen|stellen|drehen|sein|senken|verringern|reduzieren|runterdrehen))?"

VOLUME: Final = VolumeWords(
    up_re=re.compile(
        rf"^(?:(?:mach|mache|dreh|drehe|stell|stelle)(?: mal)? (?:dich |es |das |{_SOUND} |den ton )?{_BIT.strip()}"
        rf" ?lauter|(?:(?:etwas|ein bisschen|noch|mal) )*lauter|(?:erhöhe|erhöh)(?: mal)? {_SOUND}"
        rf"|{_SOUND}{_BIT} (?:hoch|rauf|lauter|erhöhen)|(?:dreh|mach|stell)(?: mal)? {_SOUND} (?:hoch|rauf|auf)"
        r"|sprich lauter|red lauter|ich (?:kann|verstehe) dich (?:nicht|kaum|schlecht)(?: hören| verstehen)?"
        rf"|du bist (?:zu|so|sehr) leise){_UP_END}(?: bitte)?$"),
    down_re=re.compile(
        rf"^(?:(?:mach|mache|dreh|drehe|stell|stelle)(?: mal)? (?:dich |es |das |{_SOUND} |den ton )?{_BIT.strip()}"
        rf" ?leiser|(?:(?:etwas|ein bisschen|noch|mal) )*leiser|(?:verringere|senke|senk|reduziere)(?: mal)? {_SOUND}"
        rf"|{_SOUND}{_BIT} (?:runter|leiser|senken|verringern|reduzieren)"
        rf"|(?:dreh|mach|stell)(?: mal)? {_SOUND} (?:runter|zurück)|sprich leiser"
        rf"|(?:du bist|das ist|es ist) (?:viel )?(?:zu|so|sehr) laut|nicht so laut){_DOWN_END}(?: bitte)?$"),
    mute_re=re.compile(r"^(?:stumm|stummschalten|schalte? dich stumm|sei stumm|ton aus|lautlos)$"),
    unmute_re=re.compile(r"^(?:ton (?:wieder )?an|stummschaltung (?:aufheben|aus)|schalte? den ton (?:wieder )?ein)$"),
    set_re=re.compile(
        rf"^(?:(?:stell|stelle|setz|setze|mach|dreh) )?{_SOUND}(?: (?:auf|bei))? (?P<level>[\w%]+(?: prozent| %)?)"
        r"(?: stellen| setzen| bitte)?$"
        r"|^(?:stell|stelle|setz|setze) (?:dich|es) auf (?P<level2>.+?)(?: lautstärke)?$"),
    ask_re=re.compile(rf"^(?:wie laut bist du|wie (?:ist|hoch ist) {_SOUND}|welche lautstärke (?:ist eingestellt|hast du)"
                      r"|auf welcher lautstärke bist du)$"),
    word_levels={"maximal": "max", "maximum": "max", "voll": "max", "ganz laut": "max", "max": "max",
                 "minimal": "min", "minimum": "min", "min": "min", "halb": "half", "null": "zero"},
    percent=[("prozent",), ("%",)],
    after_level=[(), ("bitte",), ("stellen",), ("setzen",)],
    unmuted="Ton wieder an, Lautstärke {level}.",
    muted="Stumm.",
    muted_level="Stumm. Lautstärke {level}, wenn der Ton wieder an ist.",
    level="Lautstärke {level}.",
    loudest="Lautstärke {level}, lauter geht es nicht.",
    quietest="Lautstärke {level}, leiser geht es nicht.",
    range="Die Lautstärke geht von {low} bis {high}.",
)

# --------------------------------------------------------------------------------------
# The small skills, each under its name: no words for "facts" (what the hub is told to remember)

PHRASES: Final[dict[str, SkillPhrases]] = {
    "lists": de_lists.LISTS,
}

PACK: Final = LanguagePack(
    code="de", name="Deutsch", say=German(), numbers=NUMBERS, skills=SKILLS, timers=TIMERS, clock=CLOCK,
    volume=VOLUME, requests=de_more.REQUESTS, replies=de_more.REPLIES, prompt=de_more.PROMPT,
    sentences=de_more.SENTENCES, speech=de_more.SPEECH, schedule=de_more.SCHEDULE, honesty=de_more.HONESTY,
    emergency=de_more.EMERGENCY, follow_ups=de_more.FOLLOW_UPS, meaning=de_meaning.MEANING, phrases=PHRASES,
)

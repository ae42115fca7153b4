"""English: every word the hub says or matches, and how English says numbers, durations and the time."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Final

from appliance.language import (
    ClockWords,
    FollowUpWords,
    LanguagePack,
    NumberWords,
    PromptWords,
    Replies,
    SentenceWords,
    SkillPhrases,
    SkillWords,
    SpeechWords,
    TimerWords,
    VolumeWords,
    WhichWords,
    en_facts,
    en_lists,
    en_meaning,
)
from appliance.language.en_alarms import SCHEDULE, TIMER_STATE_QUESTION
from appliance.language.en_honesty import EMERGENCY, HONESTY
from appliance.language.en_requests import REQUESTS

# --------------------------------------------------------------------------------------
# Numbers

ONES: Final = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
TENS: Final = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
               "seventy": 70, "eighty": 80, "ninety": 90}

NUMBERS: Final = NumberWords(
    ones=ONES,
    tens=TENS,
    homophones={"to": 2, "too": 2, "won": 1, "ate": 8, "tree": 3, "fore": 4},
    units={
        "second": "second", "seconds": "second", "sec": "second", "secs": "second",
        "minute": "minute", "minutes": "minute", "min": "minute", "mins": "minute",
        "minuets": "minute", "minuet": "minute", "minits": "minute", "minit": "minute", "minuts": "minute",
        "hour": "hour", "hours": "hour", "hr": "hour", "hrs": "hour",
    },
    fuzzy_units=("seconds", "minutes"),
    letters="a-z",
    oclock=(r"\bo'?\s?clock\b", " oclock "),
    contractions=[
        (r"\b(today|tonight|tomorrow|yesterday)'?s\b", r"\1"),
        (r"\bwhat's\b|\bwhats\b", "what is"), (r"\bthat's\b|\bthats\b", "that is"),
        (r"\bit's\b", "it is"), (r"\bhow's\b", "how is"), (r"\bhere's\b", "here is"),
        (r"\bthere's\b", "there is"), (r"\bwhere's\b|\bwheres\b", "where is"), (r"\bwho's\b", "who is"),
        (r"\bwhen's\b", "when is"), (r"\btime's\b", "time is"), (r"\bi've\b", "i have"),
        (r"\bwhat're\b", "what are"), (r"\blet's\b", "let us"),
        *en_lists.CONTRACTIONS,
    ],
    phrase_fixes=[("time her", "timer"), ("time hers", "timers"), ("time are", "timer"),
                  ("a m", "am"), ("p m", "pm"), ("count down", "countdown"),
                  ("nevermind", "never mind"), ("a llama", "an alarm"), ("shopping lest", "shopping list")],
    articles=frozenset({"a", "an"}),
    hundred="hundred",
    point="point",
    couple="couple",
    of="of",
    and_="and",
    one_for_hundred=frozenset({"a", "an", "one"}),
    bare_joins=frozenset({"and", "or"}),
    half="half",
    and_a_half=("and", "a", "half"),
    quarters=frozenset({"quarter", "quarters"}),
    plural_quarters="quarters",
    a_quarter=frozenset({"a", "one"}),
    three=frozenset({"three", "3"}),
    quarter_fillers=frozenset({"of", "an", "a"}),
    doubled_four="for",
)

# --------------------------------------------------------------------------------------
# Saying numbers, durations and the time

_WORDS_ONES: Final = [w for w, _ in sorted(ONES.items(), key=lambda kv: kv[1])]
_WORDS_TENS: Final = {v: w for w, v in TENS.items() if w != "fourty"}
_UNITS_SAID: Final = (("hour", 3600), ("minute", 60), ("second", 1))


def _plural(value: int, unit: str) -> str:
    return f"{value} {unit}" + ("" if value == 1 else "s")


def _parts(seconds: int) -> list[tuple[int, str]]:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return [(v, u) for v, u in ((hours, "hour"), (minutes, "minute"), (secs, "second")) if v]


class English:
    """English grammar for numbers, durations, dates and the time (the Phrasing protocol)."""

    def number(self, value: int) -> str:
        """0..99 in words: 'twenty-three'."""
        if value < 20:
            return _WORDS_ONES[value]
        tens, ones = divmod(value, 10)
        return _WORDS_TENS[tens * 10] + (f"-{_WORDS_ONES[ones]}" if ones else "")

    def duration(self, seconds: float, precision_s: int = 1) -> str:
        """'1 hour and 10 minutes', '1 minute and 30 seconds', rounded to precision_s."""
        total = int(round(seconds / precision_s) * precision_s)
        if total <= 0:
            return "0 seconds" if precision_s == 1 else _plural(0, "minute")
        parts = [_plural(v, u) for v, u in _parts(total)]
        if len(parts) == 1:
            return parts[0]
        return ", ".join(parts[:-1]) + " and " + parts[-1]

    def remaining(self, seconds: float) -> str:
        """Time left, exact to the second under 5 minutes, to the minute after."""
        if seconds < 300:
            return self.duration(max(1.0, seconds))
        return self.duration(seconds, precision_s=60)

    def duration_label(self, seconds: float) -> str:
        """'10 minute', '1 hour 30 minute', '90 second': what an unnamed timer is called by."""
        return " ".join(f"{v} {u}" for v, u in _parts(round(seconds))) or "0 second"

    def timer_label(self, name: str | None, duration_s: float) -> str:
        """'pasta timer' or '10 minute timer'."""
        return f"{name} timer" if name else f"{self.duration_label(duration_s)} timer"

    def ordinal(self, day: int) -> str:
        """4 -> '4th', 22 -> '22nd'."""
        suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
        return f"{day}{suffix}"

    def time(self, now: datetime, style: str, clock: int) -> str:
        """'7:20 PM' / '19:20' (digits) or 'twenty past seven' / 'nineteen twenty' (words)."""
        h, m = now.hour, now.minute
        if style == "digits":
            if clock == 12:
                return f"{h % 12 or 12}:{m:02d} {'AM' if h < 12 else 'PM'}"
            return f"{h}:{m:02d}"
        if m == 0 and h in (0, 12):
            return "midnight" if h == 0 else "noon"
        if clock == 24:
            if m == 0:
                return f"{self.number(h)} hundred"
            return f"{self.number(h)} {'oh ' if m < 10 else ''}{self.number(m)}"
        hour = self.number(h % 12 or 12)
        next_hour = self.number((h + 1) % 12 or 12)
        if m == 0:
            return f"{hour} o'clock"
        if m in (15, 45):
            return f"quarter past {hour}" if m == 15 else f"quarter to {next_hour}"
        if m == 30:
            return f"half past {hour}"
        minutes = m if m < 30 else 60 - m
        amount = self.number(minutes) + ("" if minutes % 5 == 0 else " minute" if minutes == 1 else " minutes")
        return f"{amount} past {hour}" if m < 30 else f"{amount} to {next_hour}"

    def join(self, parts: Sequence[str]) -> str:
        """'a', 'a and b', 'a, b and c'."""
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


# --------------------------------------------------------------------------------------
# Every skill, and timers

_STOP_PHRASES: Final = (
    r"(?:stop(?: it| that| talking| speaking| now)?|cancel(?: that| it)?|never mind|forget (?:it|about it)"
    r"|be quiet|quiet|shut up|hush|shush|silence|enough|that is enough|that will do|nothing|dismiss"
    r"|stop the (?:alarm|sound|noise|ringing|beeping)|turn (?:it|that) off)")
_PLAIN_STOP_PHRASES: Final = (
    r"(?:stop(?: it| that| talking| now)?|cancel(?: that| it)?|be quiet|enough|that is enough|shut up)")
"""Said again and again, a stop is still one ("stop it, stop it", "stop, stop, stop")."""

SKILLS: Final = SkillWords(
    fillers=frozenset({"um", "uh", "er", "erm", "hmm", "uhm"}),
    leading=[("hey",), ("ok",), ("okay",), ("so",), ("please",),
             ("can", "you"), ("could", "you"), ("would", "you"), ("will", "you"), ("and",)],
    # Politeness, and the names people call each other by, after a request: "..., would you, love?"
    trailing=[("please",), ("thanks",), ("thank", "you"), ("ta",), ("cheers",), ("would", "you"), ("would", "ya"),
              ("will", "you"), ("if", "you", "would"), ("if", "you", "can"), ("mate",), ("love",), ("pal",),
              ("buddy",), ("dear",)],
    stop=(
        r"^(?:(?:no|ok|okay|oh|just|alright|all right{name}) )*"
        rf"{_STOP_PHRASES}(?: (?:{_STOP_PHRASES}|please|now|thanks|thank you{{name}}))*$"),
    yes=frozenset({"yes", "yeah", "yep", "sure", "ok", "okay"}),
    plain_stop=(
        r"^(?:(?:oh|ok|okay|just|hey{name}) )*"
        rf"{_PLAIN_STOP_PHRASES}(?: (?:{_PLAIN_STOP_PHRASES}|please|now{{name}}))*$"),
    plain_stop_hint="Cancel. Be quiet. That's enough. Enough.",
)

_NAME_STOP_TEXT: Final = (
    "a an the my our your this that these those another new second quick one some any all every both each "
    "set start make create put add begin run give need want get cancel stop delete remove clear kill end "
    "dismiss abort forget reset turn switch off on up for to of and or me us it i you can could would will "
    "please now called named labeled labelled timer timers alarm alarms countdown countdowns is are what "
    "how much long many left remaining check in at do does have has with")

_TIMERS_IN_GENERAL: Final = (r"\b(?:work|invent\w*|history|buy|best|app|ideal|accurate|reliable|worth"
                             r"|length)\b")

TIMERS: Final = TimerWords(
    timer_word="timer",
    cancel_word="cancel",
    timer_words=frozenset({"timer", "timers", "alarm", "alarms", "countdown", "countdowns"}),
    soundalikes=frozenset({"tiger", "timber", "timor", "timmer", "tamer", "dimer", "time"}),
    soundalike_after=frozenset({"", "for", "called", "named", "and"}),
    cancel_verbs=frozenset({"cancel", "stop", "delete", "remove", "clear", "kill", "end", "dismiss",
                            "abort", "forget", "reset", "scrap", "scratch", "ditch", "nix", "axe", "drop"}),
    cancel_starts=("turn off", "switch off", "get rid of", "never mind the", "i dont need the"),
    set_verbs=frozenset({"set", "start", "make", "create", "put", "add", "begin", "run", "give",
                         "need", "want", "new", "get"}),
    set_starts=("i need", "i want", "can i have", "can i get"),
    set_start_re=re.compile(r"^(?:time|count down|countdown) "),
    remind_re=re.compile(r"\b(?:remind|wake|tell|alert|let) me(?: up| know)? in\b"),
    is_words=frozenset({"is", "are"}),
    all_words=frozenset({"all", "every", "both", "everything"}),
    plural_words=frozenset({"timers", "alarms"}),
    question_start=frozenset({"how", "what", "why", "who", "when", "where", "does", "do", "is", "are", "which"}),
    left_re=re.compile(
        r"\b(?:how (?:much|long|many (?:minutes|seconds|hours))|what is the time|time|minutes)\b.*"
        r"\b(?:left|remaining|to go|until|till|before|on)\b|\bhow much longer\b|\bcheck (?:on )?(?:the|my)\b"
        r"|\bhow is (?:the|my)\b|\bstatus\b|\bwhen (?:will|does|is)\b"),
    left_alone_re=re.compile(
        r"\b(?:how (?:much time|long|many (?:minutes|seconds|hours)))\b(?: \w+)*? (?:left|remaining|to go)$"
        r"|^(?:time|how much) (?:left|longer)$|^how much longer$|^how (?:am i|are we) doing (?:for|on) time\b"
        r"|^(?:what is the )?time (?:left|remaining)(?: on \w+)?$"),
    generic_re=re.compile(rf"\b(?:a|an) (?:\w+ )?timer\b|{_TIMERS_IN_GENERAL}"),
    general_re=re.compile(_TIMERS_IN_GENERAL),
    state_re=TIMER_STATE_QUESTION,
    list_re=re.compile(
        r"\b(?:what|which) timers\b|\b(?:list|show|tell me|read|name)(?: me)?(?: all)?(?: of)?(?: my| the)? timers\b"
        r"|\b(?:do i have|are there|is there|have i got|got) any (?:\w+ )?timers?\b|\bhow many timers\b"
        r"|\btimers (?:are )?(?:running|set|going|on)\b|^(?:my |the |all )?timers$|\bwhat are my timers\b"),
    name_stop=frozenset(_NAME_STOP_TEXT.split()),
    name_introducers=frozenset({"called", "named", "labeled", "labelled", "for", "on"}),
    name_articles=frozenset({"the", "my", "a", "an", "our"}),
    name_ends=frozenset({"and", "please", "timer", "for", "now"}),
    name_for="for",
    needs_re=re.compile(r"^(?:the |my |our )?(?P<name>\w+(?: \w+)?) (?:needs|need|wants|want"
                        r"|is on|are on|go in|goes in|went in|is in|are in)(?: for)? (?!.*\btimer\b)"),
    needs_said_as="set a {name} timer for {duration}",
    piece_joins=frozenset({"and", "then", "plus"}),
    piece_starts=frozenset({"a", "an", "another", "one", "the"}),
    more_verbs=frozenset({"add", "extend", "lengthen", "increase", "bump", "tack"}),
    off_verbs=frozenset({"take", "knock", "shave", "cut", "remove", "chop"}),
    less_verbs=frozenset({"shorten", "reduce", "decrease", "lower", "subtract", "deduct", "minus", "trim", "cut"}),
    off_words=frozenset({"off", "from"}),
    more_words=frozenset({"more", "extra", "another", "additional", "further", "longer"}),
    fewer_words=frozenset({"less", "fewer", "shorter"}),
    to_verbs=frozenset({"change", "adjust", "alter", "update", "reset", "move", "switch", "turn", "put", "make",
                        "extend", "lengthen", "increase", "bump", "shorten", "reduce", "decrease", "lower", "cut"}),
    to_words=frozenset({"to"}),
    to_if_running=frozenset({"set"}),
    make_verbs=frozenset({"make"}),
    definite=frozenset({"it", "that", "this", "the", "my", "our"}),
    instead_words=frozenset({"instead"}),
    length_for=frozenset({"for"}),
    change_after=frozenset({"to", "on", "onto", "off", "from", "instead", "now", "then", "please", "more", "extra",
                            "longer", "less", "fewer", "shorter"}),
    not_changed=frozenset({"alarm", "alarms"}),
    how_long="How long should the timer be, for example ten minutes?",
    how_long_again="Sorry, how long should it be, for example ten minutes?",
    out_of_range="A timer can run from one second to {longest}. How long should it be?",
    cannot_set="Sorry, I couldn't set that timer: {error}.",
    set_one="Timer set for {duration}.",
    set_named="{Name} timer set for {duration}.",
    set_many="{count} timers set: {timers}.",
    set_piece_named="{name} for {duration}",
    none="You don't have any timers.",
    not_found="I can't find a {name} timer. {which}",
    cancelled_one="{Label} cancelled.",
    cancelled_all="All {count} timers cancelled.",
    cancelled_some="{count} timers cancelled: {labels}.",
    done_state="is done",
    left_state="has {remaining} left",
    report_one="Your {label} {state}.",
    report_piece="the {label} {state}",
    report_more="{count} more",
    report_many="You have {count} timers: {timers}.",
    which_one="You have one timer, the {label}. Should I cancel it?",
    which_piece="the {label}",
    which_listed=": {labels}",
    which_many="You have {count} timers{listed}. Which one should I cancel?",
    ended="Your {label} is done.",
    ended_while_off="Your {label} ended while I was off, {ago} ago.",
    changed_more="Added {duration}. Your {label} has {remaining} left.",
    changed_less="Your {label} now has {remaining} left.",
    changed_to="{Label} changed to {duration}.",
    change_none="You don't have a timer to change.",
    change_too_short="Your {label} only has {remaining} left, so I can't take {duration} off.",
    change_out_of_range="A timer can run for at most {longest}, so I left your {label} as it was.",
    change_which_one="You have one timer, the {label}. Should I change it?",
    change_which_many="You have {count} timers{listed}. Which one should I change?",
)

# --------------------------------------------------------------------------------------
# The clock

_REF: Final = "today|tomorrow|yesterday"

CLOCK: Final = ClockWords(
    time_res=[re.compile(p) for p in (
        r"\bwhat time is it(?P<rest>(?: \w+)*)$", r"\bwhat is the (?:current )?time(?P<rest>(?: \w+)*)$",
        r"^(?:the )?(?:current )?time(?: now| please| check)?$", r"\b(?:tell|give) me the time\b",
        r"\bdo you (?:know|have) (?:what time it is|the time)\b", r"\bwhat time do you have\b",
        r"\bhave you got the time\b", r"^what time$", r"^(?:tell me |remind me )?what time it is(?: now)?$",
        # "is it after three yet?": the time answers it
        r"^is it (?:after|past|gone|before|nearly|almost) (?:half |quarter )?(?:past |to )?(?:\d{1,2}(?::\d\d)?|one|two|three"
        r"|four|five|six|seven|eight|nine|ten|eleven|twelve|noon|midnight)(?: o ?clock| thirty| fifteen| forty five"
        r"| am| pm)?(?: yet| already)?$")],
    here_words=frozenset({"now", "right now", "here", "at the moment", "currently"}),
    elsewhere_starts=("in ", "over "),
    date_res=[re.compile(p) for p in (
        rf"^(?:what is )?(?:the )?(?:date|(?P<ref1>{_REF}) date)(?: (?P<ref2>{_REF})| now)?(?: please)?$",
        rf"\bwhat is (?:the )?(?:date|(?P<ref1>{_REF}) date)(?: (?P<ref2>{_REF})| now)?$",
        rf"\bwhat date is it(?: (?P<ref1>{_REF}))?$", rf"\bwhat date is (?P<ref1>{_REF})$",
        rf"\b(?:tell|give) me (?:the|(?P<ref1>{_REF})) date(?: (?P<ref2>{_REF})| now)?$",
        r"\bwhat day of the month is it\b", rf"^(?:tell me |remind me )?what (?:the )?date (?P<ref1>{_REF}) is$",
        rf"^(?:tell me |remind me )?what the date is(?: (?P<ref1>{_REF}))?$")],
    day_res=[re.compile(p) for p in (
        (rf"\b(?:what|which) day (?:of the week )?(?:is it|is (?P<ref1>{_REF})|was (?P<ref2>{_REF})"
         rf"|will it be (?P<ref3>{_REF}))(?: (?P<ref4>{_REF}))?$"), rf"^what is (?P<ref1>{_REF})$",
        rf"^(?:what|which) day(?: (?P<ref1>{_REF}))?$", rf"^what is the day(?: (?P<ref1>{_REF}))?$")],
    month_year_re=re.compile(r"^what (?P<what>month|year) is it(?: now| today)?$"
                             r"|^what is the (?:current )?(?P<what2>month|year)$"),
    month_word="month",
    is_day_re=re.compile(
        r"^(?:is|will) (?:it|today|tomorrow)(?: be)? "
        r"(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?: today| tomorrow)?$"),
    tomorrow="tomorrow",
    day_offsets={"today": 0, "tomorrow": 1, "yesterday": -1},
    today="today",
    weekdays=("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    months=("January", "February", "March", "April", "May", "June", "July", "August", "September",
            "October", "November", "December"),
    time_reply="It's {time}.",
    time_here_only="I only know the time here. It's {time}.",
    month_year_reply="It's {month} {year}.",
    year_reply="It's {year}.",
    day_leads={"today": "It's", "tomorrow": "Tomorrow is", "yesterday": "Yesterday was"},
    day_reply="{lead} {weekday}.",
    date_reply="{lead} {weekday}, {month} {day}, {year}.",
    yes="Yes",
    no="No",
    is_day_reply="{answer}, {lead} {weekday}.",
    is_day_leads={"today": "it's", "tomorrow": "tomorrow is"},
    date_of_res=[re.compile(p) for p in (
        r"^(?:what (?:is|will be)|(?P<past>what was)|tell me|give me) (?:the )?date (?:for )?(?P<when>.+)$",
        r"^(?:what|which) date (?:is it|will it be|is|will be|would it be|would be|(?P<past>was it|was)) (?P<when>.+)$",
        r"^which dates (?P<when>.+)$",  # "which date's next monday"
        r"^what will the date be (?P<when>.+)$", r"^when is (?P<when>.+)$",
        r"^(?:what|which) date (?:does|will) (?P<when>.+?) (?:start|begin)$")],
    day_of_res=[re.compile(p) for p in (
        (r"^(?:what|which) (?:day|day of the week|weekday) "
         r"(?:is it|will it be|is|will be|would it be|would be|(?P<past>was it|was)) (?P<when>.+)$"),
        (r"^(?:what|which) (?:day|day of the week|weekday) (?:does|will|(?P<past>did)) (?P<when>.+?) "
         r"(?:fall on|fall|land on|be on|be)$"))],
    offset_leads={2: "The day after tomorrow is", -2: "The day before yesterday was"},
    in_days_lead="In {count} days it's",
    weekday_reply="{weekday} is {month} {day}.",
    month_day_is="{date} is a {weekday}.",
    month_day_was="{date} was a {weekday}.",
    the_day="The {day}",
    month_day="{month} {day}",
    month_day_year="{month} {day}, {year}",
)

# --------------------------------------------------------------------------------------
# The hub's volume

_SOUND: Final = r"(?:the |your )?(?:volume|sound)"
_BIT: Final = r"(?: a)?(?: little| bit| lot| tad| notch)?(?: bit)?(?: more)?"
_A_BIT: Final = r"(?:(?:a )?(?:little |bit |lot |tad )(?:bit )?)?"
_UP_VERB: Final = r"(?:turn|crank|pump|bump|whack|jack|ramp|kick|push)"

VOLUME: Final = VolumeWords(
    up_re=re.compile(
        rf"^(?:{_UP_VERB} (?:it|that|{_SOUND}|yourself) up|{_UP_VERB} up {_SOUND}"
        rf"|(?:increase|raise) {_SOUND}|{_SOUND} up|(?:(?:be|speak|talk) )?{_A_BIT}louder"
        rf"|(?:speak|talk) up|i cant hear you){_BIT}(?: i (?:cant|cannot|can not) hear (?:you|it|that|the \w+))?$"),
    down_re=re.compile(
        rf"^(?:turn (?:it|that|{_SOUND}|yourself) down|turn down {_SOUND}|(?:lower|decrease|reduce) {_SOUND}"
        rf"|{_SOUND} down|(?:(?:be|speak|talk) )?{_A_BIT}(?:quieter|softer|more quietly)"
        rf"|(?:you are |youre |that is |it is )?(?:too|very) loud|not so loud){_BIT}$"),
    mute_re=re.compile(rf"^(?:mute(?: yourself| {_SOUND}| the speaker)?|go (?:mute|silent|quiet)|be muted)"
                       r"(?: for (?:a (?:bit|while)|now))?$"),
    unmute_re=re.compile(rf"^(?:un ?mute(?: yourself| {_SOUND}| the speaker)?|{_SOUND} (?:back )?on)$"),
    set_re=re.compile(
        rf"^(?:(?:set|change|put|turn|make|bring) )?{_SOUND}(?: level)?(?: (?P<way>up|down))?(?: (?:to|at|on))?"
        r" (?P<level>.+)$"
        r"|^(?:set|change|put|turn) (?:it|yourself) (?:up |down )?to (?P<level2>.+)$"
        rf"|^(?:(?:set|put|turn|go|make it) )?(?:to )?(?P<level3>max|maximum|full|min|minimum|half) {_SOUND}$"),
    ask_re=re.compile(rf"^(?:what is {_SOUND}(?: level)?(?: at| set to)?|how loud are you"
                      r"|what volume (?:are you|is it)(?: at| on)?)$"),
    word_levels={"max": "max", "maximum": "max", "full": "max", "loudest": "max", "all the way up": "max",
                 "right up": "max", "min": "min", "minimum": "min", "lowest": "min", "quietest": "min",
                 "all the way down": "min", "half": "half", "zero": "zero"},
    percent=[("percent",), ("per", "cent"), ("%",)],
    after_level=[(), ("please",)],
    unmuted="Unmuted, volume {level}.",
    muted="Muted.",
    muted_level="Muted. Volume {level} when unmuted.",
    level="Volume {level}.",
    loudest="Volume {level}, as loud as I go.",
    quietest="Volume {level}, as quiet as I go.",
    range="The volume goes from {low} to {high}.",
)

# --------------------------------------------------------------------------------------
# Replies, the prompt, sentences and speech

REPLIES: Final = Replies(
    apology="Sorry, something went wrong.",
    timeout_apology="Sorry, that took too long.",
    busy="Sorry, I'm busy answering someone else. Please ask me again in a moment.",
    nothing_heard="I didn't catch a question.",
    too_long="Sorry, that question is too long for me. Could you ask it in fewer words?",
    no_home_assistant="I can't control devices; Home Assistant isn't connected.",
    home_assistant_down="I can't reach Home Assistant right now, so I can't do that.",
    home_assistant_refused="Home Assistant refused my access token, so I can't do that.",
    no_internet="I have no internet connection, so I can't look that up.",
    in_area="{question} in the {area}",
    unread="Sorry, I didn't get that. Could you say it another way?",
)

PROMPT: Final = PromptWords(
    system=("You are a helpful voice assistant in a home. Answer in one or two short spoken "
            "sentences. Do not use lists, markdown, emoji or links. You have no internet, phone, "
            "messages or shop and cannot act: never say you did or will do anything."),
    facts_header="\n\nFacts about this home:\n",
    long_answer=re.compile(
        r"\b(tell me more|explain|in detail|describe|elaborate|a story|step by step|longer answer)\b",
        re.IGNORECASE),
)

SENTENCES: Final = SentenceWords(
    never_split=frozenset({
        "mr", "mrs", "ms", "mx", "dr", "prof", "st", "jr", "sr", "sgt", "capt", "gen", "gov", "rev",
        "vs", "e.g", "i.e", "cf", "approx", "fig", "u.s", "u.k", "u.n", "mt", "ft", "dept", "est",
    }),
    split_if_capital=frozenset({"etc", "a.m", "p.m", "inc", "ltd", "co", "corp", "jan", "feb",
                                "aug", "sept", "oct", "nov", "dec", "min", "max"}),
    phrase_starts=frozenset({
        "is", "are", "was", "were", "has", "have", "had", "can", "will", "would", "because", "which",
        "who", "that", "and", "but", "so", "with", "by", "for", "in", "on", "at", "from", "about",
        "when", "where", "while", "than", "like", "after", "before", "during", "into", "through",
    }),
    # Only words after which an English question is almost never over: "what is it for", "where are
    # you from" and "tell me how" then wait a moment longer, "set a timer for... ten minutes" and "how
    # far is it from... London to Edinburgh" are not cut in two. Not "is" ("what time it is"), nor "on"
    # or "off" ("turn the lights on").
    unfinished=frozenset({
        "a", "an", "the", "my", "your", "our", "their", "of", "for", "to", "by", "into", "between", "than",
        "and", "or", "but", "because", "if", "every", "remind", "um", "uh", "er", "erm", "hmm", "mm",
        "from", "with", "about", "at", "in", "how", "what", "which", "where", "when", "who", "whose", "why",
    }),
)

SPEECH: Final = SpeechWords(
    scales=("thousand", "million", "billion", "trillion"),
    # Units after a number that espeak-ng spells letter by letter ("5 km" -> "five K M").
    units={
        "km/h": "kilometres per hour", "m/s": "metres per second", "kWh": "kilowatt hours",
        "kW": "kilowatts", "km": "kilometres", "kg": "kilograms", "cm": "centimetres",
        "mm": "millimetres", "ml": "millilitres", "mg": "milligrams", "lbs": "pounds",
        "lb": "pounds", "oz": "ounces", "ft": "feet", "hrs": "hours", "mins": "minutes",
    },
    fractions={"1/2": "a half", "1/3": "a third", "2/3": "two thirds",
               "1/4": "a quarter", "3/4": "three quarters"},
    currencies={"$": ("dollar", "dollars"), "€": ("euro", "euros"), "£": ("pound", "pounds")},
    spelled=[
        (re.compile(r"\s*(?:→|->|⟶|=>)\s*"), " to "),
        (re.compile(r"\s*(?:←|<-)\s*"), " from "),
        (re.compile(r"\s*[℃]"), " degrees Celsius"),
        (re.compile(r"\s*[℉]"), " degrees Fahrenheit"),
        (re.compile(r"\s*[°º]\s*C\b"), " degrees Celsius"),
        (re.compile(r"\s*[°º]\s*F\b"), " degrees Fahrenheit"),
        (re.compile(r"(?<=\d)\s*[°º]"), " degrees"),
        (re.compile(r"[°º]"), " degrees "),
        (re.compile(r"\s*%"), " percent"),
        (re.compile(r"\s*&\s*"), " and "),
        (re.compile(r"\s*\+\s*"), " plus "),
        (re.compile(r"\s*±\s*"), " plus or minus "),
        (re.compile(r"\s*(?:≈|~=)\s*"), " about "),
        (re.compile(r"\s*[≠]\s*"), " is not "),
        (re.compile(r"\s*[≤]\s*|\s*<=\s*"), " at most "),
        (re.compile(r"\s*[≥]\s*|\s*>=\s*"), " at least "),
        (re.compile(r"\s*=+\s*"), " equals "),
        (re.compile(r"\s*×\s*"), " times "),
        (re.compile(r"\s*÷\s*"), " divided by "),
        (re.compile(r"(?<=\d)\s*<\s*(?=\d)"), " is less than "),
        (re.compile(r"(?<=\d)\s*>\s*(?=\d)"), " is more than "),
        (re.compile(r"~\s*(?=\d)"), "about "),
        (re.compile(r"~"), " "),
        (re.compile(r"(?<=\w)@(?=\w)"), " at "),
        (re.compile(r"#\s*(?=\d)"), "number "),
        (re.compile(r"#"), " "),
        (re.compile(r"\bi\.e\.", re.IGNORECASE), "that is"),
        (re.compile(r"\be\.g\.", re.IGNORECASE), "for example"),
        (re.compile(r"\bvs\.?(?=\s)", re.IGNORECASE), "versus"),
    ],
    times=" times ",
    range_to=" to ",
    out_of="{a} out of {b}",
    or_=" or ",
)

# --------------------------------------------------------------------------------------
# The small skills, each under its name (appliance/thinking/*_skill.py)

PHRASES: Final[dict[str, SkillPhrases]] = {
    "lists": en_lists.LISTS,
    "facts": en_facts.FACTS,
}

# Answers by reference to "Which one should I cancel?", and "the other one", on normalised words.
_LEAD: Final = r"(?:(?:um|er|erm|oh|ok|okay|so|well|yes|yeah|please|and|no|nope|sorry|actually|i meant|i said" \
    r"|not that one|not that|wrong one|what about|how about)\s+)*"
_ONE: Final = r"(?:\s+(?:one|alarm|timer|reminder))?(?:\s+please)?"
WHICH: Final = WhichWords(
    reference=re.compile(rf"{_LEAD}(?:the\s+)?(?:(?P<ref>first|second|third|fourth|fifth|sixth|last|earlier|earliest"
                         rf"|sooner|soonest|later|latest|shorter|shortest|longer|longest){_ONE}"
                         rf"|number\s+(?P<number>\w+(?:\s+\w+)?)(?:\s+please)?)"),
    positions={"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "last": -1},
    earlier=frozenset({"earlier", "earliest", "sooner", "soonest"}),
    later=frozenset({"later", "latest"}),
    shorter=frozenset({"shorter", "shortest"}),
    longer=frozenset({"longer", "longest"}),
    other=re.compile(rf"{_LEAD}(?:the|that)\s+other{_ONE}(?:\s+(?:too|as well|then|instead|please))?"),
    correction=re.compile(r"^(?:no|nope|sorry|actually|i meant|i said|not that|wrong one)\b|\binstead\b"),
    back_timer="The {label} is back as it was.",
    back_alarm="Your alarm for {when} is set again.",
    back_reminder="Your reminder, {item}, is set again.",
)

# Follow-ups to the last request, on normalised words (lower case, no punctuation).
_NOW: Final = r"(?:(?:actually|no|oh|sorry|wait|hang on|um|er|erm|ok|okay|right|please)\s+)*"
FOLLOW_UPS: Final = FollowUpWords(
    cancel=re.compile(rf"{_NOW}(?:cancel|scrap|scratch|undo|delete|remove|forget|bin|drop|kill|stop|ditch) "
                      r"(?:that|it|this|the last one)(?: one)?(?: please| then| again)?"),
    change=re.compile(rf"{_NOW}(?:make (?:it|that)|change (?:it|that) to|set it (?:to|for)|(?:i )?meant|"
                      r"no make it|can you make it|could you make it) (?P<rest>.+?)(?: instead| please)?"),
    also=re.compile(r"(?:and|also|oh and|and also|plus|and some|and a|and an|oh and some)\s+(?P<rest>.+?)"
                    r"(?: too| as well| please)?"),
    say={
        "timer_set": {"cancel": ("cancel the {timer} timer",), "change": ("change the {timer} timer to {rest}",)},
        "timer_change": {"change": ("change the {timer} timer to {rest}",)},
        "alarm_set": {"cancel": ("cancel the {time} alarm",)},
        "reminder_set": {"cancel": ("cancel the reminder to {text}",)},
        "list_add": {"cancel": ("take {items} off the {list} list",), "also": ("add {rest} to the {list} list",)},
    },
    length="{length}",
    hours="hours",
    minutes="minutes",
    seconds="seconds",
    which=WHICH,
)

PACK: Final = LanguagePack(
    code="en", name="English", say=English(), numbers=NUMBERS, skills=SKILLS, timers=TIMERS, clock=CLOCK,
    volume=VOLUME, requests=REQUESTS, replies=REPLIES, prompt=PROMPT, sentences=SENTENCES, speech=SPEECH,
    schedule=SCHEDULE, honesty=HONESTY, emergency=EMERGENCY, follow_ups=FOLLOW_UPS, meaning=en_meaning.MEANING,
    phrases=PHRASES,
)

"""English for alarms and reminders: times of day, days, the requests and the replies."""

from __future__ import annotations

import re
from typing import Final

from appliance.language.schedule import AlarmWords, ReminderWords, ScheduleWords, WhenSaid, WhenWords

_DAYS: Final = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NAMES: Final = tuple(day.capitalize() for day in _DAYS)
_MONTHS: Final = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                  "november", "december")


def _clock(hour: int, minute: int, clock: int) -> str:
    """'6:30 AM', '7 AM', '12 PM' on a 12-hour clock; '06:30', '18:45' on a 24-hour one."""
    if clock == 24:
        return f"{hour:02d}:{minute:02d}"
    said = f"{hour % 12 or 12}" + (f":{minute:02d}" if minute else "")
    return f"{said} {'AM' if hour < 12 else 'PM'}"


def _bare(hour: int, minute: int) -> str:
    """'6:30', "7 o'clock": a time said without morning or evening."""
    return f"{hour}:{minute:02d}" if minute else f"{hour} o'clock"


WHEN: Final = WhenWords(
    past=frozenset({"past", "after"}),
    to=frozenset({"to", "till", "til", "before", "of"}),
    half=frozenset({"half"}),
    half_hour=frozenset({"half"}),
    quarter=frozenset({"quarter"}),
    oclock=frozenset({"oclock"}),
    oh=frozenset({"oh", "o", "zero"}),
    minute_words=frozenset({"minute", "minutes"}),
    am=frozenset({"am"}),
    pm=frozenset({"pm"}),
    noon=frozenset({"noon", "midday", "lunchtime"}),
    midnight=frozenset({"midnight"}),
    cues=frozenset({"at", "for", "by", "until", "till", "around", "about"}),
    parts={
        ("in", "the", "morning"): ("am", 9), ("this", "morning"): ("am", 9), ("morning",): ("am", 9),
        ("in", "the", "afternoon"): ("pm", 15), ("this", "afternoon"): ("pm", 15), ("afternoon",): ("pm", 15),
        ("this", "arvo"): ("pm", 15), ("arvo",): ("pm", 15),
        ("in", "the", "evening"): ("pm", 18), ("this", "evening"): ("pm", 18), ("evening",): ("pm", 18),
        ("at", "night"): ("pm", 21), ("tonight",): ("pm", 20),
    },
    tonight=frozenset({"tonight"}),
    today=frozenset({"today"}),
    tomorrow=frozenset({"tomorrow"}),
    weekdays={**{day: i for i, day in enumerate(_DAYS)}, **{day + "s": i for i, day in enumerate(_DAYS)}},
    plural_days=frozenset(day + "s" for day in _DAYS),
    groups={"weekdays": (0, 1, 2, 3, 4), "weekday": (0, 1, 2, 3, 4), "weekends": (5, 6), "weekend": (5, 6),
            "daily": tuple(range(7)), "everyday": tuple(range(7))},
    every=frozenset({"every", "each"}),
    day_word=frozenset({"day"}),
    day_fillers=frozenset({"on", "next", "this", "and", "at", "the", "coming"}),
    offsets={("yesterday",): -1, ("day", "after", "tomorrow"): 2, ("day", "before", "yesterday"): -2,
             ("a", "week", "today"): 7, ("a", "week", "tomorrow"): 8},
    in_days=frozenset({"in"}),
    day_units={"day": 1, "days": 1, "week": 7, "weeks": 7, "fortnight": 14, "fortnights": 14},
    from_now=(("from", "now"), ("from", "today"), ("time",)),
    ordinals={word: i + 1 for i, word in enumerate((
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
        "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth").split())} | {"thirtieth": 30},
    ordinal_ends=frozenset({"st", "nd", "rd", "th"}),
    months={**{month: i + 1 for i, month in enumerate(_MONTHS)},
            **{month[:3]: i + 1 for i, month in enumerate(_MONTHS) if month != "may"}, "sept": 9},
    of=frozenset({"of"}),
)

SAID: Final = WhenSaid(
    clock=_clock,
    bare=_bare,
    today="today",
    tomorrow="tomorrow",
    on_day="on {weekday}",
    every_day="every day",
    weekdays="on weekdays",
    weekends="at weekends",
    on_days="on {days}",
    weekday_names=_NAMES,
    plural_names=tuple(name + "s" for name in _NAMES),
    when="{time} {day}",
)

_LIST: Final = r"\b(?:what|which) {kinds}\b|\b(?:when|what time) (?:is|are|does|do|will) (?:my|the) {kinds}?\b" \
    r"|\b(?:do i have|are there|is there|have i got|got|any) (?:any )?(?:\w+ )?{kinds}?\b(?! (?:to|about|for|at) )" \
    r"|\b(?:list|show|tell me|read|read out|go through|run through|name)(?: me)?(?: all)?(?: of)?(?: my| the)? {kinds}\b" \
    r"|\bhow many {kinds}\b|^(?:my |the |all )?{kinds}$|\bis (?:my|an|the) {kind} set\b|\bwhat are my {kinds}\b"
# A question about the owner's own alarms, reminders or timers, on the normalised words: it opens as a
# question of fact and says whose ("my", "I", "any", "is there"; for a running timer also "the": "is the
# timer still going?"); "how do I set an alarm on my phone?" opens otherwise.
_OPENS: Final = (r"^(?:is|are|do|does|did|have|has|when|whens|what time|which|what|whats|any|got|how early"
                  r"|how late|(?:will|wont)(?= (?:the|my|our|an|any) (?:alarm|reminder)s? (?:go off|ring|be on|be set"
                  r"|sound|wake (?:me|us))))\b")
_WHOSE: Final = r"my|our|i|we|me|us|any|the next|there|the alarm"
_DEVICES: Final = r"\b(?:phone|app|watch|tablet|computer|laptop|clock radio)\b"
_ELSEWHERE: Final = rf"(?!.*{_DEVICES})"
STATE_QUESTION: Final = re.compile(rf"{_OPENS}(?=.*\b(?:{_WHOSE})\b){_ELSEWHERE}")
TIMER_STATE_QUESTION: Final = re.compile(rf"{_OPENS}(?=.*\b(?:{_WHOSE}|the)\b){_ELSEWHERE}")
_CANCEL: Final = (r"^(?:cancel|delete|remove|clear|disable|forget|stop|silence|dismiss|turn off|switch off"
                  r"|get rid of|unset|drop|scrap|scratch|ditch|nix|axe|kill|dont bother with|dont worry about|no need for"
                  r"|knock(?= .* on the head$))\b")

ALARMS: Final = AlarmWords(
    alarm_words=frozenset({"alarm", "alarms"}),
    state_re=STATE_QUESTION,
    # "wait me up": how Whisper tiny hears "wake me up" through a room at times; it means nothing else
    wake_re=re.compile(r"\bwake (?:me|us)(?: up)?\b|\bwait (?:me|us) up\b|\bget (?:me|us) up\b"
                       r"|\bshake (?:me|us) (?:awake|up)\b"
                       r"|\bwake[ -]?up (?:alarm|call)\b"),
    elsewhere_re=re.compile(_DEVICES),
    morning_re=re.compile(r"\b(?:be|get|got|getting|im|i am) up\b|\bup by\b|\b(?:awake|out of bed|sparrows?"
                          r"|first thing|crack of dawn)\b"),
    cancel_re=re.compile(_CANCEL),
    list_re=re.compile(_LIST.format(kind="alarm", kinds="alarms")),
    all_words=frozenset({"all", "every", "both", "everything"}),
    plural_words=frozenset({"alarms"}),
    ask_time="What time should the alarm be for?",
    ask_time_again="Sorry, what time should the alarm be for? For example, 7 AM.",
    set="Alarm set for {when}.",
    none="You don't have any alarms.",
    one="You have one alarm, for {when}.",
    many="You have {count} alarms: {whens}.",
    cancelled_one="Alarm for {when} cancelled.",
    cancelled_all="All {count} alarms cancelled.",
    cancelled_some="{count} alarms cancelled: {whens}.",
    which="You have {count} alarms: {whens}. Which one should I cancel?",
    not_found="You don't have an alarm for {time}. {listing}",
    not_found_other="I can't find that alarm. {listing}",
    cannot_set="Sorry, I couldn't set that alarm: {error}.",
    ring="It's {time}. This is your alarm.",
    ring_missed="Your {time} alarm was due while I was off, {ago} ago.",
    on_day="{Day} you have {alarms}.",
    one_at="an alarm at {time}",
    many_at="{count} alarms, at {times}",
    none_on_day="You have no alarms {day}.",
)

REMINDERS: Final = ReminderWords(
    # "remind me what the date is": a question, not a reminder
    remind_re=re.compile(r"^(?:(?:please )?remind (?:me|us)(?! (?:what|whats|when|where|who|how|which|why)\b)|(?:set|make|create|add|give me|get me|i need|i want"
                         r"|put in|pop in|leave me|leave) (?:a |an |me a )?reminder|reminder"
                         r"|dont let me forget(?= to | about |$)"
                         r"|let (?:me|us) know(?= (?:at|on|tomorrow|tonight|this) ))\b"),
    duty_re=re.compile(r"^(?:i|we) (?:have|need|ought|got|have got|gotta) to |^(?:i|we) (?:must|should|gotta) "
                       r"|^(?:i|we)ve got to "),
    remind_after_re=re.compile(r"\b(?:so |and |then |just )?(?:please )?remind (?:me|us)\b"),
    about=frozenset({"to", "about", "that", "of", "for"}),
    reminder_words=frozenset({"reminder", "reminders"}),
    asked_words=frozenset({"reminder", "reminders", "remind", "reminding", "reminded"}),
    state_re=STATE_QUESTION,
    cancel_re=re.compile(_CANCEL),
    list_re=re.compile(_LIST.format(kind="reminder", kinds="reminders")),
    all_words=frozenset({"all", "every", "both", "everything"}),
    plural_words=frozenset({"reminders"}),
    swaps={("i", "am"): ("you", "are"), ("im",): ("you", "are"), ("i",): ("you",), ("me",): ("you",),
           ("my",): ("your",), ("mine",): ("yours",), ("myself",): ("yourself",), ("we",): ("you",),
           ("us",): ("you",), ("our",): ("your",)},
    after=frozenset({"in", "at", "on", "for", "by", "and", "then", "please"}),
    ask_when="When should I remind you?",
    ask_when_again="Sorry, when should I remind you? For example, at 6 PM or in an hour.",
    set_at="Reminder set for {when}: {what}.",
    set_in="Reminder set for {duration} from now: {what}.",
    set_at_bare="Reminder set for {when}.",
    none="You don't have any reminders.",
    item="{what} at {when}",
    item_bare="one at {when}",
    one="You have one reminder: {item}.",
    many="You have {count} reminders: {items}.",
    cancelled_one="Reminder cancelled: {item}.",
    cancelled_all="All {count} reminders cancelled.",
    cancelled_some="{count} reminders cancelled: {items}.",
    which="You have {count} reminders: {items}. Which one should I cancel?",
    cannot_set="Sorry, I couldn't set that reminder: {error}.",
    ring="Reminder: {what}.",
    ring_bare="It's {time}. This is your reminder.",
    ring_missed="A reminder was due while I was off, {ago} ago: {what}.",
    whats_on_res=[re.compile(p) for p in (
        (r"^(?:what is|what have i got|what do i have|what have we got|what do we have|anything) on "
         r"(?:for )?(?P<when>.+)$"),
        r"^(?:is there|have i got|do i have|have we got|do we have) anything(?: on)?(?: for)? (?P<when>.+)$",
        r"^what (?:am i|are we) (?:meant|supposed|due) to be doing (?P<when>.+)$")],
    on_day="{Day} you have {reminders}.",
    one_of="one reminder: {item}",
    many_of="{count} reminders: {items}",
    none_on_day="You have no reminders {day}.",
    both_on_day="{Day} you have {alarms}, and {reminders}.",
    nothing_on_day="You have no alarms or reminders {day}.",
)

SCHEDULE: Final = ScheduleWords(when=WHEN, said=SAID, alarms=ALARMS, reminders=REMINDERS)

"""What a pack gives alarms and reminders: how a time of day and the days are said, asked for and said back.

The fields are words and patterns; the logic that reads them is appliance/thinking/whenparse.py and the
alarm and reminder skills. English fills them in appliance/language/en_alarms.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from re import Pattern


@dataclass(frozen=True)
class WhenWords:
    """A time of day and the days it is for, in a request ("half past six tomorrow", "7 am on weekdays")."""

    past: frozenset[str]
    """'twenty past six'."""
    to: frozenset[str]
    """'quarter to seven'."""
    half: frozenset[str]
    half_hour: frozenset[str]
    """Said straight before an hour, half past it: "half six" is 6:30 in British English. A language whose
    words for it mean half an hour before the hour (German "halb sechs", 5:30) leaves this empty."""
    quarter: frozenset[str]
    oclock: frozenset[str]
    oh: frozenset[str]
    """'six oh five': the zero before a minute under ten."""
    minute_words: frozenset[str]
    """'ten minutes past six'."""
    am: frozenset[str]
    pm: frozenset[str]
    noon: frozenset[str]
    midnight: frozenset[str]
    cues: frozenset[str]
    """Words before a bare number that make it a time of day ('at 6', 'for 7')."""
    parts: Mapping[tuple[str, ...], tuple[str, int]]
    """A part of the day -> ('am' or 'pm', the hour meant when no time is said): ('tomorrow', 'morning')
    is not here, ('morning',) and ('in', 'the', 'morning') are."""
    tonight: frozenset[str]
    """Words that are today and the evening at once."""
    today: frozenset[str]
    tomorrow: frozenset[str]
    weekdays: Mapping[str, int]
    """Each weekday's name, singular and plural -> Monday 0 ... Sunday 6."""
    plural_days: frozenset[str]
    """The plural names ('mondays'): a day every week."""
    groups: Mapping[str, tuple[int, ...]]
    """'weekdays', 'weekends', 'daily' -> the days they repeat on."""
    every: frozenset[str]
    """'every monday', 'each day'."""
    day_word: frozenset[str]
    """'every day'."""
    day_fillers: frozenset[str]
    """Words around a day that go with it ('on', 'next', 'this', 'and')."""
    offsets: Mapping[tuple[str, ...], int]
    """Other days said by their distance from today: ('yesterday',) -1, ('day', 'after', 'tomorrow') 2."""
    in_days: frozenset[str]
    """Before an amount of days: 'in 3 days'."""
    day_units: Mapping[str, int]
    """Each word for a number of days -> the days it is: 'days' 1, 'week' 7."""
    from_now: Sequence[tuple[str, ...]]
    """After an amount of days: '3 days from now', 'in 2 weeks time'."""
    ordinals: Mapping[str, int]
    """A day of the month in words: 'first' 1 ... 'thirtieth' 30 ('twenty first' is a tens word and 'first')."""
    ordinal_ends: frozenset[str]
    """What follows a day of the month in digits: '20th', written apart as '20 th'."""
    months: Mapping[str, int]
    """Each month's name (and its short forms) -> 1 for January ... 12."""
    of: frozenset[str]
    """'the 20th of June'."""
    half_to: frozenset[str] = frozenset()
    """Said straight before an hour, half an hour before it: German "halb sieben" is 6:30."""
    minutes_after_oclock: bool = False
    """Whether minutes may follow the word for o'clock: German "19 Uhr 30" is 19:30. English never says
    them there ("at 6 o'clock 5 days a week" has no minutes)."""


@dataclass(frozen=True)
class WhenSaid:
    """How a time of day and its days are said back."""

    clock: Callable[[int, int, int], str]
    """(hour 0-23, minute, 12 or 24) -> '6:30 AM', '7 AM', '18:45'."""
    bare: Callable[[int, int], str]
    """(hour 1-12, minute) said without morning or evening -> '6:30', '7 o'clock'."""
    today: str
    tomorrow: str
    on_day: str
    """With {weekday}: a day this week."""
    every_day: str
    weekdays: str
    """Monday to Friday."""
    weekends: str
    on_days: str
    """With {days}: the plural names joined ('on Mondays and Fridays')."""
    weekday_names: tuple[str, ...]
    """Monday first."""
    plural_names: tuple[str, ...]
    """Monday first: 'Mondays'."""
    when: str
    """With {time} and {day}: '6:30 AM tomorrow'."""


@dataclass(frozen=True)
class AlarmWords:
    """Alarms at a time of day: asked for, listed, cancelled, and rung."""

    alarm_words: frozenset[str]
    state_re: Pattern[str]
    """A question about the owner's own alarms ("is my alarm on for tomorrow?", "when's my next alarm?"): answered
    with the alarms kept, never with a question back; one about alarms in general is the model's."""
    wake_re: Pattern[str]
    """'wake me up', 'get me up': an alarm asked for by what it does."""
    morning_re: Pattern[str]
    """'I have to be up by six', 'get me out of bed at seven': an alarm for a time said without morning or
    evening that is a time to be up, so in the morning (as wake_re's are)."""
    cancel_re: Pattern[str]
    list_re: Pattern[str]
    all_words: frozenset[str]
    plural_words: frozenset[str]
    """'cancel my alarms': every one when none is named."""
    # replies
    ask_time: str
    ask_time_again: str
    set: str
    """With {when}."""
    none: str
    one: str
    """With {when}: the only alarm."""
    many: str
    """With {count} and {whens}."""
    cancelled_one: str
    """With {when}."""
    cancelled_all: str
    """With {count}."""
    cancelled_some: str
    """With {count} and {whens}."""
    which: str
    """With {count} and {whens}: a question."""
    not_found: str
    """With {time} and {listing} (one or many)."""
    not_found_other: str
    """With {listing}: no alarm on the days asked for."""
    cannot_set: str
    """With {error}."""
    ring: str
    """With {time}."""
    ring_missed: str
    """With {time} and {ago}."""
    on_day: str
    """With {Day} (a day as WhenSaid says it, capitalised) and {alarms} (one_at or many_at): asked of one day."""
    one_at: str
    """With {time}."""
    many_at: str
    """With {count} and {times}."""
    none_on_day: str
    """With {day}: none that day, while there are alarms on others."""


@dataclass(frozen=True)
class ReminderWords:
    """Reminders: what to say at a time, asked for, listed, cancelled, and said."""

    remind_re: Pattern[str]
    """The start of a request for a reminder; what follows it is the reminder and its time."""
    remind_after_re: Pattern[str]
    """A request for a reminder said after what it is about ("the plumber comes at ten, remind me at half
    nine"): what follows it, then what came before it, are the reminder and its time."""
    duty_re: Pattern[str]
    """How what came before starts when it says what the person must do ("I have to call my sister at six,
    remind me"): left out of the reminder's words ("call your sister")."""
    about: frozenset[str]
    """Words that start what to be reminded of ('to', 'about', 'that')."""
    reminder_words: frozenset[str]
    asked_words: frozenset[str]
    """Words a question about the reminders names ("what have I asked you to remind me about?"): a question
    about the owner's own (`state_re`) with one of them is answered with the reminders kept."""
    state_re: Pattern[str]
    """A question about the owner's own alarms or reminders ("is my alarm on for tomorrow?", "what have I
    asked you to remind me about?"), not about alarms in general ("how do I set an alarm on my phone?")."""
    cancel_re: Pattern[str]
    list_re: Pattern[str]
    all_words: frozenset[str]
    plural_words: frozenset[str]
    swaps: Mapping[tuple[str, ...], tuple[str, ...]]
    """What the person said of themselves, said back to them ('my' -> 'your', 'i am' -> 'you are')."""
    after: frozenset[str]
    """'in 20 minutes', 'at 5': words left around a time once it is taken out."""
    # replies
    ask_when: str
    ask_when_again: str
    set_at: str
    """With {when} and {what}."""
    set_in: str
    """With {duration} and {what}."""
    set_at_bare: str
    """With {when}: a reminder of nothing in particular."""
    none: str
    item: str
    """With {what} and {when}."""
    item_bare: str
    """With {when}."""
    one: str
    """With {item}."""
    many: str
    """With {count} and {items}."""
    cancelled_one: str
    """With {item}."""
    cancelled_all: str
    """With {count}."""
    cancelled_some: str
    """With {count} and {items}."""
    which: str
    """With {count} and {items}: a question."""
    cannot_set: str
    """With {error}."""
    ring: str
    """With {what}."""
    ring_bare: str
    """With {time}."""
    ring_missed: str
    """With {what} and {ago}."""
    whats_on_res: Sequence[Pattern[str]]
    """A question about what a day holds, the day in the group `when` ("what's on for Saturday", "have I got
    anything on tomorrow"): answered with that day's alarms and reminders."""
    on_day: str
    """With {Day} (capitalised) and {reminders} (one_of or many_of): asked of one day."""
    one_of: str
    """With {item}."""
    many_of: str
    """With {count} and {items}."""
    none_on_day: str
    """With {day}: none that day, while there are reminders on others."""
    both_on_day: str
    """With {Day}, {alarms} (AlarmWords.one_at or many_at) and {reminders}: what a day holds."""
    nothing_on_day: str
    """With {day}: a day without alarms or reminders."""


@dataclass(frozen=True)
class ScheduleWords:
    """Alarms and reminders in one language. `when` and `said` are also the clock's and the meaning reader's (a
    day, a time of day); a pack without words for the alarms or the reminders leaves them None, and that skill
    is then off in its language (LanguagePack.schedule_words says so by name)."""

    when: WhenWords
    said: WhenSaid
    alarms: AlarmWords | None = None
    reminders: ReminderWords | None = None

"""The hub's words, one pack per language: every sentence it says and every phrase it matches.

A pack is chosen once, by the `language:` setting, and handed to the parts that speak or listen
for words (the skills, the honest refusals, the model's prompt, the sentence splitter, the text
cleaner). The parts hold the logic; the pack holds the words, the patterns and the grammar that
differs from one language to the next (how a number, a duration or the time is said).

Packs are keyed by the language codes Home Assistant uses for its sentence library ("en", "de",
"fr", ...; home-assistant-intents and hassil load sentences by the same code), so that library can
be looked up from `LanguagePack.code` as it is. A second language is one new module beside en.py,
registered in `_MODULES`, plus its models (a Vosk or Whisper model and a Piper voice for it).

The large skills (timers, the clock, the volume) have a dataclass of words each. A small skill
needs none: its replies and patterns are one `SkillPhrases` in the pack's `phrases`, under the
skill's name, so adding it changes no dataclass here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from re import Pattern
from typing import Final, Protocol

from appliance.language.schedule import AlarmWords, ReminderWords, ScheduleWords

DEFAULT: Final = "en"
_MODULES: Final[Mapping[str, str]] = {"en": "appliance.language.en", "de": "appliance.language.de"}
"""Each known code and the module holding its pack (a module-level `PACK`)."""
KNOWN: Final[tuple[str, ...]] = tuple(_MODULES)
"""The language codes the hub has a pack for."""


class UnknownLanguage(ValueError):
    """A language code with no pack; the message names the known ones."""

    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(f"no language pack for {code!r}; known languages: {', '.join(KNOWN)}")


class MissingWords(LookupError):
    """A pack without words a skill asks for; the message names the skill, the language and the key."""

    def __init__(self, skill: str, code: str, key: str = "") -> None:
        self.skill, self.code, self.key = skill, code, key
        what = f"{key!r} entry for" if key else "words for"
        super().__init__(f"the {code!r} language pack has no {what} the {skill!r} skill")


@dataclass(frozen=True)
class SkillPhrases:
    """One small skill's words in one language: its replies (with {fields}) and its patterns, by key.

    A skill gets them with `LanguagePack.skill(name)`, which fills in `skill` and `code` so that a
    key the pack lacks is reported by name (MissingWords) rather than as a bare KeyError."""

    replies: Mapping[str, str] = field(default_factory=dict)
    patterns: Mapping[str, Pattern[str]] = field(default_factory=dict)
    skill: str = ""
    code: str = ""
    words: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Sets of words by key, looked up one token at a time ("stop": words that say nothing of a topic)."""

    def say(self, key: str, **fields: object) -> str:
        """The reply `key`, its {fields} filled in."""
        if key not in self.replies:
            raise MissingWords(self.skill, self.code, key)
        return self.replies[key].format(**fields)

    def pattern(self, key: str) -> Pattern[str]:
        if key not in self.patterns:
            raise MissingWords(self.skill, self.code, key)
        return self.patterns[key]

    def word_set(self, key: str) -> frozenset[str]:
        if key not in self.words:
            raise MissingWords(self.skill, self.code, key)
        return self.words[key]


class Phrasing(Protocol):
    """How numbers, durations, days and the time are said: grammar, not only words, so each language
    writes its own."""

    def number(self, value: int) -> str:
        """0..99 in words."""

    def duration(self, seconds: float, precision_s: int = 1) -> str:
        """A length of time, rounded to precision_s ('1 hour and 10 minutes')."""

    def remaining(self, seconds: float) -> str:
        """Time left on a timer, as exact as is worth hearing."""

    def duration_label(self, seconds: float) -> str:
        """What an unnamed timer is called by ('10 minute')."""

    def timer_label(self, name: str | None, duration_s: float) -> str:
        """How a timer is spoken of ('pasta timer', '10 minute timer')."""

    def ordinal(self, day: int) -> str:
        """A day of the month as said in a date ('4th')."""

    def time(self, now: datetime, style: str, clock: int) -> str:
        """The time of day, in digits or words, on a 12- or 24-hour clock."""

    def join(self, parts: Sequence[str]) -> str:
        """A spoken list: 'a, b and c'."""


@dataclass(frozen=True)
class NumberWords:
    """Numbers and durations as people say them, for reading them out of a request."""

    ones: Mapping[str, int]
    tens: Mapping[str, int]
    homophones: Mapping[str, int]
    """Words recognisers write for a number they misheard; trusted only right before a unit."""
    units: Mapping[str, str]
    """Each way of saying a unit -> 'second', 'minute' or 'hour'."""
    fuzzy_units: tuple[str, ...]
    """Unit words a misspelling (5 letters or more) is matched against."""
    letters: str
    """The letters of the language as a regex class body: what a word is made of."""
    oclock: tuple[str, str]
    """(pattern, replacement): "o'clock" as one word."""
    contractions: Sequence[tuple[str, str]]
    """(pattern, replacement) pairs that open contractions ("what's" -> "what is")."""
    phrase_fixes: Sequence[tuple[str, str]]
    """Whole-phrase misrecognitions that are always safe to repair."""
    articles: frozenset[str]
    """'a minute', 'an hour': an article that counts as one."""
    hundred: str
    point: str
    couple: str
    of: str
    and_: str
    """The word joining 'a hundred and twenty'."""
    one_for_hundred: frozenset[str]
    """Words for one before 'hundred' ('a hundred', 'one hundred')."""
    bare_joins: frozenset[str]
    """'5 and 10 minutes', '5 or 10 minutes': a bare number taking the next term's unit."""
    half: str
    and_a_half: tuple[str, ...]
    quarters: frozenset[str]
    """'quarter', 'quarters'."""
    plural_quarters: str
    """'three quarters of an hour'."""
    a_quarter: frozenset[str]
    """Words before 'quarter' that mean one of them ('a', 'one')."""
    three: frozenset[str]
    """Three before 'quarters' ('three quarters of an hour')."""
    quarter_fillers: frozenset[str]
    """Words between 'quarter' and 'hour' ('of', 'an')."""
    doubled_four: str
    """A number word recognisers hear twice for a homophone ("for for minutes": four)."""


@dataclass(frozen=True)
class SkillWords:
    """What every local skill's request is wrapped in, and "stop"."""

    fillers: frozenset[str]
    """Hesitations dropped anywhere ("um")."""
    leading: Sequence[tuple[str, ...]]
    """Politeness before a request ("could you"); the wake phrase and its name are added per model."""
    trailing: Sequence[tuple[str, ...]]
    """Politeness after it ("thank you")."""
    stop: str
    """A regex for "stop" and its kin, with {name} where the wake word's name may be said."""
    yes: frozenset[str]
    plain_stop: str = ""
    """A regex for the few words that stop what plays with no wake word (hearing/stop_words.py): short,
    rarely said alone in talk, and not heard in other short words (a bare "quiet" was heard in "quite");
    {name} as in `stop`. Empty: no stop without the wake word."""
    plain_stop_hint: str = ""
    """What the recognizer is told to expect of a short stretch heard while the stop words are armed
    (Whisper's previous-text prompt): the stop phrases it mishears in short speech without it ("cancel"
    as "council"). Keep it short, for Whisper hears what it is told: with "Stop." in it, "top", "shop" and
    "stock" said alone were heard as "Stop."."""


@dataclass(frozen=True)
class TimerWords:
    """Kitchen timers: how they are asked for, named and spoken of."""

    timer_word: str
    """The one word a repaired request uses ("timer")."""
    cancel_word: str
    """The verb a cancel request is rebuilt with ("cancel")."""
    timer_words: frozenset[str]
    soundalikes: frozenset[str]
    """Words recognisers write for "timer"; repaired only where a timer request fits around them."""
    soundalike_after: frozenset[str]
    """Words that may follow a repaired soundalike ('set a tiger for 5 minutes')."""
    cancel_verbs: frozenset[str]
    cancel_starts: tuple[str, ...]
    """Cancel requests that start with a phrase rather than a verb ("turn off")."""
    set_verbs: frozenset[str]
    set_starts: tuple[str, ...]
    set_start_re: Pattern[str]
    remind_re: Pattern[str]
    """'remind me in', 'wake me up in': a timer asked for by what it does."""
    is_words: frozenset[str]
    """A question starting with these asks how a timer is doing ("is the pasta timer done")."""
    all_words: frozenset[str]
    """'cancel all timers', 'both', 'everything'."""
    plural_words: frozenset[str]
    """'cancel the timers': every one when none is named."""
    question_start: frozenset[str]
    left_re: Pattern[str]
    left_alone_re: Pattern[str]
    generic_re: Pattern[str]
    """"a timer", or what is asked of timers in general ("who invented the egg timer")."""
    general_re: Pattern[str]
    """What only a question about timers in general asks ("are timers on ovens accurate?", "is it worth putting
    a timer on the immersion?"), whatever its articles: "is there a timer on?" asks of the owner's."""
    state_re: Pattern[str]
    """A question about the owner's own timers ("is there a timer on?", "have I got a timer going?"); any
    other question naming a timer or an alarm that asks nothing of the time left ("how do I set an alarm
    on my phone?") is the model's."""
    """A question about timers in general ("what is a timer") is for the model."""
    list_re: Pattern[str]
    name_stop: frozenset[str]
    """Words that are never part of a timer's name."""
    name_introducers: frozenset[str]
    """'a timer called pasta', 'for the pasta'."""
    name_articles: frozenset[str]
    name_ends: frozenset[str]
    """What may follow a name after its introducer."""
    name_for: str
    """The introducer a pending timer's name is rebuilt with ("for")."""
    needs_re: Pattern[str]
    """What is cooking said with how long it takes ("the rice wants eighteen minutes", "eggs are on, six
    minutes"), in a group `name`: a timer by that name, said again as `needs_said_as`."""
    needs_said_as: str
    """With {name} and {duration}: a timer by that name as the skill reads it."""
    piece_joins: frozenset[str]
    """Words between two timers in one request ("and", "then")."""
    piece_starts: frozenset[str]
    """Words that start the next timer of a request ("another")."""
    # a change to a timer that runs (or rings): more time, less, or a new length
    more_verbs: frozenset[str]
    """Verbs that add an amount to a timer ("add five minutes", "extend the timer by ten minutes")."""
    off_verbs: frozenset[str]
    """Verbs that take an amount off a timer with one of `off_words` ("take two minutes off", "knock a minute
    off"); without one they say something else ("take five minutes")."""
    less_verbs: frozenset[str]
    """Verbs that take an amount off by themselves ("shorten the timer by five minutes")."""
    off_words: frozenset[str]
    more_words: frozenset[str]
    """Said with an amount, make it more time whatever the verb ("five more minutes", "another two minutes",
    "a minute longer", "put an extra minute on the pasta")."""
    fewer_words: frozenset[str]
    """After an amount, make it less time ("two minutes less", "five minutes shorter")."""
    to_verbs: frozenset[str]
    """Verbs that give a timer a new length with one of `to_words` before it ("change the pasta timer to twelve
    minutes", "shorten it to five minutes")."""
    to_words: frozenset[str]
    to_if_running: frozenset[str]
    """Verbs that give a new length only while a timer runs ("set the timer to twelve minutes"); with none they
    set one, as ever."""
    make_verbs: frozenset[str]
    """Verbs that give a new length to a timer said as `definite` ("make it fifteen minutes", "make the timer
    fifteen minutes")."""
    definite: frozenset[str]
    """'it', 'that', 'the', 'my': a timer already there."""
    instead_words: frozenset[str]
    """'fifteen minutes instead': a new length."""
    length_for: frozenset[str]
    """Before an amount, make it a new timer's length ("add a timer for five minutes", "set a timer for five
    more minutes")."""
    change_after: frozenset[str]
    """What may follow the amount in a change ("add five minutes to the timer"); another word makes it no
    amount of time ("add five minute rice to my list")."""
    not_changed: frozenset[str]
    """Nouns a change of minutes is never for ("add five minutes to my alarm": an alarm is at a time of day)."""
    # replies
    how_long: str
    how_long_again: str
    out_of_range: str
    """With {longest}."""
    cannot_set: str
    """With {error}."""
    set_one: str
    """With {duration}."""
    set_named: str
    """With {name} and {duration}."""
    set_many: str
    """With {count} and {timers}."""
    set_piece_named: str
    """One timer of many: {name} and {duration}."""
    none: str
    not_found: str
    """With {name} and {which}."""
    cancelled_one: str
    """With {Label} (capitalised)."""
    cancelled_all: str
    """With {count}."""
    cancelled_some: str
    """With {count} and {labels}."""
    done_state: str
    left_state: str
    """With {remaining}."""
    report_one: str
    """With {label} and {state}."""
    report_piece: str
    report_more: str
    """With {count}: timers beyond those read out."""
    report_many: str
    """With {count} and {timers}."""
    which_one: str
    """With {label}: the only timer, is it that one."""
    which_piece: str
    """One of the few timers named: {label}."""
    which_listed: str
    """With {labels}, the few timers named."""
    which_many: str
    """With {count} and {listed} (empty or {which_listed})."""
    ended: str
    """The announcement: {label}."""
    ended_while_off: str
    """With {label} and {ago}."""
    changed_more: str
    """With {duration} (added), {label} and {remaining}."""
    changed_less: str
    """With {duration} (taken off), {label} and {remaining}."""
    changed_to: str
    """With {Label} (capitalised; how it was known before) and {duration} (its new length)."""
    change_none: str
    """No timer to change: nothing is set instead."""
    change_too_short: str
    """With {label}, {remaining} and {duration}: more was asked off than is left."""
    change_out_of_range: str
    """With {label} and {longest}."""
    change_which_one: str
    """With {label}: the only timer, is it that one."""
    change_which_many: str
    """With {count} and {listed} (empty or {which_listed})."""


@dataclass(frozen=True)
class ClockWords:
    """The time, the date and the day, asked for and said."""

    time_res: Sequence[Pattern[str]]
    """Asking the time; a `rest` group holds what follows ("in Tokyo")."""
    here_words: frozenset[str]
    """A rest that still asks the time here ("now", "at the moment")."""
    elsewhere_starts: tuple[str, ...]
    """A rest that asks the time somewhere else ("in ", "over ")."""
    date_res: Sequence[Pattern[str]]
    day_res: Sequence[Pattern[str]]
    """Asking the date or the day; `ref...` groups name a day_offsets key."""
    month_year_re: Pattern[str]
    """Groups `what`/`what2`: month_word or another word (the year)."""
    month_word: str
    is_day_re: Pattern[str]
    """"is it Monday": group `day`, a weekday in lower case."""
    tomorrow: str
    day_offsets: Mapping[str, int]
    """'today' 0, 'tomorrow' 1, 'yesterday' -1."""
    today: str
    weekdays: tuple[str, ...]
    """Monday first, as datetime.weekday() counts."""
    months: tuple[str, ...]
    """January first."""
    time_reply: str
    """With {time}."""
    time_here_only: str
    """With {time}: asked for elsewhere."""
    month_year_reply: str
    """With {month} and {year}."""
    year_reply: str
    """With {year}."""
    day_leads: Mapping[str, str]
    """Per day_offsets key: 'It's', 'Tomorrow is'."""
    day_reply: str
    """With {lead} and {weekday}."""
    date_reply: str
    """With {lead}, {weekday}, {month}, {day} (an ordinal) and {year}."""
    yes: str
    no: str
    is_day_reply: str
    """With {answer}, {lead} and {weekday}."""
    is_day_leads: Mapping[str, str]
    """Per day_offsets key, the lead of is_day_reply."""
    date_of_res: Sequence[Pattern[str]]
    """Asking the date of another day, said in the group `when` ("what's the date next Friday", "what date is
    the day after tomorrow"); a group `past` when it is asked of a day gone ("what was the date...")."""
    day_of_res: Sequence[Pattern[str]]
    """Asking the weekday of another day or of a date, said in the group `when` ("what day is it the day after
    tomorrow", "what day of the week is the 20th"), a group `past` as in date_of_res."""
    offset_leads: Mapping[int, str]
    """Per day from today that day_offsets has no word for, the lead of date_reply and day_reply ("The day after
    tomorrow is")."""
    in_days_lead: str
    """With {count}: the lead for a day said as an amount of days ahead ("In 3 days it's")."""
    weekday_reply: str
    """With {weekday}, {month} and {day} (an ordinal): the date of a weekday said ("Friday is June 12th.")."""
    month_day_is: str
    """With {date} (the_day, month_day or month_day_year) and {weekday}: "The 20th is a Saturday."."""
    month_day_was: str
    """As month_day_is, of a day gone."""
    the_day: str
    """With {day} (an ordinal): a day of the month said without its month ("The 20th")."""
    month_day: str
    """With {month} and {day}."""
    month_day_year: str
    """With {month}, {day} and {year}: a date in another year."""


@dataclass(frozen=True)
class VolumeWords:
    """The hub's own volume: up, down, a level, mute."""

    up_re: Pattern[str]
    down_re: Pattern[str]
    mute_re: Pattern[str]
    unmute_re: Pattern[str]
    set_re: Pattern[str]
    """Groups `level`/`level2`: the words of the level asked for; `way` (optional): "up" or "down" said before
    them, a step that way when they name no level ("bring the volume down a touch")."""
    ask_re: Pattern[str]
    word_levels: Mapping[str, str]
    """Each word (or phrase: "all the way up") for a level -> 'max', 'min', 'half' or 'zero'."""
    percent: Sequence[tuple[str, ...]]
    """What follows a number said in percent."""
    after_level: Sequence[tuple[str, ...]]
    """What may follow a plain level ("please")."""
    unmuted: str
    """With {level}."""
    muted: str
    muted_level: str
    """With {level}: the level once unmuted."""
    level: str
    """With {level}."""
    loudest: str
    quietest: str
    range: str
    """With {low} and {high}."""


@dataclass(frozen=True)
class RequestWords:
    """What a request is about, where that decides who may answer it (thinking/requests.py)."""

    not_plain: Pattern[str]
    """Characters that are not part of a plain word (replaced by spaces before matching)."""
    controls: Pattern[str]
    """A request to switch, set or read a device in the home that Home Assistant's own sentences do not
    say (those are matched first, thinking/intents.py)."""
    own_speaker: Pattern[str]
    """The hub's own volume: never a device for Home Assistant."""
    internet: Pattern[str]
    """What only the internet knows (the weather, the news)."""
    why: Pattern[str]
    """An explanation the model can give offline."""
    devices: Mapping[str, str]
    """The kinds of device people name, each with its Home Assistant domain ("front door" -> "lock"):
    the home Home Assistant's sentences are matched against (thinking/intents.py)."""
    rooms: Sequence[str]
    """The rooms of a home, as Home Assistant's areas."""
    floors: Sequence[str]
    warm_up: Sequence[str] = ()
    """Requests matched once at start-up, so that the first question pays no compiling."""
    said_as: Mapping[str, str] = field(default_factory=dict)
    """Home Assistant's intents for the hub's own skills, each in words its skills read ({slot} fields
    filled from the request): "tell me the current time" is asked again as "what time is it"."""


@dataclass(frozen=True)
class Replies:
    """Whole sentences said when nothing else answers: apologies, refusals, busy."""

    apology: str
    timeout_apology: str
    busy: str
    """The model is answering someone else (another room, or Home Assistant's handle)."""
    nothing_heard: str
    """Home Assistant's handle sent no question."""
    too_long: str
    """The question does not fit the model's context."""
    no_home_assistant: str
    home_assistant_down: str
    home_assistant_refused: str
    no_internet: str
    in_area: str
    """A request said in a room: {question} (its end mark dropped) and {area}."""
    unread: str
    """A request for one of the hub's own skills that its skills could not read: asked again."""


@dataclass(frozen=True)
class Act:
    """Something people ask the hub to do that nothing here can do (thinking/honesty.py)."""

    request: Pattern[str]
    """The request, matched at the start of a clause of the plain words, politeness stripped."""
    said: str
    """The truth about it ("I can't place calls."); empty: HonestyWords.cannot."""
    home: bool = False
    """Home Assistant could do it ("warm the lounge up"): declined only while it is not connected."""


@dataclass(frozen=True)
class HonestyWords:
    """Requests to act that nothing here can do, the model's claims of an action, and the truth said
    instead (thinking/honesty.py)."""

    polite: Pattern[str]
    """Politeness before a request ("could you please", "I want you to"), stripped before matching."""
    clauses: Pattern[str]
    """Where a request may start a new clause ("..., so order some more")."""
    about: Pattern[str]
    """A question about doing it ("how do I book a flight"): general knowledge for the model."""
    acts: Sequence[Act]
    cannot: str
    """Said when the request names nothing of `acts` ("I can't do that.")."""
    abilities: Sequence[tuple[str, str, str]]
    """(skill name, verb, what): what each local skill lets the hub do, in the order said; the name
    "home_assistant" stands for Home Assistant once connected."""
    ability: str
    """One verb with what it does: {verb} and {things} (several joined by Phrasing.join)."""
    can_do: str
    """With {abilities}: "I can tell the time, set timers and change my volume."."""
    claim: Pattern[str]
    """The model's sentence claiming an action of its own ("I've added", "Turning on the lights now")."""
    agreeing: Pattern[str]
    """A first piece that only agrees ("Sure!", "Of course,"): the one after it is looked at too."""
    granting: Pattern[str]
    """An answer's start that agrees the person may do it ("Sure, you can get up at six"): a claim when
    what was said is a request rather than a question (`about`, `permission`), for the model then says
    yes to what nothing here did."""
    permission: Pattern[str]
    """A question asking whether one may ("can I freeze bread", "do I need a coat"), which "Sure, you
    can..." answers truly."""


@dataclass(frozen=True)
class WhichWords:
    """Answers by reference to a question back that listed what a request fits ("You have 2 alarms: ...
    Which one should I cancel?"), and "the other one" once one of them was acted on (thinking/which.py);
    matched on the whole of the normalised words. A name, a time or a day ("the pasta one", "the Saturday
    one") and "both" are read by the skills themselves."""

    reference: Pattern[str]
    """A position or a comparison: the word in the group `ref` ("the second one", "the earlier one"), or a
    number in the group `number` ("number two")."""
    positions: Mapping[str, int]
    """The words of `ref` that say a position in the list just said, from 1; from the end when negative."""
    earlier: frozenset[str]
    """The one that rings or ends first ("the earlier one", "the sooner one")."""
    later: frozenset[str]
    shorter: frozenset[str]
    """The timer set for less time ("the shorter one")."""
    longer: frozenset[str]
    other: Pattern[str]
    """"The other one", "and the other one", "no, the other one"."""
    correction: Pattern[str]
    """Searched in `other`: it says the one acted on was not the one meant ("no, the other one"), which is
    then put back as it was."""
    back_timer: str
    """Said after a correction, with {label}: the timer put back."""
    back_alarm: str
    """With {when}."""
    back_reminder: str
    """With {item} (the reminder as ReminderWords.item says it)."""


@dataclass(frozen=True)
class FollowUpWords:
    """Short follow-ups to what a room's last request did (thinking/followups.py), matched on the whole of
    the normalised words, and the full requests each stands for."""

    cancel: Pattern[str]
    """Undo what was just done: "cancel that", "scrap it"."""
    change: Pattern[str]
    """A new value for what was just set, in the group `rest`: "actually make it fifteen"."""
    also: Pattern[str]
    """One more of the same, in the group `rest`: "and eggs"."""
    say: Mapping[str, Mapping[str, Sequence[str]]]
    """By the intent of the last reply, by kind ("cancel", "change", "also"): the requests a follow-up stands
    for, asked in turn, with {timer} (its name, or `length`), {name} (its name and a space, or nothing),
    {rest} (the follow-up's new words), {time} and {text} (an alarm's or reminder's), {list} and {items}."""
    length: str
    """A timer without a name, by its length: {length} is Phrasing.duration_label ("5 minute")."""
    hours: str
    minutes: str
    seconds: str
    """The unit a bare number takes after a timer of whole hours, minutes or seconds."""
    which: WhichWords
    """Answers to a question back by reference ("the second one"), and "the other one"."""


@dataclass(frozen=True)
class EmergencyWords:
    """An emergency said to the hub, and the one sentence said back at once (thinking/honesty.py)."""

    request: Pattern[str]
    """An emergency ("call an ambulance", "I've fallen", "there's a fire"), matched at the start of a clause
    of the plain words (as HonestyWords.acts are), politeness stripped; a clause that asks about one ("how
    do I call an ambulance") is HonestyWords.about's, for the model."""
    said: str
    """With {number}: that the hub cannot call, and to call that number from a phone now."""


@dataclass(frozen=True)
class PromptWords:
    """The model's instructions."""

    system: str
    """Kept byte-identical every turn (no clock in it), so its KV cache is reused."""
    facts_header: str
    long_answer: Pattern[str]
    """Questions that ask for more than a sentence or two (the longer token budget)."""


@dataclass(frozen=True)
class SentenceWords:
    """Where a sentence ends, for the streaming splitter."""

    never_split: frozenset[str]
    """Abbreviations after which a period never ends a sentence (lower case, no final dot)."""
    split_if_capital: frozenset[str]
    """Abbreviations that may end a sentence: split only before a capital."""
    phrase_starts: frozenset[str]
    """Words that begin a new phrase: the first piece may leave just before one."""
    unfinished: frozenset[str] = frozenset()
    """Words a spoken question does not end on ("for", "of", "the", "um"): a pause after one is a pause
    inside the question, waited through (hearing/endpoint.py)."""


@dataclass(frozen=True)
class SpeechWords:
    """Symbols, units and numbers spelled out for the voice."""

    scales: tuple[str, ...]
    """'thousand', 'million': kept with a currency amount."""
    units: Mapping[str, str]
    """Unit after a number -> its spoken words."""
    fractions: Mapping[str, str]
    currencies: Mapping[str, tuple[str, str]]
    """Symbol -> (one, many)."""
    spelled: Sequence[tuple[Pattern[str], str]]
    """Plain replacements after the markdown is gone."""
    times: str
    """Said for 3×4 (with spaces around)."""
    range_to: str
    """Said between the two ends of a range (with spaces around)."""
    out_of: str
    """A ratio: {a} and {b}."""
    or_: str
    """Said for a slash between words (with spaces around)."""


@dataclass(frozen=True)
class MeaningWords:
    """Requests told apart by what they mean, not their words (thinking/meaning.py): examples of each request
    the skills carry out as people say them, questions that only look like one, and each request said
    the one way the skills read it. Slots are marked in braces: {duration} {time} {day} {item} {what}
    {name} {list} {level}."""

    examples: Mapping[str, Sequence[str]]
    """By intent (timer_set, list_add, volume_up ...): sentences that ask for it."""
    questions: Sequence[str]
    """General questions in the requests' words, for the language model ("how do I set an alarm on my phone")."""
    home: Sequence[str]
    """Requests for devices in the home, Home Assistant's ("turn off the kitchen lights")."""
    said_as: Mapping[str, Sequence[str]]
    """By intent: the request as the skills read it, most slots first; the first whose slots were all said
    is asked ("add {item} to the {list} list", then "add {item} to the list")."""
    lists: Mapping[str, str]
    """A list's name as said ("groceries", "to do") -> the name the skills read it by."""
    message_marks: frozenset[str]
    """Words a reminder's message starts after ("remind me to ...", "about ...")."""
    message_ends: frozenset[str]
    """Words that end a reminder's message where its time follows ("... at", "... in", "... on")."""


@dataclass(frozen=True)
class LanguagePack:
    """Every word the hub says or matches in one language."""

    code: str
    """The language code, as Home Assistant's sentence library keys it ("en")."""
    name: str
    """The language's name, in itself."""
    say: Phrasing
    numbers: NumberWords
    skills: SkillWords
    timers: TimerWords
    clock: ClockWords
    volume: VolumeWords
    requests: RequestWords
    replies: Replies
    prompt: PromptWords
    sentences: SentenceWords
    speech: SpeechWords
    schedule: ScheduleWords
    """Alarms and reminders: times of day, days, requests and replies."""
    honesty: HonestyWords
    emergency: EmergencyWords
    follow_ups: FollowUpWords
    meaning: MeaningWords | None = None
    """Requests told apart by their meaning; None: only by the skills' own words."""
    phrases: Mapping[str, SkillPhrases] = field(default_factory=dict)
    """The small skills' words, keyed by each skill's name (LanguagePack.skill)."""

    def skill(self, name: str) -> SkillPhrases:
        """The words of the skill called `name`; MissingWords when this pack has none for it."""
        if name not in self.phrases:
            raise MissingWords(name, self.code)
        return replace(self.phrases[name], skill=name, code=self.code)

    def alarm_words(self) -> AlarmWords:
        """The alarms' words; MissingWords when this pack has none (the alarms skill is then off)."""
        if self.schedule.alarms is None:
            raise MissingWords("alarms", self.code)
        return self.schedule.alarms

    def reminder_words(self) -> ReminderWords:
        """The reminders' words; MissingWords when this pack has none (the reminders skill is then off)."""
        if self.schedule.reminders is None:
            raise MissingWords("reminders", self.code)
        return self.schedule.reminders


_LOADED: dict[str, LanguagePack] = {}


def pack(code: str = DEFAULT) -> LanguagePack:
    """The pack for a language code; UnknownLanguage when there is none. Each is built once."""
    if code not in _LOADED:
        if code not in _MODULES:
            raise UnknownLanguage(code)
        _LOADED[code] = importlib.import_module(_MODULES[code]).PACK
    return _LOADED[code]

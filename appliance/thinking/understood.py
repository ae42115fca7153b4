"""What a transcript asks for, read once (`understand`): an emergency, a local skill's answer, a device
request (Home Assistant's), a question only the internet could answer, a request to do what nothing here
can, one of the hub's own requests that no skill read, "never mind", or a question for the model.

Every pattern of the language pack and Home Assistant's sentences (thinking/intents.py) run at most
once per transcript, in the order the policy needs them (conversation/policy.py); what they found is
kept in the result, which the policy routes on and hands on with its steps: to Home Assistant's turn,
and to the check of the model's answer (conversation/claims.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from appliance.contracts import SkillReply
from appliance.language import Act, LanguagePack
from appliance.thinking import honesty
from appliance.thinking.intents import Kind, understanding
from appliance.thinking.meaning import meanings
from appliance.thinking.requests import for_device, for_internet, plain


@dataclass(frozen=True)
class Understood:
    """One transcript, read: its kind is its class."""

    text: str
    act: Act | None = None
    """What it asks to be done that nothing here can do (with Home Assistant connected, what it could not
    do either), or None; kept whatever the kind, for a turn that goes on past the first refusal."""
    request: bool = False
    """It asks the hub to do something rather than asks a question (honesty.asks_to_do): the model's
    "Sure, you can..." to it is a claim (conversation/claims.py)."""

    @property
    def kind(self) -> str:
        """The kind's name, for the journal (never the words)."""
        return type(self).__name__


@dataclass(frozen=True, kw_only=True)
class Emergency(Understood):
    """An emergency: told at once that the hub cannot call, and the number to call from a phone."""

    reply: SkillReply


@dataclass(frozen=True, kw_only=True)
class Answered(Understood):
    """A local skill read it and answered."""

    reply: SkillReply


@dataclass(frozen=True, kw_only=True)
class ForHome(Understood):
    """A device in the home: Home Assistant's to carry out, never the model's to claim."""

    intent: str = ""
    """Home Assistant's intent (HassTurnOn...); empty when only the language pack's patterns read it."""
    slots: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Online(Understood):
    """Only the internet could answer it (the weather, the news)."""

    intent: str = ""


@dataclass(frozen=True, kw_only=True)
class CannotDo(Understood):
    """A request to do what nothing here can (`act`): a call, an order, music."""

    reply: SkillReply
    """Its truth, with what the hub can do (honesty.act_reply)."""


@dataclass(frozen=True, kw_only=True)
class Unread(Understood):
    """One of the hub's own requests (a timer, the time, the volume, a list) that no skill read."""

    reply: SkillReply
    intent: str


@dataclass(frozen=True, kw_only=True)
class NeverMind(Understood):
    """"Never mind", or a stop with nothing to stop: the turn ends without a word."""

    reply: SkillReply
    intent: str


@dataclass(frozen=True)
class ForModel(Understood):
    """A question for the language model."""


def understand(text: str, words: LanguagePack, number: str, *,
               skills: Callable[[str], SkillReply | None] | None = None, own: bool = False,
               home: bool = False) -> Understood:
    """What `text` asks for, each reading made once, in the policy's order: an emergency (with `number`
    to call), a local skill's answer (`skills`: their reading, when they are asked now), then a device,
    one of the hub's own requests (`own`: while skills are on), a request nothing here can do, the
    internet. `home`: Home Assistant is connected, which takes what it could do out of the acts, and puts
    the acts before the hub's own requests (after its turn, an act's truth is said first). A failing
    skill raises."""
    said = honesty.clauses(text, words)
    if honesty.is_emergency(said, words):
        return Emergency(text, reply=honesty.emergency_reply(number, words))
    if skills is not None and (reply := skills(text)) is not None:
        return Answered(text, reply=reply)
    act, request = honesty.act_in(said, words, home), honesty.asks_to_do(said, words)
    plain_words = plain(text, words.requests)
    speaker = bool(words.requests.own_speaker.search(plain_words))
    found = understanding(words).recognize(text)
    if not speaker and for_device(plain_words, found, words.requests):
        if found is not None:
            return ForHome(text, act, request, intent=found.intent, slots=found.slots)
        return ForHome(text, act, request)
    unread = honesty.unread_reply(found, words) if own else None
    if unread is not None and not home:
        return _own(text, act, request, unread, found.intent if found is not None else "")
    if act is not None:
        return CannotDo(text, act, request, reply=honesty.act_reply(act, words, home))
    if not speaker and request and _meant_for_home(text, words):
        return ForHome(text, act, request)
    if for_internet(plain_words, found, False, words.requests):
        return Online(text, act, request, intent=found.intent if found is not None else "")
    if unread is not None:
        return _own(text, act, request, unread, found.intent if found is not None else "")
    return ForModel(text, act, request)


def _meant_for_home(text: str, words: LanguagePack) -> bool:
    """A device request in words no pattern has ("draw the bedroom curtains", "it's too bright in here"), read
    by meaning (thinking/meaning.py); asked only of a request, never of a question that asks about one ("should
    i leave the heating on")."""
    read = meanings(words)
    return read is not None and read.for_home(text)


def _own(text: str, act: Act | None, request: bool, reply: SkillReply, intent: str) -> Understood:
    if reply.end_turn:
        return NeverMind(text, act, request, reply=reply, intent=intent)
    return Unread(text, act, request, reply=reply, intent=intent)

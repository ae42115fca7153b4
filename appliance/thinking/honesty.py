"""True short answers for what the hub cannot do: act on a device without Home Assistant, know what
only the internet knows, do what nothing here can (a call, an order, music), or carry out one of its
own requests that its skills could not read. Said instead of letting the model pretend;
conversation/claims.py says them instead of an action the model claims."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final

from appliance.contracts import SkillReply
from appliance.language import Act, LanguagePack, pack
from appliance.thinking.intents import Kind, Recognized, understanding
from appliance.thinking.requests import controls_device, needs_internet

# The default pack's sentences, for callers that name them.
NO_HOME_ASSISTANT: Final = pack().replies.no_home_assistant
HOME_ASSISTANT_DOWN: Final = pack().replies.home_assistant_down
HOME_ASSISTANT_REFUSED: Final = pack().replies.home_assistant_refused
NO_INTERNET: Final = pack().replies.no_internet

EMERGENCY: Final = "emergency"
"""The intent of the one sentence an emergency gets."""
CANNOT_DO: Final = "cannot_do"
"""The intent of the truth about a request to act that nothing here can do."""
HOME_ASSISTANT: Final = "home_assistant"
"""The ability named so in HonestyWords.abilities: Home Assistant, once connected."""


def cannot_act(text: str, words: LanguagePack | None = None) -> SkillReply | None:
    """Without Home Assistant: a device request gets the truth, never a claimed action."""
    words = words or pack()
    if not controls_device(text, words):
        return None
    return SkillReply(words.replies.no_home_assistant, "no_home_assistant")


def unreachable(text: str, refused: bool = False, words: LanguagePack | None = None) -> SkillReply | None:
    """Home Assistant down, or refusing the token: a device request is told which; anything else goes on."""
    words = words or pack()
    if not controls_device(text, words):
        return None
    said = words.replies.home_assistant_refused if refused else words.replies.home_assistant_down
    return SkillReply(said, "home_assistant_down")


def offline(text: str, words: LanguagePack | None = None) -> SkillReply | None:
    """A question only the internet could answer gets "no internet", not an invented answer."""
    words = words or pack()
    if not needs_internet(text, words):
        return None
    return SkillReply(words.replies.no_internet, "no_internet")


def cannot_do(text: str, words: LanguagePack | None = None, home: bool = False) -> SkillReply | None:
    """A request to do what nothing here can (a call, an order, music) gets what the hub cannot do and
    what it can; a question about such a thing ("how do I book a flight") goes on to the model.
    `home`: Home Assistant is connected (and has had its turn), so what it could do is not declined here."""
    words = words or pack()
    act = requested_act(text, words, home)
    return act_reply(act, words, home) if act is not None else None


def act_reply(act: Act, words: LanguagePack, home: bool) -> SkillReply:
    """What is said to a request for `act`: its truth with what the hub can do, or, for what Home Assistant
    could do, that there is none."""
    if act.home:
        return SkillReply(words.replies.no_home_assistant, "no_home_assistant")
    return SkillReply(_with_abilities(act.said or words.honesty.cannot, words, home), CANNOT_DO)


def requested_act(text: str, words: LanguagePack | None = None, home: bool = False) -> Act | None:
    """The act of the language pack `text` asks for, or None (act_in)."""
    words = words or pack()
    return act_in(clauses(text, words), words, home)


def act_in(said: Clauses, words: LanguagePack, home: bool = False) -> Act | None:
    """The act of the language pack the clauses ask for, or None: the request, or a later clause of it,
    must start with it once the politeness is stripped; a request that starts by asking about
    something ("how do I...") has no other clause looked at. `home`: Home Assistant is connected, so
    what it could do is not such an act."""
    for clause in said.clauses:
        for act in words.honesty.acts:
            if not (act.home and home) and act.request.match(clause):
                return act
    return None


def emergency(text: str, number: str, words: LanguagePack | None = None) -> SkillReply | None:
    """An emergency ("call an ambulance", "help, I've fallen", "there's a fire") gets one sentence at once,
    never the model's: the hub cannot call, so call `number` from a phone now. Asking about one ("how do I
    call an ambulance abroad") is a question, for the model."""
    words = words or pack()
    return emergency_reply(number, words) if is_emergency(clauses(text, words), words) else None


def is_emergency(said: Clauses, words: LanguagePack) -> bool:
    """Whether a clause starts with an emergency."""
    return any(words.emergency.request.match(clause) for clause in said.clauses)


def emergency_reply(number: str, words: LanguagePack) -> SkillReply:
    """The one sentence an emergency gets: the hub cannot call, so call `number` from a phone now."""
    return SkillReply(words.emergency.said.format(number=number), EMERGENCY, data={"number": number})


def is_request(text: str, words: LanguagePack | None = None) -> bool:
    """Whether `text` asks the hub to do something (asks_to_do)."""
    words = words or pack()
    return asks_to_do(clauses(text, words), words)


def asks_to_do(said: Clauses, words: LanguagePack) -> bool:
    """Whether the clauses ask the hub to do something ("make it louder", "I have to be up at six") rather
    than ask a question ("how loud can it go", "can I freeze bread", "my kids leave the lights on, what can I
    do?"): the first one, politeness stripped, and none after it asking about something."""
    first = said.clauses[0]
    return bool(first) and not (said.asking or words.honesty.permission.match(first)
                                or any(words.honesty.about.match(later) for later in said.clauses[1:]))


@dataclass(frozen=True)
class Clauses:
    """The clauses of a transcript a request may start ("..., so order some more"), in plain words with
    the politeness stripped."""

    clauses: tuple[str, ...]
    asking: bool
    """The first asks about something ("how do I..."): no clause after it is kept."""


def clauses(text: str, words: LanguagePack) -> Clauses:
    """The clauses of `text` a request may start, none after a first clause that asks about something."""
    honesty = words.honesty
    plain = text.lower().replace("\u2019", "'").replace("'", "")
    said: list[str] = []
    for clause in [plain, *honesty.clauses.split(plain)[1:]]:
        clause = " ".join(words.requests.not_plain.sub(" ", clause).split())
        said.append(honesty.polite.sub("", clause, count=1))
        if len(said) == 1 and honesty.about.match(said[0]):
            return Clauses(tuple(said), asking=True)
    return Clauses(tuple(said), asking=False)


def can_do(words: LanguagePack | None = None, home: bool = False) -> str:
    """What the hub can do, from the skills it has ("I can tell the time and date, set timers and change
    my volume."); empty when it has none to name."""
    words = words or pack()
    honesty, present = words.honesty, set(_skill_names())
    if home:
        present.add(HOME_ASSISTANT)
    groups: list[tuple[str, list[str]]] = []
    for name, verb, things in honesty.abilities:
        if name not in present:
            continue
        if groups and groups[-1][0] == verb:
            groups[-1][1].append(things)
        else:
            groups.append((verb, [things]))
    if not groups:
        return ""
    said = [honesty.ability.format(verb=verb, things=words.say.join(things)) for verb, things in groups]
    return honesty.can_do.format(abilities=words.say.join(said))


def truth(question: str, words: LanguagePack | None = None) -> str:
    """What is said instead of the model's claim of an action in its answer to `question`."""
    words = words or pack()
    return truth_of(requested_act(question, words, home=True), words)


def truth_of(act: Act | None, words: LanguagePack) -> str:
    """The truth said instead of a claimed action, for a question that asked for `act` (Home Assistant
    connected) or for none."""
    return _with_abilities(act.said if act is not None and act.said else words.honesty.cannot, words, False)


def _with_abilities(said: str, words: LanguagePack, home: bool) -> str:
    abilities = can_do(words, home)
    return f"{said} {abilities}" if abilities else said


@functools.cache
def _skill_names() -> tuple[str, ...]:
    """The local skills this hub has: the timers (asked inside LocalSkills) and every skill module found."""
    from appliance.thinking.skillkit import discover

    return ("timers", *(entry.name for entry in discover()))


OWN: Final = frozenset({Kind.TIMER, Kind.CLOCK, Kind.VOLUME, Kind.LIST})
"""Requests for the hub's own skills: carried out by a skill, or asked again, never the model's to claim."""


def unread(text: str, words: LanguagePack | None = None) -> SkillReply | None:
    """A request Home Assistant's sentences read as one for the hub's own skills (a timer, the time, the
    volume, a list) that no skill took: asked again in other words, for the model would claim it done.
    "Never mind" and a "stop" with nothing to stop end the turn without a word, as in Home Assistant."""
    words = words or pack()
    return unread_reply(understanding(words).recognize(text), words)


def unread_reply(found: Recognized | None, words: LanguagePack) -> SkillReply | None:
    """The reply to what Home Assistant's sentences read, when it asks for one of the hub's own skills."""
    if found is None:
        return None
    if found.kind is Kind.STOP:
        return SkillReply("", "nevermind", end_turn=True)
    if found.kind in OWN:
        return SkillReply(words.replies.unread, "not_understood", data={"intent": found.intent})
    return None

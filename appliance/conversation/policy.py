"""Who answers a question, and what is said when nothing can: one policy for every way a question
comes in (the hub's own microphone, a satellite in another room, `ask`, `listen`, and Home
Assistant's handle requests on the Wyoming services port).

The order, decided here and nowhere else (Policy.begin, then Policy.settle):
  1. a local skill, when skills are on;
  2. the owner's Home Assistant, when configured: a request it handles, or any device request, gets
     its words; a device request that names no room is asked again in the room it was heard in;
  3. the language model (its early answer, if it heard the same words, is early.py's);
  4. an honest refusal instead of the model where the model could only pretend: a device request
     without Home Assistant, a question only the internet could answer, a request to do what nothing
     here can, a call or an order, a request for one of the hub's own skills that none of them could
     read (thinking/honesty.py); the model's own answer is checked as it is said (claims.py). Which
     request is which, Home Assistant's own sentences tell first (thinking/intents.py);
  5. silence instead of the model for a word or two that nothing here reads, said right after the
     person interrupted the hub's answer or ringing with the wake word (Policy.after_interruption).
Each question is read once (thinking/understood.py), an emergency before all else and the skills asked
in their place in the order: one result says what it asks for (an emergency, a skill's answer, a device request with Home Assistant's
intent and slots, the internet, an act nothing here can do, one of the hub's own requests no skill read,
"never mind", or a question for the model). Every step above routes on that result, and the steps carry
it (AskHome's question, Think) to Home Assistant's turn and to the check of the model's answer, which
read the words no more.

A failure is answered with the apology, a time limit with its own, and a model that another answer
holds with the busy reply (Policy.reply_to_failure). Every sentence is the language pack's
(appliance/language/), chosen by the `language:` setting.

The callers keep only how a question comes in and where its answer goes: they follow the steps
(Say, AskHome, Think) by their type.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from appliance.config import Config, ConversationConfig
from appliance.contracts import Chat, HandleReply, Home, HomeReply, SkillReply, Skills
from appliance.conversation import claims
from appliance.conversation.responder import Failed, HomeAnswered
from appliance.errors import HomeAssistantRefused, ModelBusy
from appliance.language import LanguagePack, pack
from appliance.thinking import honesty
from appliance.thinking.understood import (
    Answered,
    CannotDo,
    Emergency,
    ForHome,
    NeverMind,
    Online,
    Understood,
    Unread,
    understand,
)

_LOGGER = logging.getLogger(__name__)

CONVERSATION_KEPT_S: Final = 300.0  # seconds Home Assistant keeps a conversation going (its own limit)
UNPLACED: Final = ("no_intent_match", "no_valid_targets")
"""Home Assistant's codes for a request it could not tie to a device: "turn on the light" with no room
gets no_valid_targets ("Sorry, I couldn't understand that") from Home Assistant 2025.4."""

OWN_WORDS: Final = ("no_internet", "not_understood", "nevermind", honesty.CANNOT_DO)
"""Replies after Home Assistant's turn that are the hub's own words, not Home Assistant's."""

INTERRUPTION_WORDS: Final = 2
"""Words at most in a request said right after the person interrupted the hub that, read by no skill and no
Home Assistant, ends the turn in silence instead of going to the model. Said over the hub's voice and cut
off by it, such a request is most often a "stop" misheard ("start.", "Scott."), which the model took for a
request to go on and said its whole answer over again."""

SKILL: Final = "skill"
HOME_ASSISTANT: Final = "home_assistant"
LLM: Final = "llm"


@dataclass(frozen=True)
class HomeQuestion:
    """A question for Home Assistant, asked in a room (`area`: a satellite's, or the hub's own
    home_assistant.area): a device request that names nothing Home Assistant can place ("turn on the
    light") is asked again in that room, as Home Assistant places a request from a voice device in its
    area; a room or device named in the request goes first."""

    home: Home
    text: str
    words: LanguagePack
    understood: Understood
    """What the request asks for, read once (thinking/understood.py)."""
    conversation_id: str | None = None
    area: str = ""

    def in_area(self) -> str:
        """The request said in the room: "Turn on the light." in Kitchen -> "Turn on the light in the Kitchen"."""
        return self.words.replies.in_area.format(question=self.text.strip().rstrip(".!?").rstrip(), area=self.area)

    def ask(self) -> HomeReply:
        """Home Assistant's reply; raises as Home.process."""
        reply = self.home.process(self.text, self.conversation_id)
        if (self.area and not reply.handled and reply.code in UNPLACED
                and isinstance(self.understood, ForHome)):
            in_room = self.home.process(self.in_area(), self.conversation_id)
            if in_room.handled:
                reply = dataclasses.replace(in_room, ms=reply.ms + in_room.ms)
        return reply


class HomeConversation:
    """One place's conversation with Home Assistant (the hub's, a satellite's room, `ask`'s): a
    follow-up asked within CONVERSATION_KEPT_S goes on with it."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._kept: tuple[str, float] | None = None

    def current(self) -> str | None:
        kept = self._kept
        return kept[0] if kept is not None and self.clock() - kept[1] < CONVERSATION_KEPT_S else None

    def keep(self, reply: HomeReply) -> None:
        if reply.conversation_id:
            self._kept = (reply.conversation_id, self.clock())


@dataclass(frozen=True)
class Say:
    """Fixed words answer: a skill's reply, a refusal, or Home Assistant's words (`route`)."""

    reply: SkillReply
    route: str


@dataclass(frozen=True)
class AskHome:
    """Home Assistant is asked first; its reply goes to Policy.settle."""

    question: HomeQuestion


@dataclass(frozen=True)
class Think:
    """The language model answers `question`."""

    question: str
    understood: Understood | None = field(default=None, compare=False)
    """What the question asks for, read once; the check of the model's answer looks at it (claims.py)."""


Step = Say | AskHome | Think


class Policy:
    """Who answers: a local skill, then Home Assistant when configured, then the model, or the truth
    when nothing here can answer. Holds no state of a turn, so every way a question comes in shares it."""

    def __init__(self, skills: Skills | None, home: Home | None, fallback: str = "model", area: str = "",
                 words: LanguagePack | None = None,
                 emergency_number: str = ConversationConfig.emergency_number) -> None:
        self.words = words or pack()
        """The sentences said and the requests told apart, in the hub's language."""
        self.skills = skills
        """None when skills are switched off."""
        self.home = home
        self.fallback = fallback
        """home_assistant.fallback: 'home_assistant' lets its words answer whatever it says."""
        self.area = area
        """The hub's own room (home_assistant.area)."""
        self.emergency_number = emergency_number
        """The number an emergency is told to call from a phone (conversation.emergency_number)."""

    @classmethod
    def configured(cls, cfg: Config, skills: Skills | None, home: Home | None) -> Policy:
        """The policy the configuration asks for (skills.enabled is looked at here)."""
        return cls(skills if cfg.skills.enabled else None, home, cfg.home_assistant.fallback, cfg.home_assistant.area,
                   pack(cfg.language), cfg.conversation.emergency_number)

    def apology(self, outcome: str) -> str:
        """What the person hears when a turn ended in `outcome` ('timeout' or 'error') instead of an answer."""
        replies = self.words.replies
        return replies.timeout_apology if outcome == "timeout" else replies.apology

    def reply_to_failure(self, error: BaseException) -> str:
        """What an answer that failed is replaced with: the busy reply when another answer holds the model."""
        return self.words.replies.busy if isinstance(error, ModelBusy) else self.words.replies.apology

    def begin(self, text: str, room: str = "", area: str | None = None,
              conversation: HomeConversation | None = None) -> Step:
        """The first step for a question: what answers it at once, or who is asked. `room`: a satellite's
        name, where a timer set now rings; `area`: where Home Assistant places it (default the hub's).
        A failing skill raises."""
        skills = self.skills
        asked = (lambda said: skills.match(said, room)) if skills is not None else None
        understood = self._read(text, asked, home=self.home is not None)
        if isinstance(understood, Emergency):
            self._warn(f"in {room}" if room else "to the hub")
        if isinstance(understood, Emergency | Answered):
            return Say(understood.reply, SKILL)
        if self.home is None:
            reply = self._refusal(understood)
            return Say(reply, SKILL) if reply is not None else Think(text, understood)
        conversation_id = conversation.current() if conversation is not None else None
        return AskHome(HomeQuestion(self.home, text, self.words, understood, conversation_id,
                                    self.area if area is None else area))

    def _read(self, text: str, skills: Callable[[str], SkillReply | None] | None = None,
              home: bool = True) -> Understood:
        """What `text` asks for, read once as this policy needs it (thinking/understood.py): the skills asked
        when given, and `home`: Home Assistant has its turn. The kind is logged, never the words."""
        understood = understand(text, self.words, self.emergency_number, skills=skills,
                                own=self.skills is not None, home=home)
        _LOGGER.debug("Understood as %s", understood.kind)
        return understood

    def settle(self, question: str, update: HomeAnswered | Failed, conversation: HomeConversation | None = None,
               understood: Understood | None = None) -> Say | Think:
        """Who speaks once Home Assistant has answered `question` (or failed to); `understood`: the question
        as begin read it (AskHome's), else it is read now."""
        if understood is None:
            understood = self._read(question)
        if isinstance(update, HomeAnswered):
            if conversation is not None:
                conversation.keep(update.reply)
            reply = self.after_home(question, update.reply, understood=understood)
        else:
            _LOGGER.warning("%s", update.error)
            refused = isinstance(update.error, HomeAssistantRefused)
            reply = self.after_home(question, None, refused, understood)
        if reply is None:
            return Think(question, understood)
        return Say(reply, SKILL if reply.intent in OWN_WORDS else HOME_ASSISTANT)

    def after_interruption(self, step: Step) -> Step:
        """`step` for a request said right after the person interrupted the hub's answer or its ringing with the
        wake word: one of INTERRUPTION_WORDS words or fewer that only the model would take ends the turn
        without a word, as "never mind" does. The wake word has already stopped what played; a longer
        request, and whatever a skill or Home Assistant reads, is answered as ever."""
        if not isinstance(step, Think):
            return step
        words = len(step.question.split())
        if words > INTERRUPTION_WORDS:
            return step
        _LOGGER.info("A request of %d word(s) after the hub was interrupted, which nothing here reads: the turn "
                     "ends in silence", words)
        return Say(SkillReply("", "nevermind", end_turn=True), SKILL)

    def after_home(self, question: str, reply: HomeReply | None, refused: bool = False,
                   understood: Understood | None = None) -> SkillReply | None:
        """What to say once Home Assistant has answered `question` (None: it failed), or None for the model.

        Decided by what was asked (`understood`, else read now): a request it handled, or any device
        request, gets its words (a device it does not know included); anything else goes to the model.
        Home Assistant down: a device request is told so.
        """
        if understood is None:
            understood = self._read(question)
        device = isinstance(understood, ForHome)
        if reply is None and device:
            replies = self.words.replies
            said = replies.home_assistant_refused if refused else replies.home_assistant_down
            return SkillReply(said, "home_assistant_down")
        if reply is not None and reply.speech and (reply.handled or device or self.fallback == HOME_ASSISTANT):
            return SkillReply(reply.speech, "home_assistant")
        if device:  # Home Assistant said nothing to it
            act = understood.act
            return honesty.act_reply(act, self.words, home=True) if act is not None else None
        return self._refusal(understood)

    def _refusal(self, understood: Understood) -> SkillReply | None:
        """The truth said instead of the model, for what nothing here can answer; None: the model's."""
        if isinstance(understood, ForHome):
            return SkillReply(self.words.replies.no_home_assistant, "no_home_assistant")
        if isinstance(understood, Online):
            return SkillReply(self.words.replies.no_internet, "no_internet")
        if isinstance(understood, CannotDo | Unread | NeverMind):
            return understood.reply
        return None

    def _warn(self, where: str) -> None:
        """A WARNING in the journal for an emergency (without the words, which stay private as every
        transcript does). `where`: "to the hub", "in kitchen"..."""
        _LOGGER.warning("An emergency was said %s: told that the hub cannot call, and to call %s from a phone",
                        where, self.emergency_number)

    def handle(self, question: str, chat: Chat, cancel: threading.Event) -> HandleReply:
        """Home Assistant's own question (the Wyoming handle): only the model answers it. Home Assistant
        has tried its own sentences first, asking it back would go round in a circle, and a timer
        set from there would ring on a hub nobody is near."""
        replies = self.words.replies
        if not question.strip():
            return HandleReply(replies.nothing_heard, handled=False)
        understood = self._read(question)
        if isinstance(understood, Emergency):
            self._warn("through Home Assistant")
            return HandleReply(understood.reply.text, handled=True)
        try:
            text = "".join(chat.stream(question, cancel)).strip()
        except ModelBusy:
            _LOGGER.info("Wyoming: a question came while the language model was busy; answered that it is busy")
            return HandleReply(replies.busy, handled=False, error_code="model-busy", error_text=replies.busy)
        except Exception as exc:
            _LOGGER.warning("Wyoming: the language model failed: %s", exc)
            return HandleReply(replies.apology, handled=False, error_code="handle-failed",
                               error_text=f"The language model failed: {exc}")
        return HandleReply(claims.checked(question, text, self.words, understood), handled=True)

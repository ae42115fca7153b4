"""The one answer path: fixed words, Home Assistant's reply or the language model's answer, cut into
sentences, cleaned for speech and spoken as each sentence is written. The daemon, satellites, `listen`
and `ask` all answer through it; who answers is decided in policy.py.

An answer runs on at most two threads of its own, which it starts itself: the model's (it writes,
splits and hands each sentence on) or Home Assistant's ('home'), and the speech worker's
(tts.SpeechWorker: synthesis, then the speaker). None of them writes anything the caller owns: they
post timestamped Updates, and the caller (the conductor's loop, a satellite's turn, or `ask`) reads
them with Answer.updates() and keeps its own record.
"""

from __future__ import annotations

import dataclasses
import enum
import logging
import queue
import threading
import traceback
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from typing import Final, Protocol

from appliance.contracts import (
    AnswerStats,
    Bell,
    Chat,
    HomeReply,
    Sink,
    Splitter,
    Synthesizer,
)
from appliance.conversation.claims import ClaimCheck
from appliance.conversation.gate import Gate
from appliance.language import LanguagePack, SpeechWords
from appliance.speaking.textclean import for_speech
from appliance.speaking.tts import SpeechWorker
from appliance.thinking.understood import Understood

_LOGGER = logging.getLogger(__name__)

CLAIM: Final = "claim"
"""The stop reason of a model answer whose first sentence claimed an action, replaced by the truth."""


class Part(enum.Enum):
    """A part of an answer that runs on a thread of its own."""

    MODEL = "model"
    SPEECH = "speech"
    HOME = "home"

    @property
    def stage(self) -> str:
        """The stage the journal names for a failure of this part."""
        return "llm" if self is Part.MODEL else self.value


@dataclass(frozen=True)
class Update:
    """Something a part of an answer reports, and when (`at`, the clock of the Responder). The caller
    tells them apart by their type."""

    at: float


@dataclass(frozen=True)
class FirstToken(Update):
    """The model wrote its first token."""


@dataclass(frozen=True)
class Delta(Update):
    """A piece of the model's text, as written."""

    text: str


@dataclass(frozen=True)
class Sentence(Update):
    """A sentence (or first clause) cleaned for speech, handed to speech."""

    text: str


@dataclass(frozen=True)
class ModelDone(Update):
    """The model has returned; the chat's figures for this answer."""

    stats: AnswerStats | None


@dataclass(frozen=True)
class HomeAnswered(Update):
    """Home Assistant has answered."""

    reply: HomeReply


@dataclass(frozen=True)
class Spoken(Update):
    """The speaker has played the whole answer, which began to be heard at `first_audio_at`."""

    first_audio_at: float | None


@dataclass(frozen=True)
class Failed(Update):
    """A part failed."""

    part: Part
    error: BaseException
    traceback: str | None = None


@dataclass(frozen=True)
class Ended(Update):
    """A part is over; after the last one the answer is done."""

    part: Part


class Consultation(Protocol):
    """What Answer.consult asks of the owner's Home Assistant (policy.HomeQuestion, which says how)."""

    @property
    def text(self) -> str:
        """The question as it was heard."""

    def ask(self) -> HomeReply:
        """Home Assistant's reply; raises as contracts.Home.process."""


class Answer:
    """One answer under way: its cancel Event, its Gate, the threads it starts, and the Updates they post.

    Built by the Responder and started by one of write(), consult() or say(), once.
    """

    def __init__(self, text: str, tts: Synthesizer, sink: Sink | None, clock: Callable[[], float], *,
                 held: bool = False, bell: Bell | None = None, route: str = "llm",
                 speech: SpeechWords | None = None, words: LanguagePack | None = None,
                 understood: Understood | None = None) -> None:
        self.text = text
        """The question (or for a spoken message, its first sentence)."""
        self.route = route
        """Who answers: 'llm', 'skill', 'home_assistant', or 'home' while Home Assistant is asked."""
        self.held = held
        """Started held back: an early answer, heard only once released."""
        self.clock = clock
        self.started_at = clock()
        self.cancel = threading.Event()
        self.cancelled_at: float | None = None
        self.gate = Gate(sink, held, clock) if sink is not None else None
        self._tts = tts
        self._bell = bell
        self._speech = speech
        """How text is made sayable in the hub's language (None: the default language's)."""
        self._words = words
        """The hub's language, for the check of the model's answer (None: the default language)."""
        self._understood = understood
        """The question as the policy read it, for the check of the model's answer (None: read there)."""
        self._updates: queue.SimpleQueue[Update] = queue.SimpleQueue()
        self._running: set[Part] = set()
        self._worker: SpeechWorker | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ started once, by the Responder

    def write(self, chat: Chat, splitter: Splitter, long: bool | None = None) -> Answer:
        """The model's answer to self.text, on the model's thread: written, split, checked and spoken.

        Its start is checked before it is said (honesty.ClaimCheck): a claimed action is replaced by
        the truth, the model stopped and the rest unsaid. Until the start has passed, its text is
        held back from the Delta updates too, so nothing shows what was not said.
        """
        question, cancel = self.text, self.cancel
        check = ClaimCheck(question, self._words, self._understood)

        def run() -> None:
            first, claimed = True, False
            held: list[str] = []  # text not yet posted as Delta: the start, while it is checked
            said: list[str] = []  # pieces said while the start was checked
            waiting: list[str] = []  # a piece not yet said: the check waits for the next one (ClaimCheck.waiting)
            deltas = None
            try:
                if cancel.is_set():
                    return
                deltas = chat.stream(question, cancel) if long is None else chat.stream(question, cancel, long=long)
                for delta in deltas:
                    if first:
                        first = False
                        self._post(FirstToken(self.clock()))
                    if check.open:
                        held.append(delta)
                    else:
                        self._post(Delta(self.clock(), delta))
                    claimed = self._pieces(splitter.add(delta), check, held, said, waiting)
                    if claimed or cancel.is_set():
                        break
                if not claimed and not cancel.is_set():
                    claimed = self._pieces(splitter.finish(), check, held, said, waiting)
                if not claimed and not cancel.is_set() and (truth := check.settle()) is not None:
                    claimed = self._claimed(truth, said)
                if not claimed and held:
                    self._post(Delta(self.clock(), "".join(held)))
            finally:  # the chat runs one answer at a time: its stats are still this answer's
                if claimed and isinstance(deltas, Generator):
                    deltas.close()  # the model stops now; its claim is not kept in the history
                stats = chat.last_stats
                if claimed and dataclasses.is_dataclass(stats):
                    stats = dataclasses.replace(stats, stop_reason=CLAIM)
                self._post(ModelDone(self.clock(), stats))

        self._start(Part.MODEL, run)
        return self

    def _pieces(self, pieces: list[str], check: ClaimCheck, held: list[str], said: list[str],
                waiting: list[str]) -> bool:
        """Say the pieces the splitter has cut, the start checked first; True once a claim was replaced. A
        piece the check waits on is said with the next one that settles it (`waiting`)."""
        for piece in pieces:
            if not check.open:
                self._sentence(piece)
                continue
            truth = check.look(piece)
            if truth is not None:
                return self._claimed(truth, said)
            if check.waiting:
                waiting.append(piece)
                continue
            for ready in (*waiting, piece):
                said.append(ready)
                self._sentence(ready)
            waiting.clear()
            if not check.open:  # the start has passed: what was held back is shown
                self._post(Delta(self.clock(), "".join(held)))
                held.clear()
        return False

    def _claimed(self, truth: str, said: list[str]) -> bool:
        """The truth said in place of a claimed action (after the pieces already said); True."""
        _LOGGER.info("The model claimed an action in its first sentence; said the truth instead")
        self._post(Delta(self.clock(), " ".join([*said, truth])))
        self._sentence(truth)
        return True

    def consult(self, question: Consultation) -> Answer:
        """Home Assistant asked on a thread of its own: a HomeAnswered update, or a Failed one."""
        def run() -> None:
            self._post(HomeAnswered(self.clock(), question.ask()))

        self._start(Part.HOME, run)
        return self

    def say(self, texts: Iterable[str]) -> Answer:
        """Fixed texts spoken on the speech worker's thread (none of the model's)."""
        if self.gate is not None:
            self._running.add(Part.SPEECH)
        for text in texts:
            self._sentence(text)
        self._end_speech()
        return self

    # ------------------------------------------------------------ for the caller's thread

    @property
    def done(self) -> bool:
        """Every part has ended (as far as the updates read so far tell)."""
        return not self._running

    def updates(self) -> list[Update]:
        """The updates posted since the last call, oldest first; never waits."""
        out = []
        while True:
            try:
                update = self._updates.get_nowait()
            except queue.Empty:
                return out
            self._seen(update)
            out.append(update)

    def next_update(self, timeout: float) -> Update | None:
        """The next update, waiting up to `timeout` seconds for it."""
        try:
            update = self._updates.get(timeout=timeout)
        except queue.Empty:
            return None
        self._seen(update)
        return update

    def release(self) -> None:
        """Let a held answer be heard."""
        if self.gate is not None:
            self.gate.release()

    def stop(self) -> None:
        """Cancel it: the model stops between tokens, speech between chunks, and the Gate shuts now."""
        if self.cancelled_at is None:
            self.cancelled_at = self.clock()
        self.cancel.set()
        if self.gate is not None:
            self.gate.stop()

    @property
    def model_running(self) -> bool:
        """The model's (or Home Assistant's) thread has not returned (after stop(): a call that does not end)."""
        return self._thread is not None and self._thread.is_alive()

    # ------------------------------------------------------------ on the parts' threads

    def _seen(self, update: Update) -> None:
        if isinstance(update, Ended):
            self._running.discard(update.part)

    def _post(self, update: Update) -> None:
        self._updates.put(update)

    def _start(self, part: Part, run: Callable[[], None]) -> None:
        self._running.add(part)
        if self.gate is not None and part is Part.MODEL:
            self._running.add(Part.SPEECH)

        def body() -> None:
            try:
                run()
            except BaseException as exc:  # handed to the caller's thread, which recovers
                self._post(Failed(self.clock(), part, exc, traceback.format_exc()))
            finally:
                if part is Part.MODEL:
                    self._end_speech()
                self._post(Ended(self.clock(), part))

        self._thread = threading.Thread(target=body, name=f"appliance-{part.value}", daemon=True)
        self._thread.start()

    def _sentence(self, piece: str) -> None:
        """Clean one piece for speech (the only place text is), post it and hand it to speech."""
        text = for_speech(piece, self._speech)
        if not text.strip() or self.cancel.is_set():
            return
        self._post(Sentence(self.clock(), text))
        if self.gate is None:
            return
        if self._worker is None:
            # Started at the first sentence, so an earcon before it never counts as the answer's audio.
            self._worker = SpeechWorker(self._tts, self.gate, self.cancel, on_end=self._speech_ended).start()
        self._worker.say(text)
        # Asked only once the answer may be heard: a held answer may yet be dropped unheard.
        for message in self._bell.due_texts() if self._bell is not None and self.gate.released else ():
            spoken = for_speech(message, self._speech)
            if spoken.strip():
                self._worker.say(spoken)

    def _end_speech(self) -> None:
        """No more sentences: the worker plays out what it has; with none, speech is over at once."""
        if self._worker is not None:
            self._worker.finish()
        elif self.gate is not None:
            self._post(Ended(self.clock(), Part.SPEECH))

    def _speech_ended(self, worker: SpeechWorker) -> None:
        """On the speech worker's thread, when it is over."""
        try:
            if worker.error is not None:
                self._post(Failed(self.clock(), Part.SPEECH, worker.error))
            elif not worker.played and not self.cancel.is_set():
                self._post(Failed(self.clock(), Part.SPEECH, TimeoutError("the speaker did not play out the answer")))
            elif worker.played:
                gate = self.gate
                first = (gate.first_audio_at() if gate is not None else None) or worker.stats.first_chunk_at
                self._post(Spoken(self.clock(), first))
        finally:
            self._post(Ended(self.clock(), Part.SPEECH))


class Responder:
    """Starts answers: the model's, Home Assistant's, or fixed words, each spoken through Answer sentence
    by sentence; `sink` may be None (`ask` without --speak). What answers a question is policy.py's."""

    def __init__(self, chat: Chat, tts: Synthesizer, splitter_factory: Callable[[], Splitter],
                 clock: Callable[[], float], speech: SpeechWords | None = None,
                 words: LanguagePack | None = None) -> None:
        self.chat = chat
        self.tts = tts
        self.splitter_factory = splitter_factory
        self.clock = clock
        self.speech = speech if speech is not None or words is None else words.speech
        self.words = words
        """The hub's language pack (None: the default one): its claims of an action are checked for."""

    def consult(self, question: Consultation) -> Answer:
        """Ask the owner's Home Assistant, on a thread of its own; its reply comes as a HomeAnswered
        update (or a Failed one), and the policy decides who speaks."""
        return Answer(question.text, self.tts, None, self.clock, route="home", speech=self.speech).consult(question)

    def think(self, question: str, sink: Sink | None, *, held: bool = False, long: bool | None = None,
              bell: Bell | None = None, understood: Understood | None = None) -> Answer:
        """The model's answer to `question`, started now: written, split, cleaned and spoken into `sink`.

        held: its audio waits for Answer.release() (an early answer). bell: messages that cannot
        wait for the end of the answer (a timer that has just ended), asked after each sentence.
        understood: the question as the policy read it (Think's), for the check of the answer.
        """
        answer = Answer(question, self.tts, sink, self.clock, held=held, bell=bell, speech=self.speech,
                        words=self.words, understood=understood)
        return answer.write(self.chat, self.splitter_factory(), long)

    def say(self, texts: Iterable[str], sink: Sink | None, route: str = "skill") -> Answer:
        """Speak fixed texts (a skill's reply, Home Assistant's, an apology, a timer's message) as an answer."""
        texts = list(texts)
        return Answer(texts[0] if texts else "", self.tts, sink, self.clock, route=route,
                      speech=self.speech).say(texts)

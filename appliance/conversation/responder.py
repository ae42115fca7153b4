"""The one answer path: a local skill, else Home Assistant when configured, else the language model,
cut into sentences, cleaned for speech and spoken as each sentence is written. The daemon, `listen`
and `ask` all answer through it.

An answer runs on at most two threads of its own: the model's (it writes, splits and hands each
sentence on) and the speech worker's (tts.SpeechWorker: synthesis, then the speaker); asking Home
Assistant runs on one of its own ('home'). None of them
writes anything the caller owns: they post timestamped Updates, and the caller (the conductor's
loop, or `ask`) reads them with Answer.updates() and keeps its own record.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from appliance.contracts import (
    AnswerStats,
    Chat,
    Home,
    HomeReply,
    Sink,
    SkillReply,
    Skills,
    Splitter,
    Synthesizer,
)
from appliance.conversation.gate import Gate
from appliance.speaking.textclean import for_speech
from appliance.speaking.tts import SpeechWorker
from appliance.thinking import honesty
from appliance.thinking.requests import controls_device

_LOGGER = logging.getLogger(__name__)

UNPLACED: Final = ("no_intent_match", "no_valid_targets")
"""Home Assistant's codes for a request it could not tie to a device: "turn on the light" with no room
gets no_valid_targets ("Sorry, I couldn't understand that") from Home Assistant 2025.4."""
DRAIN_TIMEOUT_S: Final = 30.0  # seconds the speech worker waits for the speaker to play out an answer


@dataclass(frozen=True)
class Update:
    """Something a worker of an answer reports, and when (the clock of the Responder).

    kind is one of:
      'first_token'  the model wrote its first token;
      'delta'        a piece of the model's text (`text`), as written;
      'sentence'     a sentence (or first clause) cleaned for speech (`text`), handed to speech;
      'model_done'   the model has returned (`stats`);
      'home'         Home Assistant has answered (`home`);
      'spoken'       the speaker has played the whole answer (`first_audio_at`: when it began);
      'error'        a part failed (`part`, `error`, `traceback`);
      'ended'        a part ('model', 'speech' or 'home') is over; after the last 'ended' the answer is done.
    """

    kind: str
    at: float
    part: str = ""
    text: str = ""
    stats: AnswerStats | None = None
    home: HomeReply | None = None
    first_audio_at: float | None = None
    error: BaseException | None = None
    traceback: str | None = None


class Answer:
    """One answer under way: its cancel Event, its Gate, its threads, and the Updates they post."""

    def __init__(self, text: str, tts: Synthesizer, sink: Sink | None, clock: Callable[[], float], *,
                 held: bool = False, interject: Callable[[], list[str]] | None = None, route: str = "llm") -> None:
        self.text = text
        self.route = route
        """Who answers: 'llm', 'skill', 'home_assistant', or 'home' while Home Assistant is asked."""
        """The question (or for a spoken message, its first sentence)."""
        self.held = held
        """Started held back: an early answer, heard only once released."""
        self.clock = clock
        self.started_at = clock()
        self.cancel = threading.Event()
        self.cancelled_at: float | None = None
        self.gate = Gate(sink, held, clock) if sink is not None else None
        self._tts = tts
        self._interject = interject
        self._updates: queue.SimpleQueue[Update] = queue.SimpleQueue()
        self._running: set[str] = set()
        self._worker: SpeechWorker | None = None
        self._model: threading.Thread | None = None

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

    def _seen(self, update: Update) -> None:
        if update.kind == "ended":
            self._running.discard(update.part)

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
        """The model's thread has not returned (after stop(): a model call that does not end)."""
        return self._model is not None and self._model.is_alive()

    # ------------------------------------------------------------ parts

    def _post(self, kind: str, **fields: object) -> None:
        self._updates.put(Update(kind, self.clock(), **fields))  # type: ignore[arg-type]

    def _fail(self, part: str, exc: BaseException) -> None:
        self._post("error", part=part, error=exc, traceback=traceback.format_exc())

    def _start_model(self, run: Callable[[], None], part: str = "model") -> None:
        self._running.add(part)
        if self.gate is not None and part == "model":
            self._running.add("speech")

        def body() -> None:
            try:
                run()
            except BaseException as exc:  # handed to the caller's thread, which recovers
                self._fail(part, exc)
            finally:
                if part == "model":
                    self._end_speech()
                self._post("ended", part=part)

        self._model = threading.Thread(target=body, name=f"appliance-{part}", daemon=True)
        self._model.start()

    def _sentence(self, piece: str) -> None:
        """Clean one piece for speech (the only place text is), post it and hand it to speech."""
        text = for_speech(piece)
        if not text.strip() or self.cancel.is_set():
            return
        self._post("sentence", text=text)
        if self.gate is None:
            return
        if self._worker is None:
            # Started at the first sentence, so an earcon before it never counts as the answer's audio.
            self._worker = SpeechWorker(self._tts, self.gate, self.cancel, DRAIN_TIMEOUT_S,
                                        on_end=self._speech_ended).start()
        self._worker.say(text)
        # Asked only once the answer may be heard: a held answer may yet be dropped unheard.
        for message in self._interject() if self._interject is not None and self.gate.released else ():
            spoken = for_speech(message)
            if spoken.strip():
                self._worker.say(spoken)

    def _end_speech(self) -> None:
        """No more sentences: the worker plays out what it has; with none, speech is over at once."""
        if self._worker is not None:
            self._worker.finish()
        elif self.gate is not None:
            self._post("ended", part="speech")

    def _speech_ended(self, worker: SpeechWorker) -> None:
        """On the speech worker's thread, when it is over."""
        try:
            if worker.error is not None:
                self._post("error", part="speech", error=worker.error, traceback=None)
            elif not worker.played and not self.cancel.is_set():
                self._post("error", part="speech", error=TimeoutError("the speaker did not play out the answer"))
            elif worker.played:
                gate = self.gate
                first = (gate.first_audio_at() if gate is not None else None) or worker.stats.first_chunk_at
                self._post("spoken", first_audio_at=first)
        finally:
            self._post("ended", part="speech")


class Responder:
    """Answers a question: a local skill first; then the owner's Home Assistant when configured (a
    device request gets its words); else the language model. Without Home Assistant a device request,
    and without the internet a question only it could answer, get the truth instead of the model.
    Everything is spoken through Answer, sentence by sentence; `sink` may be None (`ask` without --speak).
    """

    def __init__(self, chat: Chat, tts: Synthesizer, splitter_factory: Callable[[], Splitter],
                 skills: Skills | None, clock: Callable[[], float], home: Home | None = None,
                 home_fallback: str = "model") -> None:
        self.chat = chat
        self.tts = tts
        self.splitter_factory = splitter_factory
        self.skills = skills
        self.clock = clock
        self.home = home
        self.home_fallback = home_fallback

    def skill(self, text: str, room: str = "") -> SkillReply | None:
        """A local answer: a skill's, or the truth about what cannot be done here; None for the next
        in line (a failing skill raises). `room`: a satellite's name, where a timer set now rings."""
        reply = None if self.skills is None else self.skills.match(text, room)
        if reply is None and self.home is None:
            reply = honesty.cannot_act(text) or honesty.offline(text)
        return reply

    def after_home(self, question: str, reply: HomeReply | None, refused: bool = False) -> SkillReply | None:
        """What to say once Home Assistant has answered `question` (None: it failed), or None for the model.

        Decided by what was asked: a request it handled, or any device request, gets its words (a
        device it does not know included); anything else goes to the model. Home Assistant down: a
        device request is told so.
        """
        if reply is None:
            return honesty.unreachable(question, refused) or honesty.offline(question)
        if reply.speech and (reply.handled or controls_device(question) or self.home_fallback == "home_assistant"):
            return SkillReply(reply.speech, "home_assistant")
        return honesty.offline(question)

    def consult(self, home: Home, question: str, conversation_id: str | None, area: str = "") -> Answer:
        """Ask the owner's Home Assistant, on a thread of its own; its answer comes as a 'home' update
        (or an 'error' one), and the caller decides who speaks (conversation/answers.py).

        Asked in a room (`area`: a satellite's, or the hub's own home_assistant.area): a device request
        that names nothing Home Assistant can place ("turn on the light") is asked again in that room,
        as Home Assistant places a request from a voice device in its area; a room or device named in
        the request goes first.
        """
        answer = Answer(question, self.tts, None, self.clock, route="home")
        answer._start_model(lambda: answer._post("home", home=ask_home(home, question, conversation_id, area)),
                            part="home")
        return answer

    def think(self, question: str, sink: Sink | None, *, held: bool = False, long: bool | None = None,
              interject: Callable[[], list[str]] | None = None) -> Answer:
        """The model's answer to `question`, started now: written, split, cleaned and spoken into `sink`.

        held: its audio waits for Answer.release() (an early answer). interject: messages that cannot
        wait for the end of the answer (a timer that has just ended), asked after each sentence.
        """
        answer = Answer(question, self.tts, sink, self.clock, held=held, interject=interject)
        chat, cancel, splitter = self.chat, answer.cancel, self.splitter_factory()

        def run() -> None:
            first = True
            try:
                if cancel.is_set():
                    return
                deltas = chat.stream(question, cancel) if long is None else chat.stream(question, cancel, long=long)
                for delta in deltas:
                    if first:
                        first = False
                        answer._post("first_token")
                    answer._post("delta", text=delta)
                    for piece in splitter.add(delta):
                        answer._sentence(piece)
                    if cancel.is_set():
                        break
                if not cancel.is_set():
                    for piece in splitter.finish():
                        answer._sentence(piece)
            finally:  # the chat runs one answer at a time: its stats are still this answer's
                answer._post("model_done", stats=chat.last_stats)

        answer._start_model(run)
        return answer

    def say(self, texts: Iterable[str], sink: Sink | None, route: str = "skill") -> Answer:
        """Speak fixed texts (a skill's reply, Home Assistant's, an apology, a timer's message) as an answer."""
        texts = list(texts)
        answer = Answer(texts[0] if texts else "", self.tts, sink, self.clock, route=route)
        if answer.gate is not None:
            answer._running.add("speech")
        for text in texts:
            answer._sentence(text)
        answer._end_speech()
        return answer


def ask_home(home: Home, question: str, conversation_id: str | None, area: str = "") -> HomeReply:
    """Home Assistant's reply to `question` asked in `area` (Responder.consult); raises as Home.process."""
    reply = home.process(question, conversation_id)
    if area and not reply.handled and reply.code in UNPLACED and controls_device(question):
        in_room = home.process(in_area(question, area), conversation_id)
        if in_room.handled:
            reply = dataclasses.replace(in_room, ms=reply.ms + in_room.ms)
    return reply


def in_area(question: str, area: str) -> str:
    """The request said in the room: "Turn on the light." in Kitchen -> "Turn on the light in the Kitchen"."""
    return f"{question.strip().rstrip('.!?').rstrip()} in the {area}"

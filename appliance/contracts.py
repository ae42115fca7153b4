"""The contracts between the parts: every Protocol the conductor calls, and the Stages it is built from.

Real stages live in mic.py, wake.py, asr.py, skills.py, llm.py, tts.py, speaker.py, earcons.py and
timers.py; unit tests hand the conductor fakes (tests/fixtures/fakes.py) that satisfy the same
Protocols. The conductor calls nothing that is not declared here.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol, runtime_checkable

from appliance.chunk import AudioChunk


@runtime_checkable
class Source(Protocol):
    """Microphone-like input: 80 ms chunks of 16 kHz mono int16."""

    frames_read: int
    """Chunks delivered so far; the service watchdog checks that it grows."""

    @property
    def eof(self) -> bool:
        """True once a recording is over (a microphone never ends): a question cut short is finished."""

    def read(self, timeout: float) -> AudioChunk | None:
        """The next chunk, or None if none came within `timeout` seconds (device lost or waiting)."""

    def status(self) -> str:
        """'ok', or a short human sentence such as "Waiting for microphone 'USB'"."""

    def close(self) -> None: ...


@runtime_checkable
class Sink(Protocol):
    """Speaker-like output."""

    def play(self, chunk: AudioChunk) -> None:
        """Queue audio for playback; returns quickly (blocks only while its buffer is full)."""

    def stop(self) -> None:
        """Fall silent within 100 ms (with a short fade) and drop what is queued."""

    def drain(self, timeout: float) -> bool:
        """Wait until everything queued has been played; False on timeout."""

    def first_audio_at(self) -> float | None:
        """time.monotonic() when the first sample since the last mark_turn() reached the device."""

    def mark_turn(self) -> None:
        """Start a new turn for first_audio_at()."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class WakeHit:
    word: str
    score: float
    at_s: float
    """Seconds from the start of the stream to the end of the frame that fired."""


@runtime_checkable
class WakeDetector(Protocol):
    def process(self, chunk: AudioChunk, threshold: float | None = None) -> WakeHit | None:
        """Score one 80 ms chunk; a hit when the (optional override) threshold is crossed."""

    def reset(self, new_stream: bool = False) -> None:
        """Forget the audio heard so far (after each turn), so a turn's tail cannot fire it.

        new_stream also forgets the refractory time and counts WakeHit.at_s from 0 again: the
        conductor starts a new stream after each turn, so "hey jarvis, stop" followed at once by
        "hey jarvis, ..." is heard.
        """

    def another(self) -> WakeDetector:
        """A detector of the same wake word with a state of its own, for another stream (a satellite's)."""


@dataclass(frozen=True)
class StopHit:
    text: str
    """What was heard ("stop", "be quiet")."""
    heard_at: float
    """time.monotonic() when the speech ended (its last voiced chunk was read)."""


@runtime_checkable
class StopDetector(Protocol):
    """A plain "stop" with no wake word, heard only while armed: while the hub speaks or something rings."""

    armed: bool

    def arm(self) -> None:
        """Start listening for the stop words (playback or ringing has begun)."""

    def disarm(self) -> None:
        """Stop listening and forget what was heard (nothing plays any more); costs nothing until armed again."""

    def process(self, chunk: AudioChunk | None) -> StopHit | None:
        """Look at one chunk (None: only collect a result); a hit once a stop word was heard while armed."""

    def hub_says(self, text: str) -> None:
        """A sentence the hub itself is saying while armed (its answer, an announcement): when a stop phrase
        stands alone in it, what is heard until disarmed may be the hub's own voice, and stops nothing."""


@dataclass(frozen=True)
class Transcript:
    text: str
    """What was said; empty when nothing was recognised."""
    outcome: str = "speech"
    """'speech', 'no_speech' (timeout before anything was said) or 'max_length'."""
    speech_end_s: float | None = None
    """Stream time (s) when the speaker stopped, from the VAD."""
    final_at: float | None = None
    """time.monotonic() when the final text was ready."""


@runtime_checkable
class Utterance(Protocol):
    """One question being heard: fed chunk by chunk until it reports an end.

    Nothing here waits for a transcription: a slow one (Whisper) runs on the recognizer's own
    thread, and feed(), poll() and finish() hand over its result once it is there.
    """

    @property
    def early(self) -> Transcript | None:
        """The early transcript, made once the speaker has paused for asr.early_silence_s while the
        endpoint is still being confirmed; None again as soon as speech goes on (outcome 'early')."""

    @property
    def partial(self) -> str:
        """The words heard so far while the person is still speaking ('' before the first partial
        transcript): Vosk's as it decodes, Whisper's from a run at a steady pace (conversation.prefill_pace_s)."""

    @property
    def heard_speech(self) -> bool:
        """Whether speech (not just noise) has been heard since the utterance started."""

    @property
    def speaking(self) -> bool:
        """Whether the person is speaking now: speech heard, and the last chunk voiced (not a pause)."""

    @property
    def ended(self) -> bool:
        """The end of speech (or a limit) was reached: audio from now on is not part of the question."""

    @property
    def busy(self) -> bool:
        """A transcription the utterance waits for is running: poll() soon."""

    def feed(self, chunk: AudioChunk) -> Transcript | None:
        """Feed one chunk; a Transcript once the end of speech (or a time limit) is reached and the
        text is ready."""

    def poll(self) -> Transcript | None:
        """Without audio: the Transcript once it is ready (and the early transcript when it is)."""

    def finish(self) -> Transcript | None:
        """End now (stream ended); the Transcript, or None until poll() has it."""

    def close(self) -> None:
        """Give the utterance up: transcriptions it asked for that have not started never run."""


@runtime_checkable
class Recognizer(Protocol):
    name: str
    takes_hint: bool
    """Whether `recognize` leans toward a hint (Whisper); False where it ignores one (Vosk)."""

    def start(self, preroll: list[AudioChunk]) -> Utterance:
        """Begin a new utterance, starting with the audio kept from before the wake word."""

    def recognize(self, audio: AudioChunk, hint: str = "") -> str:
        """The words in one whole recording (16 kHz mono int16), with no endpoint or wake word in it:
        the caller has decided where the speech ends (a Wyoming peer). Blocks while it transcribes;
        safe to call from another thread while an utterance is being heard. `hint`: words the caller
        expects, which a recognizer that takes_hint leans toward."""

    def another(self) -> Recognizer:
        """A recognizer on the same model for questions heard at the same time as this one's (a
        satellite's): its utterances have a voice detector and a transcription thread of their own."""


@dataclass
class SkillReply:
    text: str
    """What to say."""
    intent: str
    """e.g. 'time', 'timer_set', 'stop'."""
    end_turn: bool = False
    """True for 'stop' / 'never mind': silence, no follow-up."""
    data: dict = field(default_factory=dict)
    private: bool = False
    """The words asked and said are the owner's (what the hub was told to remember): the turn's entry in
    the journal holds neither, whatever logging.transcripts says."""


@runtime_checkable
class Skills(Protocol):
    def match(self, transcript: str, room: str = "") -> SkillReply | None:
        """A local answer, or None to hand the question to the language model. `room`: where it was asked
        ("" the hub's own microphone, else a satellite's name); a timer set there rings there."""


@dataclass
class AnswerStats:
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    prefilled_tokens: int = 0
    """Of the cached prompt tokens, those read in while the question was being spoken (Chat.prefill)."""
    tokens: int = 0
    ttft_ms: float | None = None
    tokens_per_s: float | None = None
    stop_reason: str = ""
    """'stop' (end of answer), 'length' (token budget), 'cancelled', 'timeout', 'too_long' (the
    question alone does not fit the context) or 'skill' (answered locally, no model)."""


@runtime_checkable
class Chat(Protocol):
    """The language model: one conversation, one answer at a time in its context."""

    def stream(self, question: str, cancel: threading.Event) -> Iterator[str]:
        """Text deltas of the answer; stops early when `cancel` is set (checked between tokens).

        Never two answers at once in the model's context: when it starts, the stream waits on the
        caller's thread for an earlier (cancelled) answer to return, a bounded time, and raises
        errors.ModelBusy if it does not. The turn joins the history when the stream ends, unless
        forget() took it back first.
        """

    @property
    def last_stats(self) -> AnswerStats:
        """Figures for the answer most recently streamed."""

    def forget(self, question: str) -> bool:
        """Take back the answer to `question` (an early answer dropped unheard must not stay in the
        history); never waits for an answer being written, so the listening loop may call it.

        An answer to `question` still being written is marked so that its turn is not kept when it
        ends; else the last turn is removed if it answered `question`. Each answer is taken back
        at most once, and never an older turn in its place. False when there was nothing to take back.
        """

    def prefill(self, heard: str, stop: Callable[[], bool]) -> int:
        """Read the prompt of a question starting with `heard` (the words heard so far) into the model's
        cache, so its answer later reads only the rest. Rolls back what no longer matches, gives way
        to an answer at once and gives up when `stop()` is true; never waits for an answer under
        way. Returns that prompt's tokens now in the cache (0: nothing done)."""

    def session(self) -> Chat:
        """Another conversation on the same model (a Wyoming peer's conversation_id): a history of its
        own, the same one answer at a time (its stream raises errors.ModelBusy like this one's). This
        chat's own conversation is not touched, though its cached prompt may have to be read again."""


@runtime_checkable
class Synthesizer(Protocol):
    rate: int

    def synthesize(self, text: str) -> Iterator[AudioChunk]:
        """Audio for one sentence, yielded as it is produced."""


@runtime_checkable
class Splitter(Protocol):
    """Cuts the model's text deltas into pieces to speak (sentences.SentenceSplitter)."""

    def add(self, delta: str) -> list[str]:
        """The pieces complete once `delta` is added."""

    def finish(self) -> list[str]:
        """What is left at the end of the answer."""


@runtime_checkable
class Earcons(Protocol):
    """The short sounds of a turn: 'wake', 'thinking', 'error' and 'timer'."""

    def get(self, name: str) -> AudioChunk | None:
        """The sound called `name`, at the voice's rate."""


@runtime_checkable
class Announcement(Protocol):
    @property
    def text(self) -> str:
        """What to say after the timer earcon."""


@runtime_checkable
class Bell(Protocol):
    """What cannot wait for the end of an answer (a timer that has just ended), asked after each
    sentence (thinking/bell.py's TimerBell)."""

    def due_texts(self) -> list[str]:
        """What to say now; nothing when there is nothing new."""


TIMER_CHECK_S: Final = 0.5  # seconds between looks at Rings.due: a turn's bell, a satellite's link


@runtime_checkable
class Rings(Protocol):
    """Kitchen timers, alarms and reminders as the conductor sees them: what rings and is to be announced."""

    def due(self, now: float | None = None, room: str = "") -> Sequence[Announcement]:
        """The timers, alarms and reminders to announce now in `room` ("" the hub), each once, then again
        until acknowledged."""

    def ring_in_room(self, room: str, here: bool) -> None:
        """Whether a satellite's room rings its own timers now (connected); else they ring on the hub."""


@dataclass(frozen=True)
class HomeReply:
    """The home automation's answer to one sentence (Home Assistant's conversation API)."""

    kind: str
    """'action_done' or 'query_answer' (it did or read something for the person), or 'error'."""
    speech: str
    """What it says, in its own words ("Turned on the light", "Sorry, I am not aware of ...")."""
    code: str = ""
    """For an error: its code, e.g. 'no_valid_targets' (no such device), 'no_intent_match'."""
    conversation_id: str | None = None
    ms: float = 0.0
    """How long the round trip took."""

    @property
    def handled(self) -> bool:
        return self.kind in ("action_done", "query_answer")


@runtime_checkable
class Home(Protocol):
    """The owner's home automation (Home Assistant): it switches and reads the devices."""

    def process(self, text: str, conversation_id: str | None = None) -> HomeReply:
        """Its answer to `text`; raises errors.HomeAssistantUnreachable / HomeAssistantRefused."""


@dataclass(frozen=True)
class HandleReply:
    """The answer to a question Home Assistant hands over (the Wyoming handle)."""

    text: str
    """What Home Assistant is to say."""
    handled: bool
    """False: nothing here could answer it (`text` then says why)."""
    error_code: str = ""
    """When it failed: the code of the error event sent before the reply ('model-busy')."""
    error_text: str = ""


@runtime_checkable
class Handler(Protocol):
    """Answers the questions Home Assistant hands over (conversation/policy.py)."""

    def handle(self, question: str, chat: Chat, cancel: threading.Event) -> HandleReply:
        """The reply to `question` in the conversation `chat`; blocks while it is written, never raises."""


@runtime_checkable
class Link(Protocol):
    """A network peer the daemon serves beside the conductor (the Wyoming services port, satellites):
    its own thread, started before the conductor and stopped after it."""

    def start(self) -> None:
        """Begin serving in the background; never blocks (a port that cannot be had is retried there)."""

    def stop(self, timeout: float = 2.0) -> None:
        """Stop serving and close every connection, waiting at most `timeout` seconds."""

    def local_turn(self, active: bool) -> None:
        """The hub's own microphone began (True) or ended (False) a turn; called from the conductor's
        thread, so it only notes it and returns at once."""


@runtime_checkable
class Caller(Protocol):
    """Someone asking from another room (a Wyoming satellite), for one turn: the satellite's audio
    after its wake word, its speaker, and a way to tell it what was heard."""

    name: str
    """The satellite's name (the journal's SOURCE)."""
    area: str
    """The room it stands in ('' when not configured)."""
    wake_word: str
    """The wake word it detected ('' when it did not say)."""
    source: Source
    """Its audio as 80 ms chunks of 16 kHz mono int16; eof once it stops streaming or goes away."""
    sink: Sink
    """Its speaker: audio played there is streamed to the satellite."""

    @property
    def gone(self) -> bool:
        """The satellite went away or asked again: the turn ends without waiting for anything."""

    def heard(self, text: str) -> None:
        """Tell the satellite the question's words (it stops streaming its microphone)."""


@runtime_checkable
class Callers(Protocol):
    """Answers callers from other rooms (conversation/rooms.py), each on a thread of the link's."""

    def answer(self, caller: Caller) -> None:
        """Hear and answer one question; blocks the calling thread until the answer is spoken."""

    def local_turn(self, active: bool) -> None:
        """As Link.local_turn: the hub's own microphone goes first."""

    def wake_detector(self) -> WakeDetector:
        """The hub's wake word, listened for in the stream of a satellite that has none of its own."""

    def ring_here(self, room: str, here: bool) -> None:
        """A satellite connected (`here`) or went away: the timers set there ring there, else on the hub."""

    def timers_due(self, room: str) -> list[str]:
        """What to say now for the timers that have ended in that satellite's room (looked at often)."""

    def announce(self, caller: Caller, texts: list[str]) -> None:
        """Say `texts` on the caller's speaker (a timer's announcement); blocks until they are spoken."""


@runtime_checkable
class EventLog(Protocol):
    """Where structured events go (service.Journal): model load times, errors, devices."""

    def event(self, name: str, message: str = "", traceback: str | None = None, **fields: object) -> None: ...


@dataclass(frozen=True)
class Stages:
    """Every stage a turn uses, built once from the Config (assembly.py) and handed to the conductor."""

    source: Source
    sink: Sink
    wake: WakeDetector
    asr: Recognizer
    chat: Chat
    tts: Synthesizer
    splitter_factory: Callable[[], Splitter]
    """A fresh splitter for each answer."""
    skills: Skills | None = None
    """None when skills are switched off: every question goes to the model."""
    earcons: Earcons | None = None
    timers: Rings | None = None
    home: Home | None = None
    """The owner's Home Assistant when home_assistant.enabled, else None."""
    stop: StopDetector | None = None
    """A plain "stop" while something plays (wake.stop_words), else None."""

    def with_source(self, source: Source) -> Stages:
        """The same stages listening to another source (a recording instead of the microphone)."""
        return dataclasses.replace(self, source=source)

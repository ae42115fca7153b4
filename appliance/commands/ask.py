"""`appliance ask`: answer typed questions with the language model, streamed, or as JSON records."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from appliance import EXIT_OK
from appliance.audio import AudioChunk
from appliance.config import Config
from appliance.contracts import AnswerStats, Chat, HomeReply, Sink, Synthesizer
from appliance.conversation.responder import Responder, ask_home
from appliance.errors import (
    BadInput,
    HomeAssistantRefused,
    HomeAssistantUnreachable,
    InputMissing,
    UsageError,
)

_LOGGER = logging.getLogger(__name__)

UPDATE_WAIT_S: Final = 0.1  # seconds between looks at an answer that has nothing new yet


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from appliance.cli import add_common

    parser = sub.add_parser("ask", help="answer a typed question (no microphone), streaming the answer")
    parser.add_argument("question", nargs="?", help="the question, in quotes")
    parser.add_argument("--file", metavar="PATH", help="questions, one per line, answered with one loaded model")
    parser.add_argument("--independent", action="store_true",
                        help="with --file: answer each question on its own, not as one conversation")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object per question per line (answer, sentences, timings)")
    parser.add_argument("--long", action="store_true", help="allow the longer answer budget (llm.max_new_tokens_long)")
    parser.add_argument("--speak", action="store_true", help="speak the answer, sentence by sentence as it is written")
    parser.add_argument("--out", metavar="WAV", help="write the spoken answer to a WAV file")
    add_common(parser)
    parser.set_defaults(func=main)
    return parser


@dataclass
class Record:
    """What `ask --json` prints for one question."""

    question: str
    answer: str = ""
    route: str = "llm"
    sentences: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    ttft_ms: float | None = None
    tokens: int = 0
    tokens_per_s: float | None = None
    stop_reason: str = ""
    ha_ms: float | None = None
    """Home Assistant's round trip, when it was asked."""

    def take_stats(self, stats: AnswerStats) -> None:
        self.prompt_tokens, self.cached_prompt_tokens = stats.prompt_tokens, stats.cached_prompt_tokens
        self.ttft_ms, self.tokens, self.tokens_per_s = stats.ttft_ms, stats.tokens, stats.tokens_per_s
        self.stop_reason = stats.stop_reason

    def json(self) -> str:
        data = dict(self.__dict__)
        for key in ("ttft_ms", "tokens_per_s", "ha_ms"):
            if data[key] is not None:
                data[key] = round(data[key], 1)
        return json.dumps(data, ensure_ascii=False)


def read_questions(args: argparse.Namespace) -> list[str]:
    """The questions from the command line or --file (blank lines and # comments skipped)."""
    if args.file and args.question:
        raise UsageError("give either a QUESTION or --file, not both")
    if args.file:
        path = Path(args.file)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputMissing(f"questions file not found: {path}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise BadInput(f"questions file {path} cannot be read as UTF-8 text: {exc}") from None
        questions = [line.strip() for line in text.splitlines()]
        questions = [q for q in questions if q and not q.startswith("#")]
        if not questions:
            raise BadInput(f"questions file {path} has no questions (one per line)")
        return questions
    if not args.question or not args.question.strip():
        raise UsageError('nothing to ask: give a QUESTION in quotes, or --file questions.txt')
    return [args.question.strip()]


class LazyChat:
    """The language model, loaded on first use: a question a skill answers needs none."""

    def __init__(self, factory: Callable[[], Chat]) -> None:
        self._factory = factory
        self._chat: Chat | None = None

    @property
    def loaded(self) -> Chat:
        if self._chat is None:
            self._chat = self._factory()
        return self._chat

    def stream(self, question: str, cancel: threading.Event, *, long: bool | None = None) -> Iterator[str]:
        chat = self.loaded
        return chat.stream(question, cancel) if long is None else chat.stream(question, cancel, long=long)  # type: ignore[call-arg]

    @property
    def last_stats(self) -> AnswerStats:
        return self.loaded.last_stats

    def forget(self, question: str) -> bool:
        return self._chat is not None and self._chat.forget(question)

    def reset(self) -> None:
        if self._chat is not None:
            self._chat.reset()  # type: ignore[attr-defined]


class Asker:
    """Answers each question through the one answer path (responder.Responder: skills, else the model),
    speaking into `sink` when one is given, and collects its record."""

    def __init__(self, cfg: Config, chat_factory: Callable[[], Chat] | None = None,
                 voice: Synthesizer | None = None, sink: Sink | None = None) -> None:
        from appliance.assembly import splitter_factory

        self.cfg = cfg
        self.chat = LazyChat(chat_factory or self._load_chat)
        self.sink = sink
        self._voice = voice
        self._splitter_factory = splitter_factory(cfg)
        self._responder: Responder | None = None
        self._conversation_id: str | None = None

    def _load_chat(self) -> Chat:
        from appliance.assembly import load_chat

        return load_chat(self.cfg)

    @property
    def responder(self) -> Responder:
        """Built on first use: the skills (timers kept in service.state_dir) load then."""
        if self._responder is None:
            from appliance.assembly import load_home, load_skills

            skills = load_skills(self.cfg) if self.cfg.skills.enabled else None
            self._responder = Responder(self.chat, self._voice or _Silent(), self._splitter_factory, skills,
                                        time.monotonic, home=load_home(self.cfg),
                                        home_fallback=self.cfg.home_assistant.fallback)
        return self._responder

    def reset(self) -> None:
        """Start a new conversation (used by --independent)."""
        self.chat.reset()

    def ask(self, question: str, on_delta: Callable[[str], None],
            on_sentence: Callable[[str], None] = lambda _sentence: None, long: bool | None = None) -> Record:
        """Answer one question, handing text to on_delta as it comes and each spoken sentence to on_sentence;
        returns when the answer is written (and, with a sink, heard)."""
        responder = self.responder
        reply, route, ha_ms = responder.skill(question), "skill", None
        if reply is None and responder.home is not None:
            home, refused = self._ask_home(question)
            reply, route = responder.after_home(question, home, refused), "home_assistant"
            ha_ms = home.ms if home is not None else None
        if reply is not None:
            record = Record(question=question, answer=reply.text, route=route, stop_reason=route, ha_ms=ha_ms)
            on_delta(reply.text)
            answer = responder.say([reply.text], self.sink)
        else:
            record = Record(question=question, route="llm", ha_ms=ha_ms)
            answer = responder.think(question, self.sink, long=long)
        parts: list[str] = []
        written_at = answer.started_at  # a skill's answer is there at once
        while True:
            update = answer.next_update(UPDATE_WAIT_S)
            if update is None:
                if answer.done:
                    break
                continue
            if update.kind == "error" and update.error is not None:
                answer.stop()
                raise update.error
            if update.kind == "delta":
                parts.append(update.text)
                on_delta(update.text)
            elif update.kind == "sentence":
                record.sentences.append(update.text)
                on_sentence(update.text)
            elif update.kind == "model_done":
                written_at = update.at
                if update.stats is not None:
                    record.take_stats(update.stats)
            elif update.kind == "spoken" and update.first_audio_at is not None:
                first = update.first_audio_at
                _LOGGER.info("Speech: first audio %.0f ms after the question; "
                             "the answer was finished at %.0f ms%s",
                             (first - answer.started_at) * 1000.0, (written_at - answer.started_at) * 1000.0,
                             " (speech started before the answer was complete)" if first < written_at else "")
        if record.route == "llm":
            record.answer = "".join(parts).strip()
        return record


    def _ask_home(self, question: str) -> tuple[HomeReply | None, bool]:
        """Home Assistant's answer, or None when it cannot be reached (said in the log); and whether it
        refused the token."""
        assert self.responder.home is not None
        try:
            reply = ask_home(self.responder.home, question, self._conversation_id, self.cfg.home_assistant.area)
        except (HomeAssistantUnreachable, HomeAssistantRefused) as exc:
            _LOGGER.warning("%s", exc)
            return None, isinstance(exc, HomeAssistantRefused)
        self._conversation_id = reply.conversation_id or self._conversation_id
        return reply, False


class _Silent:
    """The voice of an Asker that speaks nothing (no sink): never asked to synthesize."""

    rate = 16000

    def synthesize(self, text: str) -> Iterator[AudioChunk]:
        raise RuntimeError("nothing speaks here")


def main(args: argparse.Namespace) -> int:
    from appliance.cli import load_config

    cfg = load_config(args)
    questions = read_questions(args)
    voice, sink = _speaking(cfg, args)
    asker = Asker(cfg, voice=voice, sink=sink)
    out = sys.stdout
    many = len(questions) > 1

    def show(delta: str) -> None:
        if not args.json:
            out.write(delta)
            out.flush()

    try:
        for number, question in enumerate(questions):
            if args.independent and number:
                asker.reset()
            if many and not args.json:
                out.write(f"> {question}\n")
            record = asker.ask(question, show, long=True if args.long else None)
            if args.json:
                out.write(record.json() + "\n")
            else:
                out.write("\n\n" if many else "\n")
            out.flush()
    finally:
        if sink is not None:
            sink.close()
    return EXIT_OK


def _speaking(cfg: Config, args: argparse.Namespace) -> tuple[Synthesizer | None, Sink | None]:
    """The voice and where it speaks for --speak / --out (the speaker, a WAV file, or both), or Nones."""
    if not (args.speak or args.out):
        return None, None
    from appliance.assembly import load_voice
    from appliance.speaking.tts import speaking_sink

    voice = load_voice(cfg)
    return voice, speaking_sink(cfg, voice.rate, speak=args.speak, out=args.out)

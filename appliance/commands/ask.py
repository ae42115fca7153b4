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
from appliance.contracts import AnswerStats, Chat, Sink, Synthesizer
from appliance.conversation.policy import AskHome, HomeConversation, Policy, Say
from appliance.conversation.responder import (
    Delta,
    Failed,
    HomeAnswered,
    ModelDone,
    Responder,
    Sentence,
    Spoken,
)
from appliance.errors import BadInput, InputMissing, UsageError
from appliance.language import pack

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
    intent: str = ""
    """What a local answer did or said ("timer_set", "cannot_do"); empty for the model's."""
    sentences: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    ttft_ms: float | None = None
    tokens: int = 0
    tokens_per_s: float | None = None
    stop_reason: str = ""
    ha_ms: float | None = None
    """Home Assistant's round trip, when it was asked."""
    intent: str = ""
    """What the fixed words answered ('timer_set', 'alarm_set', 'list_add', 'home_assistant'); "" for the model."""
    data: dict = field(default_factory=dict)
    """What the skill did ({"list": "shopping", "added": ["milk"]}); empty for the model."""

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
    """Answers each question as every other way in does (policy.Policy: a skill, Home Assistant, the
    model or the truth) through the one answer path, speaking into `sink` when one is given, and
    collects its record."""

    def __init__(self, cfg: Config, chat_factory: Callable[[], Chat] | None = None,
                 voice: Synthesizer | None = None, sink: Sink | None = None, policy: Policy | None = None) -> None:
        from appliance.assembly import splitter_factory

        self.cfg = cfg
        self.chat = LazyChat(chat_factory or self._load_chat)
        self.sink = sink
        self.responder = Responder(self.chat, voice or _Silent(), splitter_factory(cfg), time.monotonic,
                                   pack(cfg.language).speech, pack(cfg.language))
        self.home = HomeConversation(time.monotonic)
        """The conversation with Home Assistant, kept from one question to the next."""
        self._policy = policy
        """Who answers; None until first use, then built from cfg (a caller may hand in one of its own, with
        its own clock)."""

    def _load_chat(self) -> Chat:
        from appliance.assembly import load_chat

        return load_chat(self.cfg)

    @property
    def policy(self) -> Policy:
        """Built on first use: the skills (timers kept in service.state_dir) load then."""
        if self._policy is None:
            from appliance.assembly import load_home, load_skills

            self._policy = Policy.configured(self.cfg, load_skills(self.cfg), load_home(self.cfg))
        return self._policy

    def reset(self) -> None:
        """Start a new conversation (used by --independent)."""
        self.chat.reset()

    def ask(self, question: str, on_delta: Callable[[str], None],
            on_sentence: Callable[[str], None] = lambda _sentence: None, long: bool | None = None) -> Record:
        """Answer one question, handing text to on_delta as it comes and each spoken sentence to on_sentence;
        returns when the answer is written (and, with a sink, heard)."""
        step, ha_ms = self.policy.begin(question, conversation=self.home), None
        if isinstance(step, AskHome):
            reply = self._home_reply(step)
            ha_ms = reply.reply.ms if isinstance(reply, HomeAnswered) else None
            step = self.policy.settle(question, reply, self.home, step.question.understood)
        if isinstance(step, Say):
            route = step.route
            record = Record(question=question, answer=step.reply.text, route=route, stop_reason=route, ha_ms=ha_ms,
                            intent=step.reply.intent, data=dict(step.reply.data))
            on_delta(step.reply.text)
            answer = self.responder.say([step.reply.text], self.sink, route=route)
        else:
            record = Record(question=question, route="llm", ha_ms=ha_ms)
            answer = self.responder.think(question, self.sink, long=long, understood=step.understood)
        parts: list[str] = []
        written_at = answer.started_at  # a skill's answer is there at once
        while True:
            update = answer.next_update(UPDATE_WAIT_S)
            if update is None:
                if answer.done:
                    break
                continue
            if isinstance(update, Failed):
                answer.stop()
                raise update.error
            if isinstance(update, Delta):
                parts.append(update.text)
                on_delta(update.text)
            elif isinstance(update, Sentence):
                record.sentences.append(update.text)
                on_sentence(update.text)
            elif isinstance(update, ModelDone):
                written_at = update.at
                if update.stats is not None:
                    record.take_stats(update.stats)
            elif isinstance(update, Spoken) and update.first_audio_at is not None:
                first = update.first_audio_at
                _LOGGER.info("Speech: first audio %.0f ms after the question; "
                             "the answer was finished at %.0f ms%s",
                             (first - answer.started_at) * 1000.0, (written_at - answer.started_at) * 1000.0,
                             " (speech started before the answer was complete)" if first < written_at else "")
        if record.route == "llm":
            record.answer = "".join(parts).strip()
        return record

    def _home_reply(self, step: AskHome) -> HomeAnswered | Failed:
        """Home Assistant's reply to the question, or how it failed (the policy says what follows)."""
        pending = self.responder.consult(step.question)
        while True:
            update = pending.next_update(UPDATE_WAIT_S)
            if isinstance(update, (HomeAnswered, Failed)):
                return update


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

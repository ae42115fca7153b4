"""`appliance ask`: answer typed questions with the language model, streamed, or as JSON records."""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from appliance import EXIT_OK
from appliance.errors import BadInput, InputMissing, UsageError


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

    def json(self) -> str:
        data = dict(self.__dict__)
        for key in ("ttft_ms", "tokens_per_s"):
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


class Asker:
    """Routes each question (skills first, else the language model) and collects its record."""

    def __init__(self, cfg: Any, chat_factory: Callable[[], Any] | None = None) -> None:
        self.cfg = cfg
        self._chat_factory = chat_factory or self._load_chat
        self._chat: Any = None
        self._skills: Any = None

    @property
    def chat(self) -> Any:
        """The language model, loaded on first use (a skill answer needs none)."""
        if self._chat is None:
            self._chat = self._chat_factory()
        return self._chat

    def _load_chat(self) -> Any:
        from appliance.assembly import load_chat

        return load_chat(self.cfg)

    @property
    def skills(self) -> Any:
        """The local skills (time, date, timers kept in service.state_dir), built on first use."""
        if self._skills is None:
            from appliance.assembly import load_skills

            self._skills = load_skills(self.cfg)
        return self._skills

    def reset(self) -> None:
        """Start a new conversation (used by --independent)."""
        if self._chat is not None:
            self._chat.reset()

    def ask(self, question: str, cancel: threading.Event, on_delta: Callable[[str], None],
            on_sentence: Callable[[str], None], long: bool | None = None) -> Record:
        """Answer one question, handing text to on_delta as it comes and each spoken sentence to on_sentence."""
        # Route: a skill answers first when one matches; else the language model.
        reply = self.skills.match(question)
        if reply is not None:
            return self._ask_skill(question, reply.text, on_delta, on_sentence)
        return self._ask_llm(question, cancel, on_delta, on_sentence, long)

    def _ask_skill(self, question: str, text: str, on_delta: Callable[[str], None],
                   on_sentence: Callable[[str], None]) -> Record:
        from appliance.sentences import SentenceSplitter

        record = Record(question=question, answer=text, route="skill", stop_reason="skill")
        on_delta(text)
        splitter = SentenceSplitter()
        for sentence in splitter.add(text) + splitter.finish():
            _spoken(sentence, record, on_sentence)
        return record

    def _ask_llm(self, question: str, cancel: threading.Event, on_delta: Callable[[str], None],
                 on_sentence: Callable[[str], None], long: bool | None) -> Record:
        from appliance.sentences import SentenceSplitter

        chat = self.chat
        record = Record(question=question, route="llm")
        conv = self.cfg.conversation
        splitter = SentenceSplitter(conv.first_clause_min_words, conv.first_phrase_max_words)
        parts: list[str] = []
        for delta in _stream(chat, question, cancel, long):
            parts.append(delta)
            on_delta(delta)
            for sentence in splitter.add(delta):
                _spoken(sentence, record, on_sentence)
        for sentence in splitter.finish():
            _spoken(sentence, record, on_sentence)
        record.answer = "".join(parts).strip()
        stats = chat.last_stats
        record.prompt_tokens = stats.prompt_tokens
        record.cached_prompt_tokens = stats.cached_prompt_tokens
        record.ttft_ms = stats.ttft_ms
        record.tokens = stats.tokens
        record.tokens_per_s = stats.tokens_per_s
        record.stop_reason = stats.stop_reason
        return record


def _stream(chat: Any, question: str, cancel: threading.Event, long: bool | None) -> Iterator[str]:
    if long is None:
        return chat.stream(question, cancel)
    return chat.stream(question, cancel, long=long)


def _spoken(sentence: str, record: Record, on_sentence: Callable[[str], None]) -> None:
    """Clean one sentence for speech (no markdown, emoji or links) and pass it on if anything is left."""
    from appliance.textclean import for_speech

    text = for_speech(sentence)
    if text:
        record.sentences.append(text)
        on_sentence(text)


def main(args: argparse.Namespace) -> int:
    from appliance.cli import load_config

    cfg = load_config(args)
    questions = read_questions(args)
    asker = Asker(cfg)
    cancel = threading.Event()
    out = sys.stdout
    many = len(questions) > 1

    def show(delta: str) -> None:
        if not args.json:
            out.write(delta)
            out.flush()

    speaking = _speaking(cfg, args)
    for number, question in enumerate(questions):
        if args.independent and number:
            asker.reset()
        if many and not args.json:
            out.write(f"> {question}\n")
        asked_at = time.monotonic()
        worker = speaking.start_turn(cancel) if speaking else None
        on_sentence = worker.say if worker else (lambda _sentence: None)
        record = asker.ask(question, cancel, show, on_sentence, long=True if args.long else None)
        if speaking and worker:
            speaking.end_turn(worker, asked_at, time.monotonic())
        if args.json:
            out.write(record.json() + "\n")
        else:
            out.write("\n\n" if many else "\n")
        out.flush()
    if speaking:
        speaking.close()  # an error on the way leaves the WAV to wave.Wave_write.__del__
    return EXIT_OK


def _speaking(cfg: Any, args: argparse.Namespace) -> Any:
    """The voice and its sinks for --speak / --out, or None."""
    if not (getattr(args, "speak", False) or getattr(args, "out", None)):
        return None
    from appliance.assembly import load_voice
    from appliance.tts import Speaking

    return Speaking(cfg, speak=args.speak, out=args.out, synth=load_voice(cfg))

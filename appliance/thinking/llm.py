"""Chat over llama-cpp-python: one Llama, whole turns within n_ctx, a reused system prefix, streaming."""

from __future__ import annotations

import codecs
import ctypes
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final

from appliance.config import Config, LlmConfig
from appliance.contracts import Chat
from appliance.errors import ModelBusy
from appliance.language import LanguagePack, pack
from appliance.thinking.llm_open import LlmError, open_llama, read_facts
from appliance.thinking.llm_session import ChatSession
from appliance.thinking.llm_stats import LlmStats
from appliance.thinking.llm_threads import PhraseThreads, default_threads
from appliance.thinking.prompt import (
    History,
    Message,
    Turn,
    common_prefix,
    fit_answer,
    messages_for,
    same_question,
    with_facts,
)

_LOGGER = logging.getLogger(__name__)

# The default pack's reply to a question too long for the context, and the questions that ask for
# more than a sentence or two (the longer token budget).
TOO_LONG_REPLY: Final = pack().replies.too_long
LONG_ANSWER: Final = pack().prompt.long_answer
TOP_K: Final = 40  # llama.cpp's default candidate cut before top_p
MIN_P: Final = 0.05  # llama.cpp's default
PIECE_BYTES: Final = 64  # a token's text is at most a few dozen bytes
# Seconds an answer waits for the one before it to return (a cancelled one does between tokens).
BUSY_WAIT_S: Final = 3.0
# Tokens read per step while the question is spoken: an answer waits for one step at most (~50 ms).
PREFILL_STEP: Final = 8


class LlamaChat:
    """A conversation with one llama.cpp model, streamed token by token (the Chat protocol)."""

    def __init__(self, cfg: LlmConfig, model_path: str | Path, *, idle_reset_s: float = 300.0,
                 clock: Callable[[], float] = time.monotonic, words: LanguagePack | None = None) -> None:
        self.cfg = cfg
        self.words = words or pack()
        self.system_prompt = (self.words.prompt.system if cfg.system_prompt is None else cfg.system_prompt).strip()
        """llm.system_prompt, else the language's own: the prompt without the house facts."""
        self.model_path = Path(model_path)
        self.idle_reset_s = idle_reset_s
        self.clock = clock
        gen_threads, batch_threads = default_threads()
        self.n_threads = cfg.n_threads or gen_threads
        self.n_threads_batch = cfg.n_threads_batch or batch_threads
        self.n_threads_first = cfg.n_threads_first or self.n_threads_batch
        self._set_threads: Callable[[int, int], None] = lambda generation, batch: None
        self.history = History()
        self.system = self.system_prompt
        self.system_tokens = 0
        self._llama: Any = None
        self._format: Any = None
        self._vocab: Any = None
        self._lib: Any = None
        self._pieces: dict[int, bytes] = {}
        self._last = LlmStats()
        self._busy = threading.Lock()  # held while the llama context is in use: one answer at a time
        self._waiting = 0  # answers waiting for the context: a prefill gives it up to them
        self._waiting_lock = threading.Lock()
        self._prefilled: tuple[int, int] | None = None
        """Cache positions [from, to) the prefill wrote since the last answer started."""
        self._probe: dict[str, Any] | None = None

    @classmethod
    def from_config(cls, cfg: Config) -> LlamaChat:
        """Resolve the model file and load it (one Llama for the life of the process)."""
        from appliance.setup import models

        chat = cls(cfg.llm, models.resolve("llm", cfg).path, idle_reset_s=cfg.conversation.idle_reset_s,
                   words=pack(cfg.language))
        chat.load()
        return chat

    # ---------------------------------------------------------------- loading

    def load(self) -> None:
        """Load the GGUF, read its chat template, build the system prompt and cache it (warm-up)."""
        started = time.monotonic()
        llama, llama_cpp, self._format = open_llama(self.cfg, self.model_path, self.n_threads, self.n_threads_batch)
        cfg = self.cfg
        self._llama, self._lib, self._vocab = llama, llama_cpp, llama._model.vocab
        self._set_threads = llama._ctx.set_n_threads
        llama.eval = self._probed_eval  # records what each prompt reused (see _probed_eval)
        self.system = self._system_prompt()
        self.warm()
        _LOGGER.info("Language model %s ready in %.1f s: n_ctx %d, %d/%d threads, system prompt %d tokens "
                     "cached", self.model_path.name, time.monotonic() - started, cfg.n_ctx,
                     self.n_threads, self.n_threads_batch, self.system_tokens)

    def _system_prompt(self) -> str:
        facts = read_facts(self.cfg)
        return self.system_prompt if facts is None else self._with_facts(facts, self.cfg.facts_file)

    def _with_facts(self, facts: str, source: str) -> str:
        system, whole = with_facts(self.system_prompt, facts, self.cfg.facts_max_tokens, self.count_text,
                                   self.words.prompt.facts_header)
        if not whole:
            _LOGGER.warning("Facts in %s are longer than llm.facts_max_tokens (%d); the rest is left out",
                            source, self.cfg.facts_max_tokens)
        return system

    def set_facts(self, facts: str | None) -> None:
        """Replace the house facts in the system prompt (None: none), start afresh and re-warm the cache."""
        self.system = self._with_facts(facts, "the facts given") if facts else self.system_prompt
        self.reset()
        self.warm()

    def warm(self) -> None:
        """Process the part of the prompt every question shares (system prompt and role header) now,
        and keep nothing else in the cache."""
        self._take_model()
        try:
            a = self.tokenize_messages(messages_for(self.system, [], "a"))
            b = self.tokenize_messages(messages_for(self.system, [], "b"))
            shared = a[:common_prefix(a, b)]
            self.system_tokens = len(shared)
            llama = self._llama
            self._prefilled = None
            if common_prefix(llama.input_ids[: llama.n_tokens].tolist(), shared) == len(shared):
                llama.n_tokens = len(shared)  # the rest (a conversation, a prefill) is of no use now
            else:
                llama.reset()
                type(llama).eval(llama, shared)
        finally:
            self._busy.release()

    def _take_model(self) -> None:
        """Wait up to BUSY_WAIT_S for the llama context; ModelBusy when an earlier answer holds it still."""
        with self._waiting_lock:
            self._waiting += 1
        try:
            taken = self._busy.acquire(timeout=BUSY_WAIT_S)
        finally:
            with self._waiting_lock:
                self._waiting -= 1
        if not taken:
            raise ModelBusy("The language model has not returned from an earlier answer "
                            f"within {BUSY_WAIT_S:g} s")

    def prefill(self, heard: str, stop: Callable[[], bool], *, history: History | None = None) -> int:
        """Read the prompt up to `heard`, the question's first words, into the KV cache without sampling.

        The cache keeps its longest common token prefix with that prompt (words heard differently
        before are rolled back) and reads the rest PREFILL_STEP tokens at a time, giving up between
        steps when `stop()` says so or an answer wants the model; an answer under way is never waited
        for. The answer whose prompt starts the same way then reads only what follows. Returns the
        tokens of that prompt now in the cache (0 when nothing was done).
        """
        if self._llama is None or not heard.strip() or not self._busy.acquire(blocking=False):
            return 0
        try:
            llama = self._llama
            tokens = self._prompt_through(same_question(heard), history)
            keep = common_prefix(llama.input_ids[: llama.n_tokens].tolist(), tokens)
            llama.n_tokens = keep  # eval() drops the cache beyond it
            start = keep
            while llama.n_tokens < len(tokens) and not stop() and not self._waiting:
                type(llama).eval(llama, tokens[llama.n_tokens: llama.n_tokens + PREFILL_STEP])
            if llama.n_tokens > start:
                first, _ = self._prefilled or (start, start)
                self._prefilled = (min(first, start), llama.n_tokens)
            return llama.n_tokens
        finally:
            self._busy.release()

    def _prompt_through(self, heard: str, history: History | None = None) -> list[int]:
        """The prompt tokens an answer to a question starting with `heard` begins with, in that conversation
        (the chat's own by default)."""
        history = self.history if history is None else history
        turns = history.turns
        if history.idle_for(self.clock(), self.idle_reset_s):
            turns = []
        cfg = self.cfg
        fit = fit_answer(self.system, turns, heard, self.count_messages, cfg.n_ctx, [cfg.max_new_tokens],
                         cfg.history_trim)
        if fit is None:
            return []
        prompt = self._format(messages=messages_for(self.system, turns[fit[0]:], heard)).prompt
        return self._llama.tokenize(prompt[: prompt.rindex(heard) + len(heard)].encode("utf-8"),
                                    add_bos=False, special=True)

    # ---------------------------------------------------------------- tokens

    def tokenize_messages(self, messages: list[Message]) -> list[int]:
        prompt = self._format(messages=messages).prompt
        return self._llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)

    def count_messages(self, messages: list[Message]) -> int:
        return len(self.tokenize_messages(messages))

    def count_text(self, text: str) -> int:
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _piece(self, token: int) -> bytes:
        piece = self._pieces.get(token)
        if piece is None:
            buf = ctypes.create_string_buffer(PIECE_BYTES)
            n = self._lib.llama_token_to_piece(self._vocab, token, buf, PIECE_BYTES, 0, False)
            piece = buf.raw[:max(n, 0)]
            self._pieces[token] = piece
        return piece

    def _probed_eval(self, tokens: Sequence[int]) -> None:
        """Llama.eval, noting on the first call of an answer how many prompt tokens llama.cpp kept."""
        llama, probe = self._llama, self._probe
        if probe is None:
            type(llama).eval(llama, tokens)
            return
        self._probe = None
        probe["kept"] = llama.n_tokens  # the common prefix generate() kept in the KV cache
        probe["evaluated"] = len(tokens)
        started = time.perf_counter()
        type(llama).eval(llama, tokens)
        probe["eval_s"] = time.perf_counter() - started

    # ---------------------------------------------------------------- conversation

    @property
    def last_stats(self) -> LlmStats:
        return self._last

    @property
    def turns(self) -> list[Turn]:
        """A copy of the conversation so far, oldest turn first."""
        return self.history.turns

    def reset(self) -> None:
        """Forget the conversation, the answer under way included; never waits for the model."""
        self.history.clear()

    def forget(self, question: str) -> bool:
        """Take back the answer to `question`, under way or the last turn, without waiting for the model
        (History.forget): an answer started early and dropped because the person went on speaking was
        never heard, so the history must not keep it."""
        return self.history.forget(question)

    def budget_for(self, question: str, long: bool | None = None) -> int:
        """Tokens the answer may use: the long budget when asked for ("explain", "tell me more")."""
        if long is None:
            long = bool(self.words.prompt.long_answer.search(question))
        return self.cfg.max_new_tokens_long if long else self.cfg.max_new_tokens

    def session(self) -> Chat:
        """Another conversation on this model, with a history of its own (a Wyoming peer's)."""
        return ChatSession(self)

    def stream(self, question: str, cancel: threading.Event, *, long: bool | None = None,
               history: History | None = None) -> Iterator[str]:
        """Text deltas of the answer; checks `cancel` between tokens and ends at the time limit.

        One answer at a time: it first waits, on the caller's thread, up to BUSY_WAIT_S for an earlier
        answer to return, else raises ModelBusy. Its turn is kept unless taken back (forget, reset)
        or the generator is closed before the end.
        """
        if self._llama is None:
            raise LlmError("The language model is not loaded; call load() first")
        started = time.monotonic()
        history = self.history if history is None else history
        pending = history.begin(question)
        try:
            self._take_model()
        except ModelBusy:
            history.end(pending, None)
            raise
        answer: str | None = None
        try:
            answer = yield from self._answer(pending.question, cancel, long, started, history)
        finally:
            history.end(pending, answer, self.clock())  # before the next answer reads the history
            self._busy.release()

    def _answer(self, question: str, cancel: threading.Event, long: bool | None,
                started: float, history: History) -> Iterator[str]:
        """The answer within the context budget; returns the text to keep, None when nothing is."""
        stats = self._last = LlmStats()
        idle = history.clear_if_idle(self.clock(), self.idle_reset_s)
        if idle is not None:
            _LOGGER.info("Conversation idle for %.0f s: starting afresh", idle)
        turns, cfg = history.turns, self.cfg
        budget = self.budget_for(question, long)  # a long answer falls back to the short budget
        budgets = [budget, cfg.max_new_tokens] if budget > cfg.max_new_tokens else [budget]
        fit = fit_answer(self.system, turns, question, self.count_messages, cfg.n_ctx, budgets,
                         cfg.history_trim)
        if fit is None:
            stats.max_new_tokens = budgets[-1]
            stats.prompt_tokens = self.count_messages(messages_for(self.system, [], question))
            stats.stop_reason = "too_long"
            _LOGGER.warning("Question of %d prompt tokens does not fit n_ctx %d with %d answer tokens",
                            stats.prompt_tokens, cfg.n_ctx, budgets[-1])
            stats.ttft_ms = (time.monotonic() - started) * 1000
            stats.total_ms = stats.ttft_ms
            yield self.words.replies.too_long
            return None
        first, _, budget = fit
        stats.max_new_tokens = budget
        if first:
            _LOGGER.debug("Dropping the %d oldest turns to fit n_ctx %d", first, cfg.n_ctx)
            history.drop_oldest(first)
        prompt = self.tokenize_messages(messages_for(self.system, turns[first:], question))
        stats.prompt_tokens = len(prompt)
        stats.history_turns = len(turns) - first
        prefilled, self._prefilled = self._prefilled, None
        try:
            return (yield from self._generate(prompt, budget, cancel, stats, started))
        finally:
            if prefilled is not None:  # the prefill's tokens this prompt found in the cache
                stats.prefilled_tokens = max(0, min(stats.cached_prompt_tokens, prefilled[1]) - prefilled[0])

    def _generate(self, prompt: list[int], budget: int, cancel: threading.Event, stats: LlmStats,
                  started: float) -> Iterator[str]:
        """Run the sampling loop; returns the raw answer text (what the history keeps)."""
        cfg, llama, lib = self.cfg, self._llama, self._lib
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        deadline = started + cfg.answer_timeout_s
        parts: list[str] = []
        leading = True
        first_at = last_at = None
        received = 0  # tokens sampled, the end-of-generation token included
        stats.stop_reason = "length"
        if cancel.is_set():  # stopped before it began (an early answer dropped at once): nothing to keep
            stats.stop_reason = "cancelled"
            return None
        probe: dict[str, Any] = {}
        self._probe = probe
        threads = PhraseThreads(self._set_threads, self.n_threads_first, self.n_threads, self.n_threads_batch)
        tokens = llama.generate(prompt, top_k=TOP_K, top_p=cfg.top_p, min_p=MIN_P, temp=cfg.temperature,
                                repeat_penalty=cfg.repeat_penalty)
        try:
            for token in tokens:
                last_at = time.monotonic()
                received += 1
                if first_at is None:
                    first_at = last_at
                    stats.ttft_ms = (first_at - started) * 1000
                if lib.llama_vocab_is_eog(self._vocab, token) or lib.llama_vocab_is_control(self._vocab, token):
                    stats.stop_reason = "stop"
                    break
                stats.tokens += 1
                text = decoder.decode(self._piece(token))
                parts.append(text)
                threads.wrote(text)
                if leading:
                    text = text.lstrip()
                    leading = not text
                if text:
                    yield text
                if cancel.is_set():
                    stats.stop_reason = "cancelled"
                    break
                if stats.tokens >= budget:
                    break
                if time.monotonic() >= deadline:
                    stats.stop_reason = "timeout"
                    _LOGGER.warning("Answer stopped at the %.0f s time limit", cfg.answer_timeout_s)
                    break
        except GeneratorExit:  # the consumer stopped reading: a cancel by another name
            stats.stop_reason = "cancelled"
            raise
        finally:
            tokens.close()
            threads.end()
            self._probe = None
            tail = decoder.decode(b"", final=True)
            parts.append(tail)
            stats.finish(probe, started, first_at, last_at, received)
        return "".join(parts)  # an unfinished UTF-8 sequence at the very end is not spoken

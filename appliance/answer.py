"""The two worker threads of an answer: the language model writing, and speech as sentences arrive."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Final

from appliance.contracts import Chat, Sink, Splitter, Synthesizer
from appliance.turn import Job, TurnRecord

DRAIN_TIMEOUT_S: Final = 30.0  # seconds the speech worker waits for the speaker to play out
JOIN_TIMEOUT_S: Final = 1.0  # seconds to wait for a cancelled speech worker
TOKEN_POLL_S: Final = 0.05  # seconds between looks at the cancel Event while waiting for a token
_END: Final = object()  # end of the token stream


def generate(chat: Chat, turn: TurnRecord, cancel: threading.Event, splitter_factory: Callable[[], Splitter],
             clock: Callable[[], float], on_done: Callable[[], None] | None = None) -> tuple[Job, Iterator[str]]:
    """A Job that streams the model's answer into a queue, and the sentences split from that queue.

    `on_done` runs on the job's thread once the model has returned (preempt.Preemption settles
    its chat history there).
    """
    tokens: queue.Queue = queue.Queue()

    def run() -> None:
        try:
            for delta in chat.stream(turn.transcript, cancel):
                if turn.first_token_at is None:
                    turn.first_token_at = clock()
                tokens.put(delta)
                if cancel.is_set():
                    break
        finally:
            turn.answer_done_at = clock()
            tokens.put(_END)
            turn.stats = chat.last_stats
            if on_done is not None:
                on_done()

    return Job("llm", run), sentences(tokens, cancel, splitter_factory())


def sentences(tokens: queue.Queue, cancel: threading.Event, splitter: Splitter) -> Iterator[str]:
    """Sentences (or a first clause) as soon as the splitter has them; stops when cancelled."""
    while not cancel.is_set():
        try:
            item = tokens.get(timeout=TOKEN_POLL_S)
        except queue.Empty:
            continue
        if item is _END:
            yield from splitter.finish()
            return
        yield from splitter.add(item)


def speak(tts: Synthesizer, sink: Sink, turn: TurnRecord, pieces: Iterable[str], cancel: threading.Event,
          clock: Callable[[], float], for_speech: Callable[[str], str] = lambda text: text,
          before: Callable[[], None] | None = None,
          interject: Callable[[], list[str]] | None = None) -> Job:
    """A Job that hands sentences to tts.SpeechWorker as they come and waits until they are heard.

    The worker starts at the first sentence, so an earcon played before it (`before`, or the
    conductor's "thinking" sound) never counts as the answer's first audio. After each sentence,
    `interject` may return messages that cannot wait for the end of the answer (a timer that has
    just finished); they are spoken next, and are not part of the answer.
    """

    def run() -> None:
        from appliance.tts import SpeechWorker

        if before is not None:
            before()
        worker = None
        try:
            for sentence in pieces:
                if cancel.is_set():
                    return
                text = for_speech(sentence)
                if not text.strip():
                    continue
                if worker is None:
                    worker = SpeechWorker(tts, sink, cancel, DRAIN_TIMEOUT_S).start()
                    turn.first_sentence_at = clock()
                turn.answer_parts.append(sentence)
                worker.say(text)
                for message in interject() if interject is not None else ():
                    worker.say(for_speech(message))
            if worker is None:
                return
            worker.finish()
            if not worker.wait(DRAIN_TIMEOUT_S + 5.0) and not cancel.is_set():
                raise TimeoutError("the speaker did not play out the answer")
            turn.audio_done_at = clock()
            if worker.stats.first_chunk_at is not None:
                turn.first_audio_at = sink.first_audio_at() or worker.stats.first_chunk_at
        finally:
            if worker is not None and cancel.is_set():
                worker.close(JOIN_TIMEOUT_S)

    return Job("speech", run)

"""One answer at a time in the llama context, and taking answers back without waiting for the model.

The chat runs around a fake llama whose answers follow a script: tokens, and Events it waits on
between them, so each test sets the order of things itself.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any, Final

import pytest

from appliance.config import LlmConfig
from appliance.errors import ModelBusy, ModelError
from appliance.thinking import llm
from appliance.thinking.llm import LlamaChat
from appliance.thinking.prompt import Turn
from tests.fixtures.waits import WAIT_S

EOS: Final = 0
WORDS: Final = ["", "Hello", " there", ".", " Fine", " thanks", "!", " Paris"]
HELLO, THERE, DOT, FINE, THANKS, BANG, PARIS = range(1, 8)

Step = int | threading.Event | Callable[[], object]


class FakeLib:
    """The few llama_cpp functions the chat calls while it samples."""

    def llama_vocab_is_eog(self, vocab: object, token: int) -> bool:
        return token == EOS

    def llama_vocab_is_control(self, vocab: object, token: int) -> bool:
        return False

    def llama_token_to_piece(self, vocab: object, token: int, buf: Any, size: int, lstrip: int,
                             special: bool) -> int:
        data = WORDS[token].encode()
        ctypes.memmove(buf, data, len(data))
        return len(data)


class FakeLlama:
    """Answers from scripts, one per generate() call; counts the generations running at once."""

    def __init__(self) -> None:
        self.scripts: list[list[Step]] = []
        self.log: list[str] = []
        self.running = 0
        self.most_running = 0
        self._lock = threading.Lock()

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        return [1] * len(text.split())

    def generate(self, prompt: list[int], **sampling: Any) -> Iterator[int]:
        with self._lock:
            script = self.scripts.pop(0)
            number = len([x for x in self.log if x.startswith("start")]) + 1
            self.running += 1
            self.most_running = max(self.most_running, self.running)
            self.log.append(f"start {number}")
        try:
            for step in script:
                if isinstance(step, threading.Event):
                    assert step.wait(WAIT_S), "a scripted wait was never released"
                elif callable(step):
                    step()
                else:
                    yield step
            while True:  # like llama.cpp, it goes on until the chat stops reading
                yield EOS
        finally:
            with self._lock:
                self.running -= 1
                self.log.append(f"end {number}")


def make_chat(*scripts: list[Step]) -> tuple[LlamaChat, FakeLlama]:
    chat = LlamaChat(LlmConfig(), "unused.gguf")
    fake = FakeLlama()
    fake.scripts.extend(scripts)
    chat._llama, chat._lib, chat._vocab = fake, FakeLib(), None
    chat._format = lambda messages: SimpleNamespace(prompt=" ".join(m["content"] for m in messages))
    return chat, fake


class Asker(threading.Thread):
    """Streams one answer on its own thread; `first` is set once the first text has come."""

    def __init__(self, chat: LlamaChat, question: str, cancel: threading.Event | None = None) -> None:
        super().__init__(daemon=True)
        self.chat, self.question = chat, question
        self.cancel = cancel or threading.Event()
        self.first = threading.Event()
        self.text = ""
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            for delta in self.chat.stream(self.question, self.cancel):
                self.text += delta
                self.first.set()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            self.error = exc

    def finish(self) -> None:
        self.join(WAIT_S)
        assert not self.is_alive(), "the answer never ended"


def ask(chat: LlamaChat, question: str) -> str:
    return "".join(chat.stream(question, threading.Event()))


def call_soon(fn: Callable[[], bool]) -> bool:
    """fn() on another thread: it must return while the model is still busy, not block on it."""
    result: list[bool] = []
    caller = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    caller.start()
    caller.join(WAIT_S)
    assert result, "it waited for the model"
    return result[0]


class WatchedLock:
    """A lock that says when someone has to wait for it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.contended = threading.Event()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if self._lock.acquire(blocking=False):
            return True
        self.contended.set()
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()


def test_model_busy_is_a_model_error() -> None:
    assert issubclass(ModelBusy, ModelError)


def test_a_second_answer_waits_for_the_cancelled_first_then_answers() -> None:
    go_on = threading.Event()
    chat, fake = make_chat([HELLO, go_on, THERE, DOT, EOS], [FINE, THANKS, BANG, EOS])
    chat._busy = watched = WatchedLock()
    first = Asker(chat, "Tell me a story.")
    first.start()
    assert first.first.wait(WAIT_S)
    second = Asker(chat, "How are you?")
    second.start()
    assert watched.contended.wait(WAIT_S)  # the second is waiting for the model...
    assert fake.log == ["start 1"]  # ...and has not started a generation of its own
    first.cancel.set()
    go_on.set()
    first.finish()
    second.finish()
    assert first.error is None and second.error is None
    assert fake.log == ["start 1", "end 1", "start 2", "end 2"]
    assert fake.most_running == 1
    assert second.text == "Fine thanks!"
    assert chat.last_stats.stop_reason == "stop" and chat.last_stats.history_turns == 1
    assert chat.turns == [Turn("Tell me a story.", "Hello there"), Turn("How are you?", " Fine thanks!")]


def test_a_first_answer_that_never_returns_makes_the_second_raise_model_busy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    inside, let_go = threading.Event(), threading.Event()
    chat, fake = make_chat([inside.set, let_go, HELLO, EOS], [PARIS, EOS])
    monkeypatch.setattr(llm, "BUSY_WAIT_S", 0.05)
    stuck = Asker(chat, "Tell me a story.")
    stuck.start()
    assert inside.wait(WAIT_S)  # the first is inside llama.cpp, where a cancel cannot reach it
    stuck.cancel.set()
    with pytest.raises(ModelBusy, match="has not returned from an earlier answer"):
        next(chat.stream("What is the capital of France?", threading.Event()))
    assert fake.log == ["start 1"]
    let_go.set()
    stuck.finish()
    assert ask(chat, "What is the capital of France?") == "Paris"  # the chat carries on
    assert [t.user for t in chat.turns] == ["Tell me a story.", "What is the capital of France?"]
    assert fake.most_running == 1


def test_forget_during_the_answer_keeps_its_turn_out_and_an_older_one_in() -> None:
    go_on = threading.Event()
    chat, _ = make_chat([HELLO, EOS], [FINE, go_on, THANKS, EOS])
    ask(chat, "What time is it?")
    older = chat.turns
    asker = Asker(chat, "What  time is it?")  # the same question again: the older turn must stay
    asker.start()
    assert asker.first.wait(WAIT_S)
    assert call_soon(lambda: chat.forget(" What time  is it? "))
    assert not call_soon(lambda: chat.forget("What time is it?"))  # taken back once only
    go_on.set()
    asker.finish()
    assert asker.text == "Fine thanks"  # the answer ran to its end...
    assert chat.turns == older == [Turn("What time is it?", "Hello")]  # ...and its turn was not kept


def test_forget_after_the_answer_takes_back_the_last_turn() -> None:
    chat, _ = make_chat([HELLO, EOS], [FINE, EOS])
    ask(chat, "Hi.")
    ask(chat, "How are you?")
    assert chat.forget("  How are   you? ")
    assert chat.turns == [Turn("Hi.", "Hello")]


def test_forget_of_another_question_changes_nothing() -> None:
    go_on = threading.Event()
    chat, _ = make_chat([HELLO, EOS], [FINE, go_on, THANKS, EOS])
    ask(chat, "Hi.")
    assert not chat.forget("How are you?")
    asker = Asker(chat, "How are you?")
    asker.start()
    assert asker.first.wait(WAIT_S)
    assert not call_soon(lambda: chat.forget("Hi there."))  # neither the answer under way nor the last turn
    go_on.set()
    asker.finish()
    assert chat.turns == [Turn("Hi.", "Hello"), Turn("How are you?", " Fine thanks")]


def test_an_answer_waiting_for_the_model_can_be_taken_back() -> None:
    go_on = threading.Event()
    chat, fake = make_chat([HELLO, go_on, THERE, EOS], [FINE, EOS])
    chat._busy = watched = WatchedLock()
    first = Asker(chat, "Tell me a story.")
    first.start()
    assert first.first.wait(WAIT_S)
    second = Asker(chat, "How are you?")
    second.start()
    assert watched.contended.wait(WAIT_S)
    assert call_soon(lambda: chat.forget("How are you?"))
    go_on.set()
    first.finish()
    second.finish()
    assert second.text == "Fine"
    assert chat.turns == [Turn("Tell me a story.", "Hello there")]
    assert fake.most_running == 1


def test_reset_during_the_answer_forgets_it_too() -> None:
    go_on = threading.Event()
    chat, _ = make_chat([HELLO, EOS], [FINE, go_on, THANKS, EOS], [PARIS, EOS])
    ask(chat, "Hi.")
    asker = Asker(chat, "How are you?")
    asker.start()
    assert asker.first.wait(WAIT_S)
    call_soon(lambda: chat.reset() or True)
    go_on.set()
    asker.finish()
    assert chat.turns == []
    ask(chat, "What is the capital of France?")
    assert chat.last_stats.history_turns == 0


def test_a_closed_stream_lets_the_next_answer_in_and_keeps_no_turn() -> None:
    chat, fake = make_chat([HELLO, THERE, DOT, EOS], [FINE, EOS])
    stream = chat.stream("Tell me a story.", threading.Event())
    assert next(stream) == "Hello"
    stream.close()
    assert ask(chat, "How are you?") == "Fine"
    assert chat.turns == [Turn("How are you?", " Fine")]
    assert fake.log == ["start 1", "end 1", "start 2", "end 2"]


def test_an_answer_stopped_and_forgotten_before_it_began_leaves_no_turn() -> None:
    chat, fake = make_chat([HELLO, EOS], [PARIS, EOS])
    ask(chat, "Hello?")
    cancel = threading.Event()
    cancel.set()  # stopped, and taken back, before its thread reached the model
    assert not chat.forget("What is the capital of France?")
    assert "".join(chat.stream("What is the capital of France?", cancel)) == ""
    assert [t.user for t in chat.turns] == ["Hello?"]
    assert fake.log == ["start 1", "end 1"]  # the model was not run for it

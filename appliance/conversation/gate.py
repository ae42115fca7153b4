"""The answer's own way to the speaker: held back (an early answer) or open, and shut for good when the
answer is stopped, so nothing of a stopped answer is heard."""

from __future__ import annotations

import threading
from collections.abc import Callable

from appliance.audio import AudioChunk
from appliance.contracts import Sink


class Gate:
    """The answer's own way to the speaker: held back until release() (an early answer) or open at once,
    and shut for good by stop(), after which nothing of this answer reaches the speaker.

    play() returns quickly (the speaker buffers), so holding the lock over it costs nothing, and it
    makes stop() a clean cut: no chunk of a stopped answer can slip in after it.
    """

    def __init__(self, sink: Sink, held: bool, clock: Callable[[], float]) -> None:
        self.sink = sink
        self.clock = clock
        self.released_at: float | None = None if held else clock()
        self._held: list[AudioChunk] = []
        self._mark = False
        self._shut = False
        self._first_play_at: float | None = None
        self._opened = threading.Event()
        if not held:
            self._opened.set()
        self._lock = threading.Lock()

    @property
    def released(self) -> bool:
        return self._opened.is_set() and not self._shut

    def release(self) -> None:
        """Play what is held, in order, and let later audio straight through."""
        with self._lock:
            if self._opened.is_set() or self._shut:
                return
            self.released_at = self.clock()
            if self._mark:
                self.sink.mark_turn()
            for chunk in self._held:
                self.sink.play(chunk)
            self._held.clear()
            self._opened.set()

    def play(self, chunk: AudioChunk) -> None:
        with self._lock:
            if self._shut:
                return
            if self._first_play_at is None:
                self._first_play_at = self.clock()
            if self._opened.is_set():
                self.sink.play(chunk)
            else:
                self._held.append(chunk)

    def stop(self) -> None:
        """Shut the gate; the speaker is stopped only if this answer may have reached it."""
        with self._lock:
            if self._shut:
                return
            self._shut = True
            self._held.clear()
            heard = self._opened.is_set()
            self._opened.set()  # a drain() waiting for the release returns
        if heard:
            self.sink.stop()

    def drain(self, timeout: float) -> bool:
        """Nothing plays out before the release; a shut gate has nothing left to play."""
        started = self.clock()
        if not self._opened.wait(timeout):
            return False
        if self._shut:
            return True
        return bool(self.sink.drain(max(0.0, timeout - (self.clock() - started))))

    def first_audio_at(self) -> float | None:
        """The speaker's own mark; for a sink without one, when the first chunk could be heard."""
        if not self.released:
            return None
        mark = self.sink.first_audio_at()
        if mark is not None or self._first_play_at is None or self.released_at is None:
            return mark
        return max(self._first_play_at, self.released_at)

    def mark_turn(self) -> None:
        with self._lock:
            if self._shut:
                return
            if self._opened.is_set():
                self.sink.mark_turn()
            else:
                self._mark = True  # passed on at the release: nothing of this answer is heard before

    def close(self) -> None:
        """The speaker belongs to the caller; nothing to close here."""

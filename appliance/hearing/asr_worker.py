"""Runs of jobs, newest first: inline for a streaming engine, on a worker thread for Whisper and prefill."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

_LOGGER = logging.getLogger(__name__)


class Run:
    """One transcription: its text (or error) and when it was ready, once `done` is set."""

    def __init__(self, job: Callable[[], str]) -> None:
        self.job = job
        self.text = ""
        self.error: BaseException | None = None
        self.finished_at: float | None = None
        """time.monotonic() when the text was ready."""
        self.dropped = False
        """Not wanted any more: a run that has not started never does; a running one is not waited for."""
        self.done = threading.Event()

    def execute(self) -> None:
        try:
            self.text = self.job().strip()
        except Exception as exc:  # handed to whoever harvests the run (the conductor's thread)
            self.error = exc
        finally:
            self.finished_at = time.monotonic()
            self.done.set()


class Inline:
    """Runs each job at once on the caller's thread (Vosk: its results are cheap)."""

    idle = True
    """Nothing is ever running or waiting here between calls."""

    def submit(self, job: Callable[[], str]) -> Run:
        run = Run(job)
        run.execute()
        return run


class Worker:
    """One thread that runs jobs one at a time, the newest first.

    A job waiting when a newer one comes is dropped, never run: it was made stale (an early
    transcript after which the person went on, or an utterance that was given up).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._next: Run | None = None
        self._running: Run | None = None
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, job: Callable[[], str]) -> Run:
        run = Run(job)
        with self._cond:
            if self._next is not None:
                _LOGGER.debug("Dropping a stale recognition run that had not started")
                self._next.dropped = True
            self._next = run
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                self._thread.start()
            self._cond.notify()
        return run

    @property
    def waiting(self) -> bool:
        """A run is waiting to start (a newer one than the one running, if any)."""
        with self._cond:
            return self._next is not None

    @property
    def idle(self) -> bool:
        """No run is running or waiting: one submitted now starts at once (partials wait for this)."""
        with self._cond:
            return self._next is None and self._running is None

    def _loop(self) -> None:
        while True:
            with self._cond:
                while self._next is None:
                    self._cond.wait()
                run, self._next = self._next, None
                self._running = run
            try:
                if not run.dropped:
                    run.execute()
            finally:
                with self._cond:
                    self._running = None

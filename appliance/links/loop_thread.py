"""A link's own thread and asyncio event loop: started and stopped by service.py, from any thread."""

from __future__ import annotations

import asyncio
import logging
import threading

_LOGGER = logging.getLogger(__name__)


class LoopThread:
    """Runs `serve()` on an event loop in a thread of its own until stop(); `stopping` is set then."""

    def __init__(self, thread_name: str, what: str) -> None:
        self._thread_name = thread_name
        self._what = what
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._stop_requested = threading.Event()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self._thread_name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Tell the loop to stop, and wait at most `timeout` seconds for its thread."""
        self._stop_requested.set()
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None:
            try:
                loop.call_soon_threadsafe(stopping.set)
            except RuntimeError:  # the loop has already ended
                pass
        if self._thread is not None:
            self._thread.join(timeout)

    async def serve(self) -> None:
        """The link's work; returns once self._stopping is set."""
        raise NotImplementedError

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        except Exception:
            _LOGGER.exception("%s stopped", self._what)
        finally:
            loop.close()

    async def _main(self) -> None:
        self._stopping = asyncio.Event()
        if self._stop_requested.is_set():  # stop() came before this loop could be told
            return
        await self.serve()

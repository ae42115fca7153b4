"""The hub's wake word, listened for in the stream of a satellite that has no wake word of its own.

wyoming-satellite run without a wake word service (`--wake-uri`) streams its microphone all the
time and leaves the wake word to the server, as Home Assistant does for it: its pipeline starts at
the wake stage. The hub then runs its own wake word on that stream, on a thread of its own (the
link's event loop never runs a model), and when it fires the question begins as if the satellite
had heard the wake word itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Final

from appliance.audio import AudioChunk
from appliance.contracts import WakeDetector, WakeHit
from appliance.links.wyoming_caller import SatelliteAudio

_LOGGER = logging.getLogger(__name__)

READ_S: Final = 0.1  # seconds a read waits for audio before looking at stop() again
BEHIND_CHUNKS: Final = 25  # 2 s of 80 ms chunks waiting: the detector cannot keep up, the oldest go


class WakeListener:
    """Feeds a satellite's stream (`add`, on the link's loop) to a wake detector on a thread of its own.

    On a hit it calls `on_wake(hit)` from that thread and listens no more until `resume()`: the audio
    that comes meanwhile waits in `audio`, for the question (`take()`).
    """

    def __init__(self, detector: Callable[[], WakeDetector], name: str, on_wake: Callable[[WakeHit], None]) -> None:
        self.make_detector, self.name, self.on_wake = detector, name, on_wake
        self.detector: WakeDetector | None = None
        """Made (loaded) on the listener's thread."""
        self.audio = SatelliteAudio(max_s=None)
        self.hits = 0
        self._listening = threading.Event()
        self._listening.set()
        self._reset = False
        self._stopped = threading.Event()
        self._behind = False
        self._thread = threading.Thread(target=self._run, name=f"appliance-wake-{name}", daemon=True)
        self._thread.start()

    def add(self, payload: bytes, fmt: tuple[int, int, int]) -> None:
        self.audio.add(payload, fmt)

    def take(self) -> list[AudioChunk]:
        """The audio since the wake word, taken out (for the question)."""
        return self.audio.take()

    def resume(self) -> None:
        """The turn is over: listen again, from the audio that comes now."""
        self.audio.take()
        self._reset = True
        self._listening.set()

    def stop(self) -> None:
        self._stopped.set()
        self._listening.set()
        self.audio.end()

    def _run(self) -> None:
        try:
            self.detector = detector = self.make_detector()
        except Exception:  # e.g. the wake model missing: this satellite goes unanswered, the rest works
            _LOGGER.exception("Satellite %s: the wake word cannot be loaded for its stream", self.name)
            return
        while not self._stopped.is_set():
            self._listening.wait()
            if self._stopped.is_set():
                return
            if self._reset:
                self._reset = False
                detector.reset(new_stream=True)
            chunk = self.audio.read(READ_S)
            if chunk is None:
                continue
            self._keep_up()
            try:
                hit = detector.process(chunk)
            except Exception:  # a failing detector costs this satellite its wake word, never the link
                _LOGGER.exception("Satellite %s: the wake word failed; listening stops for it", self.name)
                return
            if hit is not None and self._listening.is_set():
                self._listening.clear()
                self.hits += 1
                self.on_wake(hit)

    def _keep_up(self) -> None:
        """Drop what the detector cannot catch up with (said once until it keeps up again)."""
        behind = self.audio.queued > BEHIND_CHUNKS
        if behind:
            dropped = self.audio.take()
            if not self._behind:
                _LOGGER.warning("Satellite %s: the wake word falls behind its stream; %.1f s of it skipped",
                                self.name, sum(c.duration_s for c in dropped))
        self._behind = behind

"""When each block of a stream sounds or was captured, from the frames counted (the speaker's and the microphone's)."""

from __future__ import annotations

import logging
from typing import Final

_LOGGER = logging.getLogger(__name__)

CLOCK_JUMP_S: Final = 0.2  # seconds a timestamp may differ from the frames counted before it is taken as it is


class StreamClock:
    """When each block of a stream sounds (or was captured), from the frames counted since its first.

    A device's samples follow one another at its rate, so one block's time is the first one's plus the
    frames before it; the timestamps PortAudio gives with each callback come from when the callback
    ran, and do not say better. One late callback (a busy core) must not move the stream; neither may
    callbacks that run ahead while a sound server's buffer fills (PulseAudio's ALSA plug-in took 2.5 s
    of sound that way), nor timestamps that wander from the frames (500 ppm through PulseAudio here,
    where the samples did not: following them cost the canceller 20 dB). What the count gets wrong,
    two devices' clocks drifting apart, the canceller finds in the echo itself. A timestamp later than
    the count by more than CLOCK_JUMP_S (a speaker that ran dry, frames lost to an overrun) is taken as
    it is; for an output, one that is earlier is only its buffer filling.
    """

    def __init__(self, rate: int, output: bool = False) -> None:
        self.rate = rate
        self.output = output
        self._frames = 0
        self._offset: float | None = None  # the time of frame 0

    def stamp(self, frames: int, at: float) -> float:
        """The time of the first of the next `frames` frames, whose device timestamp is `at`."""
        counted = self._frames / self.rate
        error = at - counted - self._offset if self._offset is not None else 0.0
        if self._offset is None or error > CLOCK_JUMP_S or (error < -CLOCK_JUMP_S and not self.output):
            if self._offset is not None:
                _LOGGER.debug("The %s's timestamps moved %+.3f s from its frames counted; taken as they are",
                              "speaker" if self.output else "microphone", error)
            self._offset = at - counted
        self._frames += frames
        return self._offset + counted

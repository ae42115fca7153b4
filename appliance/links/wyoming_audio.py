"""Audio over Wyoming: a recording as a peer streams it (any format, cut anywhere) made 16 kHz mono int16,
and the voice's audio cut into pieces to send."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any, Final

from appliance.audio import PIPELINE_RATE, AudioChunk, Converter
from appliance.links.wyoming_wire import BadPeer

_LOGGER = logging.getLogger(__name__)

MAX_AUDIO_S: Final = 60.0  # seconds of audio one recording keeps; HA's own VAD ends a command long before
OUT_CHUNK_FRAMES: Final = 2048  # frames per audio-chunk sent (about 93 ms at 22,050 Hz)
_PIPELINE_FORMAT: Final = (PIPELINE_RATE, 2, 1)


def chunk_format(data: dict[str, Any]) -> tuple[int, int, int]:
    """(rate, width, channels) of an audio-chunk event's data; BadPeer for one that cannot be."""
    try:
        rate, width, channels = (int(data.get(k, d)) for k, d in (("rate", 16000), ("width", 2), ("channels", 1)))
    except (TypeError, ValueError):
        raise BadPeer("an audio-chunk's format is not numbers") from None
    if not 1000 <= rate <= 384000 or width not in (1, 2, 4) or not 1 <= channels <= 16:
        raise BadPeer(f"an audio-chunk's format cannot be: {rate} Hz, {width} bytes, {channels} channels")
    return rate, width, channels


class Incoming:
    """A peer's audio as it arrives, made 16 kHz mono int16. A peer may cut its stream anywhere (Home
    Assistant passes on HTTP chunks of any length): the bytes of a frame cut in two wait for the next
    chunk, so every later sample stays aligned; a half frame of another format is dropped."""

    def __init__(self) -> None:
        self._converter = Converter(PIPELINE_RATE)
        self._pending = b""
        self._pending_format = _PIPELINE_FORMAT
        self._resampled: tuple[int, int, int] | None = None
        """The format last resampled: the resampler keeps a tail of it until the end."""

    def convert(self, payload: bytes, fmt: tuple[int, int, int]) -> tuple[AudioChunk, float] | None:
        """One audio-chunk's payload in (rate, width, channels): (its whole frames converted, their seconds
        as sent), or None when it held no whole frame."""
        rate, width, channels = fmt
        if fmt != self._pending_format:
            self._pending, self._pending_format = b"", fmt
        data = self._pending + payload
        whole = len(data) - len(data) % (width * channels)
        samples, self._pending = data[:whole], data[whole:]
        if not samples:
            return None
        chunk = AudioChunk(samples, rate, width, channels)
        if fmt == _PIPELINE_FORMAT:
            return chunk, chunk.duration_s
        self._resampled = fmt
        return self._converter.convert(chunk), chunk.duration_s

    def flush(self) -> AudioChunk | None:
        """The resampler's last samples, at the end of the audio (None when nothing was resampled)."""
        if self._resampled is None:
            return None
        rate, width, channels = self._resampled
        self._resampled = None
        return self._converter.convert(AudioChunk(b"", rate, width, channels), last=True)


class ReceivedAudio:
    """One recording as it arrives (Incoming), kept whole, at most MAX_AUDIO_S long."""

    def __init__(self) -> None:
        self.chunks: list[AudioChunk] = []
        self.seconds = 0.0
        self._incoming = Incoming()

    def add(self, payload: bytes, fmt: tuple[int, int, int]) -> None:
        converted = self._incoming.convert(payload, fmt)
        if converted is None or self.seconds >= MAX_AUDIO_S:
            return
        chunk, seconds = converted
        self.chunks.append(chunk)
        self.seconds += seconds
        if self.seconds >= MAX_AUDIO_S:
            _LOGGER.warning("Wyoming: a recording is longer than %.0f s; the rest is not transcribed", MAX_AUDIO_S)

    def finish(self) -> AudioChunk:
        """The whole recording, the resampler's last samples included."""
        tail = self._incoming.flush()
        if tail is not None:
            self.chunks.append(tail)
        return AudioChunk(b"".join(c.samples for c in self.chunks), PIPELINE_RATE)


def pieces(chunk: AudioChunk) -> Iterator[AudioChunk]:
    """`chunk` as 16-bit mono pieces of at most OUT_CHUNK_FRAMES frames."""
    if (chunk.width, chunk.channels) != (2, 1):
        samples = chunk.to_int16()
        chunk = AudioChunk.from_int16(samples if chunk.channels == 1 else samples.mean(axis=1).astype("<i2"),
                                      chunk.rate)
    step = OUT_CHUNK_FRAMES * 2
    for i in range(0, len(chunk.samples), step):
        yield AudioChunk(chunk.samples[i:i + step], chunk.rate)

"""One satellite's question as the hub's turn sees it (contracts.Caller): its microphone as a Source, its
speaker as a Sink, both over the satellite's Wyoming connection."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

import numpy as np
from wyoming.asr import Transcript
from wyoming.audio import AudioChunk as WyAudioChunk
from wyoming.audio import AudioStart, AudioStop
from wyoming.event import Event

from appliance.audio import FRAME_SAMPLES, PIPELINE_RATE, AudioChunk, Converter
from appliance.audio.volume import Volume
from appliance.links.wyoming_audio import MAX_AUDIO_S, Incoming, pieces

_LOGGER = logging.getLogger(__name__)

SEND_TIMEOUT_S: Final = 10.0  # seconds one event to the satellite may take to go out before it counts as gone
FRAME_BYTES: Final = FRAME_SAMPLES * 2  # one 80 ms chunk of 16 kHz int16


class SatelliteAudio:
    """The satellite's microphone after its wake word (contracts.Source): 80 ms chunks of 16 kHz mono
    int16, whatever format it streams in; eof once it stops streaming (audio-stop) or goes away.
    At most `max_s` seconds are taken in (None: a stream that never ends, read as it comes)."""

    def __init__(self, max_s: float | None = MAX_AUDIO_S) -> None:
        self.max_s = max_s
        self.frames_read = 0
        self._queue: queue.SimpleQueue[AudioChunk] = queue.SimpleQueue()
        self._ended = threading.Event()
        self._incoming = Incoming()
        self._buffer = b""  # converted audio not yet a whole 80 ms chunk
        self._seconds = 0.0

    def add(self, payload: bytes, fmt: tuple[int, int, int]) -> None:
        """On the link's loop: one audio-chunk's payload in (rate, width, channels)."""
        if self._ended.is_set() or (self.max_s is not None and self._seconds >= self.max_s):
            return
        converted = self._incoming.convert(payload, fmt)
        if converted is None:
            return
        chunk, seconds = converted
        self._seconds += seconds
        self._buffer += chunk.samples
        while len(self._buffer) >= FRAME_BYTES:
            self._queue.put(AudioChunk(self._buffer[:FRAME_BYTES], PIPELINE_RATE))
            self._buffer = self._buffer[FRAME_BYTES:]

    def take(self) -> list[AudioChunk]:
        """The chunks not read yet, taken out."""
        taken = []
        while True:
            try:
                taken.append(self._queue.get_nowait())
            except queue.Empty:
                return taken

    @property
    def queued(self) -> int:
        """Chunks waiting to be read."""
        return self._queue.qsize()

    def end(self) -> None:
        """No more audio (the rest of a chunk is padded with silence)."""
        if self._buffer and not self._ended.is_set():
            self._queue.put(AudioChunk(self._buffer.ljust(FRAME_BYTES, b"\0"), PIPELINE_RATE))
            self._buffer = b""
        self._ended.set()

    @property
    def eof(self) -> bool:
        return self._ended.is_set() and self._queue.empty()

    def read(self, timeout: float) -> AudioChunk | None:
        try:
            chunk = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        self.frames_read += 1
        return chunk

    def status(self) -> str:
        return "ok"

    def close(self) -> None:
        self.end()


class SatelliteSpeaker:
    """The satellite's speaker (contracts.Sink): each chunk played goes out at once as an audio-chunk,
    after an audio-start; the caller sends audio-stop when the answer is over (RemoteCaller.finish).
    `volume`: the room's own ("volume down" asked there), applied to what is sent."""

    def __init__(self, caller: RemoteCaller, snd_format: dict[str, Any], volume: Volume | None = None) -> None:
        self.caller = caller
        self.volume = volume
        rate, channels = snd_format.get("rate"), snd_format.get("channels")
        self.rate: int | None = rate if isinstance(rate, int) and 8000 <= rate <= 192000 else None
        """The rate the satellite asked for (run-pipeline's snd_format), else the voice's own."""
        self.channels = 2 if channels == 2 else 1
        self.started = False
        self.sent_frames = 0
        self._converter: Converter | None = None
        self._first_at: float | None = None
        self._stopped = False
        self._rate_sent = self.rate or PIPELINE_RATE
        self._lock = threading.Lock()

    def play(self, chunk: AudioChunk) -> None:
        with self._lock:
            if self._stopped or self.caller.gone:
                return
            if self.rate is not None and chunk.rate != self.rate:
                self._converter = self._converter or Converter(self.rate)
                chunk = self._converter.convert(chunk)
            gain = 1.0 if self.volume is None else self.volume.gain()
            if gain != 1.0 and chunk.frames:
                chunk = AudioChunk.from_float(chunk.to_float()[:, 0] * np.float32(gain), chunk.rate)
            if not self.started:
                self.started = True
                self.caller.send(AudioStart(rate=chunk.rate, width=2, channels=self.channels).event())
            for piece in pieces(chunk):
                audio = piece.samples
                if self.channels == 2:
                    audio = np.repeat(np.frombuffer(audio, dtype="<i2"), 2).tobytes()
                self.caller.send(WyAudioChunk(rate=piece.rate, width=2, channels=self.channels, audio=audio,
                                              timestamp=int(self.sent_frames * 1000 / piece.rate)).event())
                self.sent_frames += piece.frames
                if self._first_at is None:
                    self._first_at = time.monotonic()
            self._rate_sent = chunk.rate

    def stop(self) -> None:
        """Nothing more of this answer goes out (what the satellite has already it plays)."""
        self._stopped = True

    def drain(self, timeout: float) -> bool:
        return True  # every chunk played has been sent

    def first_audio_at(self) -> float | None:
        return self._first_at

    def mark_turn(self) -> None:
        with self._lock:
            self._first_at, self._stopped = None, False

    def close(self) -> None:
        self.stop()

    def stop_event(self) -> Event | None:
        """The audio-stop that ends what was sent, or None when nothing was."""
        if not self.started:
            return None
        return AudioStop(timestamp=int(self.sent_frames * 1000 / self._rate_sent)).event()


class RemoteCaller:
    """One question from a satellite (contracts.Caller); `send` runs on the link's event loop."""

    def __init__(self, name: str, area: str, wake_word: str, loop: asyncio.AbstractEventLoop,
                 send: Callable[[Event], Awaitable[None]], snd_format: dict[str, Any],
                 volume: Volume | None = None) -> None:
        self.name = name
        self.area = area
        self.wake_word = wake_word
        self.stream = SatelliteAudio()
        self.source = self.stream
        self.speaker = SatelliteSpeaker(self, snd_format, volume)
        self.sink = self.speaker
        self._loop, self._send = loop, send
        self._gone = threading.Event()

    @property
    def gone(self) -> bool:
        return self._gone.is_set()

    def hang_up(self) -> None:
        """The satellite went away (or asked again): the turn ends, nothing more is sent."""
        self._gone.set()
        self.stream.end()

    def send(self, event: Event) -> None:
        """From the question's thread: `event` to the satellite, waiting until it went out."""
        if self.gone:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._send(event), self._loop).result(SEND_TIMEOUT_S)
        except Exception as exc:  # closed, reset, or the loop ended: the satellite is gone for this turn
            _LOGGER.debug("Satellite %s: sending %s failed (%s)", self.name, event.type, exc)
            self.hang_up()

    def heard(self, text: str) -> None:
        """The question is over: the satellite is told what was heard, and its audio is taken in no more."""
        self.stream.end()
        self.send(Transcript(text=text).event())

    def finish(self) -> None:
        """The turn is over: end the answer's audio (audio-stop) if any was sent."""
        event = self.speaker.stop_event()
        if event is not None:
            self.send(event)

"""Audio out: SpeakerSink (sounddevice, gap-free, quick fade-out stop, survives device loss) and WavSink."""

from __future__ import annotations

import logging
import math
import threading
import time
from pathlib import Path
from typing import Any, Final

import numpy as np

from appliance.audio import PIPELINE_RATE, AudioChunk, Converter
from appliance.audio.asound import PROC
from appliance.audio.device import (
    CLOSE_TIMEOUT_S,
    OPEN_GRACE_S,
    WATCH_INTERVAL_S,
    DeviceKeeper,
    PortAudioStuck,
)
from appliance.audio.echo import EchoCanceller
from appliance.audio.playback import BLOCK_MS, PLAY_BLOCK_TIMEOUT_S, Playback, WavSink
from appliance.audio.stream_clock import StreamClock
from appliance.audio.volume import Volume
from appliance.config import AudioConfig
from appliance.contracts import EventLog

__all__ = ["SpeakerSink", "WavSink", "output_format"]

_LOGGER = logging.getLogger(__name__)

REST_MAX_START_S: Final = 0.15
"""A device that takes longer than this from opening to playing in real time stays open between answers
(audio.speaker_rest_s): the next sound would wait that long. Plain ALSA takes a few tens of milliseconds;
PulseAudio's ALSA plug-in into a null sink 0.9-1.9 s while nothing else plays into it."""
REST_TRIALS: Final = 2
"""Times a device slow to start is closed and opened again while nothing plays, to measure it once more
before it is kept open for good: a sound server's sink may start slowly only while it is itself idle
(PulseAudio's null sink took 1.5 s the first time and no time at all again while its monitor was recorded)."""


def output_format(sd: Any, device: int | None, rate: int) -> tuple[int, int]:
    """(rate, channels): the voice's rate in mono or stereo if the device takes it, else its own rate."""
    info = sd.query_devices(device, "output")
    channel_options = (1, 2) if int(info["max_output_channels"]) >= 2 else (1,)
    for try_rate in (rate, int(info["default_samplerate"])):
        for channels in channel_options:
            try:
                sd.check_output_settings(device=device, samplerate=try_rate, channels=channels,
                                         dtype="float32")
                return try_rate, channels
            except Exception:  # PortAudio: invalid sample rate / channel count
                continue
    return int(info["default_samplerate"]), channel_options[-1]


class SpeakerSink(DeviceKeeper):
    """The Sink of contracts.py over a sounddevice OutputStream that stays open between sentences.

    The stream opens at the rate of the first chunk (the voice's) when the device takes it, else at
    the device's own rate with soxr resampling. A keeper thread notices a lost device (error, stall),
    logs it once, reopens with the microphone's backoff, and play() drops audio until it is back.
    After `audio.speaker_rest_s` with nothing played, on a device measured to start within
    REST_MAX_START_S, the stream closes (it rests) and opens again for the next chunk played.
    With a `volume`, everything is played at the hub's volume (the level when the chunk is played).
    The device is `audio.output_device`, else the system default unless that is HDMI while another
    output exists (choose.py), chosen again at every reopen; `events` gets which, and why.
    With an `echo` canceller, every block of sound the device is given (after volume and resampling)
    is handed to it with the time it sounds, as the reference of what the microphone will hear.
    """

    KIND = "speaker"
    DIRECTION = "output"

    def __init__(self, cfg: AudioConfig, rate: int | None = None, sd_module: Any = None,
                 volume: Volume | None = None, proc: Path = PROC, events: EventLog | None = None,
                 echo: EchoCanceller | None = None) -> None:
        super().__init__(cfg.retry_backoff_s, sd_module, cfg.output_device, proc, events)
        self.cfg = cfg
        self.volume = volume
        self.echo = echo
        self.dropped_s = 0.0
        self.reopens = 0
        self._rate_wanted: int | None = None
        self._playback: Playback | None = None
        self._converter: Converter | None = None
        self._converter_rate = 0
        self._latency_s = cfg.output_latency_ms / 1000.0
        self._channels = 1
        self._stream_error: str | None = None
        self._last_callback_at = 0.0
        self._opened_at = 0.0
        self._dac_clock = StreamClock(PIPELINE_RATE)  # a new one for each stream opened
        self._live = threading.Event()  # the device consumes in real time (past its start-up prefill)
        self._block_s = BLOCK_MS / 1000.0
        self._keeper: threading.Thread | None = None
        self.start_s: float | None = None
        """Seconds the last stream took from opening to playing in real time; None until it has."""
        self.rests = 0
        """Times the stream was closed for having nothing to play."""
        self._resting = False  # closed for rest: the keeper leaves it closed until something is played
        self._waking = False  # woken from rest, its stream not open yet: play() queues rather than drops
        self._active_at = -math.inf  # the last chunk handed to play(); nothing yet
        self._trials = 0  # reopenings while idle to measure a slow start again (REST_TRIALS)
        self._said_stays_open = False
        if rate is not None:
            self._start(rate)

    # ---- Sink --------------------------------------------------------------------------------
    def play(self, chunk: AudioChunk) -> None:
        if self._rate_wanted is None:
            self._start(chunk.rate)
        with self._lock:  # against the keeper deciding to rest at this moment (_rest_if_idle)
            self._active_at = time.monotonic()
            if self._resting:
                self._wake_up()
        playback = self._playback
        if (self._stream is None and not self._waking) or playback is None:
            self.dropped_s += chunk.duration_s
            return
        if not playback.push(self._to_device(chunk)):
            _LOGGER.warning("Speaker buffer stayed full for %.0f s; dropping audio", PLAY_BLOCK_TIMEOUT_S)
        with self._lock:  # the device was lost as this was queued (the open that woke it failed): drop it too,
            if self._stream is None and not self._waking and not self._resting:  # or it plays when the device is back
                self._drop_queued()

    def stop(self) -> None:
        with self._lock:
            self._converter = None
            if self._playback is not None:
                self._playback.stop()

    def drain(self, timeout: float) -> bool:
        playback = self._playback
        if playback is None:
            return True
        self._flush_resampler()
        deadline = time.monotonic() + timeout
        while self._stream is not None or self._waking:  # a lost device plays nothing: do not wait for it
            remaining = deadline - time.monotonic()
            if playback.wait_empty(max(0.0, min(remaining, WATCH_INTERVAL_S))):
                ended = playback.ended_at()
                wait = 0.0 if ended is None else ended - time.monotonic()
                if wait > deadline - time.monotonic():
                    return False
                time.sleep(max(0.0, wait))  # the device's own buffer plays out
                return True
            if remaining <= 0:
                return False
        return False

    def first_audio_at(self) -> float | None:
        return self._playback.first_audio_at() if self._playback else None

    def playback_ended_at(self) -> float | None:
        """When the last sample queued so far reached the device (estimated); None while playing."""
        return self._playback.ended_at() if self._playback else None

    def mark_turn(self) -> None:
        if self._playback is not None:
            self._playback.mark_turn()

    def wait_ready(self, timeout: float) -> bool:
        """Wait until the device plays in real time (open, past its start-up); False on timeout."""
        if self._resting:
            self._wake_up()
        return self._live.wait(timeout) and self._stream is not None

    def status(self) -> str:
        if self._rate_wanted is None:
            return "idle"
        if self._stream is not None or self._resting or self._waking:
            return "ok"
        return f"Waiting for speaker {self._device_label()!r}"

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._keeper is not None:
            self._keeper.join(CLOSE_TIMEOUT_S + 1.0)
        self._close_stream()

    def __enter__(self) -> SpeakerSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- conversion ----------------------------------------------------------------------------
    def _to_device(self, chunk: AudioChunk) -> np.ndarray:
        playback = self._playback
        assert playback is not None
        with self._lock:
            if chunk.rate == playback.rate:
                floats = chunk.to_float()
                return self._at_volume(floats.mean(axis=1) if chunk.channels > 1 else floats[:, 0])
            if self._converter is None or self._converter_rate != chunk.rate:
                self._flush_resampler()
                self._converter, self._converter_rate = Converter(playback.rate), chunk.rate
            return self._at_volume(self._converter.convert(chunk).to_float()[:, 0])

    def _at_volume(self, samples: np.ndarray) -> np.ndarray:
        return samples if self.volume is None else self.volume.apply(samples)

    def _flush_resampler(self) -> None:
        """Push out the tail the streaming resampler still holds (end of speech)."""
        with self._lock:
            converter, self._converter = self._converter, None
            if converter is None or self._playback is None:
                return
            tail = converter.convert(AudioChunk(b"", self._converter_rate), last=True)
            self._playback.push(self._at_volume(tail.to_float()[:, 0]), timeout=1.0)

    # ---- rest --------------------------------------------------------------------------------------
    def _wants_stream(self) -> bool:
        return not self._resting

    def _wake_up(self) -> None:
        """Have the keeper open the resting stream now; what is played meanwhile is queued for it."""
        with self._lock:
            if not self._resting:
                return
            self._resting, self._waking = False, True
            self._live.clear()  # set again once the reopened stream plays in real time
        self._wake.set()

    def _rest_if_idle(self) -> None:
        """Close the stream when nothing has been played for speaker_rest_s (at once while nothing has been
        played since the service started: there is no conversation to bridge), on a device measured to
        start quickly (the keeper calls this while the stream is open, once it plays in real time).
        A device measured slow is closed and opened again at once, up to REST_TRIALS times, to be measured
        anew; still slow, it stays open between answers."""
        rest_s, started_s, playback = self.cfg.speaker_rest_s, self.start_s, self._playback
        if rest_s <= 0 or started_s is None or playback is None:
            return
        slow = started_s > REST_MAX_START_S
        if slow and self._trials >= REST_TRIALS:
            if not self._said_stays_open:
                self._said_stays_open = True
                _LOGGER.info("Speaker %r takes %.2f s to start playing, so it stays open between answers",
                             self._device_label(), started_s)
            return
        if playback.queued_samples:
            return
        ended = playback.ended_at()  # when the last sample sounded; None if nothing has been played
        if time.monotonic() - max(self._active_at, ended or -math.inf) < rest_s:
            return
        with self._lock:
            if time.monotonic() - self._active_at < rest_s:  # played meanwhile
                return
            self._resting = True  # from here on play() wakes it, so nothing it plays is dropped
        self._close_stream()
        if slow:
            self._trials += 1
            _LOGGER.debug("Speaker %r took %.2f s to start playing; opening it again to measure it anew",
                          self._device_label(), started_s)
            self._wake_up()
            return
        self.rests += 1
        _LOGGER.debug("Speaker %r closed with nothing to play; it opens for the next sound", self._device_label())

    # ---- device --------------------------------------------------------------------------------
    def _start(self, rate: int) -> None:
        with self._lock:
            if self._rate_wanted is not None:
                return
            self._rate_wanted = rate
            try:
                self._open()
            except PortAudioStuck:  # logged once; the keeper waits for the service to exit
                pass
            self._keeper = threading.Thread(target=self._keep, name="speaker-keeper", daemon=True)
            self._keeper.start()

    def _callback(self, outdata: Any, frames: int, time_info: Any, status: Any) -> None:
        now = time.monotonic()
        previous, self._last_callback_at = self._last_callback_at, now
        if not self._live.is_set():
            # PortAudio first fills the device buffer in a burst, and some devices (PulseAudio's ALSA
            # plugin) then stall for a second or two. Give them silence until callbacks come paced
            # by the device, so speech is not held back and first_audio_at() is true.
            if previous > self._opened_at and now - previous >= 0.5 * self._block_s:
                self.start_s = now - self._opened_at
                self._live.set()
            else:
                outdata.fill(0)
                return
        playback = self._playback
        if status and status.output_underflow and self.echo is not None:
            self.echo.slipped()  # it ran dry: what it plays from here sounds later than the frames counted
        try:
            delay = float(time_info.outputBufferDacTime - time_info.currentTime)
        except (AttributeError, TypeError, ValueError):
            delay = 0.0
        if not 0.0 < delay < 1.0:  # hosts without DAC times (PulseAudio's ALSA plugin): the stream's latency
            delay = self._latency_s
        samples = playback.pull(frames, delay) if playback is not None else np.zeros(frames, np.float32)
        outdata[:] = samples[:, None]
        sounds_at = self._dac_clock.stamp(frames, now + delay)
        if self.echo is not None and playback is not None and playback.last_filled:
            self.echo.played(samples, playback.rate, sounds_at)  # a copy into its queue, nothing more

    def _try_open(self) -> None:
        sd = self._sounddevice()
        self._attempt += 1
        try:
            index = self._choose(sd).index
            assert self._rate_wanted is not None
            rate, channels = output_format(sd, index, self._rate_wanted)
            if self._playback is None or self._playback.rate != rate:
                self._playback = Playback(rate)
            self._live.clear()
            self.start_s = None  # measured again for this stream
            self._dac_clock = StreamClock(rate, output=True)
            self._opened_at = self._last_callback_at = time.monotonic()
            self._block_s = (rate * BLOCK_MS // 1000) / rate
            stream = sd.OutputStream(device=index, samplerate=rate, channels=channels, dtype="float32",
                                     blocksize=rate * BLOCK_MS // 1000,
                                     latency=self.cfg.output_latency_ms / 1000.0,
                                     callback=self._callback, finished_callback=self._on_finished)
            stream.start()
        except Exception as exc:  # PortAudioError, NoDevice, ValueError: all mean "not now"
            self._waking = False
            self._lost(self._open_failed(exc))
            return
        with self._lock:
            self._stream, self._channels, self._stream_error = stream, channels, None
            self._latency_s = float(getattr(stream, "latency", self._latency_s) or self._latency_s)
            woken, self._waking = self._waking, False
        name = sd.query_devices(index)["name"]
        if woken and self._lost_since is None:
            _LOGGER.debug("Speaker %r open again after resting", name)
        elif self._lost_since is not None and self._opened_once:
            _LOGGER.warning("Speaker %r is back after %.1f s", name, time.monotonic() - self._lost_since)
            self.reopens += 1
        else:
            _LOGGER.info("Speaker %r open at %d Hz, %d channel(s)%s", name, rate, channels,
                         "" if rate == self._rate_wanted else f"; resampling from {self._rate_wanted} Hz")
        self._lost_since, self._attempt, self._opened_once = None, 0, True

    def _check_stream(self) -> None:
        stalled_s = time.monotonic() - self._last_callback_at
        limit_s = self.cfg.stall_timeout_s
        if not self._live.is_set():
            limit_s = max(limit_s, OPEN_GRACE_S)
        problem = self._stream_error
        if problem is None and stalled_s > limit_s:
            problem = f"no callback for {stalled_s:.1f} s"
        if problem is None:
            problem = self._stream_problem()
        if problem is not None:
            self._close_stream()
            self._lost(f"speaker {self._device_label()!r} lost: {problem}")
            self._attempt = max(self._attempt, 1)
            return
        self._rest_if_idle()

    def _on_finished(self) -> None:
        if not self._stop.is_set():
            self._stream_error = "the stream stopped"
            self._wake.set()

    def _lost(self, reason: str) -> None:
        self._drop_queued()  # what was queued for it (a sound that woke it from rest) is dropped too
        self._note_lost(reason, "dropping speech and ")

    def _drop_queued(self) -> None:
        playback = self._playback
        if playback is not None:
            self.dropped_s += playback.queued_samples / playback.rate
            playback.clear()

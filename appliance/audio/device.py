"""DeviceKeeper: the thread that opens a sound device, watches it, and reopens it with capped backoff.

PortAudio is not thread-safe: the microphone's and the speaker's keepers call it one at a time, under
one lock (`portaudio()`). Two streams opened at once after the sound server came back crashed the
process inside the ALSA plug-in. And PortAudio up to 19.7 can spin for ever in its ALSA error path
once a device vanishes under an open stream; closing that stream then never returns. When that
happens PortAudio is of no more use to this process: `stuck()` says why, and the daemon exits for
systemd to start it afresh (a new process opens the device as at boot).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final, Literal

from appliance.errors import AudioDeviceError

_LOGGER = logging.getLogger(__name__)

WATCH_INTERVAL_S: Final = 0.25  # seconds between the keeper's checks of an open stream
CLOSE_TIMEOUT_S: Final = 2.0  # a dead device may hang PortAudio's close; never wait longer
OPEN_GRACE_S: Final = 5.0  # a fresh stream may take ~2 s to deliver (PulseAudio's ALSA plugin)
PORTAUDIO_WAIT_S: Final = CLOSE_TIMEOUT_S + 1.0  # longer than any call PortAudio makes when it is well

_portaudio_lock = threading.RLock()
_stuck: str | None = None
_rescans = 0  # times PortAudio listed the devices again; each closed every stream open then


class PortAudioStuck(AudioDeviceError):
    """PortAudio did not come back from a call; this process cannot use sound devices any more."""


def stuck() -> str | None:
    """Why PortAudio can no longer be used in this process, or None while it can."""
    return _stuck


def _mark_stuck(reason: str) -> None:
    global _stuck
    if _stuck is None:
        _stuck = reason
        _LOGGER.error("Sound system stuck: %s. PortAudio cannot be used again in this process; "
                      "the service restarts to recover", reason)


@contextmanager
def portaudio(what: str) -> Iterator[None]:
    """Hold PortAudio for one call or a few (`what` names them for the log); PortAudioStuck when it
    is stuck, or when another call has held it for PORTAUDIO_WAIT_S (a close that never returned)."""
    if _stuck is not None:
        raise PortAudioStuck(_stuck)
    lock = _portaudio_lock
    if not lock.acquire(timeout=PORTAUDIO_WAIT_S):
        _mark_stuck(f"PortAudio has been busy for over {PORTAUDIO_WAIT_S:g} s, so {what} cannot run")
        raise PortAudioStuck(_stuck or what)
    try:
        yield
    finally:
        lock.release()


class DeviceKeeper:
    """What MicSource and SpeakerSink share: a keeper thread that never dies, capped backoff from
    `audio.retry_backoff_s`, a close that cannot hang on a dead device, and lazy PortAudio.

    Subclasses set KIND ("microphone", "speaker") and implement _try_open(), _check_stream() and
    _device_label(); _after_watch() runs after every look at the device.
    """

    KIND = "device"

    def __init__(self, retry_backoff_s: list[float], sd_module: Any = None) -> None:
        self._backoff = list(retry_backoff_s) or [1.0]
        self._sd = sd_module
        self._stream: Any = None
        self._lost_since: float | None = None
        self._attempt = 0
        self._opened_in = 0
        """`_rescans` when the stream was opened: a rescan since has closed it under us."""
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._log = logging.getLogger(type(self).__module__)  # messages keep their module's name

    # ---- for subclasses ----------------------------------------------------------------------
    def _try_open(self) -> None:
        raise NotImplementedError

    def _check_stream(self) -> None:
        raise NotImplementedError

    def _device_label(self) -> str:
        raise NotImplementedError

    def _after_watch(self) -> None:
        """Called after each look at the device (the microphone logs overflows here)."""

    # ---- the keeper thread --------------------------------------------------------------------
    def _keep(self) -> None:
        while not self._stop.is_set():
            try:
                if self._stream is None:
                    self._open()
                else:
                    self._check_stream()
                self._after_watch()
            except PortAudioStuck:  # logged once by _mark_stuck; the service exits to recover
                self._stream = None
                self._stop.wait()
            except Exception:  # the keeper must never die: log and keep going
                self._log.exception("%s keeper error", self.KIND.capitalize())
                self._close_stream()
            self._wake.wait(self._next_wait())
            self._wake.clear()

    def _next_wait(self) -> float:
        if self._stream is not None:
            return WATCH_INTERVAL_S
        return self._backoff[min(max(self._attempt - 1, 0), len(self._backoff) - 1)]

    def _note_lost(self, reason: str, consequence: str = "") -> bool:
        """Log a loss once (WARNING), later failures at DEBUG; True when this is a new loss."""
        if self._lost_since is None:
            self._lost_since = time.monotonic()
            self._log.warning("%s; %sretrying every %s s (backoff)", reason[:1].upper() + reason[1:],
                            consequence, "/".join(f"{b:g}" for b in self._backoff))
            return True
        self._log.debug("%s; next try in %.0f s", reason, self._next_wait())
        return False

    def _open(self) -> None:
        """_try_open, holding PortAudio, and noting which listing of the devices the stream belongs to."""
        with portaudio(f"opening the {self.KIND}"):
            self._try_open()
            self._opened_in = _rescans

    def _stream_problem(self) -> str | None:
        """What is wrong with the open stream as PortAudio sees it, or None when it runs."""
        with portaudio(f"looking at the {self.KIND}"):
            if self._stream is None:
                return None
            if self._opened_in != _rescans:
                return "closed when PortAudio listed the devices again"
            try:
                return None if self._stream.active else "the stream is no longer active"
            except Exception as exc:  # noqa: BLE001 - a dead stream may raise anything
                return str(exc) or type(exc).__name__

    def _close_stream(self) -> None:
        with self._lock:
            stream, self._stream = self._stream, None
        if stream is None or self._opened_in != _rescans:  # a rescan has closed it already
            return
        closer = threading.Thread(target=quietly_close, args=(stream,), name=f"{self.KIND}-close", daemon=True)
        closer.start()
        closer.join(PORTAUDIO_WAIT_S + CLOSE_TIMEOUT_S)
        if closer.is_alive():
            _mark_stuck(f"closing the {self.KIND} stream did not return within "
                        f"{PORTAUDIO_WAIT_S + CLOSE_TIMEOUT_S:g} s")

    def _sounddevice(self) -> Any:
        if self._sd is None:
            try:
                import sounddevice
            except OSError as exc:
                raise AudioDeviceError(f"PortAudio is not available ({exc}); install libportaudio2") from None
            self._sd = sounddevice
        return self._sd


def find_device(sd: Any, wanted: str | int | None, direction: Literal["input", "output"]) -> int | None:
    """A PortAudio device index for input or output: by index, by name substring, or None for the
    system default; LookupError when nothing matches."""
    key, slot = ("max_input_channels", 0) if direction == "input" else ("max_output_channels", 1)
    devices = sd.query_devices()
    if wanted is None:
        default = sd.default.device[slot]
        return None if default is None or default < 0 else int(default)
    if isinstance(wanted, int):
        if 0 <= wanted < len(devices) and devices[wanted][key] > 0:
            return wanted
        raise LookupError(f"no {direction} device with index {wanted}")
    for index, device in enumerate(devices):
        if wanted.lower() in device["name"].lower() and device[key] > 0:
            return index
    raise LookupError(f"no {direction} device named like {wanted!r}")


def quietly_close(stream: Any) -> None:
    """Abort and close a stream whose device may already be gone."""
    try:
        with portaudio("closing a stream"):
            for step in (stream.abort, stream.close):
                try:
                    step()
                except Exception as exc:  # noqa: BLE001 - the device is already gone
                    _LOGGER.debug("Closing a lost stream: %s", exc)
    except PortAudioStuck:
        pass


def rescan(sd: Any) -> None:
    """Make PortAudio enumerate devices again (it lists them once, at initialisation). That closes
    every open stream too: their keepers see it (`_stream_problem`) and open them again."""
    global _rescans
    terminate, initialize = getattr(sd, "_terminate", None), getattr(sd, "_initialize", None)
    if terminate is not None and initialize is not None:
        with portaudio("listing the devices again"):
            _rescans += 1
            try:
                terminate()
            finally:
                initialize()

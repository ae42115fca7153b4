"""DeviceKeeper: the thread that opens a sound device, watches it, and reopens it with capped backoff."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Final, Literal

from appliance.errors import AudioDeviceError

_LOGGER = logging.getLogger(__name__)

WATCH_INTERVAL_S: Final = 0.25  # seconds between the keeper's checks of an open stream
CLOSE_TIMEOUT_S: Final = 2.0  # a dead device may hang PortAudio's close; never wait longer
OPEN_GRACE_S: Final = 5.0  # a fresh stream may take ~2 s to deliver (PulseAudio's ALSA plugin)


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
                    self._try_open()
                else:
                    self._check_stream()
                self._after_watch()
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

    def _close_stream(self) -> None:
        with self._lock:
            stream, self._stream = self._stream, None
        if stream is None:
            return
        closer = threading.Thread(target=quietly_close, args=(stream,), name=f"{self.KIND}-close", daemon=True)
        closer.start()
        closer.join(CLOSE_TIMEOUT_S)
        if closer.is_alive():
            self._log.warning("Closing the lost %s stream hangs; leaving it behind", self.KIND)

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
    for step in (stream.abort, stream.close):
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - the device is already gone
            _LOGGER.debug("Closing a lost stream: %s", exc)


def rescan(sd: Any) -> None:
    """Make PortAudio enumerate devices again (it lists them once, at initialisation)."""
    terminate, initialize = getattr(sd, "_terminate", None), getattr(sd, "_initialize", None)
    if terminate is not None and initialize is not None:
        try:
            terminate()
        finally:
            initialize()

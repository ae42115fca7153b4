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
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, Literal

from appliance.audio.asound import PROC, Card, Direction, read_cards, signature
from appliance.audio.choose import DeviceChoice, Listing, NoDevice, busy_advice, choose, unlisted
from appliance.contracts import EventLog
from appliance.errors import AudioDeviceError
from appliance.log import under_journald

_LOGGER = logging.getLogger(__name__)

WATCH_INTERVAL_S: Final = 0.5  # seconds between the keeper's checks of an open stream
CLOSE_TIMEOUT_S: Final = 2.0  # a dead device may hang PortAudio's close; never wait longer
OPEN_GRACE_S: Final = 5.0  # a fresh stream may take ~2 s to deliver (PulseAudio's ALSA plugin)
PORTAUDIO_WAIT_S: Final = CLOSE_TIMEOUT_S + 1.0  # longer than any call PortAudio makes when it is well
REST_WAIT_S: Final = 3600.0  # seconds a resting keeper sleeps unless woken

_portaudio_lock = threading.RLock()
_stuck: str | None = None
_rescans = 0  # times PortAudio listed the devices again; each closed every stream open then
_UNSEEN: Final = ("unseen",)
_listed: Any = _UNSEEN
"""asound.signature() of the cards when PortAudio last listed the devices: a change makes its list stale."""
_rescanned_for: Any = None
"""The stale-looking list (cards, direction, missing cards) a rescan was made for, so it is not made again."""


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

    Subclasses set KIND ("microphone", "speaker") and DIRECTION, and implement _try_open() (which calls
    _choose()) and _check_stream(); _after_watch() runs after every look at the device. The device is
    chosen again at every open (choose.py), and what was chosen is said once, and again when it changes.
    """

    KIND = "device"
    DIRECTION: Direction = "input"

    def __init__(self, retry_backoff_s: list[float], sd_module: Any = None, wanted: str | int | None = None,
                 proc: Path = PROC, events: EventLog | None = None) -> None:
        self._backoff = list(retry_backoff_s) or [1.0]
        self._sd = sd_module
        self._wanted = wanted
        self._proc = proc
        self._events = events
        self._choice: DeviceChoice | None = None
        self._cards: list[Card] | None = None
        self._stream: Any = None
        self._lost_since: float | None = None
        self._opened_once = False
        """A stream was open before, so opening one is the device coming back (not so the first time)."""
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
        """The configured device, else the one chosen last, else "default"."""
        if self._wanted is not None:
            return str(self._wanted)
        return self._choice.label if self._choice is not None else "default"

    def _after_watch(self) -> None:
        """Called after each look at the device (the microphone logs overflows here)."""

    def _wants_stream(self) -> bool:
        """Whether the keeper should open the stream when it is closed (the speaker rests, closed)."""
        return True

    # ---- the keeper thread --------------------------------------------------------------------
    def _keep(self) -> None:
        while not self._stop.is_set():
            try:
                if self._stream is None:
                    if self._wants_stream():
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
        if not self._wants_stream():
            return REST_WAIT_S  # woken at once (`_wake`) when it is wanted again
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

    # ---- which device ------------------------------------------------------------------------
    def _choose(self, sd: Any) -> DeviceChoice:
        """The device to open now (holding PortAudio): the choice is made afresh, so a USB device that
        came back on another card number is found; NoDevice says what to do when there is none."""
        previous = self._choice
        choice, self._cards = choose_now(sd, self.DIRECTION, self._wanted, previous.key if previous else None,
                                         self._proc)
        self._choice = choice
        if previous is None or previous.key != choice.key:
            message = f"{self.KIND.capitalize()}: {choice.reason}"
            if previous is not None:
                message += f" (was '{previous.label}')"
            self._say(message, choice.fields())
        return choice

    def _open_failed(self, exc: Exception) -> str:
        """Why opening failed, for the log: what to do when the device is busy, else the error."""
        if isinstance(exc, NoDevice):  # it names the configured device, or says what to plug in
            return str(exc) if self._wanted is None else f"cannot open {self.KIND}: {exc}"
        advice = busy_advice(str(exc), self._choice, self._cards)
        return f"cannot open {self.KIND} {self._device_label()!r}: {advice or exc}"

    def _say(self, message: str, fields: dict[str, str]) -> None:
        """One line about the chosen device: a journal event (APPLIANCE_EVENT=audio_device) and, off
        journald, a log line."""
        if self._events is not None:
            self._events.event("audio_device", message, **fields)
        if self._events is None or not under_journald():
            self._log.info("%s", message)

    def _sounddevice(self) -> Any:
        if self._sd is None:
            try:
                import sounddevice
            except OSError as exc:
                raise AudioDeviceError(f"PortAudio is not available ({exc}); install libportaudio2") from None
            self._sd = sounddevice
        return self._sd


def choose_now(sd: Any, direction: Literal["input", "output"], wanted: str | int | None = None,
               previous: str | None = None, proc: Path = PROC) -> tuple[DeviceChoice, list[Card] | None]:
    """The device for `direction` from PortAudio's list, listed again first when it is stale (the ALSA
    cards changed since, or a free card is missing from it), and the cards it was chosen among.
    Holds PortAudio; raises NoDevice."""
    global _listed, _rescanned_for
    with portaudio(f"choosing the {'microphone' if direction == 'input' else 'speaker'}"):
        cards = read_cards(proc)
        now = signature(cards)
        rescanned = False
        if _listed is _UNSEEN:
            _listed = now  # PortAudio listed the devices moments ago, when sounddevice was imported
        elif now != _listed:
            rescan(sd, now)
            rescanned = True
        listing = Listing.of(sd)
        missing = (now, direction, tuple(unlisted(listing, cards, direction)))
        if missing[2] and not rescanned and missing != _rescanned_for:  # e.g. busy when it was listed
            _rescanned_for = missing
            rescan(sd, now)
            listing, rescanned = Listing.of(sd), True
        try:
            return choose(listing, cards, direction, wanted, previous, os.getpid()), cards
        except NoDevice:
            if rescanned or (cards is not None and wanted is None):
                raise  # with /proc/asound, a device that appears changes the cards (and is listed then)
            rescan(sd, now)  # a sound server or a configured plug-in may have come up since
            return choose(Listing.of(sd), cards, direction, wanted, previous, os.getpid()), cards


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


def rescan(sd: Any, cards: Any = _UNSEEN) -> None:
    """Make PortAudio enumerate devices again (it lists them once, at initialisation). That closes
    every open stream too: their keepers see it (`_stream_problem`) and open them again.
    `cards` is the asound.signature() the new list goes with."""
    global _rescans, _listed
    terminate, initialize = getattr(sd, "_terminate", None), getattr(sd, "_initialize", None)
    if terminate is not None and initialize is not None:
        with portaudio("listing the devices again"):
            _rescans += 1
            _listed = cards
            try:
                terminate()
            finally:
                initialize()

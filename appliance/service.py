"""The daemon around the conductor: sd_notify, a watchdog that proves hearing, journald entries, signals."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any, Final

from appliance.audio.device import stuck as audio_stuck
from appliance.config import Config
from appliance.contracts import Link, Source, Stages
from appliance.conversation.conductor import Conductor, State
from appliance.conversation.turn import TurnRecord
from appliance.hearing.wake_text import wake_words
from appliance.log import under_journald

_LOGGER = logging.getLogger(__name__)

SYSLOG_IDENTIFIER: Final = "appliance"
STOP_TIMEOUT_S: Final = 3.0  # seconds to wait for the conductor after SIGTERM (systemd allows us 5 s here)
STOP_BUDGET_S: Final = 4.5  # seconds from SIGTERM to exit, closing the sound devices included
CLOSE_LEAST_S: Final = 1.0  # seconds the sound devices always get to close, however long the rest took
MONITOR_INTERVAL_S: Final = 1.0  # seconds between looks at the microphone status
SUPERVISE_S: Final = 1.0  # seconds between the main thread's looks at the conductor (signals wake it at once)
STUCK_LIMIT_S: Final = 30.0  # seconds a cancelled worker may take to return (a long prefill on a Pi)
STALE_FACTOR: Final = 1.5  # a loop or microphone quiet for longer than 1.5 feed intervals is not fed
FREEZE_ENV: Final = "APPLIANCE_DEBUG_FREEZE"
"""Debug hook: with APPLIANCE_DEBUG_FREEZE=1 in the environment, SIGUSR2 freezes (and a second
SIGUSR2 thaws) the conductor loop, as a hung model call would; the watchdog must then stop."""


class Notifier:
    """sd_notify(3) through systemd-python; silent when NOTIFY_SOCKET is not set."""

    def __init__(self) -> None:
        self.enabled = bool(os.environ.get("NOTIFY_SOCKET"))
        self._status = ""
        self._lock = threading.Lock()

    def send(self, message: str) -> None:
        if not self.enabled:
            return
        try:
            from systemd import daemon  # type: ignore[import-not-found]

            daemon.notify(message)
        except Exception as exc:  # never let monitoring take the daemon down
            _LOGGER.debug("sd_notify(%r) failed: %s", message, exc)

    def ready(self, text: str) -> None:
        """READY=1 together with the first STATUS= line."""
        with self._lock:
            self._status = text
        self.send(f"READY=1\nSTATUS={text}")

    def status(self, text: str) -> None:
        with self._lock:
            if text == self._status:
                return
            self._status = text
        _LOGGER.debug("Status: %s", text)
        self.send(f"STATUS={text}")


def watchdog_interval_s() -> float | None:
    """Half of systemd's WatchdogSec (from WATCHDOG_USEC), or None when no watchdog is asked for."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return max(0.05, int(usec) / 1e6 / 2)
    except ValueError:
        return None


class Journal:
    """Structured journald entries: one per turn and one per event; transcripts only when allowed."""

    def __init__(self, with_text: bool, sender: Callable[..., Any] | None = None,
                 echo: bool | None = None) -> None:
        self.with_text = with_text
        self.echo = not under_journald() if echo is None else echo
        """Also log each entry as a plain line (stderr); under systemd the structured entry is the line."""
        self._sender = sender
        self._failed = False

    def _send(self, message: str, priority: int, fields: dict[str, Any]) -> None:
        try:
            if self._sender is None:
                from systemd import journal  # type: ignore[import-not-found]

                self._sender = journal.send
            clean = {k: str(v) for k, v in fields.items() if v is not None}
            self._sender(message, PRIORITY=str(priority), SYSLOG_IDENTIFIER=SYSLOG_IDENTIFIER, **clean)
        except Exception as exc:  # no journald (a development shell): say so once
            if not self._failed:
                self._failed = True
                _LOGGER.info("No journald entries (%s)", exc)

    def turn(self, record: TurnRecord) -> None:
        if self.echo:
            _LOGGER.info("%s", record.summary())
            if self.with_text and not record.private:
                _LOGGER.info("Heard %r; answered %r", record.transcript, record.answer)
        self._send(record.summary(), 6 if record.outcome != "error" else 4, record.journal_fields(self.with_text))

    def event(self, name: str, message: str = "", traceback: str | None = None, **fields: Any) -> None:
        if self.echo and name in ("error", "watchdog"):
            detail = f"\n{traceback}" if traceback and _LOGGER.isEnabledFor(logging.DEBUG) else ""
            _LOGGER.error("%s%s", message or name, detail)
        data = {"APPLIANCE_EVENT": name, **{k.upper(): v for k, v in fields.items()}}
        if traceback:
            data["TRACEBACK"] = traceback
        self._send(message or name, 3 if name == "error" else 6, data)


class Watchdog:
    """Feeds WATCHDOG=1 only while the conductor loop runs and the microphone delivers (or is waited for).

    It also turns microphone status changes into STATUS= lines and device lost/back events.
    """

    def __init__(self, conductor: Conductor, source: Source, notifier: Notifier, journal: Journal,
                 status_text: Callable[[], str], interval_s: float | None) -> None:
        self.conductor, self.source, self.notifier, self.journal = conductor, source, notifier, journal
        self.status_text = status_text
        self.interval_s = interval_s
        self.fed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="appliance-watchdog", daemon=True)
        # Unknown until the first look, which always reports it: a microphone that opened before
        # that look must still turn STATUS from "Opening microphone" to "Listening for ...".
        self._source_status: str | None = None
        self._was_ok = False  # opening the microphone at start is not losing it
        self._lost = False
        self._starved = ""

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2.0)

    def healthy(self, beat_age_s: float, frames_age_s: float) -> tuple[bool, str]:
        """Whether to feed, from how long ago the loop last turned and the microphone last delivered."""
        limit_s = (self.interval_s or MONITOR_INTERVAL_S) * STALE_FACTOR
        if beat_age_s > limit_s:
            return False, "the conductor loop has not turned"
        stuck_s = self.conductor.stuck_s()
        if stuck_s is not None and stuck_s > STUCK_LIMIT_S:
            return False, f"a cancelled model call has not returned for {stuck_s:.0f} s"
        if frames_age_s > limit_s and self._source_status in ("ok", None):  # None: not looked at yet
            return False, "the microphone delivered no audio"
        return True, ""

    def _run(self) -> None:
        beat, frames = self.conductor.heartbeat, self.source.frames_read
        beat_at = frames_at = time.monotonic()
        next_feed = time.monotonic() + (self.interval_s or 0)
        while not self._stop.wait(min(MONITOR_INTERVAL_S, (self.interval_s or MONITOR_INTERVAL_S) / 4)):
            now = time.monotonic()
            if self.conductor.heartbeat != beat:
                beat, beat_at = self.conductor.heartbeat, now
            if self.source.frames_read != frames:
                frames, frames_at = self.source.frames_read, now
            self._check_source()
            if self.interval_s is None or now < next_feed:
                continue
            next_feed = now + self.interval_s
            ok, why = self.healthy(now - beat_at, now - frames_at)
            if ok:
                self.notifier.send("WATCHDOG=1")
                self.fed += 1
                if self._starved:
                    _LOGGER.info("Watchdog fed again")
                self._starved = ""
            elif why != self._starved:
                self._starved = why
                self.journal.event("watchdog", f"Watchdog not fed: {why}; systemd will restart the service",
                                   reason=why)

    def _check_source(self) -> None:
        try:
            status = self.source.status()
        except Exception as exc:
            status = f"Microphone status failed: {exc}"
        if status == self._source_status:
            return
        if status != "ok" and self._source_status == "ok" and self._was_ok:
            self._lost = True
            self.journal.event("device_lost", f"Microphone lost: {status}", status=status)
        elif status == "ok" and self._lost:
            self._lost = False
            self.journal.event("device_back", "Microphone back")
        self._was_ok = self._was_ok or status == "ok"
        self._source_status = status
        self.notifier.status(self.status_text())


def state_text(state: State, cfg: Config) -> str:
    phrase = " ".join(wake_words(cfg.wake.model))
    return {
        State.IDLE: f"Listening for '{phrase}'",
        State.LISTENING: "Listening to a question",
        State.THINKING: "Thinking",
        State.SPEAKING: "Speaking",
        State.FOLLOW_UP: "Listening for a follow-up",
    }[state]


def apply_cpu_affinity(cores: list[int]) -> None:
    """Pin the process (and the threads it starts later) to the configured cores."""
    if not cores:
        return
    try:
        os.sched_setaffinity(0, set(cores))
        _LOGGER.info("CPU affinity: cores %s", ",".join(map(str, sorted(cores))))
    except OSError as exc:
        _LOGGER.warning("Could not pin to cores %s (%s); running on all cores", cores, exc)


class Service:
    """Runs a Conductor under systemd until SIGTERM: READY, STATUS, WATCHDOG and STOPPING."""

    def __init__(self, cfg: Config, stages: Stages, journal: Journal, notifier: Notifier | None = None,
                 conductor_factory: Callable[..., Conductor] = Conductor, links: Sequence[Link] = ()) -> None:
        self.cfg = cfg
        self.stages = stages
        self.links = list(links)
        """Network peers served beside the conductor (assembly.build_links): started first, stopped last."""
        self.journal = journal
        self.notifier = notifier or Notifier()
        self.stop_requested = threading.Event()
        self.stuck: str | None = None
        """Why the sound system cannot be used again in this process (audio.device.stuck), once run() saw it."""
        self.left_open = False
        """True when a sound device did not close in time: PortAudio's own exit handler would wait for it."""
        self.conductor = conductor_factory(stages, cfg, on_turn=journal.turn, on_state=self._on_state,
                                           on_event=self._on_event)
        self.watchdog = Watchdog(self.conductor, stages.source, self.notifier, journal,
                                 self.status_text, watchdog_interval_s() if cfg.service.watchdog else None)

    def status_text(self) -> str:
        source_status = self.stages.source.status()
        if source_status not in ("ok", "starting"):
            return source_status
        return state_text(self.conductor.state, self.cfg)

    def _on_state(self, state: State) -> None:
        self.notifier.status(self.status_text())
        for link in self.links:  # satellites give way to the hub's own microphone
            link.local_turn(state is not State.IDLE)

    def _on_event(self, name: str, message: str = "", traceback: str | None = None, **fields: Any) -> None:
        self.journal.event(name, message, traceback=traceback, **fields)

    def _signal(self, signum: int, frame: Any) -> None:
        if signum == signal.SIGUSR2:
            if self.conductor.freeze.is_set():
                _LOGGER.warning("Debug hook: conductor thawed")
                self.conductor.freeze.clear()
            else:
                _LOGGER.warning("Debug hook: conductor frozen (the watchdog will stop)")
                self.conductor.freeze.set()
            return
        _LOGGER.info("Stopping (%s)", signal.Signals(signum).name)
        self.stop_requested.set()

    def run(self) -> bool:
        """Until SIGTERM/SIGINT: the conductor on its own thread, signals on this one.

        True when it stopped because it was asked to; False when the conductor thread ended by itself.
        """
        signal.signal(signal.SIGTERM, self._signal)
        signal.signal(signal.SIGINT, self._signal)
        if os.environ.get(FREEZE_ENV) == "1":
            signal.signal(signal.SIGUSR2, self._signal)
        thread = threading.Thread(target=self._conduct, name="appliance-conductor", daemon=True)
        for link in self.links:
            link.start()
        self.notifier.ready(self.status_text())
        _LOGGER.info("Ready: %s", self.status_text())
        thread.start()
        self.watchdog.start()
        while not self.stop_requested.wait(SUPERVISE_S):
            if not thread.is_alive():
                _LOGGER.error("The conductor thread ended unexpectedly")
                break
            self.stuck = audio_stuck()
            if self.stuck is not None:
                self.journal.event("error", f"Sound system stuck ({self.stuck}); exiting so that systemd "
                                   "starts the service afresh", reason=self.stuck)
                break
        stopping_at = time.monotonic()
        self.notifier.send("STOPPING=1")
        self.conductor.stop()
        self.conductor.freeze.clear()
        thread.join(STOP_TIMEOUT_S)
        if thread.is_alive():
            _LOGGER.warning("The conductor did not stop within %.0f s; exiting anyway", STOP_TIMEOUT_S)
        self.watchdog.stop()
        for link in self.links:
            try:
                link.stop()
            except Exception:
                _LOGGER.exception("Stopping %s failed", type(link).__name__)
        self._close_within(max(CLOSE_LEAST_S, STOP_BUDGET_S - (time.monotonic() - stopping_at)))
        return self.stop_requested.is_set()

    def _close_within(self, budget_s: float) -> None:
        """Close the microphone and the speaker, waiting at most `budget_s`: a sound server that stopped
        answering can hold a stream's close for seconds, and systemd would kill a service that waits."""
        closer = threading.Thread(target=self.close, name="appliance-close", daemon=True)
        closer.start()
        closer.join(budget_s)
        if closer.is_alive():
            _LOGGER.warning("The sound devices did not close within %.1f s; exiting without them", budget_s)
        self.left_open = closer.is_alive() or audio_stuck() is not None

    def _conduct(self) -> None:
        try:
            self.conductor.run()
        except BaseException as exc:  # a bug in the conductor itself: logged, the service exits non-zero
            self.journal.event("error", f"Conductor crashed: {exc}", traceback=traceback.format_exc())
            _LOGGER.exception("Conductor crashed")

    def close(self) -> None:
        for name, part in (("source", self.stages.source), ("sink", self.stages.sink)):
            try:
                part.close()
            except Exception:
                _LOGGER.exception("Closing the %s failed", name)

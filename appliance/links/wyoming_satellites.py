"""Satellites in other rooms: the hub connects to each wyoming-satellite as Home Assistant would, and answers it.

For each satellite in wyoming.satellites the hub connects, sends `describe` (and checks the answer
says satellite) and `run-satellite`. When the satellite hears its wake word it sends `detection`
and `run-pipeline` (starting at speech recognition) and streams its microphone; the question is heard
and answered on a thread of its own (contracts.Callers): the hub sends `transcript` once it has the
words, then the answer's audio as `audio-start`, `audio-chunk`s and `audio-stop`, sentence by
sentence as it is spoken. A satellite without a wake word of its own streams all the time (its
pipeline starts at `wake`): the hub listens for its own wake word there (links/wyoming_wake.py), sends
`detection` when it hears it, and goes on as above; once the answer is over it listens again. A timer
set from a satellite rings there: its announcement is spoken on the satellite's speaker.
A satellite that is down or drops is connected again with a growing pause;
events the hub does not know are ignored (a satellite may speak a newer protocol than the hub's).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any, Final

from wyoming.event import Event
from wyoming.info import Describe
from wyoming.ping import Pong
from wyoming.satellite import RunSatellite
from wyoming.wake import Detection

from appliance.audio.volume import Volume
from appliance.config import SatelliteConfig, WyomingConfig, satellite_address, satellite_name
from appliance.contracts import TIMER_CHECK_S, Callers, WakeHit
from appliance.links.loop_thread import LoopThread
from appliance.links.wyoming_audio import chunk_format
from appliance.links.wyoming_caller import RemoteCaller
from appliance.links.wyoming_wake import WakeListener
from appliance.links.wyoming_wire import MAX_HEADER_BYTES, BadPeer, read_event, write_event

_LOGGER = logging.getLogger(__name__)

CONNECT_TIMEOUT_S: Final = 5.0  # seconds to open a connection to a satellite
DESCRIBE_TIMEOUT_S: Final = 5.0  # seconds a satellite has to answer `describe`
RETRY_MIN_S: Final = 1.0  # seconds before connecting again after a satellite went away
RETRY_MAX_S: Final = 30.0  # the longest pause between attempts while a satellite stays down
SILENT_S: Final = 60.0  # seconds without a word from a satellite that answers pings before it counts as gone
PING_S: Final = 20.0  # seconds between pings (only satellites that answer them are held to SILENT_S)
START_STAGE_ASR: Final = "asr"  # a pipeline starting at speech recognition: the satellite heard its wake word
START_STAGE_WAKE: Final = "wake"  # a satellite streaming all the time, leaving the wake word to the hub


class WyomingSatellites(LoopThread):
    """Connects to every configured satellite on a thread and event loop of its own (start/stop from
    service.py); each question is answered on a thread of its own by `callers`."""

    def __init__(self, cfg: WyomingConfig, callers: Callers, *, retry_min_s: float = RETRY_MIN_S,
                 volume_of: Callable[[str], Volume] | None = None) -> None:
        self.cfg = cfg
        self.callers = callers
        self.volume_of = volume_of
        """A satellite's room volume by its name (the volume skill sets it there), applied to its answers."""
        self.retry_min_s = retry_min_s
        self.connected: dict[str, threading.Event] = {satellite_name(s): threading.Event() for s in cfg.satellites}
        """Set while the hub is connected to that satellite (and has sent it run-satellite)."""
        self.connections: dict[str, int] = dict.fromkeys(self.connected, 0)
        """Connections made to each satellite so far."""
        super().__init__("appliance-satellites", "The satellites' link")

    def local_turn(self, active: bool) -> None:
        self.callers.local_turn(active)

    async def serve(self) -> None:
        """Keep every satellite connected until stop(); questions under way end without waiting for answers."""
        assert self._stopping is not None
        tasks = [asyncio.create_task(self._keep(sat)) for sat in self.cfg.satellites]
        try:
            await self._stopping.wait()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _keep(self, sat: SatelliteConfig) -> None:
        """Stay connected to one satellite: connect, serve it, and after it went away, connect again."""
        assert self._stopping is not None
        name, (host, port) = satellite_name(sat), satellite_address(sat.uri)
        pause, failed = self.retry_min_s, ""
        while not self._stopping.is_set():
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(host, port, limit=MAX_HEADER_BYTES + 1), CONNECT_TIMEOUT_S)
            except (OSError, TimeoutError) as exc:
                reason = str(exc) or type(exc).__name__
                if reason != failed:
                    failed = reason
                    _LOGGER.warning("Satellite %s at %s cannot be reached (%s); trying again, at most every %.0f s",
                                    name, sat.uri, reason, RETRY_MAX_S)
                await self._pause(pause)
                pause = min(pause * 2, RETRY_MAX_S)
                continue
            self.connections[name] += 1
            satellite = _Satellite(self, sat, name, reader, writer)
            reason = ""
            try:
                await satellite.serve()
            except BadPeer as exc:
                reason = str(exc)
            except (ConnectionError, asyncio.IncompleteReadError, TimeoutError) as exc:
                reason = f"it went away ({str(exc) or type(exc).__name__})"
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug here must cost one connection, never the link
                _LOGGER.exception("Satellite %s: serving it failed", name)
                reason = "serving it failed"
            finally:
                served = self.connected[name].is_set()
                self.connected[name].clear()
                satellite.close()
                writer.close()
            if served:  # it was running: connect again soon
                failed, pause = "", self.retry_min_s
                _LOGGER.warning("Satellite %s: %s; connecting again", name, reason)
            else:  # it never got that far: the same trouble is logged once, and the pauses grow
                if reason != failed:
                    failed = reason
                    _LOGGER.warning("Satellite %s at %s: %s; trying again, at most every %.0f s", name, sat.uri,
                                    reason, RETRY_MAX_S)
                pause = min(pause * 2, RETRY_MAX_S)
            await self._pause(pause)

    async def _pause(self, seconds: float) -> None:
        assert self._stopping is not None
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            pass


class _Satellite:
    """One connection to one satellite: its events in order, and its question (one at a time)."""

    def __init__(self, link: WyomingSatellites, sat: SatelliteConfig, name: str,
                 reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.link, self.sat, self.name = link, sat, name
        self.reader, self.writer = reader, writer
        self.loop = asyncio.get_running_loop()
        self.caller: RemoteCaller | None = None
        self.listener: WakeListener | None = None
        """The hub's wake word on the stream of a satellite without one of its own (its pipeline starts at wake)."""
        self.snd_format: dict[str, Any] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.wake_word = ""
        self.answers_pings = False
        self._warned_stage = False

    async def send(self, event: Event) -> None:
        await write_event(self.writer, event)

    async def serve(self) -> None:
        await self.send(Describe().event())
        info = await asyncio.wait_for(self._info(), DESCRIBE_TIMEOUT_S)
        if not isinstance(info.data.get("satellite"), dict):
            raise BadPeer("it is not a satellite (its info describes no satellite)")
        await self.send(RunSatellite().event())
        self.link.connected[self.name].set()
        _LOGGER.info("Satellite %s connected at %s%s", self.name, self.sat.uri,
                     f" ({self.sat.area})" if self.sat.area else "")
        self.link.callers.ring_here(self.name, True)
        pinger, bell = asyncio.create_task(self._ping()), asyncio.create_task(self._ring())
        try:
            while True:
                timeout = SILENT_S if self.answers_pings else None
                event = await asyncio.wait_for(read_event(self.reader), timeout)
                if event is None:
                    raise ConnectionError("it closed the connection")
                await self.handle(event)
        finally:
            pinger.cancel()
            bell.cancel()
            self.link.callers.ring_here(self.name, False)

    async def _info(self) -> Event:
        while True:
            event = await read_event(self.reader)
            if event is None:
                raise ConnectionError("it closed the connection before answering describe")
            if event.type == "info":
                return event

    async def _ping(self) -> None:
        while True:
            await asyncio.sleep(PING_S)
            await self.send(Event(type="ping", data={}))

    async def _ring(self) -> None:
        """Timers set in this room ring here: their announcement is spoken on the satellite's speaker
        (wyoming-satellite plays the audio the hub sends at any time) while no question is under way."""
        while True:
            await asyncio.sleep(TIMER_CHECK_S)
            if self.caller is None:
                texts = await asyncio.to_thread(self.link.callers.timers_due, self.name)
                if texts and self.caller is None:
                    self._ask("", texts)

    async def handle(self, event: Event) -> None:
        kind, data = event.type, event.data
        if kind == "ping":
            await self.send(Pong(text=data.get("text")).event())
        elif kind == "pong":
            self.answers_pings = True
        elif kind == "detection":
            name = data.get("name")
            self.wake_word = name if isinstance(name, str) else ""
        elif kind == "run-pipeline":
            self._run_pipeline(data)
        elif kind == "audio-chunk":
            if self.caller is not None:
                self.caller.stream.add(event.payload or b"", chunk_format(data))
            elif self.listener is not None:
                self.listener.add(event.payload or b"", chunk_format(data))
        elif kind == "audio-stop":
            if self.caller is not None:
                self.caller.stream.end()
        else:
            _LOGGER.debug("Satellite %s: ignored a %r event", self.name, kind[:40])

    def _run_pipeline(self, data: dict[str, Any]) -> None:
        snd = data.get("snd_format")
        self.snd_format = snd if isinstance(snd, dict) else {}
        stage = data.get("start_stage", START_STAGE_ASR)
        if stage == START_STAGE_WAKE:
            self._listen()
        elif stage == START_STAGE_ASR:
            self._ask(self.wake_word)
        elif not self._warned_stage:
            self._warned_stage = True
            _LOGGER.warning("Satellite %s asked for a pipeline starting at %r; the hub answers satellites that "
                            "stream from their wake word or all the time", self.name, str(stage)[:40])

    def _listen(self) -> None:
        """A satellite that streams without a wake word of its own (all the time, or once its voice detector
        hears speech): the hub listens for its own wake word there, afresh for each stream."""
        if self.listener is not None:
            if self.caller is None:
                self.listener.resume()
            return
        _LOGGER.info("Satellite %s has no wake word of its own: the hub listens for its own in its stream",
                     self.name)

        def woke(hit: WakeHit) -> None:  # on the listener's thread
            with contextlib.suppress(RuntimeError):  # the loop has ended: the link is stopping
                self.loop.call_soon_threadsafe(self._woke, hit)
        self.listener = WakeListener(self.link.callers.wake_detector, self.name, woke)

    def _woke(self, hit: WakeHit) -> None:
        """On the loop: the hub's wake word in the satellite's stream. The satellite is told (its awake
        sound), and the audio since then is the question's."""
        if self.listener is None or self.caller is not None:
            return
        task = self.loop.create_task(self.send(Detection(name=hit.word).event()))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        caller = self._ask(hit.word)
        for chunk in self.listener.take():
            caller.stream.add(chunk.samples, (chunk.rate, chunk.width, chunk.channels))

    def _ask(self, wake_word: str, announce: list[str] | None = None) -> RemoteCaller:
        """A question begins (or, with `announce`, the hub speaks first): on a thread of its own."""
        self.hang_up()  # a new question replaces one still under way (or an announcement)
        volume = None if self.link.volume_of is None else self.link.volume_of(self.name)
        caller = RemoteCaller(self.name, self.sat.area, wake_word, self.loop, self.send, self.snd_format, volume)
        self.caller = caller
        if announce is None:
            self.wake_word = ""  # that detection is this question's
        threading.Thread(target=self._answer, args=(caller, announce), name=f"appliance-satellite-{self.name}",
                         daemon=True).start()
        return caller

    def _answer(self, caller: RemoteCaller, announce: list[str] | None) -> None:
        """On the question's own thread."""
        try:
            if announce:
                self.link.callers.announce(caller, announce)
            else:
                self.link.callers.answer(caller)
        except Exception:
            _LOGGER.exception("Satellite %s: answering failed", self.name)
        finally:
            caller.finish()
            with contextlib.suppress(RuntimeError):  # the loop has ended: the link is stopping
                self.loop.call_soon_threadsafe(self._answered, caller)

    def _answered(self, caller: RemoteCaller) -> None:
        """On the loop: that question is over; a satellite streaming all the time is listened to again."""
        if self.caller is caller:
            self.caller = None
            if self.listener is not None:
                self.listener.resume()

    def close(self) -> None:
        """The connection is over: the question under way ends, and so does listening."""
        self.hang_up()
        if self.listener is not None:
            self.listener.stop()
            self.listener = None

    def hang_up(self) -> None:
        if self.caller is not None:
            self.caller.hang_up()
            self.caller = None

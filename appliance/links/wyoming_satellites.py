"""Satellites in other rooms: the hub connects to each wyoming-satellite as Home Assistant would, and answers it.

For each satellite in wyoming.satellites the hub connects, sends `describe` (and checks the answer
says satellite) and `run-satellite`. When the satellite hears its wake word it sends `detection`
and `run-pipeline` (starting at speech recognition) and streams its microphone; the question is heard
and answered on a thread of its own (contracts.Callers): the hub sends `transcript` once it has the
words, then the answer's audio as `audio-start`, `audio-chunk`s and `audio-stop`, sentence by
sentence as it is spoken. A satellite that is down or drops is connected again with a growing pause;
events the hub does not know are ignored (a satellite may speak a newer protocol than the hub's).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any, Final

from wyoming.event import Event
from wyoming.info import Describe
from wyoming.ping import Pong
from wyoming.satellite import RunSatellite

from appliance.config import SatelliteConfig, WyomingConfig, satellite_address, satellite_name
from appliance.contracts import Callers
from appliance.links.loop_thread import LoopThread
from appliance.links.wyoming_audio import chunk_format
from appliance.links.wyoming_caller import RemoteCaller
from appliance.links.wyoming_wire import MAX_HEADER_BYTES, BadPeer, read_event, write_event

_LOGGER = logging.getLogger(__name__)

CONNECT_TIMEOUT_S: Final = 5.0  # seconds to open a connection to a satellite
DESCRIBE_TIMEOUT_S: Final = 5.0  # seconds a satellite has to answer `describe`
RETRY_MIN_S: Final = 1.0  # seconds before connecting again after a satellite went away
RETRY_MAX_S: Final = 30.0  # the longest pause between attempts while a satellite stays down
SILENT_S: Final = 60.0  # seconds without a word from a satellite that answers pings before it counts as gone
PING_S: Final = 20.0  # seconds between pings (only satellites that answer them are held to SILENT_S)
START_STAGE_ASR: Final = "asr"  # a pipeline starting at speech recognition: the satellite heard its wake word


class WyomingSatellites(LoopThread):
    """Connects to every configured satellite on a thread and event loop of its own (start/stop from
    service.py); each question is answered on a thread of its own by `callers`."""

    def __init__(self, cfg: WyomingConfig, callers: Callers, *, retry_min_s: float = RETRY_MIN_S) -> None:
        self.cfg = cfg
        self.callers = callers
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
                satellite.hang_up()
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
        pinger = asyncio.create_task(self._ping())
        try:
            while True:
                timeout = SILENT_S if self.answers_pings else None
                event = await asyncio.wait_for(read_event(self.reader), timeout)
                if event is None:
                    raise ConnectionError("it closed the connection")
                await self.handle(event)
        finally:
            pinger.cancel()

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
        elif kind == "audio-stop":
            if self.caller is not None:
                self.caller.stream.end()
        else:
            _LOGGER.debug("Satellite %s: ignored a %r event", self.name, kind[:40])

    def _run_pipeline(self, data: dict[str, Any]) -> None:
        stage = data.get("start_stage", START_STAGE_ASR)
        if stage != START_STAGE_ASR:
            if not self._warned_stage:
                self._warned_stage = True
                _LOGGER.warning("Satellite %s streams without a wake word of its own (its pipeline starts at %r); "
                                "the hub answers satellites that detect the wake word themselves (--wake-uri)",
                                self.name, stage)
            return
        self.hang_up()  # a new question replaces one still under way
        snd = data.get("snd_format") if isinstance(data.get("snd_format"), dict) else {}
        caller = RemoteCaller(self.name, self.sat.area, self.wake_word, self.loop, self.send, snd)
        self.caller, self.wake_word = caller, ""
        threading.Thread(target=self._answer, args=(caller,), name=f"appliance-satellite-{self.name}",
                         daemon=True).start()

    def _answer(self, caller: RemoteCaller) -> None:
        """On the question's own thread."""
        try:
            self.link.callers.answer(caller)
        except Exception:
            _LOGGER.exception("Satellite %s: answering failed", self.name)
        finally:
            caller.finish()

    def hang_up(self) -> None:
        if self.caller is not None:
            self.caller.hang_up()
            self.caller = None

"""The Wyoming services port: Home Assistant's asr, tts and handle requests answered by the hub's engines."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Final

from wyoming.asr import Transcript
from wyoming.audio import AudioChunk as WyAudioChunk
from wyoming.audio import AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event
from wyoming.handle import Handled, NotHandled
from wyoming.tts import SynthesizeStopped

from appliance.audio import AudioChunk
from appliance.config import WyomingConfig, wyoming_address
from appliance.contracts import Chat, Handler
from appliance.language import LanguagePack, pack
from appliance.links.loop_thread import LoopThread
from appliance.links.wyoming_audio import ReceivedAudio, chunk_format, pieces
from appliance.links.wyoming_info import Engines, describe
from appliance.links.wyoming_wire import MAX_HEADER_BYTES, BadPeer, read_event, write_event
from appliance.speaking.textclean import for_speech

_LOGGER = logging.getLogger(__name__)

MAX_TEXT_CHARS: Final = 4000  # characters of text one synthesis or one question may have
MAX_SESSIONS: Final = 16  # conversations remembered at once, the least recently used forgotten first
BIND_RETRY_S: Final = 5.0  # seconds between attempts to listen when the port cannot be had
ENGINE_THREADS: Final = 2  # requests that run an engine at once; the rest wait their turn


class WyomingServices(LoopThread):
    """Serves the Wyoming services port on a thread and event loop of its own (start/stop from service.py).

    The engines run on a small pool of worker threads, so a transcription or an answer never holds
    up `describe`. Each connection is served alone: a peer that breaks the protocol or stays silent
    for wyoming.idle_timeout_s loses its own connection and nothing else. What answers a handle request,
    and what is said when nothing can, is `handler`'s (conversation/policy.py).
    """

    def __init__(self, cfg: WyomingConfig, engines: Engines, handler: Handler, *,
                 idle_reset_s: float = 300.0, words: LanguagePack | None = None) -> None:
        self.cfg = cfg
        self.words = words or pack()
        """The hub's language: what it tells peers it speaks, and how its text is made sayable."""
        self.engines = engines
        self.handler = handler
        self.host, self.port = wyoming_address(cfg.services)
        self.info_event = describe(cfg.name, engines, self.words.code).event()
        self.idle_reset_s = idle_reset_s
        self.listening = threading.Event()
        """Set once the port is bound (self.port is then the real port, also for port 0)."""
        self._sessions: OrderedDict[str, tuple[Chat, float]] = OrderedDict()
        self._sessions_lock = threading.Lock()
        self._pool = concurrent.futures.ThreadPoolExecutor(ENGINE_THREADS, thread_name_prefix="appliance-wyoming")
        self._connections = 0
        super().__init__("appliance-wyoming", "The Wyoming services port")

    # ---------------------------------------------------------------- the thread

    def stop(self, timeout: float = 2.0) -> None:
        """Stop listening and close every connection (answers under way end between tokens)."""
        super().stop(timeout)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def local_turn(self, active: bool) -> None:
        """The services port serves Home Assistant's requests as they come: nothing to do."""

    async def serve(self) -> None:
        """Listen (and advertise the port, when asked) until stop()."""
        assert self._stopping is not None
        server = await self._listen()
        if server is None:
            return
        from appliance.links.wyoming_zeroconf import advertise

        advertisement = await advertise(self.cfg, self.host, self.port) if self.cfg.zeroconf else None
        try:
            await self._stopping.wait()
        finally:
            server.close()
            if advertisement is not None:
                await advertisement.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _listen(self) -> asyncio.Server | None:
        """The bound server, retrying every BIND_RETRY_S while the port cannot be had; None when stopped."""
        assert self._stopping is not None
        failed = ""
        while not self._stopping.is_set():
            try:
                server = await asyncio.start_server(self._connection, self.host, self.port,
                                                    limit=MAX_HEADER_BYTES + 1, reuse_address=True)
            except OSError as exc:
                if str(exc) != failed:
                    failed = str(exc)
                    _LOGGER.error("Wyoming services cannot listen on %s (%s); trying again every %.0f s",
                                  self.cfg.services, exc, BIND_RETRY_S)
                try:
                    await asyncio.wait_for(self._stopping.wait(), BIND_RETRY_S)
                except TimeoutError:
                    pass
                continue
            self.port = server.sockets[0].getsockname()[1]
            _LOGGER.info("Wyoming services (speech recognition %s, voice %s, language model) listening on "
                         "tcp://%s:%d", self.engines.asr_name, self.engines.voice_name, self.host, self.port)
            self.listening.set()
            return server
        return None

    # ---------------------------------------------------------------- one connection

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        if self._connections >= self.cfg.max_connections:
            _LOGGER.warning("Wyoming: refused %s, already serving %d connections", peer, self._connections)
            writer.close()
            return
        self._connections += 1
        conversation = _Connection(self, writer)
        try:
            while True:
                event = await asyncio.wait_for(read_event(reader), self.cfg.idle_timeout_s)
                if event is None or not await conversation.handle(event):
                    break
        except BadPeer as exc:
            _LOGGER.warning("Wyoming: closed the connection from %s: %s", peer, exc)
        except TimeoutError:
            _LOGGER.debug("Wyoming: %s was silent for %.0f s; closed", peer, self.cfg.idle_timeout_s)
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            _LOGGER.debug("Wyoming: %s went away (%s)", peer, exc)
        except asyncio.CancelledError:
            pass
        except Exception:  # a bug here must cost one connection, never the port
            _LOGGER.exception("Wyoming: a request from %s failed", peer)
        finally:
            self._connections -= 1
            conversation.cancel.set()
            writer.close()

    # ---------------------------------------------------------------- shared by the connections

    def run(self, fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        """`fn(*args)`, started now on the engine threads; await the result."""
        return asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def session(self, conversation_id: str | None) -> Chat:
        """The conversation `conversation_id` names (a new one for a new or missing id)."""
        chat = self.engines.chat
        if not conversation_id:
            return chat.session()
        now = time.monotonic()
        with self._sessions_lock:
            found = self._sessions.pop(conversation_id, None)
            session = found[0] if found is not None and now - found[1] < self.idle_reset_s else chat.session()
            self._sessions[conversation_id] = (session, now)
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return session


class _Connection:
    """One peer's requests, in order: transcription, synthesis (whole or streamed text) and questions."""

    def __init__(self, server: WyomingServices, writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.writer = writer
        self.cancel = threading.Event()
        self.recording = ReceivedAudio()
        self.streamed_text: list[str] | None = None
        """The text of a streamed synthesis (synthesize-start .. synthesize-stop), None outside one."""

    async def send(self, event: Event) -> None:
        await write_event(self.writer, event)

    async def handle(self, event: Event) -> bool:
        """Answer one event; False closes the connection. Unknown events are ignored (newer peers send them)."""
        kind, data = event.type, event.data
        if kind == "describe":
            await self.send(self.server.info_event)
        elif kind in ("transcribe", "audio-start"):
            self._start_audio()
        elif kind == "audio-chunk":
            self.recording.add(event.payload or b"", chunk_format(data))
        elif kind == "audio-stop":
            await self._transcribe()
        elif kind == "synthesize":
            if self.streamed_text is None:  # inside a streamed synthesis it only repeats the text for old servers
                return await self._synthesize(_text(data))
        elif kind == "synthesize-start":
            self.streamed_text = []
        elif kind == "synthesize-chunk":
            if self.streamed_text is not None:
                self.streamed_text.append(_text(data, "text", limit=None))
                if sum(map(len, self.streamed_text)) > MAX_TEXT_CHARS:
                    raise BadPeer(f"a streamed text is longer than {MAX_TEXT_CHARS} characters")
        elif kind == "synthesize-stop":
            text, self.streamed_text = "".join(self.streamed_text or []), None
            if not await self._synthesize(text):
                return False
            await self.send(SynthesizeStopped().event())
        elif kind == "transcript":
            return await self._answer(_text(data), _context(data).get("conversation_id"))
        else:
            _LOGGER.debug("Wyoming: ignored a %r event", kind[:40])
        return True

    # ---------------------------------------------------------------- asr

    def _start_audio(self) -> None:
        self.recording = ReceivedAudio()

    async def _transcribe(self) -> None:
        audio = self.recording.finish()
        self._start_audio()
        started = time.monotonic()
        try:
            text = await self.server.run(self.server.engines.asr.recognize, audio) if audio.samples else ""
        except Exception as exc:
            _LOGGER.warning("Wyoming: speech recognition failed: %s", exc)
            await self.send(Error(text=f"Speech recognition failed: {exc}", code="asr-failed").event())
            text = ""
        _LOGGER.debug("Wyoming: %.1f s of audio transcribed in %.0f ms (%d words)", audio.duration_s,
                      (time.monotonic() - started) * 1000, len(text.split()))
        await self.send(Transcript(text=text).event())

    # ---------------------------------------------------------------- tts

    async def _synthesize(self, text: str) -> bool:
        """Speak `text` as audio-start, audio-chunks and audio-stop; False (after an error event) when it
        failed, and the connection is closed: older peers wait for audio-stop and do not read errors."""
        tts = self.server.engines.tts
        spoken = for_speech(text, self.server.words.speech)
        started = time.monotonic()
        queue: asyncio.Queue[AudioChunk | BaseException | None] = asyncio.Queue(maxsize=64)
        loop = asyncio.get_running_loop()

        def produce() -> None:  # on an engine thread: Piper's chunks handed to the loop as they come
            def put(item: AudioChunk | BaseException | None) -> bool:
                handed = asyncio.run_coroutine_threadsafe(queue.put(item), loop)
                while not self.cancel.is_set():
                    try:
                        handed.result(0.2)
                        return True
                    except TimeoutError:
                        continue
                handed.cancel()
                return False

            try:
                for chunk in (tts.synthesize(spoken) if spoken else iter(())):
                    if not put(chunk):
                        return
                put(None)
            except Exception as exc:
                put(exc)

        job = self.server.run(produce)
        await self.send(AudioStart(rate=tts.rate, width=2, channels=1).event())
        sent = 0
        while (item := await queue.get()) is not None:
            if isinstance(item, BaseException):
                _LOGGER.warning("Wyoming: speech synthesis failed: %s", item)
                await self.send(Error(text=f"Speech synthesis failed: {item}", code="tts-failed").event())
                await job
                return False
            for piece in pieces(item):
                await self.send(WyAudioChunk(rate=piece.rate, width=piece.width, channels=piece.channels,
                                             audio=piece.samples, timestamp=int(sent * 1000 / piece.rate)).event())
                sent += piece.frames
        await job
        await self.send(AudioStop(timestamp=int(sent * 1000 / tts.rate)).event())
        _LOGGER.debug("Wyoming: %d characters spoken as %.1f s of audio in %.0f ms", len(text), sent / tts.rate,
                      (time.monotonic() - started) * 1000)
        return True

    # ---------------------------------------------------------------- handle

    async def _answer(self, question: str, conversation_id: Any) -> bool:
        conversation_id = str(conversation_id)[:200] if conversation_id else None
        context = {"conversation_id": conversation_id} if conversation_id else None
        chat = self.server.session(conversation_id) if question.strip() else self.server.engines.chat
        started = time.monotonic()
        reply = await self.server.run(self.server.handler.handle, question, chat, self.cancel)
        if reply.error_code:
            await self.send(Error(text=reply.error_text, code=reply.error_code).event())
        if not reply.handled:
            await self.send(NotHandled(text=reply.text, context=context).event())
            return True
        _LOGGER.debug("Wyoming: a question answered in %.0f ms (%d words)", (time.monotonic() - started) * 1000,
                      len(reply.text.split()))
        await self.send(Handled(text=reply.text, context=context).event())
        return True


def _text(data: dict[str, Any], key: str = "text", limit: int | None = MAX_TEXT_CHARS) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise BadPeer(f"the event's {key} is not text")
    if limit is not None and len(value) > limit:
        raise BadPeer(f"the event's {key} is longer than {limit} characters")
    return value


def _context(data: dict[str, Any]) -> dict[str, Any]:
    context = data.get("context")
    return context if isinstance(context, dict) else {}


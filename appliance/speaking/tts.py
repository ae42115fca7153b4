"""Piper speech: the synthesizer (threads capped) and the sentence-by-sentence worker."""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from appliance.audio import AudioChunk
from appliance.config import Config, TtsConfig
from appliance.contracts import Sink, Synthesizer
from appliance.errors import ModelError

_LOGGER = logging.getLogger(__name__)

WARM_UP_TEXT: Final = "Ready."  # the first onnxruntime run is slow; pay it at load, not on the first answer
QUEUE_POLL_S: Final = 0.05  # seconds between checks of the cancel Event while waiting for a sentence
DRAIN_TIMEOUT_S: Final = 30.0  # seconds past the audio's due end the worker waits for the speaker to play it out
JOIN_TIMEOUT_S: Final = 5.0  # seconds to wait for the worker thread to end after a cancel
SPEAKER_READY_TIMEOUT_S: Final = 5.0  # seconds a fresh output stream may take to start playing in real time


class VoiceError(ModelError):
    """The Piper voice cannot be loaded (missing .onnx.json, damaged file)."""


def session_options(threads: int) -> Any:
    """onnxruntime options with the thread pools capped, so speech leaves the language model its cores."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only: onnxruntime warns about unused initializers
    return options


def load_voice(model: Path, threads: int) -> Any:
    """A piper.PiperVoice whose onnxruntime session we build ourselves (PiperVoice.load takes no options)."""
    import onnxruntime
    from piper import PiperVoice
    from piper.config import PiperConfig

    config_path = Path(f"{model}.json")
    try:
        config = PiperConfig.from_dict(json.loads(config_path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise VoiceError(f"Piper voice config {config_path} is missing; a voice needs its .onnx.json "
                         f"beside the .onnx (download both, or set tts.voice)") from None
    except (OSError, ValueError, KeyError) as exc:
        raise VoiceError(f"Piper voice config {config_path} is unusable ({exc}); download the voice "
                         f"again") from None
    try:
        session = onnxruntime.InferenceSession(str(model), sess_options=session_options(threads),
                                               providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own Fail/InvalidProtobuf types
        raise VoiceError(f"Piper voice {model} cannot be loaded ({type(exc).__name__}: {exc}); "
                         f"download it again or set tts.voice") from None
    return PiperVoice(session=session, config=config)


def synthesis_config(cfg: TtsConfig) -> Any:
    """Piper's SynthesisConfig from the tts section: speaking rate, variation and volume."""
    from piper import SynthesisConfig

    return SynthesisConfig(length_scale=cfg.length_scale, noise_scale=cfg.noise_scale,
                           noise_w_scale=cfg.noise_w, volume=cfg.volume)


class PiperSynthesizer:
    """The Synthesizer of contracts.py over Piper: one AudioChunk per sentence, as Piper produces it."""

    def __init__(self, voice: Any, cfg: TtsConfig, syn_config: Any = None) -> None:
        self.voice = voice
        self.cfg = cfg
        self.rate: int = int(voice.config.sample_rate)
        self._syn = syn_config if syn_config is not None else synthesis_config(cfg)
        self._lock = threading.Lock()  # one onnxruntime run at a time: the thread cap holds per voice

    @classmethod
    def from_config(cls, cfg: Config) -> PiperSynthesizer:
        """Resolve, load and warm up the configured voice."""
        from appliance.setup.models import resolve

        model = resolve("voice", cfg)
        started = time.monotonic()
        synth = cls(load_voice(model.path, cfg.tts.onnx_threads), cfg.tts)
        synth.warm_up()
        _LOGGER.info("Piper voice %s loaded in %.0f ms (%d Hz, %d onnxruntime thread(s))", model.path.name,
                     (time.monotonic() - started) * 1000.0, synth.rate, cfg.tts.onnx_threads)
        return synth

    def warm_up(self) -> None:
        for _chunk in self.synthesize(WARM_UP_TEXT):
            pass

    def synthesize(self, text: str) -> Iterator[AudioChunk]:
        """Audio for `text`, one chunk per sentence Piper finds in it.

        The text is spoken as given: the answer path (responder.py) cleans it for speech first.
        """
        if not text.strip():
            return
        chunks = self.voice.synthesize(text, syn_config=self._syn)
        while True:
            with self._lock:  # held per run, never across a yield
                chunk = next(chunks, None)
            if chunk is None:
                return
            yield AudioChunk(chunk.audio_int16_bytes, chunk.sample_rate, chunk.sample_width,
                             chunk.sample_channels)


@dataclass
class SentenceTiming:
    """When one sentence was handed over, when its first audio was ready, and how long it sounds."""

    text: str
    queued_at: float
    started_at: float | None = None
    first_chunk_at: float | None = None
    audio_s: float = 0.0
    synth_s: float = 0.0


_END: Final = object()


@dataclass
class SpeechStats:
    sentences: list[SentenceTiming] = field(default_factory=list)
    first_chunk_at: float | None = None
    """time.monotonic() when the first audio of the turn was handed to the sink."""
    cancelled: bool = False


class SpeechWorker:
    """Takes sentences from a queue while the model still writes, synthesizes the next while the
    sink plays the current, and stops at once when the turn's cancel Event is set.

        worker = SpeechWorker(synth, sink, cancel).start()
        worker.say("First sentence.")      # from the model's thread, as sentences arrive
        worker.finish()                    # no more sentences
        worker.wait(timeout=60)            # True once everything has been played
    """

    def __init__(self, synth: Synthesizer, sink: Sink, cancel: threading.Event | None = None,
                 drain_timeout_s: float = DRAIN_TIMEOUT_S,
                 on_end: Callable[[SpeechWorker], None] | None = None) -> None:
        self.synth = synth
        self.sink = sink
        self.cancel = cancel or threading.Event()
        self.drain_timeout_s = drain_timeout_s
        self.stats = SpeechStats()
        self.error: BaseException | None = None
        self._queue: queue.Queue[Any] = queue.Queue()
        self._done = threading.Event()
        self._played = False
        self._due_at = 0.0
        """time.monotonic() when the audio handed over so far ends, played in real time from when it came."""
        self._on_end = on_end
        """Called on the worker's thread when it is over (played out, cancelled or failed)."""
        self._thread = threading.Thread(target=self._run, name="tts-worker", daemon=True)

    def start(self) -> SpeechWorker:
        self.sink.mark_turn()
        self._thread.start()
        return self

    def say(self, sentence: str) -> None:
        """Queue one sentence (or first clause); returns at once."""
        self._queue.put(SentenceTiming(sentence, time.monotonic()))

    def finish(self) -> None:
        """No more sentences: the worker plays out what is queued, then ends."""
        self._queue.put(_END)

    def wait(self, timeout: float) -> bool:
        """True when all speech was played (or cancelled cleanly) within `timeout` seconds."""
        if not self._done.wait(timeout):
            return False
        if self.error is not None:
            raise self.error
        return self._played or self.stats.cancelled or not self.stats.sentences

    @property
    def played(self) -> bool:
        """Everything said has been played out by the sink."""
        return self._played

    def close(self, timeout: float = JOIN_TIMEOUT_S) -> None:
        """Cancel and wait for the thread (used on shutdown and errors)."""
        self.cancel.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as exc:  # handed to wait(); the thread itself never dies noisily
            self.error = exc
            _LOGGER.exception("Speech worker failed")
            self._safe_stop()
        finally:
            self._done.set()
            if self._on_end is not None:
                self._on_end(self)

    def _loop(self) -> None:
        while not self.cancel.is_set():
            try:
                item = self._queue.get(timeout=QUEUE_POLL_S)
            except queue.Empty:
                continue
            if item is _END:
                self._played = self._drain_while_live()
                return
            self._speak(item)
        self.stats.cancelled = True
        self._safe_stop()

    def _speak(self, timing: SentenceTiming) -> None:
        self.stats.sentences.append(timing)
        timing.started_at = started = time.monotonic()
        for chunk in self.synth.synthesize(timing.text):
            now = time.monotonic()
            timing.synth_s += now - started
            if self.cancel.is_set():
                return
            if timing.first_chunk_at is None:
                timing.first_chunk_at = now
                if self.stats.first_chunk_at is None:
                    self.stats.first_chunk_at = now
            timing.audio_s += chunk.duration_s
            self._due_at = max(self._due_at, now) + chunk.duration_s
            self.sink.play(chunk)
            started = time.monotonic()

    def _drain_while_live(self) -> bool:
        """Wait for the sink in short steps so a cancel still stops it promptly; False if cancelled or
        if it has not played out `drain_timeout_s` after the audio was due to end. Synthesis runs far
        ahead of the speaker, so a long answer may still have minutes to play when its last sentence
        is written."""
        deadline = max(time.monotonic(), self._due_at) + self.drain_timeout_s
        while not self.cancel.is_set():
            if self.sink.drain(min(QUEUE_POLL_S, max(0.0, deadline - time.monotonic()))):
                return True
            if time.monotonic() >= deadline:
                return False
        self.stats.cancelled = True
        self._safe_stop()
        return False

    def _safe_stop(self) -> None:
        try:
            self.sink.stop()
        except Exception:
            _LOGGER.exception("Stopping the speaker failed")


class _Tee:
    """One Sink that plays into several (the speaker and a WAV file at once)."""

    def __init__(self, sinks: list[Sink]) -> None:
        self.sinks = sinks

    def play(self, chunk: AudioChunk) -> None:
        for sink in self.sinks:
            sink.play(chunk)

    def stop(self) -> None:
        for sink in self.sinks:
            sink.stop()

    def drain(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        return all([sink.drain(max(0.0, deadline - time.monotonic())) for sink in self.sinks])

    def first_audio_at(self) -> float | None:
        return self.sinks[0].first_audio_at()

    def mark_turn(self) -> None:
        for sink in self.sinks:
            sink.mark_turn()

    def close(self) -> None:
        for sink in self.sinks:
            sink.close()


def speaking_sink(cfg: Config, rate: int, speak: bool, out: str | Path | None) -> Sink:
    """Where `appliance ask` speaks: the speaker (opened now, so the device gets through its start-up
    while the model thinks), a WAV file, or both at once."""
    from appliance.audio.speaker import SpeakerSink, WavSink
    from appliance.audio.volume import shared

    volume = shared(Path(cfg.service.state_dir))
    sinks: list[Sink] = []
    if speak:
        speaker = SpeakerSink(cfg.audio, rate=rate, volume=volume)
        speaker.wait_ready(SPEAKER_READY_TIMEOUT_S)
        sinks.append(speaker)
    if out is not None:
        sinks.append(WavSink(out, rate=rate, volume=volume))
    return sinks[0] if len(sinks) == 1 else _Tee(sinks)

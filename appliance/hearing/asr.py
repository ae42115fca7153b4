"""Speech recognition after the wake word: Vosk (streaming) or Whisper tiny.en, with VAD endpointing."""

from __future__ import annotations

import copy
import functools
import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import numpy as np

from appliance.audio import PIPELINE_RATE, AudioChunk
from appliance.config import Config
from appliance.errors import MissingLibrary
from appliance.hearing import whisper_fast
from appliance.hearing.asr_worker import Inline, Worker
from appliance.hearing.endpoint import Endpointer, SpeechProbability, CompletionJudge
from appliance.hearing.utterance import Engine, EngineUtterance, Runner
from appliance.hearing.wake_text import wake_words
from appliance.language import pack

_LOGGER = logging.getLogger(__name__)

WHISPER_BEAM: Final = 1  # greedy decoding: tiny.en on short questions loses nothing with beam 5


def _completion_detector(cfg: Config) -> CompletionJudge | None:
    """The completion detector, loaded; None (questions end by silence alone) when its model is missing."""
    from appliance.errors import ModelMissing
    from appliance.hearing.completion import CompletionModel, CompletionDetector

    try:
        return CompletionDetector(CompletionModel(cfg)).load()
    except (ModelMissing, MissingLibrary) as exc:
        _LOGGER.warning("No completion detector: %s; questions end after %.1f s of silence (asr.endpoint_silence_s)",
                        exc, cfg.asr.endpoint_silence_s)
        return None


class _BaseRecognizer:
    name = "base"
    takes_hint = False  # Vosk has no previous-text prompt to lean it toward a hint

    def __init__(self, cfg: Config, model_path: Path, vad_factory: Callable[[], SpeechProbability] | None = None):
        self.cfg = cfg
        self.model_path = model_path
        self._vad_factory = vad_factory
        self._vad: SpeechProbability | None = None
        self._completion: CompletionJudge | None = None
        self._model: Any = None
        self.runner: Runner = Inline()
        """Where the utterances' transcriptions run (WhisperRecognizer: its worker thread)."""

    def load(self) -> _BaseRecognizer:
        if self._vad is None:
            if self._vad_factory is not None:
                self._vad = self._vad_factory()
            else:
                from appliance.hearing.vad import SileroVad

                self._vad = SileroVad(self.cfg).load()
        if self._completion is None and self.cfg.asr.turn_detector:
            self._completion = self._load_completion()
        if self._model is None:
            started = time.monotonic()
            self._model = self._load_model()
            _LOGGER.info("Speech recognition: %s from %s (%.1f s)", self.name, self.model_path,
                         time.monotonic() - started)
        return self

    def start(self, preroll: list[AudioChunk]) -> EngineUtterance:
        """Begin an utterance with the audio kept from just before the wake word fired."""
        self.load()
        assert self._vad is not None
        self._vad.reset()
        conversation = self.cfg.conversation
        asr = self.cfg.asr
        unfinished = pack(self.cfg.language).sentences.unfinished if asr.unfinished_words else frozenset()
        endpointer = Endpointer(asr, self._vad, self._completion if asr.turn_detector else None, unfinished)
        return EngineUtterance(self._engine(), endpointer, list(preroll), self.runner,
                               wake_words(self.cfg.wake.model),
                               conversation.prefill_pace_s if conversation.prefill else None)

    def another(self) -> _BaseRecognizer:
        """A recognizer on the same model with a voice detector (and, for Whisper, a transcription thread)
        of its own, for questions heard at the same time as this one's (a satellite's)."""
        self.load()
        twin = copy.copy(self)
        twin._vad = None
        twin.runner = Worker(f"{self.runner.name}-2") if isinstance(self.runner, Worker) else Inline()
        return twin.load()

    def recognize(self, audio: AudioChunk, hint: str = "") -> str:
        """The words in one whole 16 kHz mono int16 recording, on the caller's thread (Wyoming's requests,
        the stop words).

        Its own engine (a Vosk recognizer, or a Whisper job outside the utterances' worker), so a
        question being heard at the same time is neither delayed in the worker's queue nor dropped.
        `hint`: words expected in it, for Whisper's previous-text prompt; Vosk takes no such context.
        """
        self.load()
        engine = self._engine(hint)
        engine.accept(audio)
        return engine.final()().strip()

    def _load_model(self) -> Any:
        raise NotImplementedError

    def _load_completion(self) -> CompletionJudge | None:
        return _completion_detector(self.cfg)

    def _engine(self, hint: str = "") -> Engine:
        raise NotImplementedError


class VoskRecognizer(_BaseRecognizer):
    """Vosk KaldiRecognizer at 16 kHz: decodes while the person speaks, a partial text at every chunk."""

    name = "vosk"

    def _load_model(self) -> Any:
        try:
            import vosk
        except ImportError as exc:
            raise MissingLibrary(f"Vosk is not installed ({exc}); `pip install vosk`") from None
        vosk.SetLogLevel(-1)
        return vosk.Model(str(self.model_path))

    def _engine(self, hint: str = "") -> Engine:
        import vosk

        # A fresh recognizer per utterance (a few ms): Reset() keeps the i-vector adaptation,
        # so the same audio could decode differently from one turn to the next.
        return _VoskEngine(vosk.KaldiRecognizer(self._model, PIPELINE_RATE))


class _VoskEngine:
    reuses_early = False  # its own final decoding is cheap, and may settle a word
    paced = False  # its partial result comes with each chunk it decodes

    def __init__(self, recognizer: Any) -> None:
        self.rec = recognizer
        self.segments: list[str] = []
        self._partial = ""

    def accept(self, chunk: AudioChunk) -> None:
        if self.rec.AcceptWaveform(chunk.samples):  # Vosk's own segment end: keep the text
            text = json.loads(self.rec.Result()).get("text", "")
            self._partial = ""
            if text:
                self.segments.append(text)
        else:
            partial = json.loads(self.rec.PartialResult()).get("partial", "")
            if partial != self._partial:
                self._partial = partial
                _LOGGER.debug("Partial: %s", partial)

    def partial(self) -> Callable[[], str]:
        return lambda: self._joined(self._partial)

    def early(self) -> Callable[[], str]:
        return lambda: self._joined(json.loads(self.rec.PartialResult()).get("partial", ""))

    def final(self) -> Callable[[], str]:
        return lambda: self._joined(json.loads(self.rec.FinalResult()).get("text", ""))

    def _joined(self, last: str) -> str:
        return " ".join([*self.segments, last]).strip()


class WhisperRecognizer(_BaseRecognizer):
    """Whisper tiny.en through faster-whisper (int8): transcribes at each pause, on its own worker thread."""

    name = "whisper"
    takes_hint = True  # its previous-text prompt

    def __init__(self, cfg: Config, model_path: Path,
                 vad_factory: Callable[[], SpeechProbability] | None = None) -> None:
        super().__init__(cfg, model_path, vad_factory)
        self.runner = Worker("appliance-whisper")

    def _load_model(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the model hub
        try:
            from faster_whisper import WhisperModel
        except ImportError as exc:
            raise MissingLibrary(f"faster-whisper is not installed ({exc}); install it with "
                                 "`pip install faster-whisper` or set asr.engine: vosk") from None
        return WhisperModel(str(self.model_path), device="cpu", compute_type="int8",
                            cpu_threads=self.cfg.asr.threads)

    def _engine(self, hint: str = "") -> Engine:
        return _WhisperEngine(functools.partial(self.transcribe, hint=hint) if hint else self.transcribe)

    def transcribe(self, samples: np.ndarray, hint: str = "") -> str:
        """Whole float32 16 kHz mono audio to text (used by the engine and by benchmarks)."""
        self.load()
        # A 10 s encoder window instead of 30 s (3x faster); doubtful results are redone in 30 s.
        return whisper_fast.transcribe(self._model, samples, self.cfg.language, WHISPER_BEAM, hint).text


class _WhisperEngine:
    """Keeps the audio; each job transcribes a copy of what was heard when it was made."""

    reuses_early = True
    paced = True

    def __init__(self, transcribe: Callable[[np.ndarray], str]) -> None:
        self.transcribe = transcribe
        self.chunks: list[np.ndarray] = []

    def accept(self, chunk: AudioChunk) -> None:
        self.chunks.append(chunk.to_float()[:, 0])

    def partial(self) -> Callable[[], str]:
        return self.final()

    def early(self) -> Callable[[], str]:
        return self.final()

    def final(self) -> Callable[[], str]:
        heard = list(self.chunks)
        return lambda: self.transcribe(np.concatenate(heard)) if heard else ""


def choose_engine(cfg: Config) -> tuple[str, Path]:
    """(engine name, model path) per asr.engine; auto takes Vosk only with a non-dev (English) model.

    Raises ModelMissing (exit 78) naming where it looked and how to install the model.
    """
    from appliance.setup import models

    engine = cfg.asr.engine
    if engine == "auto":
        vosk = models.find("vosk", cfg)
        if vosk is not None and not vosk.is_dev:
            return "vosk", vosk.path
        engine = "whisper"
    found = models.resolve(engine, cfg)  # type: ignore[arg-type]
    return engine, found.path


def make_recognizer(cfg: Config, vad_factory: Callable[[], SpeechProbability] | None = None) -> _BaseRecognizer:
    """The configured recognizer (not loaded yet: call .load(), or start() loads it)."""
    engine, path = choose_engine(cfg)
    cls = VoskRecognizer if engine == "vosk" else WhisperRecognizer
    return cls(cfg, path, vad_factory)

"""Speech recognition after the wake word: Vosk (streaming) or Whisper tiny.en, with VAD endpointing."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np

from appliance import whisper_fast
from appliance.audio import PIPELINE_RATE, AudioChunk
from appliance.config import AsrConfig, Config
from appliance.contracts import Transcript
from appliance.errors import MissingLibrary

_LOGGER = logging.getLogger(__name__)

MIN_SPEECH_S: Final = 0.16  # seconds of voiced chunks in a row before it counts as speech (not a click)
WHISPER_BEAM: Final = 1  # greedy decoding: tiny.en on short questions loses nothing with beam 5
WHISPER_LANGUAGE: Final = "en"


class SpeechProbability(Protocol):
    """What the endpointer needs from a VAD (appliance.vad.SileroVad, or a fake in unit tests)."""

    def probability(self, chunk: AudioChunk) -> float: ...

    def reset(self) -> None: ...


class Endpointer:
    """Decides when an utterance is over: trailing silence after speech, no speech at all, or too long.

    Times are stream times counted over the chunks fed after the wake word (the pre-roll is
    judged by the VAD too, so its state is warm, but does not count towards the limits).
    """

    def __init__(self, cfg: AsrConfig, vad: SpeechProbability) -> None:
        self.cfg = cfg
        self.vad = vad
        self.elapsed_s = 0.0
        self.heard_speech = False
        self.speech_end_s: float | None = None
        self._voiced_run_s = 0.0
        self._silence_s = 0.0

    @property
    def early_point(self) -> bool:
        """True once the trailing silence after speech reaches asr.early_silence_s (0: never)."""
        early = self.cfg.early_silence_s
        return early > 0 and self.heard_speech and self._silence_s >= early - 1e-9

    def preroll(self, chunk: AudioChunk) -> None:
        self.vad.probability(chunk)

    def feed(self, chunk: AudioChunk) -> str | None:
        """None while listening; 'speech', 'no_speech' or 'max_length' once it is over."""
        p = self.vad.probability(chunk)
        self.elapsed_s += chunk.duration_s
        if p >= self.cfg.vad_threshold:
            self._voiced_run_s += chunk.duration_s
            self._silence_s = 0.0
            if self._voiced_run_s >= MIN_SPEECH_S - 1e-9:
                self.heard_speech = True
            self.speech_end_s = self.elapsed_s
        else:
            self._voiced_run_s = 0.0
            self._silence_s += chunk.duration_s
        if self.heard_speech and self._silence_s >= self.cfg.endpoint_silence_s - 1e-9:
            return "speech"
        if not self.heard_speech and self.elapsed_s >= self.cfg.no_speech_timeout_s - 1e-9:
            return "no_speech"
        if self.elapsed_s >= self.cfg.max_utterance_s - 1e-9:
            return "max_length"
        return None


class _Utterance:
    """One question: feeds the engine and the endpointer, returns a Transcript at the end.

    `early` is a transcript made once the speaker has paused for asr.early_silence_s, while the
    endpoint (asr.endpoint_silence_s) is still being confirmed; it is None again as soon as speech
    goes on. The conductor may start answering from it. When the endpoint confirms the same
    pause, Whisper's early text is the final text (the silence after it adds no words); Vosk
    finishes its own decoding, which is cheap.
    """

    def __init__(self, engine: _Engine, endpointer: Endpointer, preroll: list[AudioChunk]) -> None:
        self.engine = engine
        self.endpointer = endpointer
        self.done: Transcript | None = None
        self.early: Transcript | None = None
        self._early_for: float | None = None
        self.started_at = time.monotonic()
        for chunk in preroll:
            endpointer.preroll(chunk)
            engine.accept(chunk)

    @property
    def heard_speech(self) -> bool:
        return self.endpointer.heard_speech

    def feed(self, chunk: AudioChunk) -> Transcript | None:
        if self.done is not None:
            return self.done
        self.engine.accept(chunk)
        outcome = self.endpointer.feed(chunk)
        if outcome is None:
            self._track_early()
            return None
        return self._end(outcome)

    def _track_early(self) -> None:
        ep = self.endpointer
        if self.early is not None and self.early.speech_end_s != ep.speech_end_s:
            _LOGGER.debug("Speech went on after the early transcript")
            self.early = None
        if self.early is None and ep.early_point and ep.speech_end_s != self._early_for:
            self._early_for = ep.speech_end_s  # one early transcript per pause
            self.early = Transcript(text=self.engine.early().strip(), outcome="early",
                                    speech_end_s=ep.speech_end_s, final_at=time.monotonic())
            _LOGGER.debug("Early transcript after %.2f s: %r", ep.elapsed_s, self.early.text)

    def finish(self) -> Transcript:
        if self.done is not None:
            return self.done
        return self._end("speech" if self.endpointer.heard_speech else "no_speech")

    def _end(self, outcome: str) -> Transcript:
        early = self.early  # None once speech went on after it (_track_early)
        reuse = early.text if early is not None and outcome == "speech" else None
        text = self.engine.final(skip=outcome == "no_speech", early=reuse).strip()
        self.done = Transcript(text=text, outcome=outcome, speech_end_s=self.endpointer.speech_end_s,
                               final_at=time.monotonic())
        _LOGGER.debug("Utterance ended (%s) after %.2f s of audio: %r", outcome,
                      self.endpointer.elapsed_s, text)
        return self.done


class _Engine(Protocol):
    def accept(self, chunk: AudioChunk) -> None: ...

    def early(self) -> str:
        """The text so far, while the speaker pauses (the stream goes on afterwards)."""

    def final(self, skip: bool, early: str | None = None) -> str:
        """The whole text; `early` is the early text when no speech came after it."""


class _BaseRecognizer:
    name = "base"

    def __init__(self, cfg: Config, model_path: Path, vad_factory: Callable[[], SpeechProbability] | None = None):
        self.cfg = cfg
        self.model_path = model_path
        self._vad_factory = vad_factory
        self._vad: SpeechProbability | None = None
        self._model: Any = None

    def load(self) -> _BaseRecognizer:
        if self._vad is None:
            if self._vad_factory is not None:
                self._vad = self._vad_factory()
            else:
                from appliance.vad import SileroVad

                self._vad = SileroVad(self.cfg).load()
        if self._model is None:
            started = time.monotonic()
            self._model = self._load_model()
            _LOGGER.info("Speech recognition: %s from %s (%.1f s)", self.name, self.model_path,
                         time.monotonic() - started)
        return self

    def start(self, preroll: list[AudioChunk]) -> _Utterance:
        """Begin an utterance with the audio kept from just before the wake word fired."""
        self.load()
        assert self._vad is not None
        self._vad.reset()
        return _Utterance(self._engine(), Endpointer(self.cfg.asr, self._vad), list(preroll))

    def _load_model(self) -> Any:
        raise NotImplementedError

    def _engine(self) -> _Engine:
        raise NotImplementedError


class VoskRecognizer(_BaseRecognizer):
    """Vosk KaldiRecognizer at 16 kHz: decodes while the person speaks, partials at DEBUG."""

    name = "vosk"

    def _load_model(self) -> Any:
        try:
            import vosk
        except ImportError as exc:
            raise MissingLibrary(f"Vosk is not installed ({exc}); `pip install vosk`") from None
        vosk.SetLogLevel(-1)
        return vosk.Model(str(self.model_path))

    def _engine(self) -> _Engine:
        import vosk

        # A fresh recognizer per utterance (a few ms): Reset() keeps the i-vector adaptation,
        # so the same audio could decode differently from one turn to the next.
        return _VoskEngine(vosk.KaldiRecognizer(self._model, PIPELINE_RATE))


class _VoskEngine:
    def __init__(self, recognizer: Any) -> None:
        self.rec = recognizer
        self.segments: list[str] = []
        self._partial = ""

    def accept(self, chunk: AudioChunk) -> None:
        if self.rec.AcceptWaveform(chunk.samples):  # Vosk's own segment end: keep the text
            text = json.loads(self.rec.Result()).get("text", "")
            if text:
                self.segments.append(text)
        elif _LOGGER.isEnabledFor(logging.DEBUG):
            partial = json.loads(self.rec.PartialResult()).get("partial", "")
            if partial and partial != self._partial:
                self._partial = partial
                _LOGGER.debug("Partial: %s", partial)

    def early(self) -> str:
        partial = json.loads(self.rec.PartialResult()).get("partial", "")
        return " ".join([*self.segments, partial]).strip()

    def final(self, skip: bool, early: str | None = None) -> str:
        text = json.loads(self.rec.FinalResult()).get("text", "")
        return " ".join([*self.segments, text]).strip()


class WhisperRecognizer(_BaseRecognizer):
    """Whisper tiny.en through faster-whisper (int8): transcribes once the speaker has finished."""

    name = "whisper"

    def _load_model(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the model hub
        try:
            from faster_whisper import WhisperModel
        except ImportError as exc:
            raise MissingLibrary(f"faster-whisper is not installed ({exc}); install it with "
                                 "`pip install faster-whisper` or set asr.engine: vosk") from None
        return WhisperModel(str(self.model_path), device="cpu", compute_type="int8",
                            cpu_threads=self.cfg.asr.threads)

    def _engine(self) -> _Engine:
        return _WhisperEngine(self.transcribe)

    def transcribe(self, samples: np.ndarray) -> str:
        """Whole float32 16 kHz mono audio to text (used by the engine and by benchmarks)."""
        self.load()
        # A 10 s encoder window instead of 30 s (3x faster); doubtful results are redone in 30 s.
        return whisper_fast.transcribe(self._model, samples, WHISPER_LANGUAGE, WHISPER_BEAM).text


class _WhisperEngine:
    def __init__(self, transcribe: Callable[[np.ndarray], str]) -> None:
        self.transcribe = transcribe
        self.chunks: list[np.ndarray] = []

    def accept(self, chunk: AudioChunk) -> None:
        self.chunks.append(chunk.to_float()[:, 0])

    def early(self) -> str:
        return self.transcribe(np.concatenate(self.chunks)) if self.chunks else ""

    def final(self, skip: bool, early: str | None = None) -> str:
        if skip or not self.chunks:
            return ""
        if early is not None:
            return early
        return self.transcribe(np.concatenate(self.chunks))


def strip_wake_echo(text: str, wake_word: str) -> str:
    """The transcript without a leading echo of the wake word ("Jarvis. What time is it?")."""
    wake = {w for w in wake_word.lower().replace("-", "_").split("_") if w}
    words = text.split()
    while words and words[0].lower().strip(".,!?;:'\"") in wake:
        words.pop(0)
    out = " ".join(words)
    return out[:1].upper() + out[1:] if out and text[:1].isupper() else out


def choose_engine(cfg: Config) -> tuple[str, Path]:
    """(engine name, model path) per asr.engine; auto takes Vosk only with a non-dev (English) model.

    Raises ModelMissing (exit 78) naming where it looked and how to install the model.
    """
    from appliance import models

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

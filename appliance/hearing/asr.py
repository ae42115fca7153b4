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

from appliance.audio import PIPELINE_RATE, AudioChunk
from appliance.config import Config
from appliance.contracts import Transcript
from appliance.errors import MissingLibrary
from appliance.hearing import whisper_fast
from appliance.hearing.asr_worker import Inline, Run, Worker
from appliance.hearing.endpoint import Endpointer, SpeechProbability
from appliance.hearing.wake_end import LOOKAHEAD_S, question_start
from appliance.hearing.wake_text import strip_wake_echo, wake_words

_LOGGER = logging.getLogger(__name__)

WHISPER_BEAM: Final = 1  # greedy decoding: tiny.en on short questions loses nothing with beam 5
WHISPER_LANGUAGE: Final = "en"


class _Utterance:
    """One question: feeds the engine and the endpointer, returns a Transcript at the end.

    `early` is a transcript made once the speaker has paused for asr.early_silence_s, while the
    endpoint (asr.endpoint_silence_s) is still being confirmed; it is None again as soon as speech
    goes on. The conductor may start answering from it. When the endpoint confirms the same
    pause, Whisper's early text is the final text (the silence after it adds no words); Vosk
    finishes its own decoding, which is cheap.

    The transcriptions are Runs on `runner`: inline for Vosk, on the recognizer's worker thread
    for Whisper, so feed() and poll() never wait for one. A run for a pause the person spoke
    through is dropped, not waited for.

    The pre-roll goes to the engine from where the question starts (wake_end.question_start):
    it is held, with the first LOOKAHEAD_S after the wake word, until the pause after the wake
    word can be found in it, so the end of the wake word is not transcribed.
    """

    def __init__(self, engine: _Engine, endpointer: Endpointer, preroll: list[AudioChunk],
                 runner: Runner, wake: tuple[str, ...] = ()) -> None:
        self.engine = engine
        self.wake = wake
        """The wake phrase's words: its remnant from the pre-roll is cut from every transcript."""
        self.endpointer = endpointer
        self.runner = runner
        self.done: Transcript | None = None
        self.early: Transcript | None = None
        self._early_run: Run | None = None
        self._early_for: float | None = None
        self._final_run: Run | None = None
        self._ended: str | None = None
        self._ended_at = 0.0
        self.started_at = time.monotonic()
        self._held: list[AudioChunk] | None = list(preroll) if preroll else None
        self._held_after_s = 0.0
        for chunk in preroll:
            endpointer.preroll(chunk)

    @property
    def heard_speech(self) -> bool:
        return self.endpointer.heard_speech

    @property
    def ended(self) -> bool:
        """The end of speech (or a limit) was reached: audio fed from now on is not part of the question."""
        return self._ended is not None

    @property
    def busy(self) -> bool:
        """A transcription this utterance waits for is running (poll soon)."""
        run = self._final_run if self._ended is not None else self._early_run
        return self.done is None and run is not None and not run.done.is_set()

    def feed(self, chunk: AudioChunk) -> Transcript | None:
        if self._ended is None:
            self._accept(chunk)
            outcome = self.endpointer.feed(chunk)
            if outcome is not None:
                self._end(outcome)
            else:
                self._track_early()
        return self.poll()

    def poll(self) -> Transcript | None:
        """The final Transcript once it is ready; meanwhile takes in the early transcript when it is."""
        if self.done is not None or self._ended is None:
            self._take_early()
            return self.done
        run = self._final_run
        if run is not None and not run.done.is_set():
            return None
        if run is not None and run.error is not None:
            raise run.error
        text = strip_wake_echo(run.text, self.wake) if run is not None else ""
        final_at = max(self._ended_at, run.finished_at or 0.0) if run is not None else self._ended_at
        self.done = Transcript(text=text, outcome=self._ended, speech_end_s=self.endpointer.speech_end_s,
                               final_at=final_at)
        _LOGGER.debug("Utterance ended (%s) after %.2f s of audio: %r", self._ended,
                      self.endpointer.elapsed_s, text)
        return self.done

    def finish(self) -> Transcript | None:
        """End now (the stream ended); the Transcript, or None until poll() has it."""
        if self._ended is None:
            self._end("speech" if self.endpointer.heard_speech else "no_speech")
        return self.poll()

    def wait(self, timeout: float) -> Transcript | None:
        """Block until the final Transcript is ready (benchmarks and tests; the conductor polls)."""
        deadline = time.monotonic() + timeout
        while (result := self.poll()) is None and time.monotonic() < deadline:
            run = self._final_run
            if run is not None:
                run.done.wait(max(0.0, deadline - time.monotonic()))
        return result

    def close(self) -> None:
        """Give the utterance up: its transcriptions that have not started never will."""
        for run in (self._early_run, self._final_run):
            if run is not None and not run.done.is_set():
                run.dropped = True

    def _accept(self, chunk: AudioChunk) -> None:
        if self._held is None:
            self.engine.accept(chunk)
            return
        self._held.append(chunk)
        self._held_after_s += chunk.duration_s
        if self._held_after_s >= LOOKAHEAD_S - 1e-9:
            self._release()

    def _release(self) -> None:
        """Hand the held audio to the engine from where the question starts."""
        held, self._held = self._held, None
        if not held:
            return
        skip = question_start(np.concatenate([c.to_float()[:, 0] for c in held]), held[0].rate)
        if skip:
            _LOGGER.debug("The question starts %.2f s into the pre-roll, after a pause", skip / held[0].rate)
        for chunk in held:
            if skip >= chunk.frames:
                skip -= chunk.frames
                continue
            if skip:
                step = chunk.width * chunk.channels
                chunk = AudioChunk(chunk.samples[skip * step:], chunk.rate, chunk.width, chunk.channels)
                skip = 0
            self.engine.accept(chunk)

    def _track_early(self) -> None:
        ep = self.endpointer
        if self._early_run is not None and self._early_for != ep.speech_end_s:
            _LOGGER.debug("Speech went on after the early transcript")
            self._early_run.dropped = True  # stale: not waited for, never run if it has not started
            self._early_run, self.early = None, None
        if self._early_run is None and ep.early_point and ep.speech_end_s != self._early_for:
            self._release()
            self._early_for = ep.speech_end_s  # one early transcript per pause
            self._early_run = self.runner.submit(self.engine.early())
            _LOGGER.debug("Early transcript asked for after %.2f s", ep.elapsed_s)
        self._take_early()

    def _take_early(self) -> None:
        run = self._early_run
        if self.early is not None or run is None or not run.done.is_set() or self._ended is not None:
            return
        if run.error is not None:
            raise run.error
        self.early = Transcript(text=strip_wake_echo(run.text, self.wake), outcome="early",
                                speech_end_s=self._early_for, final_at=run.finished_at)
        _LOGGER.debug("Early transcript: %r", self.early.text)

    def _end(self, outcome: str) -> None:
        self._ended, self._ended_at = outcome, time.monotonic()
        self._release()
        if outcome == "no_speech":
            self.close()
            return
        same_pause = self._early_run is not None and self._early_for == self.endpointer.speech_end_s
        if outcome == "speech" and same_pause and self.engine.reuses_early:
            self._final_run = self._early_run  # no speech after the early text: it is the final text
            return
        if self._early_run is not None and not self._early_run.done.is_set():
            self._early_run.dropped = True  # not waited for: the final run takes its place
        self._final_run = self.runner.submit(self.engine.final())


class _Engine(Protocol):
    reuses_early: bool
    """True when the early text stands for the final one if no speech came after it (Whisper)."""

    def accept(self, chunk: AudioChunk) -> None: ...

    def early(self) -> Callable[[], str]:
        """The job that makes the text so far, while the speaker pauses (the stream goes on afterwards)."""

    def final(self) -> Callable[[], str]:
        """The job that makes the whole text."""


class Runner(Protocol):
    def submit(self, job: Callable[[], str]) -> Run: ...


class _BaseRecognizer:
    name = "base"

    def __init__(self, cfg: Config, model_path: Path, vad_factory: Callable[[], SpeechProbability] | None = None):
        self.cfg = cfg
        self.model_path = model_path
        self._vad_factory = vad_factory
        self._vad: SpeechProbability | None = None
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
        return _Utterance(self._engine(), Endpointer(self.cfg.asr, self._vad), list(preroll), self.runner,
                          wake_words(self.cfg.wake.model))

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
    reuses_early = False  # its own final decoding is cheap, and may settle a word

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

    def early(self) -> Callable[[], str]:
        return lambda: self._joined(json.loads(self.rec.PartialResult()).get("partial", ""))

    def final(self) -> Callable[[], str]:
        return lambda: self._joined(json.loads(self.rec.FinalResult()).get("text", ""))

    def _joined(self, last: str) -> str:
        return " ".join([*self.segments, last]).strip()


class WhisperRecognizer(_BaseRecognizer):
    """Whisper tiny.en through faster-whisper (int8): transcribes at each pause, on its own worker thread."""

    name = "whisper"

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

    def _engine(self) -> _Engine:
        return _WhisperEngine(self.transcribe)

    def transcribe(self, samples: np.ndarray) -> str:
        """Whole float32 16 kHz mono audio to text (used by the engine and by benchmarks)."""
        self.load()
        # A 10 s encoder window instead of 30 s (3x faster); doubtful results are redone in 30 s.
        return whisper_fast.transcribe(self._model, samples, WHISPER_LANGUAGE, WHISPER_BEAM).text


class _WhisperEngine:
    """Keeps the audio; each job transcribes a copy of what was heard when it was made."""

    reuses_early = True

    def __init__(self, transcribe: Callable[[np.ndarray], str]) -> None:
        self.transcribe = transcribe
        self.chunks: list[np.ndarray] = []

    def accept(self, chunk: AudioChunk) -> None:
        self.chunks.append(chunk.to_float()[:, 0])

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

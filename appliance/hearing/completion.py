"""Whether a question is over, heard from the voice: Smart Turn v3.2 (an ONNX model that reads
Whisper's log-mel spectrum of the last 8 s of the question), asked at a short pause, on its own thread.

A fixed silence is wrong both ways: it waits after "what time is it?" and cuts off "set a timer
for... ten minutes". The model hears the intonation and the words' shape: a complete question lets
the endpointer end the question at once, an unfinished one makes it wait longer (endpoint.py).

The features are Whisper's own (16 kHz, a 400-sample Hann window every 160 samples, 80 mel bands
on the Slaney scale, log10 clamped to 8 decades under the peak, scaled to about [-1, 1]), on the
audio normalised to zero mean and unit variance, padded in front with silence to 8 s.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from appliance.audio import PIPELINE_RATE
from appliance.config import Config
from appliance.errors import MissingLibrary

_LOGGER = logging.getLogger(__name__)

WINDOW_S: Final = 8  # seconds of the question the model hears (its training window)
WINDOW_SAMPLES: Final = WINDOW_S * PIPELINE_RATE
FFT_SAMPLES: Final = 400  # 25 ms at 16 kHz
HOP_SAMPLES: Final = 160  # 10 ms at 16 kHz
MEL_BANDS: Final = 80
LOG_FLOOR: Final = 1e-10  # power below which the spectrum counts as silence
DYNAMIC_DECADES: Final = 8.0  # log10 range kept under the loudest band
COMPLETE: Final = 0.5  # probability above which the question is over


def _slaney_mel(hz: np.ndarray) -> np.ndarray:
    """Hertz to the Slaney mel scale: linear below 1 kHz, logarithmic above."""
    linear = 3.0 * hz / 200.0
    return np.where(hz < 1000.0, linear, 15.0 + np.log(np.maximum(hz, 1e-9) / 1000.0) * 27.0 / np.log(6.4))


def _slaney_hz(mel: np.ndarray) -> np.ndarray:
    linear = 200.0 * mel / 3.0
    return np.where(mel < 15.0, linear, 1000.0 * np.exp((mel - 15.0) * np.log(6.4) / 27.0))


def _mel_bank() -> np.ndarray:
    """(MEL_BANDS, FFT_SAMPLES // 2 + 1) triangular filters, each of unit area (Slaney's norm)."""
    edges = _slaney_hz(np.linspace(0.0, float(_slaney_mel(np.array(PIPELINE_RATE / 2.0))), MEL_BANDS + 2))
    bins = np.linspace(0.0, PIPELINE_RATE / 2.0, FFT_SAMPLES // 2 + 1)
    low, centre, high = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (bins[None, :] - low) / (centre - low)
    falling = (high - bins[None, :]) / (high - centre)
    return np.maximum(0.0, np.minimum(rising, falling)) * (2.0 / (high - low))


_BANK: Final = _mel_bank()
_HANN: Final = 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(FFT_SAMPLES) / FFT_SAMPLES)  # periodic


def features(audio: np.ndarray) -> np.ndarray:
    """The model's input for 16 kHz mono float audio: (MEL_BANDS, 800) float32, the last 8 s."""
    x = np.asarray(audio, dtype=np.float64)[-WINDOW_SAMPLES:]
    x = np.concatenate([np.zeros(WINDOW_SAMPLES - len(x)), x])
    x = (x - x.mean()) / np.sqrt(x.var() + 1e-7)
    half = FFT_SAMPLES // 2
    padded = np.pad(x, half, mode="reflect")
    frames = np.lib.stride_tricks.sliding_window_view(padded, FFT_SAMPLES)[::HOP_SAMPLES]
    power = np.abs(np.fft.rfft(frames * _HANN, axis=-1)) ** 2
    log_mel = np.log10(np.maximum(LOG_FLOOR, power @ _BANK.T)).T[:, :-1]
    log_mel = np.maximum(log_mel, log_mel.max() - DYNAMIC_DECADES)
    return ((log_mel + 4.0) / 4.0).astype(np.float32)


class CompletionModel:
    """Smart Turn v3.2 on onnxruntime, one thread that never spins (it runs a few times a question)."""

    def __init__(self, cfg: Config) -> None:
        self._config = cfg
        self._session: Any = None

    def load(self) -> CompletionModel:
        if self._session is not None:
            return self
        from appliance.setup import models

        found = models.resolve("turn", self._config)
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise MissingLibrary(f"onnxruntime is not installed ({exc}); `pip install onnxruntime`") from None
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(str(found.path), sess_options=options,
                                             providers=["CPUExecutionProvider"])
        _LOGGER.debug("Completion detector loaded from %s", found.describe())
        return self

    def probability(self, audio: np.ndarray) -> float:
        """How likely the speaker has finished, from the question's audio so far (16 kHz mono float)."""
        self.load()
        out = self._session.run(None, {"input_features": features(audio)[None]})
        return float(np.asarray(out[0]).reshape(-1)[0])


@dataclass(frozen=True)
class Verdict:
    complete: bool
    probability: float
    ms: float
    """How long the model took."""


class CompletionDetector:
    """Asks the model on a thread of its own, so the conductor's loop never waits for it."""

    def __init__(self, model: CompletionModel) -> None:
        self.model = model
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def load(self) -> CompletionDetector:
        self.model.load()
        return self

    def ask(self, audio: np.ndarray) -> Future[Verdict]:
        """The verdict on `audio` (the question so far), soon."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="completion")
            return self._pool.submit(self._judge, audio)

    def _judge(self, audio: np.ndarray) -> Verdict:
        started = time.perf_counter()
        p = self.model.probability(audio)
        ms = (time.perf_counter() - started) * 1000.0
        _LOGGER.debug("Completion detector: %.2f after %.1f s of audio (%.0f ms)", p, len(audio) / PIPELINE_RATE, ms)
        return Verdict(p > COMPLETE, p, ms)

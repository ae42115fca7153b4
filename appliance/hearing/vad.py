"""Voice-activity detection: Silero VAD (the ONNX model openWakeWord ships) on onnxruntime."""

from __future__ import annotations

import logging
from typing import Any, Final

import numpy as np

from appliance.audio import PIPELINE_RATE, AudioChunk
from appliance.config import Config
from appliance.errors import MissingLibrary

_LOGGER = logging.getLogger(__name__)

WINDOW_SAMPLES: Final = 512  # 32 ms at 16 kHz: the window Silero VAD is trained on
STATE_SHAPE: Final = (2, 1, 64)  # Silero v4 LSTM state (h and c)


class SileroVad:
    """Speech probability per chunk; keeps the model's state and leftover samples between chunks."""

    def __init__(self, cfg: Config, threads: int = 1) -> None:
        self._config = cfg
        self.threads = threads
        self._session: Any = None
        self._sr = np.array(PIPELINE_RATE, dtype=np.int64)
        self.reset()

    def load(self) -> SileroVad:
        if self._session is not None:
            return self
        from appliance.setup import models

        found = models.resolve("vad", self._config)
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise MissingLibrary(f"onnxruntime is not installed ({exc}); `pip install onnxruntime`") from None
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(found.path), sess_options=options,
                                             providers=["CPUExecutionProvider"])
        _LOGGER.debug("Silero VAD loaded from %s", found.describe())
        return self

    def reset(self) -> None:
        self._h = np.zeros(STATE_SHAPE, dtype=np.float32)
        self._c = np.zeros(STATE_SHAPE, dtype=np.float32)
        self._pending = np.zeros(0, dtype=np.float32)
        self.last = 0.0

    def probability(self, chunk: AudioChunk) -> float:
        """The highest speech probability (0-1) over the 32 ms windows completed by this chunk."""
        if self._session is None:
            self.load()
        samples = np.concatenate([self._pending, chunk.to_float()[:, 0]])
        best = None
        while len(samples) >= WINDOW_SAMPLES:
            window, samples = samples[:WINDOW_SAMPLES], samples[WINDOW_SAMPLES:]
            out, self._h, self._c = self._session.run(
                None, {"input": window[None, :], "sr": self._sr, "h": self._h, "c": self._c})
            p = float(out[0][0])
            best = p if best is None else max(best, p)
        self._pending = samples
        if best is not None:
            self.last = best
        return self.last

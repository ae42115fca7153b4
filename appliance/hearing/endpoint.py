"""The endpointer: when a question is over, from the VAD's speech probability on each chunk."""

from __future__ import annotations

from typing import Final, Protocol

from appliance.audio import AudioChunk
from appliance.config import AsrConfig

MIN_SPEECH_S: Final = 0.16  # seconds of voiced chunks in a row before it counts as speech (not a click)


class SpeechProbability(Protocol):
    """What the endpointer needs from a VAD (appliance.hearing.vad.SileroVad, or a fake in unit tests)."""

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

    @property
    def pausing(self) -> bool:
        """True from the first silent chunk after speech, when early transcripts are on."""
        return self.cfg.early_silence_s > 0 and self.heard_speech and self._silence_s > 0.0

    @property
    def speaking(self) -> bool:
        """True while speech goes on: heard, and the last chunk was voiced."""
        return self.heard_speech and self._silence_s == 0.0

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

"""The endpointer: when a question is over, from the VAD's speech probability on each chunk and, at a
pause, the completion detector's verdict on the voice (completion.py)."""

from __future__ import annotations

import logging
from collections import deque
from concurrent.futures import Future, wait
from typing import Final, Protocol

import numpy as np

from appliance.audio import AudioChunk
from appliance.config import AsrConfig
from appliance.hearing.completion import WINDOW_SAMPLES, Verdict

_LOGGER = logging.getLogger(__name__)

MIN_SPEECH_S: Final = 0.16  # seconds of voiced chunks in a row before it counts as speech (not a click)


class SpeechProbability(Protocol):
    """What the endpointer needs from a VAD (appliance.hearing.vad.SileroVad, or a fake in unit tests)."""

    def probability(self, chunk: AudioChunk) -> float: ...

    def reset(self) -> None: ...


class CompletionJudge(Protocol):
    """What the endpointer needs from the completion detector (completion.CompletionDetector, or a fake in unit tests)."""

    def ask(self, audio: np.ndarray) -> Future[Verdict]:
        """Whether the question in `audio` (16 kHz mono float) is over, judged off the caller's thread."""


class Endpointer:
    """Decides when an utterance is over: trailing silence after speech, no speech at all, or too long.

    With a completion detector, the silence that ends the question depends on what the voice says: at
    asr.turn_silence_s of a pause the detector is asked about the question so far; a finished
    question ends as soon as it says so, an unfinished one (or one not judged yet) only after
    asr.unfinished_silence_s. A detector that fails leaves the pause to asr.endpoint_silence_s.
    Without one, asr.endpoint_silence_s of silence ends every question.

    The words heard so far (hear()) overrule both: a question whose last word it never ends on
    ("set a timer for") is waited for up to asr.unfinished_silence_s, and the detector's "finished"
    counts only once the words of this pause are known.

    Times are stream times counted over the chunks fed after the wake word (the pre-roll is
    judged by the VAD too, so its state is warm, but does not count towards the limits).
    """

    def __init__(self, cfg: AsrConfig, vad: SpeechProbability, completion: CompletionJudge | None = None,
                 unfinished: frozenset[str] = frozenset()) -> None:
        self.cfg = cfg
        self.vad = vad
        self.completion = completion
        self.unfinished = unfinished
        """Words a question does not end on (the language pack's SentenceWords.unfinished)."""
        self.elapsed_s = 0.0
        self.heard_speech = False
        self.speech_end_s: float | None = None
        self.verdict: Verdict | None = None
        """The completion detector's verdict on the last pause judged."""
        self._voiced_run_s = 0.0
        self._silence_s = 0.0
        self._audio: deque[np.ndarray] = deque()
        """The question's last WINDOW_SAMPLES or more, as the completion detector hears it."""
        self._kept = 0
        self._asked: Future[Verdict] | None = None
        self._failed = False
        self._words = ""
        self._words_for: float | None = None

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
        self._keep(chunk)

    def feed(self, chunk: AudioChunk) -> str | None:
        """None while listening; 'speech', 'no_speech' or 'max_length' once it is over."""
        p = self.vad.probability(chunk)
        self._keep(chunk)
        self.elapsed_s += chunk.duration_s
        if p >= self.cfg.vad_threshold:
            self._voiced_run_s += chunk.duration_s
            self._silence_s = 0.0
            if self._voiced_run_s >= MIN_SPEECH_S - 1e-9:
                self.heard_speech = True
            self.speech_end_s = self.elapsed_s
            self._asked = None  # the person went on: the next pause is judged afresh
        else:
            self._voiced_run_s = 0.0
            self._silence_s += chunk.duration_s
        if self.heard_speech and self._silence_s > 0.0 and self._judged_over():
            return "speech"
        if self.heard_speech and self._silence_s >= self._silence_limit() - 1e-9:
            return "speech"
        if not self.heard_speech and self.elapsed_s >= self.cfg.no_speech_timeout_s - 1e-9:
            return "no_speech"
        if self.elapsed_s >= self.cfg.max_utterance_s - 1e-9:
            return "max_length"
        return None

    def hear(self, words: str, speech_end_s: float | None) -> None:
        """The text of the question up to the pause that began at `speech_end_s` (a partial or early transcript)."""
        self._words, self._words_for = words, speech_end_s

    def settle(self, timeout: float) -> None:
        """Block until the completion detector has judged the pause it was asked about (benchmarks and tests)."""
        if self._asked is not None:
            wait([self._asked], timeout=timeout)

    @property
    def words_unfinished(self) -> bool:
        """The last word heard is one a question does not end on."""
        last = self._words.casefold().replace("\u2019", "'").rstrip(" .,!?;:-").rsplit(" ", 1)[-1:]
        return bool(last) and last[0] in self.unfinished

    def _keep(self, chunk: AudioChunk) -> None:
        if self.completion is None:
            return
        samples = chunk.to_float()[:, 0]
        self._audio.append(samples)
        self._kept += len(samples)
        while self._kept - len(self._audio[0]) >= WINDOW_SAMPLES:
            self._kept -= len(self._audio.popleft())

    def _silence_limit(self) -> float:
        """The pause that ends the question now: longer while the completion detector has not heard it finished."""
        waiting = self.words_unfinished or (self.completion is not None and not self._failed)
        if waiting:
            return max(self.cfg.unfinished_silence_s, self.cfg.endpoint_silence_s)
        return self.cfg.endpoint_silence_s

    def _judged_over(self) -> bool:
        """Asks the completion detector once per pause; True when it has heard the question finished."""
        if self.completion is None or self._failed:
            return False
        if self._asked is None:
            if self._silence_s < self.cfg.turn_silence_s - 1e-9:
                return False
            self._asked = self.completion.ask(np.concatenate(self._audio))
        if not self._asked.done():
            return False
        try:
            verdict = self._asked.result()
        except Exception as exc:  # noqa: BLE001 - a broken detector leaves the pause to the silence alone
            _LOGGER.warning("The completion detector failed (%s); questions end after %.1f s of silence",
                            exc, self.cfg.endpoint_silence_s)
            self._failed = True
            return False
        if verdict is not self.verdict:
            self.verdict = verdict
            _LOGGER.debug("Question %s (%.2f, %.0f ms) after %.2f s of silence",
                          "finished" if verdict.complete else "unfinished", verdict.probability, verdict.ms,
                          self._silence_s)
        # Finished counts once this pause's words are known to end well: the answer needs them anyway. A pause
        # with no words before it is not the end of a question but the wait for one (the voice detector took a
        # sound for speech: the wake chime's echo in a room, the end of the wake word): it is over only after
        # the longer silence.
        return (verdict.complete and self._words_for == self.speech_end_s and bool(self._words.strip())
                and not self.words_unfinished)

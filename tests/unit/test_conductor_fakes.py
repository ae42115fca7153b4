"""Fakes for the conductor's stages: scripted chunks carry a label the fakes react to."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator

from appliance.audio import AudioChunk
from appliance.stages import AnswerStats, SkillReply, Transcript, WakeHit

CHUNK_BYTES = 2560  # 80 ms of 16 kHz int16


def chunk(label: str) -> AudioChunk:
    """An 80 ms chunk whose first bytes name what it 'contains': WAKE, BARGE, ECHO, SAY:text, SIL."""
    return AudioChunk(label.encode().ljust(CHUNK_BYTES, b"\0"), 16000)


def label(c: AudioChunk) -> str:
    return c.samples.rstrip(b"\0").decode()


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class FakeSource:
    def __init__(self, chunks: list[AudioChunk] | None = None) -> None:
        self.chunks = list(chunks or [])
        self.frames_read = 0
        self.eof = False
        self.fill: str | None = None
        """When set, the label of endless chunks after the script (a live microphone)."""
        self.raise_next: Exception | None = None

    def read(self, timeout: float) -> AudioChunk | None:
        if self.raise_next is not None:
            exc, self.raise_next = self.raise_next, None
            raise exc
        if not self.chunks:
            time.sleep(min(timeout, 0.01))
            if self.fill is None:
                return None
            self.frames_read += 1
            return chunk(self.fill)
        self.frames_read += 1
        return self.chunks.pop(0)

    def status(self) -> str:
        return "ok"

    def close(self) -> None:
        pass


class FakeSink:
    def __init__(self) -> None:
        self.played: list[str] = []
        self.events: list[str] = []
        self.fail_play = False
        self._first: float | None = None
        self._marked = False
        self.lock = threading.Lock()

    def play(self, c: AudioChunk) -> None:
        if self.fail_play:
            raise OSError("speaker unplugged")
        with self.lock:
            self.played.append(label(c))
            self.events.append("play:" + label(c))
            if self._marked and self._first is None:
                self._first = time.monotonic()

    def stop(self) -> None:
        with self.lock:
            self.events.append("stop")

    def drain(self, timeout: float) -> bool:
        return True

    def first_audio_at(self) -> float | None:
        return self._first

    def mark_turn(self) -> None:
        self._marked, self._first = True, None

    def close(self) -> None:
        pass


class FakeWake:
    """WAKE scores 0.7 (fires at 0.5, not at the 0.8 barge-in threshold), BARGE 0.95, ECHO 0.6."""

    SCORES = {"WAKE": 0.7, "BARGE": 0.95, "ECHO": 0.6}

    def __init__(self) -> None:
        self.resets = 0
        self.new_streams = 0
        self.calls: list[tuple[str, float | None]] = []
        self.fail = False

    def process(self, c: AudioChunk, threshold: float | None = None) -> WakeHit | None:
        self.calls.append((label(c), threshold))
        if self.fail:
            raise RuntimeError("onnx session broke")
        score = self.SCORES.get(label(c), 0.0)
        return WakeHit("hey_jarvis", score, 0.0) if score >= (threshold or 0.5) else None

    def reset(self, new_stream: bool = False) -> None:
        self.resets += 1
        self.new_streams += new_stream


class FakeUtterance:
    """Collects SAY:text chunks; two SIL chunks after speech end it; `no_speech_chunks` of silence give up.

    With `asr.early` one SIL chunk after speech makes an early transcript (withdrawn by more
    speech), as asr.py's does at asr.early_silence_s; `asr.final_suffix` makes the final text differ.
    """

    def __init__(self, asr: FakeAsr, preroll_chunks: int) -> None:
        self.asr = asr
        self.words: list[str] = []
        self.silence = 0
        self.fed = 0  # stream time counts from after the wake word, as in asr.py
        self.speech_started = False
        self.early: Transcript | None = None

    def feed(self, c: AudioChunk) -> Transcript | None:
        if self.asr.fail_feed:
            raise RuntimeError("recognizer crashed")
        self.fed += 1
        text = label(c)
        if text.startswith("SAY:"):
            self.words.append(text[4:])
            self.speech_started, self.silence, self.early = True, 0, None
            return None
        self.silence += 1
        if self.speech_started and self.silence == 1 and self.asr.early:
            self.early = Transcript(" ".join(self.words), "early", speech_end_s=self.fed * 0.08 - 0.08)
        if self.speech_started and self.silence >= 2:
            end_s = self.fed * 0.08 - 0.16
            return Transcript(" ".join(self.words) + self.asr.final_suffix, "speech", speech_end_s=end_s)
        if not self.speech_started and self.silence >= self.asr.no_speech_chunks:
            return Transcript("", "no_speech")
        return None

    def finish(self) -> Transcript:
        return Transcript(" ".join(self.words), "speech" if self.words else "no_speech")


class FakeAsr:
    name = "fake"

    def __init__(self) -> None:
        self.prerolls: list[list[str]] = []
        self.fail_start = False
        self.fail_feed = False
        self.no_speech_chunks = 1000
        self.early = False
        self.final_suffix = ""

    def start(self, preroll: list[AudioChunk]) -> FakeUtterance:
        if self.fail_start:
            raise RuntimeError("model not loaded")
        self.prerolls.append([label(c) for c in preroll])
        return FakeUtterance(self, len(preroll))


class FakeSkills:
    def __init__(self) -> None:
        self.fail = False

    def match(self, transcript: str) -> SkillReply | None:
        if self.fail:
            raise ValueError("bad timer state")
        if "time" in transcript:
            return SkillReply("It's 7:20 PM.", "time")
        if transcript.strip() == "stop":
            return SkillReply("", "stop", end_turn=True)
        return None


class FakeChat:
    def __init__(self, answer: str = "Paris is the capital. It is in France.", delay_s: float = 0.0) -> None:
        self.answer = answer
        self.delay_s = delay_s
        self.questions: list[str] = []
        self.cancelled = threading.Event()
        self.fail_after: int | None = None
        self.hang = threading.Event()
        self.hang_hard = threading.Event()
        """While set, stream() ignores cancel (a hung llama_decode) until it is cleared."""
        self.active = 0
        self.most_active = 0
        self.forgotten: list[str] = []
        self._stats = AnswerStats()

    def forget(self, question: str) -> bool:
        self.forgotten.append(question)
        return True

    def stream(self, question: str, cancel: threading.Event) -> Iterator[str]:
        self.active += 1
        self.most_active = max(self.most_active, self.active)
        try:
            yield from self._stream(question, cancel)
        finally:
            self.active -= 1

    def _stream(self, question: str, cancel: threading.Event) -> Iterator[str]:
        self.questions.append(question)
        while self.hang_hard.is_set():
            time.sleep(0.01)
        if self.hang.is_set():
            while not cancel.wait(0.01):
                pass
            self.cancelled.set()
            return
        deltas = re.findall(r"\S+\s*", self.answer)
        for i, delta in enumerate(deltas):
            if self.fail_after is not None and i >= self.fail_after:
                raise RuntimeError("llama_decode returned -1")
            if cancel.is_set():
                self.cancelled.set()
                self._stats = AnswerStats(tokens=i, stop_reason="cancelled")
                return
            if self.delay_s:
                time.sleep(self.delay_s)
            try:
                yield delta
            except GeneratorExit:  # the consumer stopped reading: cancelled too
                self.cancelled.set()
                raise
        self._stats = AnswerStats(prompt_tokens=40, cached_prompt_tokens=30, tokens=len(deltas),
                                  ttft_ms=5.0, tokens_per_s=100.0, stop_reason="stop")

    @property
    def last_stats(self) -> AnswerStats:
        return self._stats


class FakeTts:
    rate = 16000

    def __init__(self, delay_s: float = 0.0) -> None:
        self.texts: list[str] = []
        self.fail = False
        self.delay_s = delay_s

    def synthesize(self, text: str) -> Iterator[AudioChunk]:
        if self.fail:
            raise RuntimeError("piper failed")
        self.texts.append(text)
        for part in (1, 2):
            if self.delay_s:
                time.sleep(self.delay_s)
            yield chunk(f"TTS:{text}#{part}")


class FakeEarcons:
    def get(self, name: str) -> AudioChunk:
        return chunk(f"EARCON:{name}")


class FakeSplitter:
    """Sentences end at . ? or !"""

    def __init__(self) -> None:
        self.buf = ""

    def add(self, delta: str) -> list[str]:
        self.buf += delta
        out = []
        while (m := re.search(r"[.?!]\s", self.buf)):
            out.append(self.buf[: m.end()].strip())
            self.buf = self.buf[m.end():]
        return out

    def finish(self) -> list[str]:
        rest, self.buf = self.buf.strip(), ""
        return [rest] if rest else []


class FakeTimers:
    def __init__(self) -> None:
        self.pending: list[str] = []

    def due(self) -> list[str]:
        out, self.pending = self.pending, []
        return out

"""Whisper on a short question without padding it to 30 s: a shorter encoder window, guarded by fallbacks."""

from __future__ import annotations

import functools
import logging
import math
import zlib
from typing import Any, Final, NamedTuple

import numpy as np

_LOGGER = logging.getLogger(__name__)

MIN_CONTEXT_S: Final = 10.0  # seconds of encoder window at least: shorter ones loop ("Good night. Good night.")
MARGIN_S: Final = 1.0  # seconds of padding after the audio, at least
ROUND_S: Final = 1.0  # the window grows in steps of this many seconds
TOKENS_PER_S: Final = 10  # tokens per second of audio at most (fast speech makes about 5)
EXTRA_TOKENS: Final = 8  # tokens on top, for a very short question
MAX_SPEECH_S: Final = 12.0  # the token budget stops growing here (asr.max_utterance_s)
LOG_PROB_THRESHOLD: Final = -1.0  # faster-whisper's defaults for a doubtful or silent window
NO_SPEECH_THRESHOLD: Final = 0.6
COMPRESSION_RATIO_THRESHOLD: Final = 2.4
FALLBACK_BEAM: Final = 5  # beams of the full-window decode a doubtful short one falls back to (faster-whisper's)
MIN_REPEAT_TOKENS: Final = 2  # a block of this many tokens said twice in a row is a loop ("Stop. Stop.")


class Transcription(NamedTuple):
    """The text, and "short" or the reason the library's own 30 s path was taken instead."""

    text: str
    path: str


class _Decoding(NamedTuple):
    prompt: list[int]
    suppress: list[int]
    tokenizer: Any  # faster_whisper.tokenizer.Tokenizer


def transcribe(model: Any, samples: np.ndarray, language: str | None = "en", beam_size: int = 1,
               hint: str = "") -> Transcription:
    """Whole float32 16 kHz mono audio to text with a faster-whisper `WhisperModel`.

    `hint`: text Whisper takes as what was said just before (its previous-text prompt), to lean it
    toward the words expected now ("Cancel. Be quiet."); empty for none. Only the short window is told:
    a doubtful one is redone without it, since on unclear audio the hint is what Whisper hears (the
    hub's own half-cancelled "Timer set for 5 seconds." came out of the 30 s window as "That's enough.").

    The log-mel features are padded to the audio's length plus MARGIN_S (at least MIN_CONTEXT_S)
    instead of 30 s, so the encoder does a fraction of the work. Audio that does not fit one
    window, a multilingual model without a language, and a doubtful result (a loop, the token
    budget used up, a low log-probability) go through the library's own `transcribe`.
    """
    samples = np.ascontiguousarray(samples, dtype=np.float32)
    extractor = model.feature_extractor
    frames = context_frames(len(samples) // extractor.hop_length, model.frames_per_second)
    decoding = _decoding(model, language)
    if decoding is None or frames > extractor.nb_max_frames:
        return _fallback(model, samples, language, beam_size, "language" if decoding is None else "long")
    if hint:
        decoding = decoding._replace(prompt=[*_previous_text(decoding.tokenizer, hint), *decoding.prompt])
    text, doubt = _short_window(model, samples, decoding, frames, beam_size)
    return Transcription(text, "short") if doubt is None else _fallback(model, samples, language, beam_size, doubt)


def _short_window(model: Any, samples: np.ndarray, decoding: _Decoding, frames: int,
                  beam_size: int) -> tuple[str, str | None]:
    """(text, None), ("", None) for silence, or (text, why it cannot be trusted), from one short window."""
    from ctranslate2 import StorageView
    from faster_whisper.audio import pad_or_trim

    extractor = model.feature_extractor
    features = extractor(samples)[:, :-1]  # the library drops the last frame too
    encoded = model.model.encode(StorageView.from_array(np.ascontiguousarray(pad_or_trim(features, frames)[None])),
                                 to_cpu=False)
    max_new = math.ceil(min(len(samples) / extractor.sampling_rate, MAX_SPEECH_S) * TOKENS_PER_S) + EXTRA_TOKENS
    result = model.model.generate(
        encoded, [decoding.prompt], beam_size=beam_size, max_length=len(decoding.prompt) + max_new,
        return_scores=True, return_no_speech_prob=True, suppress_blank=True,
        suppress_tokens=decoding.suppress)[0]
    tokens = result.sequences_ids[0]
    text = decoding.tokenizer.decode(tokens).strip()
    avg_logprob = result.scores[0] * len(tokens) / (len(tokens) + 1)  # as faster-whisper recovers it
    if result.no_speech_prob > NO_SPEECH_THRESHOLD and avg_logprob < LOG_PROB_THRESHOLD:
        return "", None  # the library skips such a window as silence
    return text, judge(tokens, text, avg_logprob, result.no_speech_prob, max_new)


def context_frames(n_frames: int, frames_per_s: int = 100) -> int:
    """Encoder frames for `n_frames` of audio: plus MARGIN_S, rounded up to ROUND_S, MIN_CONTEXT_S at least."""
    step = round(ROUND_S * frames_per_s)
    wanted = math.ceil((n_frames + MARGIN_S * frames_per_s) / step) * step
    return max(round(MIN_CONTEXT_S * frames_per_s), wanted)


def judge(tokens: list[int], text: str, avg_logprob: float, no_speech_prob: float, max_new: int) -> str | None:
    """None if a short-window result can be trusted, else why not: a loop or an unsure decode."""
    if len(tokens) >= max_new:
        return "max_length"
    if repeats(tokens) or compression_ratio(text) > COMPRESSION_RATIO_THRESHOLD:
        return "repeats"
    if avg_logprob < LOG_PROB_THRESHOLD or no_speech_prob > NO_SPEECH_THRESHOLD:
        return "unsure"
    return None


def repeats(tokens: list[int], min_block: int = MIN_REPEAT_TOKENS) -> bool:
    """True if some block of `min_block` or more tokens comes twice in a row.

    A person who really says a phrase twice costs a redo in the full window, nothing worse.
    """
    n = len(tokens)
    return any(tokens[i:i + k] == tokens[i + k:i + 2 * k]
               for k in range(min_block, n // 2 + 1) for i in range(n - 2 * k + 1))


def compression_ratio(text: str) -> float:
    """Bytes over zlib-compressed bytes: faster-whisper's measure of repetitive text."""
    raw = text.encode("utf-8")
    return len(raw) / len(zlib.compress(raw)) if raw else 0.0


def transcribe_full(model: Any, samples: np.ndarray, language: str | None = "en", beam_size: int = 1) -> str:
    """The library's own path: 30 s windows, its silence skip, and beam search (at least FALLBACK_BEAM) where
    the library would sample at rising temperatures: sampled, one short "stop" was heard as "stop" in one
    run and "start" in the next, so the same audio is heard the same every time instead."""
    segments, _info = model.transcribe(
        np.asarray(samples, dtype=np.float32), language=language, beam_size=max(beam_size, FALLBACK_BEAM),
        temperature=0.0, vad_filter=False, condition_on_previous_text=False, without_timestamps=True)
    return " ".join(s.text.strip() for s in segments).strip()


def _fallback(model: Any, samples: np.ndarray, language: str | None, beam_size: int, why: str) -> Transcription:
    _LOGGER.debug("Whisper: full 30 s window (%s)", why)
    return Transcription(transcribe_full(model, samples, language, beam_size), why)


@functools.lru_cache(maxsize=8)
def _previous_text(tokenizer: Any, hint: str) -> tuple[int, ...]:
    """<|startofprev|> and the hint's tokens, as faster-whisper builds its `initial_prompt`."""
    return (tokenizer.sot_prev, *tokenizer.encode(" " + hint.strip()))


@functools.lru_cache(maxsize=4)
def _decoding(model: Any, language: str | None) -> _Decoding | None:
    """Prompt <|startoftranscript|>[<|lang|><|transcribe|>]<|notimestamps|> and the tokens to suppress.

    Cached per model (the appliance loads one, and keeps it for its lifetime).
    """
    from faster_whisper.tokenizer import Tokenizer
    from faster_whisper.transcribe import get_suppressed_tokens

    multilingual = bool(model.model.is_multilingual)
    if multilingual and language is None:
        return None  # the library detects the language
    tokenizer = Tokenizer(model.hf_tokenizer, multilingual, task="transcribe", language=language)
    suppress = list(get_suppressed_tokens(tokenizer, [-1]) or [])
    return _Decoding([*tokenizer.sot_sequence, tokenizer.no_timestamps], suppress, tokenizer)

"""The short-window Whisper path's guards and fallbacks, on a fake faster-whisper model."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from appliance.hearing import whisper_fast
from appliance.hearing.whisper_fast import compression_ratio, context_frames, judge, repeats

RATE = 16000
SOT, NO_TIMESTAMPS, EOT = 50257, 50362, 50256


def test_context_is_the_audio_plus_a_second_rounded_up_and_ten_seconds_at_least() -> None:
    assert context_frames(200) == 1000  # a 2 s question: 10 s, not 30 s
    assert context_frames(900) == 1000
    assert context_frames(901) == 1100
    assert context_frames(1230) == 1400  # 12.3 s: 13.3 s rounded up to 14 s
    assert context_frames(2900) == 3000  # 29 s: the library's own window
    assert context_frames(2901) > 3000  # the caller falls back


def test_repeats_finds_a_block_said_twice_in_a_row() -> None:
    good, night, stop, dot = 1, 2, 3, 4
    assert repeats([good, night, dot, good, night, dot])
    assert repeats([9, good, night, dot, good, night, dot, good])  # cut off by the token budget
    assert repeats([stop, dot, stop, dot])  # "Stop. Stop." from a 1.3 s "stop" in a short window
    assert not repeats([good, night, dot, good, night])
    assert not repeats([9, stop, stop, dot])  # one word twice ("very very") is a block too short
    assert not repeats([])


def test_judge_trusts_a_plain_answer_and_names_each_doubt() -> None:
    tokens = list(range(7))
    assert judge(tokens, "What is the weather like tomorrow?", -0.1, 0.05, 28) is None
    assert judge(list(range(28)), "x" * 28, -0.1, 0.05, 28) == "max_length"
    assert judge([1, 2, 3, 1, 2, 3], "Good night. Good night.", -0.1, 0.05, 28) == "repeats"
    assert judge(tokens, "la " * 40, -0.1, 0.05, 200) == "repeats"  # faster-whisper's gzip ratio
    assert judge(tokens, "Otherwise, I make pancakes.", -1.3, 0.05, 28) == "unsure"
    assert judge(tokens, "You", -0.5, 0.9, 28) == "unsure"
    assert compression_ratio("la " * 40) > whisper_fast.COMPRESSION_RATIO_THRESHOLD > compression_ratio(
        "What is the weather like tomorrow?")


# ---- the whole flow on a fake WhisperModel (needs faster-whisper's tokenizer and ctranslate2)
class FakeVocabulary:
    """Enough of a `tokenizers.Tokenizer`: one token per character, the special tokens by name."""

    def __init__(self) -> None:
        self.special = {"<|startoftranscript|>": SOT, "<|notimestamps|>": NO_TIMESTAMPS, "<|endoftext|>": EOT}

    def token_to_id(self, name: str) -> int:
        return self.special.setdefault(name, 50300 + len(self.special))

    def encode(self, text: str, add_special_tokens: bool = False) -> SimpleNamespace:
        return SimpleNamespace(ids=[ord(c) for c in text])

    def decode(self, ids: list[int]) -> str:
        return "".join(chr(i) for i in ids)


class FakeWhisper:
    """A faster-whisper WhisperModel that decodes `said` (scripted) and records what it was asked."""

    frames_per_second = 100

    def __init__(self, said: str, score: float = -0.1, no_speech: float = 0.05, multilingual: bool = False):
        self.said, self.score, self.no_speech = said, score, no_speech
        self.encoded: list[tuple[int, ...]] = []
        self.generated: list[dict[str, Any]] = []
        self.full_calls = 0
        self.hf_tokenizer = FakeVocabulary()
        self.feature_extractor = FakeFeatures()
        self.model = SimpleNamespace(is_multilingual=multilingual, encode=self._encode, generate=self._generate)

    def _encode(self, features: Any, to_cpu: bool = False) -> str:
        self.encoded.append(tuple(features.shape))
        return "encoded"

    def _generate(self, encoded: str, prompts: list[list[int]], **options: Any) -> list[SimpleNamespace]:
        self.generated.append({"prompt": prompts[0], **options})
        budget = options["max_length"] - len(prompts[0])
        tokens = [ord(c) for c in self.said][:budget]
        return [SimpleNamespace(sequences_ids=[tokens], scores=[self.score], no_speech_prob=self.no_speech)]

    def transcribe(self, samples: np.ndarray, **options: Any) -> tuple[list[SimpleNamespace], None]:
        self.full_calls += 1
        self.full_options = options
        return [SimpleNamespace(text=" The full window's answer. ")], None


class FakeFeatures:
    nb_max_frames = 3000
    hop_length = 160
    sampling_rate = RATE

    def __call__(self, samples: np.ndarray) -> np.ndarray:
        return np.zeros((80, len(samples) // self.hop_length + 1), dtype=np.float32)


@pytest.fixture(autouse=True)
def _needs_faster_whisper() -> None:
    pytest.importorskip("faster_whisper")


def seconds(s: float) -> np.ndarray:
    return np.zeros(int(s * RATE), dtype=np.float32)


def test_a_four_second_question_is_encoded_in_a_ten_second_window_with_the_tokenizers_prompt() -> None:
    model = FakeWhisper(" What is the weather like tomorrow?")
    result = whisper_fast.transcribe(model, seconds(4.0))
    assert result == ("What is the weather like tomorrow?", "short")
    assert model.encoded == [(1, 80, 1000)] and model.full_calls == 0
    asked = model.generated[0]
    assert asked["prompt"] == [SOT, NO_TIMESTAMPS]
    assert asked["max_length"] == 2 + 4 * whisper_fast.TOKENS_PER_S + whisper_fast.EXTRA_TOKENS
    assert SOT in asked["suppress_tokens"] and ord("♪") in asked["suppress_tokens"]  # like faster-whisper
    assert ord(",") not in asked["suppress_tokens"]


def test_the_token_budget_stops_growing_at_twelve_seconds() -> None:
    model = FakeWhisper(" Hello.")
    whisper_fast.transcribe(model, seconds(20.0))
    assert model.generated[0]["max_length"] == 2 + 12 * whisper_fast.TOKENS_PER_S + whisper_fast.EXTRA_TOKENS


@pytest.mark.parametrize(("said", "why"), [
    (" Good night." * 3, "repeats"),  # a loop that ends before the budget
    (" Good night and sleep well" * 9, "max_length"),  # a loop cut off by the token budget
])
def test_a_loop_is_redone_in_the_full_window(said: str, why: str) -> None:
    model = FakeWhisper(said)
    assert whisper_fast.transcribe(model, seconds(4.0)) == ("The full window's answer.", why)
    assert model.full_calls == 1


def test_silence_is_empty_and_a_doubtful_decode_is_redone() -> None:
    silent = FakeWhisper(" you", score=-1.5, no_speech=0.95)
    assert whisper_fast.transcribe(silent, seconds(4.0)) == ("", "short")
    assert silent.full_calls == 0
    unsure = FakeWhisper(" Otherwise, I make pancakes.", score=-1.4, no_speech=0.1)
    assert whisper_fast.transcribe(unsure, seconds(4.0)) == ("The full window's answer.", "unsure")


def test_audio_longer_than_one_window_goes_to_the_library_unencoded() -> None:
    model = FakeWhisper(" Hello.")
    assert whisper_fast.transcribe(model, seconds(31.0)) == ("The full window's answer.", "long")
    assert model.encoded == [] and model.generated == []


def test_a_multilingual_model_gets_its_language_in_the_prompt_or_falls_back_without_one() -> None:
    model = FakeWhisper(" Hello.", multilingual=True)
    assert whisper_fast.transcribe(model, seconds(4.0), language="en") == ("Hello.", "short")
    vocabulary = model.hf_tokenizer
    assert model.generated[0]["prompt"] == [SOT, vocabulary.token_to_id("<|en|>"),
                                            vocabulary.token_to_id("<|transcribe|>"), NO_TIMESTAMPS]
    assert whisper_fast.transcribe(model, seconds(4.0), language=None) == ("The full window's answer.", "language")


def test_a_hint_is_the_previous_text_of_the_short_window() -> None:
    model = FakeWhisper(" Cancel.")
    assert whisper_fast.transcribe(model, seconds(1.0), hint="Cancel. Enough.") == ("Cancel.", "short")
    asked = model.generated[0]
    before = [model.hf_tokenizer.token_to_id("<|startofprev|>"), *(ord(c) for c in " Cancel. Enough.")]
    assert asked["prompt"] == [*before, SOT, NO_TIMESTAMPS]
    assert asked["max_length"] == len(asked["prompt"]) + 1 * whisper_fast.TOKENS_PER_S + whisper_fast.EXTRA_TOKENS



def test_a_doubtful_window_is_redone_without_the_hint() -> None:
    unsure = FakeWhisper(" That's enough.", score=-1.4, no_speech=0.1)
    assert whisper_fast.transcribe(unsure, seconds(1.0), hint="That's enough.") == ("The full window's answer.", "unsure")
    assert unsure.full_options.get("initial_prompt") is None

"""The end of a question heard from the voice and the words, with the real models: Smart Turn v3.2 hears a
finished question as finished, and a question with a pause inside it is heard whole, fed as a
microphone feeds it (in real time)."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest

from appliance.audio import AudioChunk
from appliance.config import Config
from appliance.hearing.asr import WhisperRecognizer, choose_engine
from appliance.hearing.completion import CompletionModel
from tests.fixtures.paused import heard_whole, with_pause
from tests.fixtures.speech import RATE, SpeechMaker, load, silence
from tests.fixtures.waits import SLOW_WAIT_S

pytestmark = pytest.mark.models

CHUNK = 1280  # 80 ms at 16 kHz, as the microphone hands it over


def hear(recognizer: WhisperRecognizer, audio: np.ndarray) -> str:
    """The transcript of `audio` fed chunk by chunk at the pace of a microphone."""
    utterance = recognizer.start([])
    pcm = (np.clip(audio, -1.0, 1.0) * 32767).astype(np.int16)
    started = time.monotonic()
    for n, i in enumerate(range(0, len(pcm), CHUNK)):
        time.sleep(max(0.0, started + n * CHUNK / RATE - time.monotonic()))
        utterance.feed(AudioChunk.from_int16(pcm[i:i + CHUNK], RATE))
        if utterance.ended:
            break
    else:
        utterance.finish()
    done = utterance.wait(SLOW_WAIT_S)
    assert done is not None
    return done.text


@pytest.fixture(scope="module")
def recognizer() -> WhisperRecognizer:
    cfg = Config()
    cfg = dataclasses.replace(cfg, asr=dataclasses.replace(cfg.asr, engine="whisper"))
    return WhisperRecognizer(cfg, choose_engine(cfg)[1]).load()


def test_a_finished_question_is_heard_finished(speech: SpeechMaker) -> None:
    audio = np.concatenate([load(speech("What is the capital of France?")), silence(0.2)])
    assert CompletionModel(Config()).probability(audio) > 0.5


@pytest.mark.parametrize(("question", "after", "pause_s"), [
    ("Set a timer for ten minutes.", "for", 0.8),
    ("How many legs does a spider have?", "does", 0.7),
])
def test_a_question_with_a_pause_inside_is_heard_whole(recognizer: WhisperRecognizer, speech: SpeechMaker,
                                                         question: str, after: str, pause_s: float) -> None:
    audio = np.concatenate([silence(0.3), with_pause(load(speech(question)), after, pause_s), silence(2.0)])
    text = hear(recognizer, audio)
    assert heard_whole(text, question, after), text

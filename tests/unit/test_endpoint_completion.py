"""The end of a question from the voice and the words: the endpointer with a scripted completion detector
and scripted words (the real model's own test is in the models tier)."""

from __future__ import annotations

import threading
from concurrent.futures import Future

import numpy as np
import pytest

from appliance.config import AsrConfig
from appliance.hearing.completion import Verdict
from appliance.hearing.endpoint import Endpointer
from appliance.language import pack
from tests.fixtures.waits import WAIT_S
from tests.unit.test_asr_endpoint import ScriptedVad, chunk

CFG = AsrConfig(endpoint_silence_s=0.64, turn_silence_s=0.16, unfinished_silence_s=1.6)
UNFINISHED = pack().sentences.unfinished


class ScriptedCompletion:
    """Answers each question with the next verdict of its script; `hold` keeps an answer back."""

    def __init__(self, *complete: bool, hold: bool = False) -> None:
        self.script = list(complete)
        self.asked: list[int] = []
        """Samples of audio each question was asked with."""
        self.pending: list[Future[Verdict]] = []
        self.hold = hold

    def ask(self, audio: np.ndarray) -> Future[Verdict]:
        self.asked.append(len(audio))
        future: Future[Verdict] = Future()
        verdict = Verdict(self.script.pop(0), 0.9, 12.0)
        if self.hold:
            self.pending.append(future)
            future.verdict = verdict  # type: ignore[attr-defined]
        else:
            future.set_result(verdict)
        return future

    def release(self) -> None:
        for future in self.pending:
            future.set_result(future.verdict)  # type: ignore[attr-defined]


class Broken:
    def ask(self, audio: np.ndarray) -> Future[Verdict]:
        future: Future[Verdict] = Future()
        future.set_exception(RuntimeError("onnxruntime: bad input"))
        return future


def feed(endpointer: Endpointer, chunks: int, words: str | None = None) -> tuple[str | None, int]:
    """Feeds up to `chunks` chunks; the outcome and how many were fed. `words` are heard at the pause."""
    for n in range(1, chunks + 1):
        outcome = endpointer.feed(chunk())
        if words is not None and not endpointer.speaking:
            endpointer.hear(words, endpointer.speech_end_s)
        if outcome is not None:
            return outcome, n
    return None, chunks


def test_a_finished_question_ends_as_soon_as_the_detector_says_so() -> None:
    completion = ScriptedCompletion(True)
    endpointer = Endpointer(CFG, ScriptedVad("#####" + "." * 40), completion, UNFINISHED)
    outcome, n = feed(endpointer, 40, "what time is it")
    assert outcome == "speech" and n == 5 + 2  # 2 x 80 ms of silence, not 8
    assert endpointer.verdict is not None and endpointer.verdict.complete
    assert completion.asked == [7 * 1280]  # asked once, with the whole question so far


def test_an_unfinished_question_waits_for_the_rest() -> None:
    completion = ScriptedCompletion(False, True)
    script = "#####" + "." * 10 + "####" + "." * 40  # a 0.8 s pause inside the question
    endpointer = Endpointer(CFG, ScriptedVad(script), completion, UNFINISHED)
    outcome, n = feed(endpointer, 60, "set a timer")
    assert outcome == "speech" and n == 5 + 10 + 4 + 2  # through the pause, then at once
    assert len(completion.asked) == 2  # one question per pause


def test_an_unfinished_question_ends_after_the_longer_silence() -> None:
    endpointer = Endpointer(CFG, ScriptedVad("#####" + "." * 40), ScriptedCompletion(False), UNFINISHED)
    outcome, n = feed(endpointer, 40, "set a timer")
    assert outcome == "speech" and n == 5 + 20  # 1.6 s


def test_words_a_question_never_ends_on_overrule_the_detector() -> None:
    endpointer = Endpointer(CFG, ScriptedVad("#####" + "." * 40), ScriptedCompletion(True), UNFINISHED)
    outcome, n = feed(endpointer, 40, "set a timer for")
    assert outcome == "speech" and n == 5 + 20


@pytest.mark.parametrize(("words", "waits"), [
    ("How far is it from?", True), ("Can you tell me how", True), ("What is the difference between a", True),
    ("What time is it?", False), ("Turn the kitchen lights on.", False), ("What is the capital of France?", False),
])
def test_the_words_that_keep_a_pause_open(words: str, waits: bool) -> None:
    endpointer = Endpointer(CFG, ScriptedVad("#####" + "." * 40), ScriptedCompletion(True), UNFINISHED)
    assert feed(endpointer, 40, words) == ("speech", 5 + (20 if waits else 2))


def test_without_a_detector_the_words_still_keep_a_pause_inside_the_question() -> None:
    endpointer = Endpointer(CFG, ScriptedVad("#####" + "." * 40), None, UNFINISHED)
    assert feed(endpointer, 40, "what is the capital of") == ("speech", 5 + 20)
    endpointer = Endpointer(CFG, ScriptedVad("#####" + "." * 40), None, UNFINISHED)
    assert feed(endpointer, 40, "what is the capital of france") == ("speech", 5 + 8)


def test_finished_counts_once_the_words_of_the_pause_are_known() -> None:
    endpointer = Endpointer(CFG, ScriptedVad("#####" + "." * 40), ScriptedCompletion(True), UNFINISHED)
    assert feed(endpointer, 6) == (None, 6)  # finished, but no words of this pause yet
    endpointer.hear("what time is it", 0.16)  # the words of an earlier pause do not count
    assert feed(endpointer, 1) == (None, 1)
    endpointer.hear("what time is it", endpointer.speech_end_s)
    assert feed(endpointer, 1) == ("speech", 1)


def test_a_pause_with_no_words_before_it_waits_for_the_question() -> None:
    """A sound the voice detector took for speech before the question (the wake chime's echo in a room), then
    the person's pause after the wake word: heard as no words, it is the wait for the question, not its end."""
    completion = ScriptedCompletion(True, True)
    endpointer = Endpointer(CFG, ScriptedVad("###" + "...." + "#####" + "." * 40), completion, UNFINISHED)
    assert feed(endpointer, 7, "") == (None, 7)  # finished, says the detector; but nothing was said
    assert feed(endpointer, 40, "what time is it") == ("speech", 5 + 2)  # the question, then at once


def test_without_words_the_longer_silence_ends_a_finished_question() -> None:
    endpointer = Endpointer(CFG, ScriptedVad("#####" + "." * 40), ScriptedCompletion(True), UNFINISHED)
    assert feed(endpointer, 40) == ("speech", 5 + 20)


def test_a_slow_detector_is_waited_for_not_blocked_on() -> None:
    completion = ScriptedCompletion(True, hold=True)
    endpointer = Endpointer(CFG, ScriptedVad("#####" + "." * 40), completion, UNFINISHED)
    assert feed(endpointer, 8, "what time is it") == (None, 8)  # pending: the loop goes on
    completion.release()
    assert feed(endpointer, 1, "what time is it") == ("speech", 1)


def test_a_broken_detector_leaves_the_end_to_the_silence() -> None:
    endpointer = Endpointer(CFG, ScriptedVad("#####" + "." * 40), Broken(), UNFINISHED)
    assert feed(endpointer, 40, "what time is it") == ("speech", 5 + 8)


def test_the_real_detector_runs_off_the_callers_thread() -> None:
    from appliance.hearing.completion import CompletionDetector

    class Model:
        def probability(self, audio: np.ndarray) -> float:
            self.thread = threading.current_thread().name
            return 0.8

        def load(self) -> Model:
            return self

    model = Model()
    verdict = CompletionDetector(model).ask(np.zeros(16000, np.float32)).result(WAIT_S)  # type: ignore[arg-type]
    assert verdict.complete and verdict.probability == 0.8
    assert model.thread != threading.current_thread().name and model.thread.startswith("completion")


def test_the_features_are_whispers_shape_and_scale() -> None:
    from appliance.hearing.completion import features

    tone = np.sin(2 * np.pi * 440 * np.arange(16000) / 16000).astype(np.float32)
    mel = features(tone)
    assert mel.shape == (80, 800) and mel.dtype == np.float32
    assert float(mel.max() - mel.min()) <= 8.0 / 4.0 + 1e-6  # 8 decades under the peak, a quarter each
    assert np.argmax(mel[:, -50:].mean(axis=1)) < 20  # 440 Hz sits in the low bands, in the last second


def test_a_long_question_is_judged_on_its_last_eight_seconds() -> None:
    from appliance.hearing.completion import WINDOW_SAMPLES

    completion = ScriptedCompletion(True)
    cfg = AsrConfig(endpoint_silence_s=0.64, turn_silence_s=0.16, unfinished_silence_s=1.6, max_utterance_s=15.0)
    endpointer = Endpointer(cfg, ScriptedVad("#" * 125 + "." * 10), completion, UNFINISHED)  # 10 s of speech
    outcome, _n = feed(endpointer, 135, "tell me about the moon")
    assert outcome == "speech"
    assert WINDOW_SAMPLES <= completion.asked[0] < WINDOW_SAMPLES + 1280  # the window, not the whole 10 s

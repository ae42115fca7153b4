"""Early answers with the real models: a pause inside a question starts an answer that is dropped unheard.

"What is the capital of France and ... what do people speak there?" with a 0.8 s pause after
the first half (heard unfinished by the completion detector and by its last word, so the question is
waited for): Whisper's early transcript of the first half starts the model, the rest of the
question drops that answer (its speech was held back and is never heard, its turn leaves the
chat history), and the whole question's answer, started early again in the final pause, is the
one heard.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from appliance.config import Config

PAUSE_S = 0.8  # seconds of silence inside the question (0.2 s early point < counted silence < 1.5 s, asr.unfinished_silence_s)
TAIL_S = 0.12  # seconds of a clip kept after its last loud 10 ms
ENDPOINT_S = 1.0  # asr.endpoint_silence_s here: Whisper runs in real time beside the microphone, so each
# pause leaves it this less the early point to make the early text before the endpoint, on a busy CPU too


@pytest.fixture(scope="module")
def stages(llm_config: Config, tmp_path_factory):
    from appliance.assembly import build_stages
    from appliance.audio.playback import WavSink

    out = tmp_path_factory.mktemp("early") / "reply.wav"
    cfg = _config(llm_config, tmp_path_factory.mktemp("state"))
    return cfg, out, build_stages(cfg, sink=WavSink(str(out), realtime=True), mic=False)


def _config(base: Config, state: Path) -> Config:
    # Greedy decoding, so the 135M test model's answer is its most likely one; the voice's variation off, so
    # the reply is said the same way on every run; a short answer, which Whisper hears whole.
    from tests.fixtures.tts import steady_voice

    asr = dataclasses.replace(base.asr, engine="whisper", endpoint_silence_s=ENDPOINT_S)
    return dataclasses.replace(steady_voice(base), asr=asr,
                               llm=dataclasses.replace(base.llm, temperature=0.0, max_new_tokens=32),
                               service=dataclasses.replace(base.service, state_dir=str(state)))


def _words(text: str) -> list[str]:
    return "".join(ch if ch.isalnum() else " " for ch in text.lower()).split()


def test_a_pause_inside_the_question_drops_the_early_answer_unheard(speech, stages) -> None:
    from appliance.audio import read_wav, resample
    from appliance.conversation.replay import listen_turn

    cfg, out, loaded = stages
    from tests.fixtures.speech import load, voiced_span

    def voiced(text: str) -> np.ndarray:
        """The clip without Piper's own leading and trailing silence, keeping TAIL_S after its last loud
        frame (the soft "s" of "France" is below the loudness the span is cut at)."""
        samples = load(speech(text, variation=0.0))
        start, end = voiced_span(samples)
        return samples[int(start * 16000):int((end + TAIL_S) * 16000)]

    # The pause outlasts the VAD's hangover plus asr.early_silence_s, and stays under the endpoint of a
    # question heard unfinished (asr.unfinished_silence_s).
    # Piper's random variation is off, so every machine makes the same recording (the test is about the
    # early answers, not recognition).
    question = speech.join([0.5, speech("hey jarvis", variation=0.0), 0.4, voiced("what is the capital of France and"),
                            PAUSE_S, voiced("what do people speak there?"), ENDPOINT_S + 0.6])
    loaded.chat.reset()
    record = listen_turn(str(question), cfg, loaded)
    loaded.sink.close()
    print(f"\nearly answers {record['early_answers']}; heard {record['transcript']!r}; answered {record['answer']!r}")
    assert record["outcome"] == "answered", record
    assert "speak" in _words(record["transcript"]), record["transcript"]
    assert "capital of france" in " ".join(_words(record["transcript"])), record["transcript"]
    # The first half was answered early and dropped; the whole question's early answer was used.
    assert record["early_answers"]["dropped"] >= 1, record["early_answers"]
    assert record["early_answers"]["used"] == 1 and record["preemptive"]
    # Only the confirmed question stays in the conversation.
    turns = loaded.chat.turns
    assert [_words(t.user) for t in turns] == [_words(record["transcript"])], turns
    # Nothing of the dropped answer was heard: the reply says the answer's words and no others.
    from appliance.hearing.asr import WhisperRecognizer
    from appliance.setup import models

    whisper = WhisperRecognizer(cfg, models.resolve("whisper", cfg).path).load()
    heard = whisper.transcribe(resample(read_wav(out), 16000).to_float()[:, 0].astype(np.float32))
    said, spoken = _words(record["answer"]), _words(heard)
    assert said and len(set(said) & set(spoken)) >= len(set(said)) // 2, (heard, record["answer"])
    assert len(spoken) <= len(said) + 2, (heard, record["answer"])

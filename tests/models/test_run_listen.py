"""`appliance listen --wav` runs one whole turn with the small real models: the answer mentions Paris."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from appliance.conversation.turn import TIMING_KEYS
from tests.fixtures.speech import heard_name
from tests.fixtures.tts import STEADY_VOICE_YAML
from tests.fixtures.waits import LOAD_WAIT_S


def _transcribe(path: Path) -> str:
    from faster_whisper import WhisperModel

    from appliance.audio import read_wav, resample
    from appliance.config import Config
    from appliance.setup import models

    model = WhisperModel(str(models.resolve("whisper", Config()).path), device="cpu", compute_type="int8",
                         cpu_threads=2)
    samples = resample(read_wav(path), 16000).to_float()[:, 0]  # the reply is at the voice's 22,050 Hz
    segments, _ = model.transcribe(samples.astype(np.float32), language="en", beam_size=1)
    return " ".join(seg.text for seg in segments).strip()


def test_listen_answers_the_capital_of_france(speech, tmp_path: Path) -> None:
    question = speech.join([0.5, speech("hey jarvis"), 0.4, speech("what is the capital of France?"), 1.0])
    reply = tmp_path / "reply.wav"
    config = tmp_path / "appliance.yaml"
    # Greedy decoding: the 135M test model samples "Le Bristol" now and then at temperature 0.4;
    # this test is about the pipeline, so the model's most likely answer is the one to check. The voice's
    # variation is off, so the reply WAV says it the same way on every run.
    config.write_text(f"asr:\n  engine: whisper\nllm:\n  temperature: 0.0\nservice:\n  state_dir: {tmp_path}\n"
                      + STEADY_VOICE_YAML)
    result = subprocess.run([sys.executable, "-m", "appliance.cli", "listen", "--wav", str(question),
                             "--out", str(reply), "--json", "--config", str(config)],
                            check=False, capture_output=True, text=True, timeout=LOAD_WAIT_S)
    assert result.returncode == 0, result.stderr[-3000:]
    record = json.loads(result.stdout.strip().splitlines()[-1])
    assert record["wake"]["word"] == "hey_jarvis"
    assert "capital of france" in record["transcript"].lower()
    assert record["route"] == "llm" and record["outcome"] == "answered"
    assert "paris" in record["answer"].lower(), record["answer"]
    assert set(record["timings_ms"]) == set(TIMING_KEYS)
    t = record["timings_ms"]
    assert all(isinstance(v, (int, float)) and v >= 0 for v in t.values()), t
    assert t["speech_end_to_transcript"] > 0 and t["speech_end_to_first_audio"] > 0 and t["turn_total"] > 0, t
    # The terms add up: end of speech to first audio is ASR + first token + first sentence + first audio,
    # less the time an early answer was already under way before the question was confirmed over.
    parts = (t["speech_end_to_transcript"] + t["transcript_to_first_token"] + t["first_token_to_first_sentence"]
             + t["first_sentence_to_first_audio"])
    lead = record["early_lead_ms"] or 0.0
    assert (lead > 0) == record["preemptive"], record
    assert abs(parts - lead - t["speech_end_to_first_audio"]) < 1.0
    heard = _transcribe(reply)
    assert heard_name(heard, "paris"), heard


def test_its_own_voice_does_not_barge_in(speech) -> None:
    """Piper's answer fed back into the wake detector stays under the barge-in threshold."""
    from appliance.audio.mic import WavSource
    from appliance.config import Config
    from appliance.hearing.wake import WakeWord

    cfg = Config()
    wake = WakeWord(cfg).load()
    answer = speech.join([speech("The capital of France is Paris. Is there anything else you would like to know?"),
                          speech("Hey, I can tell you about the weather, timers, and the time."), 0.5])
    hits = [wake.process(chunk, cfg.wake.barge_in_threshold) for chunk in WavSource(answer)]
    assert not any(hits)
    # And the same detector does hear the wake word at that threshold (the check can fail).
    wake.reset()
    spoken = speech.join([0.5, speech("hey jarvis"), 0.5])
    assert any(wake.process(chunk, cfg.wake.barge_in_threshold) for chunk in WavSource(spoken))

"""`appliance listen --wav` in a subprocess: 24-bit, 8-bit and float questions answered; cut and bad files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.fixtures.speech import load
from tests.fixtures.wav_kinds import wav_bytes
from tests.fixtures.waits import LOAD_WAIT_S

QUESTION = "what is the capital of France?"


def listen(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    config = tmp_path / "appliance.yaml"
    # Greedy decoding, as in test_run_listen.py: this is about reading the file, not the model's luck.
    config.write_text(f"asr:\n  engine: whisper\nllm:\n  temperature: 0.0\n"
                      f"service:\n  state_dir: {tmp_path}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_CONFIG", "JOURNAL_STREAM")}
    return subprocess.run([sys.executable, "-m", "appliance.cli", "listen", *args, "--config", str(config)],
                          capture_output=True, text=True, timeout=LOAD_WAIT_S, env=env, check=False)


@pytest.fixture(scope="module")
def question(speech) -> np.ndarray:
    """"Hey Jarvis, what is the capital of France?" as float samples at 16 kHz (Piper)."""
    return load(speech.join([0.5, speech("hey jarvis"), 0.4, speech(QUESTION), 1.0]))


def as_kind(samples: np.ndarray, rate: int, channels: int, kind: str) -> bytes:
    """The 16 kHz question resampled to `rate` with soxr, in `channels` (each a little quieter), as `kind`."""
    import soxr

    wide = soxr.resample(samples.astype(np.float32), 16000, rate)
    return wav_bytes(np.stack([wide * (1.0 - 0.1 * c) for c in range(channels)], axis=1), rate, kind)


@pytest.mark.parametrize(("kind", "rate", "channels"), [("s24", 44100, 2), ("u8", 22050, 1),
                                                         ("f32", 48000, 1), ("ext-f32", 48000, 2)])
def test_a_24_bit_8_bit_or_float_question_is_answered(question, tmp_path, kind, rate, channels) -> None:
    wav = tmp_path / f"question-{kind}.wav"
    wav.write_bytes(as_kind(question, rate, channels, kind))
    done = listen("--wav", str(wav), "--json", "--fast", "--out", str(tmp_path / "reply.wav"),
                  tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert record["wake"] is not None and record["wake"]["word"] == "hey_jarvis", record
    assert "capital of france" in record["transcript"].lower(), record
    assert record["outcome"] == "answered" and "paris" in record["answer"].lower(), record


def test_a_recording_cut_off_in_the_middle_of_a_sample_is_heard(question, tmp_path) -> None:
    data = as_kind(question, 44100, 2, "s24")
    wav = tmp_path / "cut.wav"
    wav.write_bytes(data[:-4])  # the last frame's right sample lost and a byte of its left
    done = listen("--wav", str(wav), "--hear-only", "--json", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert record["wake"]["word"] == "hey_jarvis", record
    assert "capital of france" in record["transcript"].lower(), record


@pytest.mark.parametrize(("content", "why"), [
    (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "not a WAV file"),
    (wav_bytes(np.zeros(800), 8000, "s16").replace(b"\x01\x00\x01\x00", b"\x07\x00\x01\x00", 1), "mu-law"),
    (b"", "is empty"),
])
def test_a_file_that_is_not_a_readable_wav_is_exit_65_naming_it(tmp_path, content, why) -> None:
    wav = tmp_path / "garbage.wav"
    wav.write_bytes(content)
    done = listen("--wav", str(wav), tmp_path=tmp_path)
    assert done.returncode == 65, done.stderr[-3000:]
    assert str(wav) in done.stderr and why in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""

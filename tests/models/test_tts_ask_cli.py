"""`appliance ask --out reply.wav` with SmolLM2 and Piper: the WAV says the answer (Whisper hears it back)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

from appliance.audio import read_wav
from appliance.speaking.textclean import for_speech
from tests.fixtures.speech import heard_name
from tests.fixtures.tts import STEADY_VOICE_YAML
from tests.fixtures.waits import LOAD_WAIT_S

MIN_WORDS_HEARD: Final = 0.7  # share of the answer's words (4+ letters) Whisper must hear in the WAV


def test_ask_out_writes_the_spoken_answer(tmp_path: Path, transcribe: Any) -> None:
    config = tmp_path / "appliance.yaml"
    config.write_text("llm:\n  seed: 1234\n" + STEADY_VOICE_YAML, encoding="utf-8")  # variation off
    out = tmp_path / "reply.wav"
    done = subprocess.run([sys.executable, "-m", "appliance.cli", "ask", "--config", str(config),
                           "--out", str(out), "Tell me a short fact about the moon."],
                          capture_output=True, text=True, timeout=LOAD_WAIT_S, check=False)
    assert done.returncode == 0, done.stderr
    answer = done.stdout.strip()
    assert answer
    timing = re.search(r"Speech: first audio (\d+) ms after the question; "
                       r"the answer was finished at (\d+) ms", done.stderr)
    assert timing, done.stderr
    audio = read_wav(out)
    assert audio.duration_s > 1.0
    heard = transcribe(audio)
    words = [w for w in re.findall(r"[a-z]+", for_speech(answer).lower()) if len(w) >= 4]
    assert words, answer
    found = [w for w in words if heard_name(heard, w)]  # a word heard a little wrong or split still counts
    assert len(found) >= MIN_WORDS_HEARD * len(words), f"answer {answer!r}, heard {heard!r}"

"""A spoken "add milk and eggs to my shopping list" through `appliance listen` (the small real models):
the skill puts both on the list in the state folder, the next spoken question reads them back, and
the reply WAV says them. No language model answers: the skill does.

Whisper tiny, the development recognizer, often hears "add" as "and" (dropped as politeness): "milk
and eggs to my shopping list" is still an add."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from appliance.audio import read_wav
from tests.fixtures.speech import spoken_as
from tests.fixtures.tts import STEADY_VOICE_YAML
from tests.fixtures.waits import LOAD_WAIT_S


def listen(config: Path, wav: Path, reply: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "appliance.cli", "listen", "--wav", str(wav), "--out", str(reply),
                           "--json", "--config", str(config)], check=False, capture_output=True, text=True,
                          timeout=LOAD_WAIT_S)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_spoken_items_go_on_the_list_and_are_read_back_aloud(speech, transcribe, tmp_path: Path) -> None:
    config = tmp_path / "appliance.yaml"
    config.write_text(f"asr:\n  engine: whisper\nservice:\n  state_dir: {tmp_path / 'state'}\n" + STEADY_VOICE_YAML,
                      encoding="utf-8")

    def spoken(question: str) -> Path:
        return speech.join([0.5, speech("hey jarvis", variation=0.0), 0.4, speech(question, variation=0.0), 1.0])

    added = listen(config, spoken("add milk and eggs to my shopping list"), tmp_path / "added.wav")
    assert added["route"] == "skill" and added["answer"] == "I've added milk and eggs to your shopping list.", added
    stored = json.loads((tmp_path / "state" / "lists.json").read_text())
    assert stored["lists"] == {"shopping": {"items": [{"text": "milk"}, {"text": "eggs"}]}}

    reply = tmp_path / "read.wav"
    read = listen(config, spoken("what's on my shopping list"), reply)
    assert read["answer"] == "You have 2 things on your shopping list: milk and eggs.", read
    heard = transcribe(read_wav(reply))
    assert spoken_as(read["answer"], heard), heard  # the whole sentence, as near as Whisper tiny hears it

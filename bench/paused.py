"""Questions with a pause inside them, as people make them ("set a timer for... ten minutes"), for
bench/e2e.py: each said whole by Piper, then opened at a word boundary into a silence of 0.4-0.8 s.

The pause is opened as tests/fixtures/paused.py opens it: in the whole sentence, at the word
Whisper's timestamps put it after, so the words before it keep their mid-sentence intonation.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Final

PAUSED: Final = [  # (question, the word the pause comes after, pause in seconds)
    ("Set a timer for ten minutes.", "for", 0.6),
    ("What is the capital of Australia?", "of", 0.5),
    ("Remind me to take the bins out at eight.", "to", 0.7),
    ("How far is it from London to Edinburgh?", "from", 0.4),
    ("What is the difference between a frog and a toad?", "between", 0.8),
    ("Add eggs and milk to the shopping list.", "and", 0.5),
    ("How many grams are in a cup of flour?", "of", 0.6),
    ("Who was the first person to walk on the moon?", "the", 0.7),
    ("Can you tell me how long to boil an egg?", "to", 0.5),
    ("What time does the sun set in winter?", "the", 0.4),
    ("Why do onions make my eyes water?", "my", 0.6),
    ("What should I cook for dinner tonight?", "for", 0.8),
]


def make_paused(synth: Any, folder: Path, count: int) -> list[tuple[Path, str, str]]:
    """'Hey Jarvis.' + 0.4 s + the question with its pause + 1.8 s of silence, as 16 kHz WAVs made once;
    with each its question and the word the pause comes after (for tests/fixtures/paused.heard_whole)."""
    import numpy as np

    from appliance.audio import AudioChunk, concat, resample, write_wav
    from tests.fixtures.paused import with_pause

    def said(text: str) -> np.ndarray:
        chunk = resample(concat(list(synth.synthesize(text))), 16000)
        return np.frombuffer(chunk.samples, dtype="<i2").astype(np.float32) / 32768.0

    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for question, after, pause_s in PAUSED[:count]:
        key = hashlib.sha1(f"{question}|{after}|{pause_s}".encode()).hexdigest()[:8]
        path = folder / f"paused-{key}.wav"
        if not path.exists():
            audio = np.concatenate([np.zeros(8000, np.float32), said("Hey Jarvis."), np.zeros(6400, np.float32),
                                    with_pause(said(question), after, pause_s), np.zeros(28800, np.float32)])
            write_wav(path, AudioChunk.from_int16((audio * 32767).astype("<i2"), 16000))
        out.append((path, question, after))
    return out

"""The wake word's name and words from the configured model, which hearing/ and the skills both need."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

_VERSION_RE: Final = re.compile(r"_v\d+(?:\.\d+)*$")  # hey_jarvis_v0.1.onnx -> hey_jarvis


def wake_name(model: str) -> str:
    """'hey_jarvis' for the bundled name, a path to hey_jarvis_v0.1.onnx, and the like ('wake' if none)."""
    return _VERSION_RE.sub("", Path(model).name.removesuffix(".onnx")) if model else "wake"


def wake_words(model: str) -> tuple[str, ...]:
    """The words of the wake phrase, lower case: ('hey', 'jarvis')."""
    return tuple(w for w in re.split(r"[_\-\s]+", wake_name(model).lower()) if w)

"""Giving freed heap back to the system between turns (glibc's malloc_trim)."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, or None on a C library without it."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def release_memory() -> None:
    """Hand freed heap back to the system after a turn (the per-answer threads' arenas and the
    models' scratch buffers otherwise stay mapped, and RSS steps up over a long day)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)

"""Files kept in service.state_dir (timers, volume): written whole or not at all, and readable by
`appliance ask` run as another user."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_json(path: Path, data: Any, indent: int | None = None) -> None:
    """Replace `path` with `data` as JSON atomically, and make the rename survive a power cut.

    Raises OSError (nothing is left half-written: the temporary file is removed)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            os.fchmod(fh.fileno(), 0o644)  # mkstemp makes 0600; `appliance ask` as another user reads it
            json.dump(data, fh, indent=indent)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)  # the rename itself survives a power cut
    finally:
        os.close(dir_fd)

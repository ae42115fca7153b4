"""Logging set-up: journald with structured fields under systemd, plain stderr otherwise."""

from __future__ import annotations

import logging
import os
import sys
from typing import Final

SYSLOG_IDENTIFIER: Final = "appliance"
PLAIN_FORMAT: Final = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


def under_journald() -> bool:
    """True when stderr is connected to the journal (systemd sets JOURNAL_STREAM=dev:inode)."""
    stream = os.environ.get("JOURNAL_STREAM")
    if not stream:
        return False
    try:
        dev, inode = (int(x) for x in stream.split(":"))
        st = os.fstat(sys.stderr.fileno())
    except (ValueError, OSError):
        return False
    return (st.st_dev, st.st_ino) == (dev, inode)


class _ModuleField(logging.Filter):
    """Adds the module as a journald field (APPLIANCE_MODULE) to each record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.APPLIANCE_MODULE = record.name  # type: ignore[attr-defined]
        return True


def journal_handler() -> logging.Handler | None:
    """systemd-python's JournalHandler, or None when it is not installed."""
    try:
        from systemd.journal import JournalHandler  # type: ignore[import-not-found]
    except ImportError:
        return None
    handler = JournalHandler(SYSLOG_IDENTIFIER=SYSLOG_IDENTIFIER)
    handler.addFilter(_ModuleField())
    handler.setFormatter(logging.Formatter("%(message)s"))
    return handler


def setup(level: str = "INFO", debug: bool = False, force_journal: bool | None = None) -> None:
    """Configure the root logger once; --debug wins over the config level."""
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    use_journal = under_journald() if force_journal is None else force_journal
    handler = journal_handler() if use_journal else None
    if handler is None:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(PLAIN_FORMAT, datefmt="%H:%M:%S"))
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if debug else getattr(logging, level.upper(), logging.INFO))
    # Libraries that chatter at INFO stay at WARNING unless debugging.
    for noisy in ("urllib3", "httpx", "faster_whisper", "matplotlib", "numba"):
        logging.getLogger(noisy).setLevel(logging.DEBUG if debug else logging.WARNING)

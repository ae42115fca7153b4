"""Logging set-up: the journal only when stderr really is the journal stream."""

from __future__ import annotations

import logging
import os
import sys

import pytest

from appliance import log


def test_plain_stderr_without_journal_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    assert not log.under_journald()
    log.setup("WARNING")
    (handler,) = logging.getLogger().handlers
    assert isinstance(handler, logging.StreamHandler)
    assert logging.getLogger().level == logging.WARNING
    log.setup("WARNING", debug=True)
    assert logging.getLogger().level == logging.DEBUG


def test_journal_stream_must_match_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    st = os.fstat(sys.stderr.fileno())
    monkeypatch.setenv("JOURNAL_STREAM", f"{st.st_dev}:{st.st_ino}")
    assert log.under_journald()
    monkeypatch.setenv("JOURNAL_STREAM", f"{st.st_dev}:{st.st_ino + 1}")
    assert not log.under_journald()  # inherited from a parent whose stderr went elsewhere
    monkeypatch.setenv("JOURNAL_STREAM", "garbage")
    assert not log.under_journald()


def test_journal_handler_carries_identifier_and_module() -> None:
    handler = log.journal_handler()
    if handler is None:
        pytest.skip("systemd-python is not installed")
    record = logging.LogRecord("appliance.hearing.wake", logging.INFO, __file__, 1, "Wake word %s", ("x",), None)
    assert all(f.filter(record) for f in handler.filters)
    assert record.APPLIANCE_MODULE == "appliance.hearing.wake"  # type: ignore[attr-defined]
    assert handler._extra["SYSLOG_IDENTIFIER"] == "appliance"  # type: ignore[attr-defined]

"""Errors at the edge: the parts raise named errors without exit codes; only the command line maps them."""

from __future__ import annotations

import argparse
import inspect

import pytest

from appliance import (
    EXIT_CONFIG,
    EXIT_DATAERR,
    EXIT_FAILURE,
    EXIT_NOHOST,
    EXIT_NOINPUT,
    EXIT_TEMPFAIL,
    EXIT_UNAVAILABLE,
    EXIT_USAGE,
    cli,
    errors,
)
from appliance.config import ConfigError
from appliance.config_validation import Problem
from appliance.speaking.tts import VoiceError
from appliance.thinking.llm import LlmError

CODES = {
    errors.UsageError: EXIT_USAGE, errors.BadInput: EXIT_DATAERR, errors.ChecksumMismatch: EXIT_DATAERR,
    errors.InputMissing: EXIT_NOINPUT, errors.FileUnavailable: EXIT_UNAVAILABLE,
    errors.ServiceUnavailable: EXIT_UNAVAILABLE, errors.HomeAssistantUnreachable: EXIT_UNAVAILABLE,
    errors.HomeAssistantRefused: EXIT_CONFIG, errors.HostUnknown: EXIT_NOHOST, errors.FetchError: EXIT_TEMPFAIL, errors.ModelBusy: EXIT_TEMPFAIL,
    errors.NotWritable: EXIT_FAILURE, errors.BadConfig: EXIT_CONFIG, errors.ModelMissing: EXIT_CONFIG,
    errors.ModelError: EXIT_CONFIG, LlmError: EXIT_CONFIG, VoiceError: EXIT_CONFIG,
    errors.MissingLibrary: EXIT_CONFIG, errors.AudioDeviceError: EXIT_CONFIG, errors.OutputError: EXIT_CONFIG,
    errors.TimerError: EXIT_CONFIG, errors.ListError: EXIT_FAILURE, errors.HomeAssistantLacks: EXIT_UNAVAILABLE,
    errors.ApplianceError: EXIT_FAILURE,
}


def test_every_named_error_has_its_exit_code_and_carries_none() -> None:
    named = {cls for _, cls in inspect.getmembers(errors, inspect.isclass) if issubclass(cls, Exception)}
    assert named <= set(CODES), named - set(CODES)
    for cls, code in CODES.items():
        exc = cls("what went wrong")
        assert cli.exit_code(exc) == code, cls.__name__
        assert not hasattr(exc, "exit_code"), cls.__name__
    assert cli.exit_code(ConfigError("a.yaml", [Problem("llm.n_ctx", "too big")])) == EXIT_CONFIG


@pytest.mark.parametrize(("exc", "code"), [(errors.TimerError("20 timers are already set"), EXIT_CONFIG),
                                           (errors.InputMissing("WAV file not found: a.wav"), EXIT_NOINPUT)])
def test_the_command_line_prints_the_message_and_exits_with_the_code(
        exc: Exception, code: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def fail(args: argparse.Namespace) -> int:
        raise exc

    monkeypatch.setattr(cli.argparse.ArgumentParser, "parse_args",
                        lambda self, argv=None: argparse.Namespace(command="ask", func=fail, debug=False))
    assert cli.main(["ask", "x"]) == code
    assert capsys.readouterr().err == f"appliance: {exc}\n"

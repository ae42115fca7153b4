"""The `appliance` command line: global options and dispatch to one module per subcommand."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from typing import Final

from appliance import (
    EXIT_CONFIG,
    EXIT_DATAERR,
    EXIT_FAILURE,
    EXIT_NOHOST,
    EXIT_NOINPUT,
    EXIT_SOFTWARE,
    EXIT_TEMPFAIL,
    EXIT_UNAVAILABLE,
    EXIT_USAGE,
    __version__,
    errors,
)

_LOGGER = logging.getLogger(__name__)

# Subcommand name -> module in appliance.commands. Each module defines
#   add_parser(subparsers) -> argparse.ArgumentParser   (cheap: no model imports)
#   main(args) -> int                                   (the exit code)
COMMANDS: Final = {
    "config": "config_check",
    "doctor": "doctor",
    "ask": "ask",
    "listen": "listen",
    "run": "run",
    "stats": "stats",
    "bench": "bench",
    "models": "models",
    "network": "network",
}

# Named error -> exit code; a subclass not named here takes its nearest base's code (exit_code()).
EXIT_CODES: Final[dict[type[errors.ApplianceError], int]] = {
    errors.ApplianceError: EXIT_FAILURE,
    errors.UsageError: EXIT_USAGE,
    errors.BadInput: EXIT_DATAERR,
    errors.ChecksumMismatch: EXIT_DATAERR,
    errors.InputMissing: EXIT_NOINPUT,
    errors.FileUnavailable: EXIT_UNAVAILABLE,
    errors.ServiceUnavailable: EXIT_UNAVAILABLE,
    errors.HomeAssistantUnreachable: EXIT_UNAVAILABLE,
    errors.HomeAssistantRefused: EXIT_CONFIG,
    errors.HostUnknown: EXIT_NOHOST,
    errors.FetchError: EXIT_TEMPFAIL,
    errors.ModelBusy: EXIT_TEMPFAIL,
    errors.NotWritable: EXIT_FAILURE,
    # Configuration, models, libraries and devices: systemd must not restart a service that
    # cannot start this way (appliance.service: RestartPreventExitStatus=78).
    errors.BadConfig: EXIT_CONFIG,
    errors.ModelMissing: EXIT_CONFIG,
    errors.ModelError: EXIT_CONFIG,
    errors.MissingLibrary: EXIT_CONFIG,
    errors.AudioDeviceError: EXIT_CONFIG,
    errors.OutputError: EXIT_CONFIG,
    errors.TimerError: EXIT_CONFIG,
}


def exit_code(exc: errors.ApplianceError) -> int:
    """The exit code for a named error: its own, else its nearest base class's."""
    for cls in type(exc).__mro__:
        if cls in EXIT_CODES:
            return EXIT_CODES[cls]
    return EXIT_FAILURE


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on exit code 64 (EX_USAGE) instead of 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="appliance",
        description="An offline voice assistant: wake word, speech recognition, a small "
        "language model and speech, all on this machine.",
    )
    parser.add_argument("--version", action="version", version=f"appliance {__version__}")
    parser.add_argument("--config", metavar="PATH", help="config file (else $APPLIANCE_CONFIG, "
                        "/etc/appliance/appliance.yaml, or the shipped default)")
    parser.add_argument("--debug", action="store_true", help="log at DEBUG (transcripts included)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module_name in COMMANDS.items():
        try:
            module = importlib.import_module(f"appliance.commands.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"appliance.commands.{module_name}":
                raise
            continue  # a subcommand not built yet
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return EXIT_USAGE
    from appliance import log

    log.setup("INFO", debug=args.debug)
    try:
        return int(args.func(args) or 0)
    except errors.ApplianceError as exc:
        print(f"appliance: {exc}", file=sys.stderr)
        return exit_code(exc)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception:  # a bug: keep the traceback in the log, not a crash loop
        _LOGGER.exception("Unexpected error in 'appliance %s'", args.command)
        return EXIT_SOFTWARE


def add_common(parser: argparse.ArgumentParser) -> None:
    """Let --config and --debug also follow the subcommand (appliance doctor --config X)."""
    parser.add_argument("--config", metavar="PATH", default=argparse.SUPPRESS, help="config file")
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="log at DEBUG")


def load_config(args: argparse.Namespace):  # noqa: ANN201 - avoids importing config at parse time
    """The effective config for a command, with logging set to its level."""
    from appliance import config, log

    cfg = config.load(getattr(args, "config", None))
    log.setup(cfg.logging.level, debug=getattr(args, "debug", False))
    return cfg


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    entry()

__all__ = ["EXIT_CODES", "EXIT_CONFIG", "add_common", "build_parser", "entry", "exit_code", "load_config", "main"]

"""`appliance run`: the daemon in the foreground (systemd runs exactly this)."""

from __future__ import annotations

import argparse
import logging
import os

from appliance import EXIT_OK, EXIT_SOFTWARE, EXIT_TEMPFAIL
from appliance.config import Config

_LOGGER = logging.getLogger(__name__)


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from appliance.cli import add_common

    parser = sub.add_parser(
        "run", help="run the assistant in the foreground (what systemd starts)",
        description="Load the models, open the microphone and answer one question after another "
        "until SIGTERM. Under systemd it speaks sd_notify (READY, STATUS, WATCHDOG, STOPPING) and "
        "writes one journald entry per turn. Debug hook: with APPLIANCE_DEBUG_FREEZE=1 in the "
        "environment, SIGUSR2 freezes the conductor loop (a second SIGUSR2 thaws it), so the "
        "watchdog can be seen to stop.")
    add_common(parser)
    parser.set_defaults(func=main)
    return parser


def transcripts_allowed(cfg: Config, args: argparse.Namespace) -> bool:
    """Transcripts and answers reach the log only at DEBUG or when the owner opted in."""
    return bool(cfg.logging.transcripts or getattr(args, "debug", False) or cfg.logging.level == "DEBUG")


def main(args: argparse.Namespace) -> int:
    from appliance.assembly import build_links, build_stages
    from appliance.cli import load_config
    from appliance.service import Journal, Notifier, Service, apply_cpu_affinity

    cfg = load_config(args)
    apply_cpu_affinity(cfg.service.cpu_affinity)
    journal = Journal(transcripts_allowed(cfg, args))
    notifier = Notifier()
    notifier.status("Loading models")
    try:
        stages = build_stages(cfg, journal)
    except Exception as exc:
        journal.event("error", f"Start-up failed: {exc}", traceback=None if _expected(exc) else _tb(exc))
        raise
    service = Service(cfg, stages, journal, notifier, links=build_links(cfg, stages, journal.turn, journal.event))
    stopped = service.run()
    code = EXIT_OK if stopped else EXIT_SOFTWARE
    if service.stuck is not None or service.left_open:
        # PortAudio's own exit handler (Pa_Terminate) would wait for the stream that never closed
        logging.shutdown()
        os._exit(EXIT_TEMPFAIL if service.stuck is not None else code)
    return code


def _expected(exc: BaseException) -> bool:
    from appliance import ApplianceError

    return isinstance(exc, ApplianceError)


def _tb(exc: BaseException) -> str:
    import traceback

    return "".join(traceback.format_exception(exc))

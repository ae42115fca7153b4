"""`appliance config check [PATH]`: validate a config file and say where the effective one comes from."""

from __future__ import annotations

import argparse

from appliance import EXIT_OK, EXIT_USAGE


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from appliance.cli import add_common

    parser = sub.add_parser("config", help="check a config file")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    check = actions.add_parser("check", help="validate a config file; prints ok and its source, or every problem")
    check.add_argument("path", nargs="?", help="file to check (default: the effective config)")
    add_common(check)
    check.set_defaults(func=main)
    parser.set_defaults(func=lambda args: parser.print_help() or EXIT_USAGE)
    return parser


def main(args: argparse.Namespace) -> int:
    from appliance import config

    cfg = config.load(args.path or getattr(args, "config", None))
    print(f"ok: {cfg.source}")
    return EXIT_OK

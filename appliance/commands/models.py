"""`appliance models fetch|list`: download, verify and lay out the Pi models, or show what is installed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from appliance import EXIT_OK, EXIT_USAGE


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from appliance.cli import add_common
    from appliance.setup import fetch

    parser = sub.add_parser("models", help="download and verify the Pi models, or list them")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")

    get = actions.add_parser(
        "fetch", help="download the Pi models (resumable, sha256-verified) into the models folder",
        description="Download the models of the built-in manifest into the models folder (models.dir of "
        "the config, /var/lib/appliance/models by default). Downloads resume after a cut, retry with "
        "backoff, and are put in place only after their sha256 matches; a verified file is never fetched "
        "again.")
    get.add_argument("--quant", choices=("Q4_K_M", "Q5_K_M"), help="language-model quantisation "
                     "(default: llm.quant of the config)")
    get.add_argument("--dir", metavar="DIR", help="models folder (default: models.dir of the config)")
    get.add_argument("--models-from", metavar="DIR", help="install from this local folder (a USB stick) "
                     "holding the files under their download names, instead of downloading")
    get.add_argument("--manifest", metavar="FILE", help="a JSON manifest to use instead of the built-in one "
                     "(see `appliance models list --json`)")
    get.add_argument("--timeout", type=float, default=fetch.TIMEOUT_S, metavar="SECONDS",
                     help=f"seconds a connection may stall before the attempt fails (default {fetch.TIMEOUT_S:g})")
    get.add_argument("--retries", type=int, default=fetch.RETRIES, metavar="N",
                     help=f"further attempts after a failure, each resuming (default {fetch.RETRIES})")
    add_common(get)
    get.set_defaults(func=main_fetch)

    show = actions.add_parser("list", help="the manifest and what of it is installed and verified")
    show.add_argument("--quant", choices=("Q4_K_M", "Q5_K_M"), help="default: llm.quant of the config")
    show.add_argument("--dir", metavar="DIR", help="models folder (default: models.dir of the config)")
    show.add_argument("--manifest", metavar="FILE", help="a JSON manifest instead of the built-in one")
    show.add_argument("--json", action="store_true", help="print the manifest as JSON")
    add_common(show)
    show.set_defaults(func=main_list)

    parser.set_defaults(func=lambda args: parser.print_help() or EXIT_USAGE)
    return parser


def _folder_and_quant(args: argparse.Namespace) -> tuple[Path, str]:
    """--dir and --quant, taking what is not given from the config (loaded only then)."""
    folder, quant = getattr(args, "dir", None), getattr(args, "quant", None)
    if folder is None or quant is None:
        from appliance.cli import load_config

        cfg = load_config(args)
        folder = folder or cfg.models.dir
        quant = quant or cfg.llm.quant
    return Path(folder), quant


def _manifest(args: argparse.Namespace):  # noqa: ANN202
    from appliance.setup import fetch

    return fetch.load_manifest(Path(args.manifest)) if args.manifest else fetch.MANIFEST


def _progress(entry, received: int, total: int) -> None:  # noqa: ANN001
    print(f"  {entry.name}: {received / 1e6:.1f} of {total / 1e6:.1f} MB ({100 * received // max(total, 1)}%)",
          file=sys.stderr, flush=True)


def main_fetch(args: argparse.Namespace) -> int:
    from appliance.errors import UsageError
    from appliance.setup import fetch

    folder, quant = _folder_and_quant(args)
    source = Path(args.models_from) if args.models_from else None
    if source is not None and not source.is_dir():
        raise UsageError(f"--models-from {source}: not a folder")
    if args.retries < 0 or args.timeout <= 0:
        raise UsageError("--retries must be 0 or more and --timeout above 0")
    entries = fetch.select(_manifest(args), quant)
    where = f"copying from {source}" if source else "downloading"
    print(f"Models for llm.quant {quant} into {folder} ({where}):", flush=True)
    results = fetch.fetch_all(entries, folder, source_dir=source, timeout_s=args.timeout,
                              retries=args.retries, progress=_progress)
    for entry, what in results:
        print(f"  {what:<9} {entry.name:<12} {entry.target} ({entry.size / 1e6:.1f} MB, "
              f"sha256 {entry.sha256[:16]})", flush=True)
    fresh = sum(1 for _, what in results if what == "installed")
    print(f"{len(results)} models verified: {fresh} installed, {len(results) - fresh} already in place")
    return EXIT_OK


def main_list(args: argparse.Namespace) -> int:
    from appliance.setup import fetch

    entries = _manifest(args)
    if args.json:
        print(fetch.dump_manifest(entries), end="")
        return EXIT_OK
    folder, quant = _folder_and_quant(args)
    print(f"Models folder {folder} (llm.quant {quant}):")
    for entry in fetch.select(entries, quant):
        state = "verified" if folder.is_dir() and fetch.is_verified(folder, entry) else "missing"
        print(f"  {state:<9} {entry.name:<12} {entry.target:<40} {entry.size / 1e6:7.1f} MB  {entry.url}")
    return EXIT_OK

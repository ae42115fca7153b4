"""`appliance stats [--since TIME]`: turns, outcomes and latency medians/p95 read back from the journal."""

from __future__ import annotations

import argparse
import json
import math
import re
from collections import Counter
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, Final

from appliance import EXIT_OK
from appliance.conversation.turn import OUTCOMES
from appliance.errors import ServiceUnavailable, UsageError

# journald field -> what the table calls it
FIGURES: Final = {
    "ASR_MS": "end of speech to transcript (ms)",
    "TTFT_MS": "model start to first token (ms)",
    "HA_MS": "Home Assistant's answer (ms)",
    "FIRST_AUDIO_MS": "end of speech to first audio (ms)",
    "TURN_MS": "whole turn (ms)",
    "LLM_TOKENS_PER_S": "language model tokens/s",
    "LLM_TOKENS": "tokens per answer",
    "PREFILLED_TOKENS": "question tokens read while spoken",
    "LEFT_TOKENS": "prompt tokens left at end of speech",
}
# Figures only the model's answers have: a skill's 0 tokens would drag them down.
MODEL_ONLY: Final = ("LLM_TOKENS_PER_S", "LLM_TOKENS", "PREFILLED_TOKENS", "LEFT_TOKENS")
_UNITS: Final = {"s": 1, "sec": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "minute": 60, "minutes": 60,
                 "h": 3600, "hour": 3600, "hours": 3600, "d": 86400, "day": 86400, "days": 86400,
                 "w": 604800, "week": 604800, "weeks": 604800}


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from appliance.cli import add_common

    parser = sub.add_parser("stats", help="turns, outcomes and latencies (median, 95th percentile) from the journal")
    parser.add_argument("--since", metavar="TIME", default=None,
                        help="'today', 'yesterday', '2h ago', '2025-06-01 08:00' or --since=-30m (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_common(parser)
    parser.set_defaults(func=main)
    return parser


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """A point in local time from journalctl-like words; UsageError (exit 64) when unreadable."""
    now = now or datetime.now()
    word = text.strip().lower()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if word == "today":
        return midnight
    if word == "yesterday":
        return midnight - timedelta(days=1)
    if word == "now":
        return now
    m = re.fullmatch(r"-?\s*(\d+(?:\.\d+)?)\s*([a-z]+)(?:\s+ago)?", word)
    if m and m.group(2) in _UNITS:
        return now - timedelta(seconds=float(m.group(1)) * _UNITS[m.group(2)])
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(f"--since {text!r}: use 'today', 'yesterday', '2h ago', '-30m' or "
                         "'YYYY-MM-DD [HH:MM]'") from None


def read_turns(since: datetime | None) -> list[dict[str, str]]:
    """Every APPLIANCE_EVENT=turn entry of the appliance since `since`, oldest first."""
    try:
        from systemd import journal  # type: ignore[import-not-found]
    except ImportError:
        raise ServiceUnavailable("systemd-python is not installed; install it with scripts/install.sh") from None
    try:
        reader = journal.Reader()
    except OSError as exc:
        raise ServiceUnavailable(f"Cannot open the journal ({exc}); run as root or a member of the "
                                 "systemd-journal group") from None
    with reader:
        reader.add_match(SYSLOG_IDENTIFIER="appliance", APPLIANCE_EVENT="turn")
        if since is not None:
            reader.seek_realtime(since)
        return [{k: str(v) for k, v in entry.items()} for entry in reader]


def _number(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default method)."""
    import numpy as np

    return float(np.percentile(np.asarray(values, dtype=float), q))


def summarize(entries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Counts of turns, outcomes and routes, and n/median/p95 of each latency field."""
    entries = list(entries)
    outcomes = Counter(e.get("OUTCOME", "") for e in entries)
    routes = Counter(e.get("ROUTE", "") or "none" for e in entries)
    sources = Counter(e.get("SOURCE", "") or "local" for e in entries)  # turns from before SOURCE were local
    figures: dict[str, Any] = {}
    for key in FIGURES:
        values = [v for e in entries if (v := _number(e.get(key))) is not None
                  and (key not in MODEL_ONLY or e.get("ROUTE") == "llm")]
        figures[key] = ({"n": len(values), "median": percentile(values, 50), "p95": percentile(values, 95)}
                        if values else {"n": 0, "median": None, "p95": None})
    early = sum(1 for e in entries if e.get("PREEMPTIVE") == "1")
    return {"turns": len(entries), "outcomes": {o: outcomes.get(o, 0) for o in OUTCOMES},
            "routes": dict(routes), "sources": dict(sources), "early_answers": early, "figures": figures}


def render(summary: dict[str, Any], since: str | None) -> str:
    lines = [f"{summary['turns']} turns" + (f" since {since}" if since else "")]
    if summary["turns"]:
        lines.append("outcomes: " + ", ".join(f"{k} {v}" for k, v in summary["outcomes"].items()))
        lines.append("routes:   " + ", ".join(f"{k} {v}" for k, v in sorted(summary["routes"].items())))
        if set(summary.get("sources", {})) - {"local"}:  # only worth a line once a satellite has asked
            lines.append("sources:  " + ", ".join(f"{k} {v}" for k, v in sorted(summary["sources"].items())))
        llm = summary["routes"].get("llm", 0)
        if llm:
            lines.append(f"answers started before the question was confirmed over: {summary['early_answers']} of {llm}")
        lines.append(f"{'':36} {'n':>5} {'median':>9} {'p95':>9}")
        for key, label in FIGURES.items():
            fig = summary["figures"][key]
            if fig["n"]:
                lines.append(f"{label:36} {fig['n']:>5} {fig['median']:>9.0f} {fig['p95']:>9.0f}")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    since = parse_since(args.since) if args.since else None
    summary = summarize(read_turns(since))
    if args.json:
        print(json.dumps(summary), flush=True)
    else:
        print(render(summary, args.since), flush=True)
    return EXIT_OK

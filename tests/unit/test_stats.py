"""appliance stats: --since parsing and the summary of turn entries (the journal read is an e2e test)."""

from __future__ import annotations

from datetime import datetime

import pytest

from appliance import EXIT_USAGE, ApplianceError, cli
from appliance.commands.stats import parse_since, render, summarize

NOW = datetime(2025, 6, 2, 15, 30, 0)


def test_parse_since() -> None:
    assert parse_since("today", NOW) == datetime(2025, 6, 2)
    assert parse_since("yesterday", NOW) == datetime(2025, 6, 1)
    assert parse_since("2h ago", NOW) == datetime(2025, 6, 2, 13, 30)
    assert parse_since("-30m", NOW) == datetime(2025, 6, 2, 15, 0)
    assert parse_since("3 days ago", NOW) == datetime(2025, 5, 30, 15, 30)
    assert parse_since("2025-06-01 08:00", NOW) == datetime(2025, 6, 1, 8, 0)
    with pytest.raises(ApplianceError) as err:
        parse_since("last tuesday-ish", NOW)
    assert cli.exit_code(err.value) == EXIT_USAGE and "--since" in str(err.value)


def _turn(outcome: str, route: str, first_audio: str, tps: str = "", tokens: str = "0") -> dict[str, str]:
    return {"APPLIANCE_EVENT": "turn", "OUTCOME": outcome, "ROUTE": route, "FIRST_AUDIO_MS": first_audio,
            "ASR_MS": "300", "TTFT_MS": "", "TURN_MS": "2000", "LLM_TOKENS_PER_S": tps, "LLM_TOKENS": tokens,
            "PREFILLED_TOKENS": "9" if route == "llm" else "0", "LEFT_TOKENS": "4" if route == "llm" else "0"}


def test_summary_medians_and_p95() -> None:
    entries = [_turn("answered", "llm", str(ms), "40", "20") for ms in range(100, 1100, 100)]  # 100..1000
    entries += [_turn("answered", "skill", "50"), _turn("no_speech", "", ""), _turn("cancelled", "llm", "", "30", "5")]
    for e in entries[:7]:
        e["PREEMPTIVE"] = "1"
    s = summarize(entries)
    assert s["early_answers"] == 7
    assert s["turns"] == 13
    assert s["outcomes"] == {"answered": 11, "no_speech": 1, "cancelled": 1, "error": 0, "timeout": 0}
    assert s["routes"] == {"llm": 11, "skill": 1, "none": 1}
    first = s["figures"]["FIRST_AUDIO_MS"]
    assert first["n"] == 11 and first["median"] == 500.0  # 50, 100..1000
    assert first["p95"] == pytest.approx(950.0)  # rank 9.5 of 0..10: halfway between 900 and 1000
    assert s["figures"]["TTFT_MS"] == {"n": 0, "median": None, "p95": None}  # empty values are skipped
    tps = s["figures"]["LLM_TOKENS_PER_S"]
    assert tps["n"] == 11 and tps["median"] == 40.0  # skill turns do not count
    assert s["figures"]["PREFILLED_TOKENS"]["median"] == 9.0 and s["figures"]["LEFT_TOKENS"]["median"] == 4.0
    text = render(s, "today")
    assert text.splitlines()[0] == "13 turns since today"
    assert "end of speech to first audio (ms)" in text and "  950" in text
    assert "answers started before the question was confirmed over: 7 of 11" in text
    assert "question tokens read while spoken" in text and "prompt tokens left at end of speech" in text


def test_no_turns() -> None:
    assert render(summarize([]), None) == "0 turns"


def test_turns_per_source_once_a_satellite_has_asked() -> None:
    local = [_turn("answered", "llm", "500"), {**_turn("answered", "skill", "50"), "SOURCE": "local"}]
    assert summarize(local)["sources"] == {"local": 2}  # entries from before SOURCE count as local
    assert "sources:" not in render(summarize(local), None)
    rooms = [*local, {**_turn("answered", "llm", "900"), "SOURCE": "kitchen"}]
    assert "sources:  kitchen 1, local 2" in render(summarize(rooms), None)

"""`appliance bench` on the dev model: both flash-attention settings measured, the system prompt cached."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.fixtures.waits import LOAD_WAIT_S


def test_bench_measures_both_settings_side_by_side() -> None:
    env = {k: v for k, v in os.environ.items() if k != "APPLIANCE_CONFIG"}
    out = subprocess.run([sys.executable, "-m", "appliance.cli", "bench", "--reps", "1", "--json"],
                         capture_output=True, text=True, timeout=3 * LOAD_WAIT_S, env=env, check=False)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert set(result["settings"]) == {"flash_attn off", "flash_attn on"}
    for figures in result["settings"].values():
        assert figures["pp_tokens_per_s"] > 0 and figures["tg_new_tokens_per_s"] > 0
        assert figures["ttft_new_ms"] > 0 and figures["ttft_follow_up_ms"] > 0
        # a new question reuses the warmed system prompt; a follow-up reuses the whole first turn
        assert figures["cached_new_tokens"] > 0
        assert figures["cached_follow_up_tokens"] > figures["cached_new_tokens"]
    assert "AVX2 = 1" in result["llama_cpp_system_info"] or "NEON = 1" in result["llama_cpp_system_info"]
    assert result["ratio_on_over_off"]["pp_tokens_per_s"] > 0

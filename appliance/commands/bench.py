"""`appliance bench`: this board's language-model speed as the daemon runs it, flash attention off and on."""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import statistics
import threading
import time
from typing import Any, Final

from appliance import EXIT_OK

QUESTIONS: Final = (
    "What is the capital of France?",
    "How many legs does a spider have?",
    "Why is the sky blue?",
    "What is a good name for a cat?",
)
FOLLOW_UP: Final = "Tell me one more thing about it."
PP_TEXT: Final = "The quick brown fox jumps over the lazy dog. " * 24  # ~240 tokens of prompt


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from appliance.cli import add_common

    parser = sub.add_parser(
        "bench", help="measure the language model on this board (prompt and generation speed, "
        "first-token times), flash attention off and on",
        description="Measures the installed llama.cpp build with the configured model, side by side "
        "in one run: prompt tokens/s, generated tokens/s, time to first token for a new question "
        "and for a follow-up. Run it after `sudo scripts/install.sh` and again after "
        "`sudo scripts/install.sh --no-blas` to compare the OpenBLAS and plain builds on your Pi; "
        "set llm.flash_attn from what it shows.")
    parser.add_argument("--reps", type=int, default=3, help="interleaved repetitions per setting (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_common(parser)
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    import llama_cpp

    from appliance.cli import load_config
    from appliance.setup import models
    from appliance.thinking.llm import LlamaChat

    cfg = load_config(args)
    model = models.resolve("llm", cfg)
    info = llama_cpp.llama_print_system_info().decode(errors="replace").strip()
    chats: dict[str, LlamaChat] = {}
    load_ms: dict[str, float] = {}
    for label, flash in (("flash_attn off", False), ("flash_attn on", True)):
        started = time.perf_counter()
        chat = LlamaChat(dataclasses.replace(cfg.llm, flash_attn=flash), model.path,
                         idle_reset_s=cfg.conversation.idle_reset_s)
        chat.load()
        load_ms[label] = (time.perf_counter() - started) * 1000
        chats[label] = chat
    samples: dict[str, dict[str, list[float]]] = {k: {} for k in chats}
    for rep in range(max(1, args.reps)):
        for label, chat in chats.items():  # interleaved: a noisy moment hits both settings alike
            for key, value in measure(chat, QUESTIONS[rep % len(QUESTIONS)]).items():
                samples[label].setdefault(key, []).append(value)
    result: dict[str, Any] = {
        "model": str(model.path), "model_source": model.source, "n_ctx": cfg.llm.n_ctx,
        "n_threads": next(iter(chats.values())).n_threads, "llama_cpp_system_info": info,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "settings": {label: {"load_ms": round(load_ms[label], 1),
                             **{k: round(statistics.median(v), 2) for k, v in samples[label].items()}}
                     for label in chats},
    }
    off, on = (result["settings"][k] for k in ("flash_attn off", "flash_attn on"))
    result["ratio_on_over_off"] = {k: round(on[k] / off[k], 3) for k in off if off[k]}
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result, args.reps)
    return EXIT_OK


def measure(chat: Any, question: str) -> dict[str, float]:
    """One repetition: raw prompt speed, then a new question and a follow-up as the daemon asks them."""
    llama = chat._llama  # noqa: SLF001 - prompt speed is measured on the same Llama object
    tokens = llama.tokenize(PP_TEXT.encode(), add_bos=False)
    llama.reset()
    started = time.perf_counter()
    type(llama).eval(llama, tokens)
    pp_tps = len(tokens) / (time.perf_counter() - started)
    chat.warm()  # put the system prompt back in the cache, as at start-up
    chat.reset()
    figures = {"pp_tokens_per_s": pp_tps}
    for name, text in (("new", question), ("follow_up", FOLLOW_UP)):
        cancel = threading.Event()
        for _ in chat.stream(text, cancel):
            pass
        stats = chat.last_stats
        figures[f"ttft_{name}_ms"] = stats.ttft_ms or 0.0
        figures[f"tg_{name}_tokens_per_s"] = stats.tokens_per_s or 0.0
        figures[f"cached_{name}_tokens"] = float(stats.cached_prompt_tokens)
    return figures


def print_table(result: dict[str, Any], reps: int) -> None:
    print(f"model      {result['model']} ({result['model_source']})")
    print(f"threads    {result['n_threads']}   n_ctx {result['n_ctx']}   peak RSS {result['peak_rss_mb']} MB")
    print(f"llama.cpp  {result['llama_cpp_system_info']}")
    labels = list(result["settings"])
    print(f"\nmedians of {reps} interleaved runs  " + "".join(f"{x:>16}" for x in labels) + f"{'on/off':>10}")
    for key in result["settings"][labels[0]]:
        row = [result["settings"][x][key] for x in labels]
        ratio = result["ratio_on_over_off"].get(key)
        print(f"{key:<35}" + "".join(f"{v:>16.1f}" for v in row) + (f"{ratio:>10.2f}" if ratio else ""))

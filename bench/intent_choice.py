"""Would a constrained choice by the language model read what the hub's deciding path leaves to it?

    .venv/bin/python -m bench.intent_choice [--every N] [--model qwen|smollm2|PATH] [--show] [--no-first-token]

Every line of the understanding corpus (bench/understanding.py) is decided by the hub's real deciding
path; the lines it sends to the model (requests it left unread, "pretended" or "invented" there, and the
look-alike questions that reach it) are then given to the model with a short, fixed few-shot prompt
listing the hub's intents as labels, `question` among them, and it answers with exactly one label under a
llama.cpp grammar of the labels, temperature 0. The fixed prefix (system prompt and examples) is decoded
once and kept in the KV cache: each transcript decodes only its own turn (llama-cpp-python's
Llama.generate reuses the longest cached prefix of its prompt).

Figures: of the requests reaching the model, how many it labels with their intent (a corpus intent maps
to one or a few labels, LABELS_OF); of the look-alikes, how many it labels `question` (the rest would
become actions); what a choice costs per transcript (median and p95 ms, the turn's prompt decoded and the
label generated, the prefix cached), beside the time to the first text of the model's usual answer to the
same look-alikes through the appliance's own chat (LlamaChat, its system prompt cached, a new conversation
each), unless --no-first-token.
The examples are written here, generic; none is a corpus line.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.understanding import MODEL, Result, load, model_config, run  # noqa: E402

QUESTION: Final = "question"
LABELS: Final = (
    "timer_set", "timer_change", "timer_cancel", "timer_left",
    "alarm_set", "alarm_cancel", "alarm_list",
    "reminder_set", "reminder_cancel", "reminder_list",
    "time_date", "volume_up", "volume_down", "volume_mute", "stop",
    "list_add", "list_remove", "list_read", "list_clear",
    "remember_fact", "recall_fact", "forget_fact",
    "device_on", "device_off", QUESTION,
)
LABELS_OF: Final = {
    "timer_set": {"timer_set"}, "timer_change": {"timer_change"}, "timer_cancel": {"timer_cancel"},
    "timer_left": {"timer_left"}, "timer_list": {"timer_left"},
    "alarm_set": {"alarm_set"}, "alarm_cancel": {"alarm_cancel"}, "alarm_list": {"alarm_list"},
    "reminder_set": {"reminder_set"}, "reminder_cancel": {"reminder_cancel"},
    "reminder_list": {"reminder_list"},
    "time": {"time_date"}, "date": {"time_date"}, "day": {"time_date"},
    "volume": {"volume_up", "volume_down", "volume_mute"},
    "stop": {"stop"}, "nevermind": {"stop"},
    "list_add": {"list_add"}, "list_remove": {"list_remove"}, "list_read": {"list_read"},
    "list_count": {"list_read"}, "list_has": {"list_read"}, "list_clear": {"list_clear"},
    "fact_told": {"remember_fact"}, "fact_answer": {"recall_fact"}, "fact_recall": {"recall_fact"},
    "fact_forget": {"forget_fact"},
    MODEL: {QUESTION},
}
"""The labels right for each corpus intent; a device request (Hass...) is right as device_on or device_off."""
DEVICE: Final = {"device_on", "device_off"}
EXAMPLES: Final = (
    ("start a fifteen minute timer", "timer_set"),
    ("add two minutes to the timer", "timer_change"),
    ("stop the cooking timer", "timer_cancel"),
    ("how much longer on the timer", "timer_left"),
    ("get me up at seven tomorrow", "alarm_set"),
    ("delete my alarm for monday", "alarm_cancel"),
    ("which alarms are on", "alarm_list"),
    ("remind me to phone the vet at five", "reminder_set"),
    ("drop the reminder about the vet", "reminder_cancel"),
    ("any reminders for today", "reminder_list"),
    ("what's the date today", "time_date"),
    ("turn the sound up", "volume_up"),
    ("quieter please", "volume_down"),
    ("mute yourself", "volume_mute"),
    ("that's enough, stop", "stop"),
    ("we're out of apples", "list_add"),
    ("take the butter off the list", "list_remove"),
    ("what is on my list", "list_read"),
    ("empty my list", "list_clear"),
    ("remember the spare key is in the shed", "remember_fact"),
    ("where did I say the spare key was", "recall_fact"),
    ("forget what I said about the key", "forget_fact"),
    ("the hall is too dark", "device_on"),
    ("switch the fan off", "device_off"),
    ("how many grams in a cup of flour", QUESTION),
    ("why do alarms use beeps", QUESTION),
    ("what goes well with lamb", QUESTION),
)
SYSTEM: Final = ("You sort what a person says to a home assistant. Answer with one label: "
                 + ", ".join(LABELS) + ". Use question for anything that asks for knowledge or advice.")
SHOTS: Final = "".join(f"<|im_start|>user\n{said}<|im_end|>\n<|im_start|>assistant\n{label}<|im_end|>\n"
                       for said, label in EXAMPLES)
"""The examples as earlier turns of the model's own chat format (ChatML, Qwen's and SmolLM2's)."""
GRAMMAR: Final = "root ::= " + " | ".join(f'"{label}"' for label in LABELS)


def _p95(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, math.ceil(0.95 * len(values)) - 1)] if values else 0.0


class Chooser:
    """The model choosing a label, the fixed prefix decoded once and kept in the KV cache."""

    def __init__(self, model: str) -> None:
        import llama_cpp

        from appliance.thinking.llm_open import open_llama
        from appliance.thinking.llm_threads import default_threads

        cfg = model_config(model).llm
        gen, batch = default_threads()
        self.llama, _module, _format = open_llama(cfg, Path(cfg.model or ""), cfg.n_threads or gen,
                                                  cfg.n_threads_batch or batch)
        self.grammar = llama_cpp.LlamaGrammar.from_string(GRAMMAR, verbose=False)
        self.prefix = self._tokens(f"<|im_start|>system\n{SYSTEM}<|im_end|>\n{SHOTS}<|im_start|>user\n")
        self.ends = {self.llama.token_eos(), *self._tokens("<|im_end|>")}
        started = time.perf_counter()
        self.llama.reset()
        self.llama.eval(self.prefix)
        self.prefix_ms = (time.perf_counter() - started) * 1000.0

    def _tokens(self, text: str) -> list[int]:
        return self.llama.tokenize(text.encode(), add_bos=False, special=True)

    def choose(self, said: str) -> tuple[str, float]:
        """The label chosen for `said`, and the ms it took (the prefix cached)."""
        started = time.perf_counter()
        tokens = self.prefix + self._tokens(f"{said}<|im_end|>\n<|im_start|>assistant\n")
        out: list[int] = []
        for token in self.llama.generate(tokens, temp=0.0, top_k=1, top_p=1.0, min_p=0.0,
                                         repeat_penalty=1.0, grammar=self.grammar):
            if token in self.ends or len(out) >= 12:
                break
            out.append(token)
        ms = (time.perf_counter() - started) * 1000.0
        return self.llama.detokenize(out).decode(errors="replace").strip(), ms


def first_token_ms(model: str, questions: list[str]) -> list[float]:
    """Ms to the first text of the appliance's own answer to each question (a new conversation each)."""
    from appliance.thinking.llm import LlamaChat

    cfg = model_config(model)
    chat = LlamaChat.from_config(cfg)
    chat.load()
    chat.warm()
    times: list[float] = []
    for question in questions:
        chat.reset()
        started = time.perf_counter()
        stream = chat.stream(question, threading.Event())
        for _delta in stream:
            times.append((time.perf_counter() - started) * 1000.0)
            break
        stream.close()
    return times


def right(result: Result, label: str) -> bool:
    intent = result.line.intent
    return label in (DEVICE if result.line.device else LABELS_OF.get(intent, set()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=1, metavar="N",
                        help="only every Nth line that reaches the model (a quicker run)")
    parser.add_argument("--model", default="qwen", help="qwen (default), smollm2 or a GGUF path")
    parser.add_argument("--show", action="store_true", help="print every line with the label chosen")
    parser.add_argument("--no-first-token", action="store_true",
                        help="do not measure the model's usual first token beside the choice")
    args = parser.parse_args(argv)

    corpus = load("en")
    reached = [r for r in run(corpus) if r.intent == MODEL][::max(1, args.every)]
    chooser = Chooser(args.model)
    chooser.choose("hello")  # the first decode after loading is not counted
    chosen: list[tuple[Result, str, float]] = []
    for result in reached:
        label, ms = chooser.choose(result.line.say)
        chosen.append((result, label, ms))
    prefix_tokens, prefix_ms = len(chooser.prefix), chooser.prefix_ms
    del chooser

    requests = [(r, lab) for r, lab, _ in chosen if not r.line.lookalike]
    lookalikes = [(r, lab) for r, lab, _ in chosen if r.line.lookalike]
    req_right = sum(right(r, lab) for r, lab in requests)
    req_question = sum(lab == QUESTION for _r, lab in requests)
    look_question = sum(lab == QUESTION for _r, lab in lookalikes)
    ms = [m for _r, _l, m in chosen]
    firsts = [] if args.no_first_token else first_token_ms(args.model, [r.line.say for r, _ in lookalikes])

    if args.show:
        for r, lab, m in chosen:
            mark = "ok" if right(r, lab) else "--"
            print(f"{mark} {r.line.intent:16} -> {lab:16} {m:7.1f} ms  {r.line.say!r}")
        print()
    print(f"{'lines reaching the model':44} {len(chosen):>5}  (every {args.every})")
    print(f"{'requests reaching it':44} {len(requests):>5}")
    print(f"{'  labelled with their intent':44} {req_right:>5}")
    print(f"{'  labelled question (left to the model)':44} {req_question:>5}")
    print(f"{'  labelled another intent':44} {len(requests) - req_right - req_question:>5}")
    print(f"{'look-alike questions reaching it':44} {len(lookalikes):>5}")
    print(f"{'  labelled question':44} {look_question:>5}")
    print(f"{'  labelled an action (would be mistaken)':44} {len(lookalikes) - look_question:>5}")
    print(f"{'fixed prefix, tokens / ms to decode once':44} {prefix_tokens:>5} / {prefix_ms:.0f}")
    print(f"{'choice per transcript, ms median / p95':44} {statistics.median(ms):>5.0f} / {_p95(ms):.0f}")
    if firsts:
        print(f"{'usual first text of an answer, ms med / p95':44} {statistics.median(firsts):>5.0f} / "
              f"{_p95(firsts):.0f}  ({len(firsts)} look-alikes)")
    wrong = Counter(lab for r, lab in lookalikes if lab != QUESTION)
    if wrong:
        print("look-alikes taken as: " + ", ".join(f"{k} {v}" for k, v in wrong.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

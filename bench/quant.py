"""Benchmark: which quantisation of the language model to run, by its tensors, speed, size and answers.

    .venv/bin/python bench/quant.py                    # Q4_K_M, Q4_0, IQ4_NL, Q5_0, Q5_K_M, Q8_0; 5 rounds
    .venv/bin/python bench/quant.py --quants Q4_K_M,Q4_0 --rounds 1 --threads 1 --questions 3   # smoke run
    .venv/bin/python bench/quant.py --json bench/out/quant.json

The source is the Qwen2.5 0.5B stand-in (.cache/models, docs/models.md) or --model; its own type is read
from its general.file_type and it is measured as it is. Every other type is made from it with llama.cpp's
`llama-quantize --allow-requantize` into .cache/quant/ (skipped when the file is there), built from the
very source and CMake flags of the installed llama-cpp-python, together with llama-bench (bench/llm.py).
Requantising starts from already rounded weights, so the answers show what each type loses beyond the
source, never what a wider type would gain over it: for that, give an F16 GGUF as --model.

For each file: its tensor types (count and MiB by type, read with the gguf package), its size, and
llama-bench's prompt processing (pp256) and generation (tg128) at each --threads, with the project's
n_batch and flash attention off. Rounds are interleaved (every file at every thread count once per round,
the order rotated each round) and medians reported, because this kind of machine is noisy; each ratio is
the median of the per-round ratios to the first quant listed, measured minutes apart at most.

Answer quality: the fixed questions of bench/quant_questions.py, asked one by one with no history through
the project's own chat code (LlamaChat: the language pack's system prompt, the model's chat template,
llm.max_new_tokens, the repeat penalty), with greedy decoding (temperature 0, seed 1234) at the largest
thread count, so a file answers the same every run. An answer passes when it contains every word its
question names (one of the alternatives where a word has them), matched whole and without regard to case
after NFKC normalisation and with thousands separators dropped (judge()). The table gives passed/total,
how many answers are word for word those of the first quant, and an exact sign test on the questions where
a quant and the first disagree: p is the chance of a split at least that uneven if neither were better.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import statistics
import subprocess
import sys
import threading
import time
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import llm as llm_bench  # bench/llm.py: the llama.cpp build and the llama-bench runs
from quant_questions import QUESTIONS

QUANT_DIR: Final = llm_bench.CACHE / "quant"
STAND_IN: Final = llm_bench.CACHE / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
DEFAULT_QUANTS: Final = "Q4_K_M,Q4_0,IQ4_NL,Q5_0,Q5_K_M,Q8_0"
SEED: Final = 1234
QUANTIZE_THREADS: Final = 2
EX_NO_MODEL: Final = 3  # the source GGUF is missing or unreadable
EX_TOOL: Final = 4  # llama-quantize or llama-bench failed or could not be built
EX_BAD_QUANT: Final = 5  # a --quants name llama.cpp has no file type for


class QuantBenchError(Exception):
    """An expected failure: its message is printed, and the script exits with `code`."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


# ------------------------------------------------------------------------------ tensors


def tensor_summary(path: Path) -> dict[str, dict[str, float]]:
    """{type: {"count", "bytes", "mib"}} of the GGUF's tensors, the largest share first."""
    import gguf

    totals: dict[str, list[int]] = {}
    for tensor in gguf.GGUFReader(path).tensors:
        entry = totals.setdefault(tensor.tensor_type.name, [0, 0])
        entry[0] += 1
        entry[1] += int(tensor.n_bytes)
    ordered = sorted(totals.items(), key=lambda kv: (-kv[1][1], kv[0]))
    return {name: {"count": count, "bytes": size, "mib": size / 2**20} for name, (count, size) in ordered}


def describe_tensors(summary: dict[str, dict[str, float]]) -> str:
    """One line: 'Q5_0 133 (254.4 MiB), Q8_0 13 (139.3 MiB), ...'."""
    return ", ".join(f"{name} {int(s['count'])} ({s['mib']:.1f} MiB)" for name, s in summary.items())


def file_type(path: Path) -> str:
    """The quantisation the GGUF says it is (general.file_type, e.g. 'Q4_K_M'), '?' when it says none."""
    import gguf

    field = gguf.GGUFReader(path).get_field("general.file_type")
    if field is None:
        return "?"
    try:
        return gguf.LlamaFileType(int(field.contents())).name.removeprefix("MOSTLY_")
    except ValueError:
        return "?"


def known_quant(name: str) -> bool:
    """Whether llama.cpp has a file type of that name (Q4_0, IQ4_NL, Q5_K_M, ...)."""
    import gguf

    return f"MOSTLY_{name}" in gguf.LlamaFileType.__members__ or name in ("F16", "BF16")


# ------------------------------------------------------------------------------ files


def quant_path(source: Path, source_type: str, quant: str) -> Path:
    """Where the `quant` made from `source` is kept: .cache/quant/<source name less its type>-<quant>.gguf."""
    stem = source.stem
    suffix = "-" + source_type.lower()
    if stem.lower().endswith(suffix):
        stem = stem[: -len(suffix)]
    return QUANT_DIR / f"{stem}-{quant.lower()}.gguf"


def make_quant(quantize: Path, source: Path, source_type: str, quant: str) -> Path:
    """The source itself for its own type, else the requantised file (made once, whole or not at all)."""
    if quant == source_type:
        return source
    target = quant_path(source, source_type, quant)
    if target.exists():
        return target
    QUANT_DIR.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    print(f"Making {target.name} with llama-quantize ...", file=sys.stderr)
    started = time.monotonic()
    done = subprocess.run([str(quantize), "--allow-requantize", str(source), str(partial), quant,
                           str(QUANTIZE_THREADS)], capture_output=True, text=True,
                          timeout=llm_bench.BUILD_TIMEOUT_S, check=False)
    if done.returncode != 0 or not partial.exists():
        partial.unlink(missing_ok=True)
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise QuantBenchError(f"llama-quantize could not make {quant} from {source.name}:\n{tail}", EX_TOOL)
    partial.rename(target)
    print(f"  {target.name}: {target.stat().st_size / 2**20:.0f} MiB in {time.monotonic() - started:.0f} s",
          file=sys.stderr)
    return target


# ------------------------------------------------------------------------------ speed


def round_order(quants: Sequence[str], round_no: int) -> list[str]:
    """The quants in the order of round `round_no` (0-based): the list rotated by one each round."""
    if not quants:
        return []
    shift = round_no % len(quants)
    return [*quants[shift:], *quants[:shift]]


def measure_speed(binary: Path, files: dict[str, Path], threads: Sequence[int], rounds: int,
                  n_batch: int) -> list[dict[str, Any]]:
    """llama-bench pp and tg of every file at every thread count, `rounds` interleaved rounds: one row each."""
    rows: list[dict[str, Any]] = []
    quants = list(files)
    for n in range(rounds):
        for t in threads:
            for quant in round_order(quants, n):
                try:
                    speed = llm_bench.run_llama_bench(binary, files[quant], t, n_batch, False)
                except subprocess.CalledProcessError as exc:
                    tail = "\n".join((exc.stderr or "").strip().splitlines()[-5:])
                    raise QuantBenchError(f"llama-bench failed on {files[quant].name}:\n{tail}", EX_TOOL) from None
                rows.append({"round": n, "threads": t, "quant": quant, "pp": speed["pp"], "tg": speed["tg"]})
                print(f"  round {n + 1} t{t} {quant:>7}: pp {speed['pp']:7.1f}  tg {speed['tg']:6.1f}",
                      file=sys.stderr)
    return rows


def median_speed(rows: Iterable[dict[str, Any]], quant: str, threads: int, key: str) -> float | None:
    """The median tokens/s of `key` ('pp' or 'tg') for that quant and thread count; None without rows."""
    values = [r[key] for r in rows if r["quant"] == quant and r["threads"] == threads]
    return statistics.median(values) if values else None


def speed_range(rows: Iterable[dict[str, Any]], quant: str, threads: int, key: str) -> tuple[float, float] | None:
    """The slowest and fastest round of `key` for that quant and thread count: how noisy its median is."""
    values = [r[key] for r in rows if r["quant"] == quant and r["threads"] == threads]
    return (min(values), max(values)) if values else None


def paired_ratio(rows: Sequence[dict[str, Any]], quant: str, base: str, threads: int, key: str) -> float | None:
    """The median over rounds of quant's `key` over base's in the same round and thread count."""
    by_round: dict[int, dict[str, float]] = {}
    for r in rows:
        if r["threads"] == threads and r["quant"] in (quant, base):
            by_round.setdefault(r["round"], {})[r["quant"]] = r[key]
    ratios = [pair[quant] / pair[base] for pair in by_round.values()
              if quant in pair and base in pair and pair[base] > 0]
    return statistics.median(ratios) if ratios else None


# ------------------------------------------------------------------------------ answers


def normalise(text: str) -> str:
    """Lower case, NFKC (CO₂ is co2), curly quotes straight, thousands separators dropped (1,000 is 1000)."""
    text = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'")
    return re.sub(r"(?<=\d)[,\u202f ](?=\d{3}(?!\d))", "", text)


def contains_word(text: str, word: str) -> bool:
    """Whether the normalised `word` stands whole in the normalised `text` (no letter or digit beside it)."""
    needle = re.escape(normalise(word))
    return re.search(rf"(?<![a-z0-9]){needle}(?![a-z0-9])", normalise(text)) is not None


def judge(answer: str, required: Sequence[str]) -> bool:
    """True when the answer contains every required word; 'a|b' is met by either alternative."""
    return all(any(contains_word(answer, alt) for alt in entry.split("|")) for entry in required)


def sign_test(base_only: int, quant_only: int) -> float:
    """Exact two-sided sign test on the disagreements: questions only the base passed, and only the quant
    did. 1.0 when they never disagree."""
    n = base_only + quant_only
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(base_only, quant_only) + 1)) / 2**n
    return min(1.0, 2 * tail)


def disagreements(passed: dict[str, Sequence[bool]]) -> list[int]:
    """Indices of the questions on which the quants do not all pass or all fail."""
    columns = list(passed.values())
    if not columns:
        return []
    return [i for i in range(len(columns[0])) if len({col[i] for col in columns}) > 1]


def ask_all(model: Path, questions: Sequence[tuple[str, Sequence[str]]], threads: int) -> list[str]:
    """The answers of the project's chat to each question, asked afresh, with greedy decoding."""
    from appliance.config import Config
    from appliance.thinking.llm import LlamaChat

    cfg = Config()
    llm_cfg = dataclasses.replace(cfg.llm, temperature=0.0, seed=SEED, n_threads=threads,
                                  n_threads_batch=threads, n_threads_first=threads,
                                  answer_timeout_s=llm_bench.RUN_TIMEOUT_S)
    chat = LlamaChat(llm_cfg, model, idle_reset_s=cfg.conversation.idle_reset_s)
    chat.load()
    answers = []
    try:
        for question, _words in questions:
            chat.reset()
            answers.append("".join(chat.stream(question, threading.Event())).strip())
    finally:
        chat._llama.close()
    return answers


# ------------------------------------------------------------------------------ table


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def table_rows(quants: Sequence[str], threads: Sequence[int], sizes: dict[str, int],
               speed: Sequence[dict[str, Any]], quality: dict[str, list[bool]],
               answers: dict[str, list[str]]) -> list[list[str]]:
    """The table, a header row first: size, each speed with its ratio to the first quant, then the answers."""
    base = quants[0]
    header = ["quant", "MiB"]
    for t in threads:
        header += [f"pp t{t}", "x", f"tg t{t}", "x"]
    header += ["passed", "same answers", "p"]
    rows = [header]
    for q in quants:
        row = [q, f"{sizes[q] / 2**20:.0f}"]
        for t in threads:
            for key in ("pp", "tg"):
                row += [_fmt(median_speed(speed, q, t, key), ".1f"),
                        _fmt(paired_ratio(speed, q, base, t, key), ".2f")]
        if q in quality and base in quality:
            mine, theirs = quality[q], quality[base]
            base_only = sum(b and not m for m, b in zip(mine, theirs))
            quant_only = sum(m and not b for m, b in zip(mine, theirs))
            same = sum(a == b for a, b in zip(answers[q], answers[base]))
            row += [f"{sum(mine)}/{len(mine)}", f"{same}/{len(mine)}",
                    "-" if q == base else f"{sign_test(base_only, quant_only):.2f}"]
        else:
            row += ["-", "-", "-"]
        rows.append(row)
    return rows


def range_rows(quants: Sequence[str], threads: Sequence[int], speed: Sequence[dict[str, Any]]) -> list[list[str]]:
    """Each median's rounds, slowest to fastest ('75.0-78.9'), a header row first."""
    rows = [["quant", *(f"{key} t{t}" for t in threads for key in ("pp", "tg"))]]
    for q in quants:
        cells = [speed_range(speed, q, t, key) for t in threads for key in ("pp", "tg")]
        rows.append([q, *("-" if c is None else f"{c[0]:.1f}-{c[1]:.1f}" for c in cells)])
    return rows


def format_table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(r, widths)))
                     for r in rows)


# ------------------------------------------------------------------------------ driver


def _positive_ints(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma list of whole numbers: {text}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"give one or more numbers of 1 or more: {text}")
    return values


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help=f"source GGUF (default: {STAND_IN.name} in .cache/models)")
    parser.add_argument("--quants", default=DEFAULT_QUANTS, help="comma list of types; the first is the baseline")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved llama-bench rounds (0: no speed)")
    parser.add_argument("--threads", type=_positive_ints, default=[1, 2], help="comma list of thread counts")
    parser.add_argument("--questions", type=int, default=len(QUESTIONS),
                        help=f"ask the first N of the {len(QUESTIONS)} questions (0: no answers)")
    parser.add_argument("--json", metavar="PATH", help="also write every figure and answer here")
    args = parser.parse_args(argv)
    args.quants = [q.strip().upper() for q in args.quants.split(",") if q.strip()]
    if not args.quants:
        parser.error("--quants needs at least one type")
    if args.rounds < 0 or args.questions < 0:
        parser.error("--rounds and --questions are 0 or more")
    return args


def source_model(given: Path | None) -> Path:
    if given is not None:
        path = given
    elif STAND_IN.exists():
        path = STAND_IN
    else:
        path = llm_bench.QWEN_FILE
    if not path.is_file():
        raise QuantBenchError(f"No GGUF at {path}: install the stand-in with scripts/install.sh --dev "
                              "--bench-models, or give one with --model", EX_NO_MODEL)
    return path


def run(args: argparse.Namespace) -> dict[str, Any]:
    from appliance.config import LlmConfig

    bad = [q for q in args.quants if not known_quant(q)]
    if bad:
        raise QuantBenchError(f"llama.cpp has no file type {', '.join(bad)} (e.g. Q4_0, IQ4_NL, Q5_K_M, Q8_0)",
                              EX_BAD_QUANT)
    source = source_model(args.model)
    try:
        source_type = file_type(source)
    except (ValueError, OSError) as exc:
        raise QuantBenchError(f"{source} is not a readable GGUF: {exc}", EX_NO_MODEL) from None
    try:
        quantize = llm_bench.llama_tool("llama-quantize")
        bench = llm_bench.llama_tool("llama-bench")
    except (subprocess.SubprocessError, OSError) as exc:
        raise QuantBenchError(f"llama.cpp's tools could not be built: {exc}", EX_TOOL) from None
    llm_bench.same_kernels(bench)
    print(f"Source {source} ({source_type}); llama-cpp-python's build flags: {' '.join(llm_bench.cmake_flags())}",
          file=sys.stderr)

    files = {q: make_quant(quantize, source, source_type, q) for q in args.quants}
    tensors = {q: tensor_summary(path) for q, path in files.items()}
    sizes = {q: path.stat().st_size for q, path in files.items()}
    print("\nTensor types (count, MiB):")
    for q in args.quants:
        print(f"  {q:>7} {sizes[q] / 2**20:5.0f} MiB: {describe_tensors(tensors[q])}")
    sys.stdout.flush()

    speed: list[dict[str, Any]] = []
    if args.rounds:
        print(f"\nSpeed: llama-bench pp{llm_bench.PP_TOKENS} tg{llm_bench.TG_TOKENS}, threads "
              f"{','.join(map(str, args.threads))}, {args.rounds} interleaved rounds", file=sys.stderr)
        speed = measure_speed(bench, files, args.threads, args.rounds, LlmConfig().n_batch)

    questions = QUESTIONS[: args.questions]
    answers: dict[str, list[str]] = {}
    quality: dict[str, list[bool]] = {}
    if questions:
        threads = max(args.threads)
        print(f"\nAnswers: {len(questions)} questions, greedy, {threads} threads", file=sys.stderr)
        for q in args.quants:
            started = time.monotonic()
            answers[q] = ask_all(files[q], questions, threads)
            quality[q] = [judge(a, words) for a, (_, words) in zip(answers[q], questions)]
            print(f"  {q:>7}: {sum(quality[q])}/{len(questions)} in {time.monotonic() - started:.0f} s",
                  file=sys.stderr)

    print()
    print(format_table(table_rows(args.quants, args.threads, sizes, speed, quality, answers)))
    if speed:
        print("\nRounds, slowest to fastest (tokens/s):")
        print(format_table(range_rows(args.quants, args.threads, speed)))
    split = disagreements(quality)
    if split:
        print("\nQuestions the quants disagree on (+ passed, - failed):")
        for i in split:
            marks = " ".join(f"{q}{'+' if quality[q][i] else '-'}" for q in args.quants)
            print(f"  {questions[i][0]}  [{marks}]")
            for q in args.quants:
                print(f"      {q:>7}: {answers[q][i]!r}")
    return {
        "source": str(source), "source_type": source_type, "llama_cpp_python": llm_bench_version(),
        "cmake_flags": llm_bench.cmake_flags(), "threads": args.threads, "rounds": args.rounds,
        "n_batch": LlmConfig().n_batch, "pp_tokens": llm_bench.PP_TOKENS, "tg_tokens": llm_bench.TG_TOKENS,
        "quants": {q: {"path": str(files[q]), "bytes": sizes[q], "tensors": tensors[q],
                       **({"passed": sum(quality[q]), "asked": len(quality[q])} if q in quality else {}),
                       **{f"{key}_t{t}": median_speed(speed, q, t, key) for t in args.threads for key in ("pp", "tg")},
                       **{f"{key}_t{t}_ratio": paired_ratio(speed, q, args.quants[0], t, key)
                          for t in args.threads for key in ("pp", "tg")},
                       **{f"{key}_t{t}_range": speed_range(speed, q, t, key)
                          for t in args.threads for key in ("pp", "tg")}}
                   for q in args.quants},
        "speed_rows": speed,
        "answers": [{"question": question, "words": list(words),
                     **{q: {"answer": answers[q][i], "passed": quality[q][i]} for q in answers}}
                    for i, (question, words) in enumerate(questions)],
    }


def llm_bench_version() -> str:
    import llama_cpp

    return str(llama_cpp.__version__)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        result = run(args)
    except QuantBenchError as exc:
        print(f"bench/quant.py: {exc}", file=sys.stderr)
        return exc.code
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

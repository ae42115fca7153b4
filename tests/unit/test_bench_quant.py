"""bench/quant.py's own reckoning: the answer judge, the tensor summary of a GGUF, the speed medians and
ratios, the sign test and the table."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("bench_quant", ROOT / "bench" / "quant.py")
assert _SPEC and _SPEC.loader
quant = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(quant)


@pytest.mark.parametrize(("answer", "words", "passes"), [
    ("The capital of Australia is Canberra.", ("canberra",), True),
    ("Sydney is the capital of Australia.", ("canberra",), False),
    ("There are sixty minutes in an hour.", ("60|sixty",), True),
    ("An hour has 60 minutes.", ("60|sixty",), True),
    ("A spider has 18 legs.", ("8|eight",), False),  # a number is found whole, not inside another
    ("There are 1,000 grams in a kilogram.", ("1000|thousand",), True),
    ("Plants take in CO₂ from the air.", ("co2",), True),
    ("Leonardo da Vinci painted it.", ("leonardo|da vinci",), True),
    ("Water boils at 100°C at sea level.", ("100|hundred",), True),
    ("Water freezes at 0 degrees.", ("0|zero",), True),
    ("Water boils at 100 degrees.", ("0|zero",), False),
    ("Romeo and Juliet was written by William Shakespeare", ("shakespeare", "william"), True),
    ("Romeo and Juliet was written by Shakespeare", ("shakespeare", "william"), False),
    ("Vitamin D, made in sunlight.", ("vitamin d",), True),
    ("Vitamin C.", ("vitamin d",), False),
])
def test_judge_finds_whole_words(answer: str, words: tuple[str, ...], passes: bool) -> None:
    assert quant.judge(answer, words) is passes


def test_every_question_names_the_words_of_its_answer() -> None:
    questions = quant.QUESTIONS
    assert len(questions) >= 40
    assert len({q for q, _ in questions}) == len(questions)
    for question, words in questions:
        assert question.endswith("?") and words and all(w.strip() for entry in words for w in entry.split("|"))


def _write_gguf(path: Path) -> None:
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_uint32("general.file_type", int(gguf.LlamaFileType.MOSTLY_Q4_0))
    writer.add_tensor("norm", np.ones((4, 8), dtype=np.float32))
    writer.add_tensor("norm2", np.ones((1, 8), dtype=np.float32))
    for name, rows in (("a", 2), ("b", 3)):
        weights = np.linspace(-1, 1, rows * 64, dtype=np.float32).reshape(rows, 64)
        writer.add_tensor(name, gguf.quants.quantize(weights, gguf.GGMLQuantizationType.Q4_0),
                          raw_dtype=gguf.GGMLQuantizationType.Q4_0)
    weights = np.linspace(-1, 1, 2 * 64, dtype=np.float32).reshape(2, 64)
    writer.add_tensor("c", gguf.quants.quantize(weights, gguf.GGMLQuantizationType.Q8_0),
                      raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def test_tensor_summary_counts_and_sizes_each_type(tmp_path: Path) -> None:
    path = tmp_path / "tiny-q4_0.gguf"
    _write_gguf(path)
    summary = quant.tensor_summary(path)
    assert list(summary) == ["Q4_0", "F32", "Q8_0"]  # the largest share first
    # Q4_0: 18 bytes per 32 weights (2 blocks a row, 5 rows); Q8_0: 34 bytes per 32; F32: 4 bytes each
    assert summary["Q4_0"] == {"count": 2, "bytes": 180, "mib": 180 / 2**20}
    assert summary["F32"] == {"count": 2, "bytes": 160, "mib": 160 / 2**20}
    assert summary["Q8_0"] == {"count": 1, "bytes": 136, "mib": 136 / 2**20}
    assert quant.describe_tensors(summary).startswith("Q4_0 2 (0.0 MiB), F32 2")
    assert quant.file_type(path) == "Q4_0"


def test_quant_names_and_paths() -> None:
    assert quant.known_quant("IQ4_NL") and quant.known_quant("Q5_K_M") and quant.known_quant("Q8_0")
    assert not quant.known_quant("Q4_K_X")
    made = quant.quant_path(Path("/m/qwen2.5-0.5b-instruct-q4_k_m.gguf"), "Q4_K_M", "IQ4_NL")
    assert made == quant.QUANT_DIR / "qwen2.5-0.5b-instruct-iq4_nl.gguf"


def _rows() -> list[dict]:
    # base A and quant B at 1 thread over three rounds; B is exactly twice A's pp in every round
    rows = []
    for n, (a_pp, a_tg, b_tg) in enumerate([(50.0, 20.0, 30.0), (40.0, 10.0, 16.0), (60.0, 25.0, 25.0)]):
        rows.append({"round": n, "threads": 1, "quant": "A", "pp": a_pp, "tg": a_tg})
        rows.append({"round": n, "threads": 1, "quant": "B", "pp": 2 * a_pp, "tg": b_tg})
    rows.append({"round": 0, "threads": 2, "quant": "A", "pp": 90.0, "tg": 30.0})
    return rows


def test_speed_medians_and_paired_ratios() -> None:
    rows = _rows()
    assert quant.median_speed(rows, "A", 1, "pp") == 50.0
    assert quant.median_speed(rows, "B", 1, "tg") == 25.0
    assert quant.median_speed(rows, "B", 2, "tg") is None
    assert quant.paired_ratio(rows, "B", "A", 1, "pp") == 2.0
    # per-round ratios 1.5, 1.6, 1.0: their median, not the ratio of the medians (25 / 20)
    assert quant.paired_ratio(rows, "B", "A", 1, "tg") == pytest.approx(1.5)
    assert quant.paired_ratio(rows, "B", "A", 2, "tg") is None  # B has no round at 2 threads


def test_speed_range_is_the_slowest_and_fastest_round() -> None:
    rows = _rows()
    assert quant.speed_range(rows, "B", 1, "tg") == (16.0, 30.0)
    assert quant.speed_range(rows, "A", 2, "pp") == (90.0, 90.0)
    assert quant.speed_range(rows, "B", 2, "pp") is None
    assert quant.range_rows(["A", "B"], [1, 2], rows) == [
        ["quant", "pp t1", "tg t1", "pp t2", "tg t2"],
        ["A", "40.0-60.0", "10.0-25.0", "90.0-90.0", "30.0-30.0"],
        ["B", "80.0-120.0", "16.0-30.0", "-", "-"],
    ]


def test_rounds_rotate_the_order() -> None:
    assert quant.round_order(["a", "b", "c"], 0) == ["a", "b", "c"]
    assert quant.round_order(["a", "b", "c"], 1) == ["b", "c", "a"]
    assert quant.round_order(["a", "b", "c"], 5) == ["c", "a", "b"]


def test_sign_test_and_disagreements() -> None:
    assert quant.sign_test(0, 0) == 1.0
    assert quant.sign_test(3, 3) == 1.0
    assert quant.sign_test(5, 0) == pytest.approx(2 / 32)
    assert quant.sign_test(1, 7) == pytest.approx(2 * (1 + 8) / 256)
    assert quant.sign_test(2, 9) == quant.sign_test(9, 2)
    assert quant.sign_test(10, 0) < 0.01 < quant.sign_test(4, 0)
    passed = {"A": [True, True, False, False], "B": [True, False, False, True], "C": [True, True, False, True]}
    assert quant.disagreements(passed) == [1, 3]
    assert quant.disagreements({}) == []


def test_table_shows_sizes_speeds_ratios_and_answers() -> None:
    rows = quant.table_rows(["A", "B"], [1], {"A": 300 * 2**20, "B": 150 * 2**20}, _rows(),
                            {"A": [True, True, False], "B": [True, False, True]},
                            {"A": ["x", "y", "z"], "B": ["x", "q", "r"]})
    assert rows[0] == ["quant", "MiB", "pp t1", "x", "tg t1", "x", "passed", "same answers", "p"]
    assert rows[1] == ["A", "300", "50.0", "1.00", "20.0", "1.00", "2/3", "3/3", "-"]
    assert rows[2] == ["B", "150", "100.0", "2.00", "25.0", "1.50", "2/3", "1/3", "1.00"]
    text = quant.format_table(rows).splitlines()
    assert len(text) == 3 and len({len(line) for line in text}) == 1

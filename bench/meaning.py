"""Where reading by meaning (appliance/thinking/meaning.py) should take a request: each example of the
language pack read against all the others (left out in turn), at a grid of thresholds, in one run.

    .venv/bin/python -m bench.meaning [--language en]

For every example of a request, of a question for the model and of a device request, its slots are filled
with plain words ("ten minutes", "seven", a word no example has for an item) and it is read with itself
left out. Printed per threshold pair (NEAR, MARGIN) and number of nearest examples averaged (NEAREST):
the requests read as their own intent, as another request, and the questions taken as a request. The
corpus in tests/corpus judges the result (bench.understanding); this chooses the thresholds without it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from appliance.language import pack  # noqa: E402
from appliance.thinking import meaning  # noqa: E402

FILLED: Final = {"duration": "ten minutes", "time": "seven", "day": "tomorrow", "item": "zqitem", "what": "zqwhat",
                 "name": "zqname", "list": "shopping", "level": "four"}
"""What each slot is said as: the items, messages and names as a word no example has."""
NEARS: Final = (0.3, 0.35, 0.4, 0.45, 0.5)
MARGINS: Final = (0.0, 0.05, 0.1, 0.15)
NEARESTS: Final = (1, 2, 3)


def readings(m: meaning.Meanings, k_nearest: int) -> list[tuple[str, str, float, float]]:
    """(its intent, read as, nearness, margin) of every example, each read with itself left out."""
    out = []
    for k, (intent, said) in enumerate(m.examples):
        top, near, margin = m.nearest(m.cut(said.format(**FILLED)), k_nearest, left_out=k)
        out.append((intent, top, near, margin))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--language", default="en")
    args = parser.parse_args(argv)
    m = meaning.meanings(pack(args.language))
    if m is None:
        raise SystemExit(f"the {args.language} language pack has no examples")
    print(f"now: NEAREST {meaning.NEAREST}, NEAR {meaning.NEAR}, MARGIN {meaning.MARGIN}")
    print(f"{'nearest':>7} {'near':>5} {'margin':>6} {'right':>7} {'other':>7} {'questions':>9}")
    for k_nearest in NEARESTS:
        rows = readings(m, k_nearest)
        requests = [r for r in rows if r[0] not in meaning.NOT_LOCAL]
        questions = [r for r in rows if r[0] == meaning.MODEL]
        for near in NEARS:
            for margin in MARGINS:
                def taken(r: tuple[str, str, float, float], near: float = near, margin: float = margin) -> bool:
                    return r[1] not in meaning.NOT_LOCAL and r[2] >= near and r[3] >= margin
                right = sum(taken(r) and r[1] == r[0] for r in requests)
                other = sum(taken(r) and r[1] != r[0] for r in requests)
                asked = sum(taken(r) for r in questions)
                print(f"{k_nearest:>7} {near:>5} {margin:>6} {right / len(requests):>7.1%} {other / len(requests):>7.1%} "
                      f"{asked / len(questions):>9.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

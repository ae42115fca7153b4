"""The understanding corpus's lines that reach the model (tests/corpus/understanding_en*.yaml: the look-alike
questions, and the requests the skills' own words do not read, which reach it whenever reading by meaning
misses one too), answered through `appliance ask`'s answer path with the
Qwen stand-in and with the development model (docs/models.md), and heard as the person hears them: no
answer to a request claims an action (the claims check says the truth instead), no look-alike question is
refused or answered by a skill, and every answer says something.

What is asked: every EVERY-th line of the corpus, from the first (the lines of `python -m
bench.understanding --every 9 --by-rules`), decided as that bench decides by the skills' words alone (each
line to a fresh household, the clock at the corpus's `now`); those the model gets are answered. A fixed subset, so that both models answer in
about a minute on two cores. Each answer is cut at MAX_TOKENS tokens, for only its first sentence can claim
an action (claims.ClaimCheck looks at an answer's first pieces and passes the rest). The look-alikes that
deciding takes for requests are bench.understanding's figure, not asserted here.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from typing import Final

import pytest

from appliance.config import Config
from bench import understanding
from tests.fixtures.honesty import claims_action
from tests.fixtures.llm import LLM_TEST_SEED

EVERY: Final = 9
"""Every ninth line of the corpus is said (27 of them reach the model: 4 requests, 23 look-alikes)."""
MAX_TOKENS: Final = 12
"""Tokens at most in an answer: its first sentence, or most of it."""
MODELS: Final = ("smollm2", "qwen")


@pytest.fixture(scope="module")
def corpus() -> understanding.Corpus:
    """The subset of the corpus said here."""
    whole = understanding.load("en")
    return dataclasses.replace(whole, lines=whole.lines[::EVERY])


@pytest.fixture(scope="module")
def reaching(corpus: understanding.Corpus) -> list[understanding.Result]:
    """The lines the skills' own words give to the model: the requests among them are those the model would
    answer if reading by meaning missed them, as it still misses a few of the corpus's."""
    return [r for r in understanding.run(corpus, by_meaning=False) if r.intent == understanding.MODEL]


@pytest.fixture(scope="module", params=MODELS)
def heard(request: pytest.FixtureRequest, corpus: understanding.Corpus,
          reaching: list[understanding.Result]) -> Iterator[list[understanding.Result]]:
    """The subset answered by one model (loaded once for the module's tests), as the person hears it."""
    from appliance.assembly import load_chat

    base = Config()
    base = dataclasses.replace(base, llm=dataclasses.replace(base.llm, seed=LLM_TEST_SEED, max_new_tokens=MAX_TOKENS,
                                                           temperature=0.0))  # greedy: the same words on any run
    try:
        cfg = understanding.model_config(request.param, base)
    except SystemExit as missing:  # the Qwen stand-in's packages are not installed
        pytest.skip(str(missing))
    results = [dataclasses.replace(r) for r in reaching]
    understanding.hear(results, corpus, load_chat(cfg), cfg, by_meaning=False)
    yield results


def test_no_answer_to_a_request_claims_an_action(heard: list[understanding.Result], capsys) -> None:
    requests = [r for r in heard if not r.line.lookalike]
    assert requests, "no request of the corpus reaches the model: nothing here proves the claims check"
    claimed = [(r.line.say, r.answer) for r in requests if claims_action(r.answer)]
    with capsys.disabled():
        print(f"\n{len(heard)} lines answered ({len(requests)} requests, {len(heard) - len(requests)} look-alikes); "
              f"{sum(r.claimed for r in requests)} answers to requests replaced by the truth for a claimed action")
    assert claimed == []


def test_no_lookalike_is_refused_or_answered_by_a_skill(heard: list[understanding.Result]) -> None:
    lookalikes = [r for r in heard if r.line.lookalike]
    assert lookalikes
    routes = Counter(r.route for r in lookalikes)
    refused = [(r.line.say, r.answer) for r in lookalikes if r.claimed]
    assert routes == {"llm": len(lookalikes)} and refused == []


def test_every_answer_says_something(heard: list[understanding.Result]) -> None:
    assert [r.line.say for r in heard if r.route != "llm" or not r.answer.strip()] == []

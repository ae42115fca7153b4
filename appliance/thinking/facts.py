"""What the hub was told to remember: kept in the state folder, and found again by the words they share.

    store = FactStore(Path(cfg.service.state_dir))
    kept, replaced = store.add("the spare key is under the blue pot", now, replaces=lambda fact: ...)
    store.all(); store.forget(lambda fact: ...); store.clear()

The file (facts.json) is plain JSON the owner may read and edit: each fact's words ("said") and when it
was told ("told", ISO 8601 with its UTC offset; a date alone is midnight there). It is written whole
under a file lock (state_file.SharedState) and re-read whenever another process changed it; an
unreadable one is moved aside (facts.json.bad), named in the journal, and the hub starts with none.
Only counts are logged: what was told is the owner's.

Finding (FactIndex) works on any language's words: a fact and a question are split into words by a
pattern, the language pack's words that say nothing of a topic are dropped, and a question's word
matches a fact's when one begins like the other (a shared beginning of at least 70% of the longer,
or the whole of a shorter word of four letters or more: "key" and "keys", "serviced" and "service",
"park" and "parked"). A few question words stand for a fact's word (the pack's `alias:` sets: "called"
for "name"). Each word counts by how rare it is among the kept facts (BM25's inverse document
frequency), so "the spare key" is found by "spare" and "key", not by "the".
"""

from __future__ import annotations

import bisect
import json
import logging
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from appliance.errors import ApplianceError
from appliance.state_file import SharedState

_LOGGER = logging.getLogger(__name__)

STATE_FILE: Final = "facts.json"
LOCK_FILE: Final = "facts.lock"
FORMAT_VERSION: Final = 1
MAX_FACTS: Final = 2000  # facts kept at once
MAX_FACT_CHARS: Final = 300  # characters in one fact
SAME_WORD: Final = 0.7  # share of the longer word two words must begin alike to match
MIN_SHARED: Final = 3  # letters at least two different words must begin alike with
MIN_PREFIX: Final = 4  # letters at least of a word that matches a longer one it begins ("park", "parked")
TOPIC_WEIGHT: Final = 0.5  # what the share of a fact's topic a question names counts beside the share of its words
WORD: Final = re.compile(r"[^\W_]+")
"""A word, in any script: letters and digits."""


class FactError(ApplianceError):
    """A fact that cannot be kept: `kind` is "full", "long" or "store" (the file cannot be written)."""

    def __init__(self, message: str, kind: str, limit: int = 0) -> None:
        super().__init__(message)
        self.kind = kind
        self.limit = limit


@dataclass(frozen=True)
class Fact:
    said: str
    """The words kept, as they were said (normalised: lower case, no punctuation)."""
    told: float
    """When it was told, in seconds since the epoch."""

    def json(self) -> dict[str, str]:
        return {"said": self.said, "told": datetime.fromtimestamp(self.told).astimezone().isoformat(timespec="seconds")}


def _told(value: Any) -> float:
    """Seconds since the epoch of an ISO 8601 time (a time without an offset is the system's local one)."""
    when = datetime.fromisoformat(str(value))
    return (when if when.tzinfo is not None else when.astimezone()).timestamp()


@dataclass
class _FactState:
    facts: list[Fact] = field(default_factory=list)
    """Oldest first."""
    version: int = 0
    """Counts every change and every read of the file: a FactIndex is built for one version."""


class FactStore(SharedState[_FactState]):
    """The facts kept as JSON in `state_dir`, written atomically (temp file, fsync, rename)."""

    FILE, LOCK_FILE, NOUN = STATE_FILE, LOCK_FILE, "the facts"

    def __init__(self, state_dir: Path) -> None:
        self._version = 0
        self._open_state(state_dir)

    def _empty(self) -> _FactState:
        return _FactState(version=self._next())

    def _next(self) -> int:
        self._version += 1
        return self._version

    def _parse(self, data: Any) -> _FactState:
        if data.get("version", FORMAT_VERSION) != FORMAT_VERSION:
            raise ValueError(f"format version {data.get('version')!r}, this hub reads {FORMAT_VERSION}")
        facts = []
        for n, item in enumerate(data["facts"], start=1):
            said = item["said"]
            if not isinstance(said, str) or not said.strip():
                raise ValueError(f"fact {n} has no words")
            facts.append(Fact(" ".join(said.split()), _told(item["told"])))
        return _FactState(facts, self._next())

    def _dump(self) -> Any:
        return {"version": FORMAT_VERSION, "facts": [fact.json() for fact in self._state.facts]}

    def _store_error(self, exc: OSError) -> Exception:
        return FactError(f"cannot keep the facts in {self.path}: {exc.strerror or exc}", "store")

    def all(self) -> tuple[list[Fact], int]:
        """The facts, oldest first, and the version they are (a changed version: a changed list)."""
        with self._locked():
            return list(self._state.facts), self._state.version

    def count(self) -> int:
        with self._locked():
            return len(self._state.facts)

    def add(self, said: str, told: float, replaces: Callable[[Fact], bool] = lambda fact: False) -> tuple[Fact, list[Fact]]:
        """Keep `said`, told at `told`, in place of the facts `replaces` picks out (about the same thing);
        the fact kept and those it replaced. FactError when it is too long, the store is full or cannot be saved."""
        said = " ".join(said.split())
        if len(said) > MAX_FACT_CHARS:
            raise FactError(f"a fact may be {MAX_FACT_CHARS} characters long, this one has {len(said)}", "long",
                            MAX_FACT_CHARS)
        fact = Fact(said, told)
        with self._locked(write=True):
            facts = self._state.facts
            replaced = [f for f in facts if replaces(f) or f.said == said]
            kept = [f for f in facts if f not in replaced]
            if len(kept) >= MAX_FACTS:
                raise FactError(f"{MAX_FACTS} facts are already kept; forget some first", "full", MAX_FACTS)
            self._state = _FactState([*kept, fact], self._next())
        _LOGGER.info("Facts: %d kept", len(kept) + 1)  # what they say is the owner's
        return fact, replaced

    def forget(self, chosen: Callable[[Fact], bool]) -> list[Fact]:
        """Forget the facts `chosen` picks out; those forgotten."""
        with self._locked(write=True):
            gone = [f for f in self._state.facts if chosen(f)]
            if gone:
                self._state = _FactState([f for f in self._state.facts if f not in gone], self._next())
        if gone:
            _LOGGER.info("Facts: %d forgotten, %d kept", len(gone), len(self._state.facts))
        return gone

    def clear(self) -> int:
        """Forget every fact; how many there were."""
        return len(self.forget(lambda fact: True))


def count_kept(state_dir: Path) -> int:
    """How many facts the file in `state_dir` holds, without moving a damaged one aside (for `doctor`);
    ValueError saying why when it cannot be read."""
    path = Path(state_dir) / STATE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return 0
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} cannot be read: {exc}") from None
    try:
        return len(data["facts"])
    except (KeyError, TypeError):
        raise ValueError(f"{path} holds no list of facts") from None


# --------------------------------------------------------------------------------------
# Finding


def words_of(text: str, stop: frozenset[str], alias: dict[str, str] | None = None) -> list[str]:
    """The words of `text` that may say what it is about: lower case, each `alias` word as the word it stands
    for, the `stop` words and single letters left out (the "s" of "sam's"), numbers kept."""
    words = WORD.findall(text.lower())
    if alias:
        words = [alias.get(w, w) for w in words]
    return [w for w in words if w not in stop and (len(w) > 1 or w.isdigit())]


def alike(a: str, b: str) -> float:
    """How much two words are one: 1.0 the same, else the share of the longer that they begin alike with,
    0.0 below SAME_WORD or MIN_SHARED letters."""
    if a == b:
        return 1.0
    if min(len(a), len(b)) >= MIN_PREFIX and (a.startswith(b) or b.startswith(a)):
        return max(SAME_WORD, min(len(a), len(b)) / max(len(a), len(b)))
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    share = n / max(len(a), len(b))
    return share if n >= MIN_SHARED and share >= SAME_WORD else 0.0


@dataclass(frozen=True)
class Found:
    """A kept fact and how well a question's words find it."""

    fact: Fact
    covered: float
    """Share (0-1) of the question's words, each counted by its rarity, that the fact holds."""
    topic: float
    """Share (0-1) of the fact's topic words (what it is about) that the question holds; 0 without a topic."""
    has_topic: bool = True
    """The fact says what it is about (its words before the verb, the pack's `topic` pattern)."""
    held: int = 0
    """How many of the question's words the fact holds (alike or the same)."""
    asked: int = 0
    """How many different words the question has."""

    @property
    def whole(self) -> bool:
        """The fact holds every word of the question."""
        return self.held >= self.asked > 0


class FactIndex:
    """The kept facts, by their words: built once per version of the store, asked many times."""

    def __init__(self, facts: Iterable[Fact], stop: frozenset[str], topic_of: Callable[[str], list[str]],
                 alias: dict[str, str] | None = None) -> None:
        self.facts = list(facts)
        self.stop = stop
        self._words: list[set[str]] = [set(words_of(f.said, stop, alias)) for f in self.facts]
        self._topics: list[list[str]] = [topic_of(f.said) for f in self.facts]
        postings: dict[str, list[int]] = {}
        for i, words in enumerate(self._words):
            for w in words:
                postings.setdefault(w, []).append(i)
        self._postings = postings
        self._vocabulary = sorted(postings)
        n = len(self.facts)
        self._unknown = math.log(1 + (n + 0.5) / 0.5)
        """The weight of a word no fact holds: the rarest."""
        self._idf = {w: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for w, p in postings.items()}

    def _alike(self, word: str) -> list[tuple[str, float]]:
        """The kept words that `word` matches, and how much: those that begin with its first
        ceil(SAME_WORD * len) letters, found by bisection in the sorted words, and its own beginnings."""
        head = word[: max(1, math.ceil(SAME_WORD * len(word)))]
        start = bisect.bisect_left(self._vocabulary, head)
        out = []
        for kept in self._vocabulary[start:]:
            if not kept.startswith(head):
                break
            score = alike(word, kept)
            if score:
                out.append((kept, score))
        for n in range(MIN_PREFIX, len(head)):  # "park" kept, "parked" asked
            if word[:n] in self._postings:
                out.append((word[:n], alike(word, word[:n])))
        return out

    def find(self, words: list[str]) -> list[Found]:
        """The facts holding any of the question's `words` (stop words already out), best first: by the
        share of the words they hold and, half as much, the share of their topic the question names; then
        the newest."""
        wanted = list(dict.fromkeys(words))
        if not wanted or not self.facts:
            return []
        total = 0.0
        gained: dict[int, float] = {}
        held: dict[int, int] = {}
        for word in wanted:
            matches = self._alike(word)
            total += max((self._idf[kept] for kept, _ in matches), default=self._unknown)
            best: dict[int, float] = {}
            for kept, score in matches:
                weight = score * self._idf[kept]
                for i in self._postings[kept]:
                    if weight > best.get(i, 0.0):
                        best[i] = weight
            for i, weight in best.items():
                gained[i] = gained.get(i, 0.0) + weight
                held[i] = held.get(i, 0) + 1
        found = [Found(self.facts[i], gain / total, self._topic_share(i, wanted), bool(self._topics[i]), held[i],
                       len(wanted)) for i, gain in gained.items()]
        found.sort(key=lambda f: (-round(f.covered + TOPIC_WEIGHT * f.topic, 6), -f.fact.told))
        return found

    def _topic_share(self, i: int, wanted: list[str]) -> float:
        topic = self._topics[i]
        if not topic:
            return 0.0
        return sum(1 for t in topic if any(alike(t, w) for w in wanted)) / len(topic)

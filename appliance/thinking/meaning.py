"""What a request means when no skill reads it in its own words: the nearest of the language pack's examples.

The skills read requests by their words ("set a timer for ten minutes"); people say the same thing in
words nobody listed ("give me a shout in ten minutes", "we're out of olive oil"). Here a transcript is
compared with example sentences of every request the skills carry out (MeaningWords.examples), of the
questions that only look like them (for the model) and of device requests (Home Assistant's), by the
words and word pairs they share and the letters of their words (so "shout" is near "shouting" and a
recogniser's "alarms" near "alarm"). The slots are read by the skills' own parsers first and stand in
the comparison as what they are: "in <duration>", "at <time> <day>"; the words no example has (the
item, what to be reminded of) as one unknown. A nearest request is taken only when it is near enough,
nearer than any question for the model or device request by a margin, and its examples explain the
words said (beyond its free slots, nothing they never say; at least one word of its own); its slots are
then read out of the transcript and the request is said again the one way the skills read it
(MeaningWords.said_as), which the skills answer as ever. Nothing here knows a language: a pack with
examples is all another needs.

It costs under a millisecond per transcript, and about 0.2 s once, at start, to build the examples' vectors.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from appliance.language import LanguagePack, MeaningWords
from appliance.thinking.skillparse import SkillParser
from appliance.thinking.whenparse import WhenParser

MODEL: Final = "model"
"""The intent of a question for the language model."""
HOME: Final = "home"
"""The intent of a request for a device in the home: Home Assistant's, never a local skill's."""
NOT_LOCAL: Final = frozenset({MODEL, HOME})
ACTS: Final = frozenset({"timer_set", "timer_add", "timer_take", "timer_to", "timer_cancel", "alarm_set", "alarm_cancel",
                         "reminder_set", "reminder_cancel", "list_add", "list_remove", "list_clear", "volume_up",
                         "volume_down", "volume_set", "volume_mute"})
"""The requests that change something: only they have free slots (an item, a message, a timer's name). A
question about the hub's own state says nothing beyond its request: "where is the Eiffel tower" is no timer."""

NEAREST: Final = 2
"""Examples of an intent whose mean cosine is its nearness: one odd example does not decide."""
NEAR: Final = 0.35
"""Cosine (0-1) a transcript must reach to its nearest example of a request for that request to be taken:
about half its weighted words and pairs in common with one example."""
MARGIN: Final = 0.1
"""Cosine by which the nearest request must be nearer than the nearest question for the model or device
request: a transcript between the two is the model's, which answers anything."""
CHAR_WEIGHT: Final = 0.35
"""Weight of a word's letter trigrams beside the word itself: enough to carry a word's other forms, not
so much that words sharing letters ("time", "timer") pass for one."""
PAIR_WEIGHT: Final = 1.0
"""Weight of a pair of neighbouring words beside one word: order tells "turn the alarm off" from "alarm"
said in a question."""

SURE: Final = (0.4, 0.3)
"""Nearness and margin of a reading so clear that a request to change something may say one run of words more
than its examples explain ("whack the volume up", "nix the alarm I set for Saturday"), when that run is of words
other examples say. Not a question about the hub's own state, where more words name what is asked of ("what day
is christmas"), nor a word no example has ("what date is Bastille Day"). Chosen on the pack's examples, each left
out in turn with a word of other examples said after it ("really"): half again as many requests read right (59
against 36 of every other example), and not one more question for the model taken as a request."""
COMMON_SHARE: Final = 0.25
"""Of the requests, the share whose examples say a word for it to be common to all ("the", "please")."""
SLOTS: Final = ("duration", "time", "day", "item", "what", "name", "list", "level")
"""The slots an example may mark, as {duration}, {time} ... A said_as template may also ask for {timer}: the
word for a timer said ("timer"), for a request that ends one is taken only when it says which it ends."""
_MARK: Final = {"duration": "<duration>", "time": "<time>", "day": "<day>", "level": "<number>", "list": "<list>"}
"""The slots read by the parsers, and the token each stands as in a comparison."""
UNKNOWN: Final = "<x>"
"""The token for a run of words no example has (an item, a reminder's words, a timer's name)."""
ANY_WORDS: Final = "what"
"""The free slot that may run over known and unknown words alike ("to ring grandma about the party") ..."""
MESSAGES: Final = frozenset({"reminder_set", "reminder_cancel"})
"""... in the requests whose slot is a message."""

_SLOT_RE: Final = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Reading:
    """What a transcript was read as."""

    intent: str
    """The nearest request, or MODEL / HOME."""
    near: float
    """Its cosine to the transcript (0-1)."""
    margin: float
    """By how much it is nearer than the nearest of another kind (a request against a question, a
    question against a request)."""
    said_as: str | None
    """The request as the skills read it, slots filled; None when it is not a local request, not near
    enough, or a slot it needs was not said."""


@dataclass
class Parts:
    """A transcript cut for reading: its tokens, what stands in for each in a comparison, and the slots."""

    tokens: list[str]
    marked: list[str]
    slots: dict[str, str]


class Meanings:
    """The examples of one language pack, as vectors; read() a transcript against them."""

    def __init__(self, words: LanguagePack, parse: SkillParser | None = None) -> None:
        meaning = words.meaning
        if meaning is None:
            raise ValueError(f"the {words.code} language pack has no examples of its requests")
        self.w: MeaningWords = meaning
        self.parse = parse or SkillParser(words)
        self.when = WhenParser(self.parse, words.schedule.when)
        self._fillers = frozenset(words.skills.fillers)
        self._and = words.numbers.and_
        labelled: list[tuple[str, str]] = [(intent, said) for intent, saids in meaning.examples.items()
                                           for said in saids]
        labelled += [(MODEL, said) for said in meaning.questions]
        labelled += [(HOME, said) for said in meaning.home]
        example_tokens = [self._example_tokens(said) for _, said in labelled]
        self.vocabulary: frozenset[str] = frozenset(t for tokens in example_tokens for t in tokens)
        """Every word an example has: any other word in a transcript is UNKNOWN."""
        self._carriers: dict[str, frozenset[str]] = {}
        """By intent: the words its examples say around the slots, which an item or a message is not."""
        self.examples = labelled
        """(intent, sentence) of every example, in the order they are compared."""
        self._free: dict[str, int] = {}
        """By intent: the most runs of words no example has that one of its examples holds (its free slots);
        a transcript with more says something the request does not ("can dogs tell the time")."""
        for (intent, said), tokens in zip(labelled, example_tokens, strict=True):
            self._carriers[intent] = self._carriers.get(intent, frozenset()) | frozenset(tokens)
            runs = len(tokens) if ANY_WORDS in _SLOT_RE.findall(said) and intent in MESSAGES else tokens.count(UNKNOWN)
            self._free[intent] = max(self._free.get(intent, 0), runs) if intent in ACTS or intent in NOT_LOCAL else 0
        said_by: Counter[str] = Counter(t for intent, carried in self._carriers.items() if intent not in NOT_LOCAL
                                        for t in carried)
        requests = sum(intent not in NOT_LOCAL for intent in self._carriers)
        polite = {t for phrase in (*words.skills.leading, *words.skills.trailing) for t in phrase}
        self._thanks = frozenset(phrase[0] for phrase in words.skills.trailing if len(phrase) == 1)
        """A word of thanks or a name after a request ("ta", "mate"), never part of an item."""
        self._common = frozenset(t for t, n in said_by.items() if n >= max(2, COMMON_SHARE * requests)) \
            | self._fillers | polite
        """Words the examples of many requests say ("the", "me", "please"): they explain nothing by themselves."""
        counted = [self._features(tokens) for tokens in example_tokens]
        docs = Counter(f for features in counted for f in features)
        n = len(counted)
        self._idf = {f: math.log((1 + n) / (1 + d)) + 1.0 for f, d in docs.items()}
        postings: dict[str, list[tuple[int, float]]] = {}
        for k, features in enumerate(counted):
            for f, v in self._vector(features).items():
                postings.setdefault(f, []).append((k, v))
        self._index = {f: (np.array([k for k, _ in ps], dtype=np.int32), np.array([v for _, v in ps], dtype=np.float32))
                       for f, ps in postings.items()}
        """By feature: the examples that have it and its weight in each (their vectors, stored by feature)."""
        self._count = n
        intents = [intent for intent, _ in labelled]
        self._starts = np.array([k for k in range(n) if k == 0 or intents[k] != intents[k - 1]], dtype=np.int64)
        self._ends = [*self._starts[1:], n]
        self._intents = [intents[k] for k in self._starts]
        """The examples are grouped by intent: each group's first example, and its intent."""
        if len(set(self._intents)) != len(self._intents):
            raise ValueError("the examples of one intent must be together")

    # ------------------------------------------------------------------ reading

    def read(self, text: str) -> Reading:
        """The nearest request or question to `text` (a transcript), with the request said as the skills read it."""
        parts = self.cut(text)
        intent, near, margin = self.nearest(parts)
        runs, unknown = self._unexplained(intent, parts) if intent not in NOT_LOCAL else (0, 0)
        sure = near >= SURE[0] and margin >= SURE[1] and unknown <= self._free[intent] and intent in ACTS
        taken = intent not in NOT_LOCAL and near >= NEAR and margin >= MARGIN \
            and runs <= self._free[intent] + sure \
            and not all(t.startswith("<") for t in parts.marked) \
            and bool(self._carriers[intent] - self._common
                     & {t for t in parts.marked if self._free[intent] or not t.startswith("<")})
        # "seven" alone asks for nothing, nor "welcome to the list" with no list request's own word; and a slot
        # (a list's name, a time) says only what a request with something of its own to say is about:
        # "shopping list: tinned tomatoes" adds, "shopping list?" clears nothing
        return Reading(intent, near, margin, self._said_as(intent, parts) if taken else None)

    def cut(self, text: str) -> Parts:
        """A transcript's words, its slots read and marked, ready to compare."""
        return self._cut(self.parse.normalize(text))

    def nearest(self, parts: Parts, nearest: int = NEAREST, left_out: int | None = None) -> tuple[str, float, float]:
        """(intent, nearness, margin) of the nearest intent: the mean cosine of its `nearest` nearest examples,
        and by how much it is nearer than the nearest of the other kind (a request against the model's questions
        and device requests, and those against the requests). `left_out`: an example not compared (bench.meaning)."""
        best = self._nearness(parts, nearest, left_out)
        if not best:  # no word any example has
            return MODEL, 0.0, 0.0
        intent = max(best, key=best.__getitem__)
        local = intent not in NOT_LOCAL
        other = max((v for k, v in best.items() if (k in NOT_LOCAL) == local), default=0.0)
        return intent, best[intent], best[intent] - other

    def for_home(self, text: str) -> bool:
        """Whether `text` is a device request by meaning ("draw the bedroom curtains", "it's too bright in
        here"): nearest to the device examples, near enough, and nearer by the margin than both any request
        of the hub's own and any question for the model."""
        best = self._nearness(self.cut(text))
        home = best.get(HOME, 0.0)
        return home >= NEAR and all(home - v >= MARGIN for k, v in best.items() if k != HOME)

    def _nearness(self, parts: Parts, nearest: int = NEAREST, left_out: int | None = None) -> dict[str, float]:
        """By intent: the mean cosine of its `nearest` nearest examples to `parts`; empty when no word is known."""
        vector = self._vector(self._features(parts.marked), known=True)
        if not vector:
            return {}
        scores = np.zeros(self._count, dtype=np.float32)
        for f, v in vector.items():
            examples, weights = self._index[f]
            scores[examples] += v * weights
        if left_out is not None:
            scores[left_out] = -1.0
        return {intent: float(np.sort(scores[a:b])[-nearest:].mean())
                for intent, a, b in zip(self._intents, self._starts, self._ends, strict=True)}

    def _unexplained(self, intent: str, parts: Parts) -> tuple[int, int]:
        """Runs of words the intent's examples do not say (nor many intents' alike: "the", "please"): what the
        transcript says beyond the request. An item or a message is one such run; "what is on tv tonight"
        has one for the list ("tv") that no list request has, and is a question for the model. Also: how many
        of the runs hold a word no example has at all (a name of something: "what date is Bastille Day")."""
        carriers = self._carriers.get(intent, frozenset()) | self._common
        runs, inside, unknown, counted = 0, False, 0, False
        marked = parts.marked

        def unexplained(token: str) -> bool:
            return token == UNKNOWN or not (token in carriers or token.startswith("<"))

        for k, token in enumerate(marked):
            joined = token == self._and or (token in self._common and token not in self._carriers[intent])
            if inside and joined and k + 1 < len(marked) and unexplained(marked[k + 1]):
                continue  # "eggs and milk", "washing up liquid": one run
            if unexplained(token) and not inside:
                runs += 1
                counted = False
            if token == UNKNOWN and not counted:
                unknown, counted = unknown + 1, True
            inside = unexplained(token)
        return runs, unknown

    def _said_as(self, intent: str, parts: Parts) -> str | None:
        """The first of the intent's said_as templates whose slots were all found, filled."""
        slots = dict(parts.slots)
        for slot, value in self._content(intent, parts).items():
            slots.setdefault(slot, value)
        for template in self.w.said_as.get(intent, ()):
            needed = _SLOT_RE.findall(template)
            if all(slots.get(slot) for slot in needed):
                return " ".join(template.format(**{slot: slots[slot] for slot in needed}).split())
        return None

    # ------------------------------------------------------------------ slots

    def _cut(self, tokens: list[str]) -> Parts:
        """Find the slots the parsers read (durations, a time of day, days, a number) and mark them."""
        marked = list(tokens)
        slots: dict[str, str] = {}
        spans = self.parse.find_durations(tokens)
        used: set[int] = set()
        if spans:
            span = spans[0]
            slots["duration"] = " ".join(tokens[span.start:span.end])
            for k in range(span.start, span.end):
                marked[k] = _MARK["duration"]
            used |= set(range(span.start, span.end))
        def unread() -> list[str]:
            return [t if k not in used else "" for k, t in enumerate(tokens)]

        when = self.when.time_of_day(unread())
        if when is not None and not when.assumed:
            slots["time"] = " ".join(tokens[k] for k in sorted(when.used))
            for k in when.used:
                marked[k] = _MARK["time"]
            used |= set(when.used)
        days = self.when.days(unread())
        if days.said:
            slots["day"] = " ".join(tokens[k] for k in sorted(days.used))
            for k in days.used:
                marked[k] = _MARK["day"]
            used |= set(days.used)
        for k, token in enumerate(tokens):
            if k in used:
                continue
            number = self.parse.parse_number(tokens, k)
            if number is not None and number[1] == k + 1 and number[0].is_integer():
                slots.setdefault("level", token)
                marked[k] = _MARK["level"]
        timer = [t for t in tokens if t in self.parse.words.timers.timer_words]
        if timer:
            slots["timer"] = timer[0]
        for said, name in sorted(self.w.lists.items(), key=lambda kv: -len(kv[0].split())):
            found = _find(tokens, said.split())
            if found is not None and not any(k in used for k in range(found, found + len(said.split()))):
                slots["list"] = name
                for k in range(found, found + len(said.split())):
                    marked[k] = _MARK["list"]
                break
        # politeness no example has ("mince on the list, ta") is politeness still, not an item
        marked = [t if t in self.vocabulary or t.startswith("<") or t in self._common else UNKNOWN for t in marked]
        return Parts(tokens, self._collapse(marked), slots)

    def _collapse(self, marked: list[str]) -> list[str]:
        """A slot's words stand as one token, and so does a run of unknown words ("olive oil"), with those
        joined by "and" ("eggs and milk": the items of one request)."""
        out: list[str] = []
        for token in marked:
            if token.startswith("<") and out and out[-1] == token:
                continue
            if token == UNKNOWN and len(out) >= 2 and out[-1] == self._and and out[-2] == UNKNOWN:
                out.pop()
                continue
            out.append(token)
        return out

    def _content(self, intent: str, parts: Parts) -> dict[str, str]:
        """The free slots: an item, what a reminder is about, a timer's name: the longest run of words that
        are not the intent's carrying words nor a slot already read."""
        carriers = self._carriers.get(intent, frozenset()) | self._fillers | self._thanks | set(self.w.lists)
        read = set(" ".join(parts.slots.get(s, "") for s in ("duration", "time", "day")).split())
        tokens = parts.tokens
        out: dict[str, str] = {}
        what = self._message(tokens, read)
        if what:
            out["what"] = what
        run: list[str] = []
        best: list[str] = []
        for k, token in enumerate(tokens):
            joins = token == self._and and run and k + 1 < len(tokens) and tokens[k + 1] not in carriers
            if not joins and (token in carriers or token in read or token.startswith("<")):
                run = []
                continue
            run.append(token)  # "eggs and milk": one request's items
            if self._weight(run) > self._weight(best):
                best = list(run)
        if best:
            out["item"] = " ".join(best)
            out["name"] = " ".join(best[-3:])
        return out

    def _weight(self, run: list[str]) -> tuple[int, int]:
        """Which run of words is the item: the one with more words no example has ("cereal", not "just" in "just
        finished the last of the cereal"), then the longer."""
        return sum(token not in self.vocabulary for token in run), len(run)

    def _message(self, tokens: list[str], read: set[str]) -> str:
        """What a reminder is about: the words after the first of MeaningWords.message_marks ("to", "about")
        up to a time said after them ("... at six", "... tomorrow")."""
        for k, token in enumerate(tokens):
            if token in self.w.message_marks and k + 1 < len(tokens) and tokens[k + 1] not in read:
                words: list[str] = []
                for word in tokens[k + 1:]:
                    if word in read:
                        break
                    words.append(word)
                else:  # said to the end: "take the washing in" keeps its "in"
                    return " ".join(words)
                while words and words[-1] in self.w.message_ends:
                    words.pop()
                return " ".join(words)
        return ""

    # ------------------------------------------------------------------ vectors

    def _example_tokens(self, said: str) -> list[str]:
        """An example's tokens with its slot marks as the tokens they stand as."""
        out: list[str] = []
        for piece in re.split(r"(\{\w+\})", said):
            slot = _SLOT_RE.fullmatch(piece)
            if slot is None:
                out += self.parse.normalize(piece)
            elif slot.group(1) not in SLOTS:
                raise ValueError(f"unknown slot {piece} in the example {said!r}")
            else:
                out.append(_MARK.get(slot.group(1), UNKNOWN))
        return self._collapse(out)

    @staticmethod
    def _features(tokens: Sequence[str]) -> Counter[str]:
        features: Counter[str] = Counter()
        for k, token in enumerate(tokens):
            features[f"w:{token}"] += 1.0
            if k:
                features[f"p:{tokens[k - 1]} {token}"] += PAIR_WEIGHT
            if not token.startswith("<"):
                padded = f"#{token}#"
                for i in range(len(padded) - 2):
                    features[f"c:{padded[i:i + 3]}"] += CHAR_WEIGHT
        return features

    def _vector(self, features: Mapping[str, float], known: bool = False) -> dict[str, float]:
        """TF-IDF weights, unit length; `known`: only features an example has (a transcript's others say nothing)."""
        vector = {f: v * self._idf[f] if f in self._idf else v for f, v in features.items()
                  if not known or f in self._idf}
        norm = math.sqrt(sum(v * v for v in vector.values()))
        return {f: v / norm for f, v in vector.items()} if norm else {}


def _find(tokens: list[str], words: list[str]) -> int | None:
    k = len(words)
    return next((i for i in range(len(tokens) - k + 1) if tokens[i:i + k] == words), None)


_BUILT: dict[str, tuple[LanguagePack, Meanings]] = {}
_BUILDING = threading.Lock()


def meanings(words: LanguagePack) -> Meanings | None:
    """The examples of `words` as vectors, built once per pack; None for a pack without examples."""
    if words.meaning is None:
        return None
    with _BUILDING:
        built = _BUILT.get(words.code)
        if built is None or built[0] is not words:
            built = _BUILT[words.code] = (words, Meanings(words))
        return built[1]

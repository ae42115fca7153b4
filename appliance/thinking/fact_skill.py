"""What the hub is told to remember, as a local skill: kept, asked about, replaced and forgotten.

"Remember that the spare key is under the blue pot" is kept (thinking/facts.py, in the state folder);
"where's the spare key?" is answered from it, with when it was told ("On Monday you told me the spare key
is under the blue pot."). A question about the household that nothing kept answers gets "You haven't
told me." rather than the model's guess; any other question nothing kept answers goes on to the model
(the language pack says which is which: language/en_facts.py). A fact about the same thing replaces the
older one; "forget about the spare key" forgets it, "forget everything you remember" asks first, and
the next words said in that room answer. The words of every turn here are the owner's: the reply is
marked private, so the journal never holds them.

The skill is asked in two parts. The first, before every other skill (skillkit.REMEMBER), takes what is
said with a clear cue: a telling ("remember that the alarm code is 1234" is no alarm), asking what was told,
forgetting what was (a "forget the pasta timer" that names nothing kept goes on to the timers), and the
answer to "should I forget everything?". The second, after every other skill (skillkit.FACTS), answers
questions: "what's on my list" and "when is my alarm" are their skills'.
"""

from __future__ import annotations

import logging
from datetime import date, datetime, timedelta
from typing import Final

from appliance.contracts import SkillReply
from appliance.language import SkillPhrases
from appliance.thinking.facts import Fact, FactError, FactIndex, FactStore, Found, alike, words_of
from appliance.thinking.honesty import requested_act
from appliance.thinking.requests import controls_device, needs_internet
from appliance.thinking.skillkit import FACTS, REMEMBER, SkillKit, local_skill
from appliance.thinking.skillparse import capital, swap_words

_LOGGER = logging.getLogger(__name__)

NAME: Final = "facts"
"""The skill's name: its words in the pack."""
PENDING_S: Final = 30.0  # seconds "should I forget everything?" waits for its answer
JUST_NOW_S: Final = 120.0  # seconds after a telling that it was told "just now"
READ_MAX: Final = 3  # facts read out one by one; more are counted
COVERED: Final = 0.6  # share of a question's words (by rarity) a fact must hold to answer it
TOPIC: Final = 0.6  # share of a fact's topic a question must name (more than half), unless it holds all its words
WHOLE: Final = 0.999  # a share that is all of it
PERIODS: Final = ("today", "yesterday", "week", "last_week", "month")


class FactSkill:
    """Keeps, finds and forgets the facts of `store`; rooms in `closed` may not tell or ask. `asking`: the
    second part, which answers questions (and says when nothing kept names what is to be forgotten); else
    the first, which takes tellings, recalls and forgetting."""

    def __init__(self, kit: SkillKit, store: FactStore, closed: frozenset[str] = frozenset(),
                 asking: bool = False) -> None:
        self.kit = kit
        self.asking = asking
        self.store = store
        self.closed = closed
        self.w: SkillPhrases = kit.words.skill(NAME)
        self.stop = self.w.word_set("stop")
        self.alias = {said: meant.removeprefix("alias:") for meant, words in self.w.words.items()
                      if meant.startswith("alias:") for said in words}
        self._swaps = sorted(((k.removeprefix("swap:").split(), v.split()) for k, v in self.w.replies.items()
                              if k.startswith("swap:")), key=lambda kv: -len(kv[0]))
        self._then = sorted(((k.removeprefix("then:").split(), v.split()) for k, v in self.w.replies.items()
                             if k.startswith("then:")), key=lambda kv: -len(kv[0]))
        self._asked: dict[str, float] = {}
        """Each room asked "should I forget everything?", until when its answer is waited for."""
        self._index: FactIndex | None = None
        self._version = -1

    # ---- what was asked ------------------------------------------------------------

    def match(self, text: str, room: str = "") -> SkillReply | None:
        """The reply to a telling, a question about what was told or a forgetting in `text`, or None."""
        if self.asking:
            return self._asked_part(text, room)
        w = self.w
        waiting = self._asked.pop(room, None)
        if waiting is not None and waiting >= self.kit.clock():
            reply = self._answer_forget_all(text, room)
            if reply is not None:
                return reply
        if m := w.pattern("tell").match(text):
            return self._guard(room) or self._tell(m.group("fact") or m.group("fact2"))
        if w.pattern("tell_alone").match(text):
            return self._reply("tell_alone", "fact_clarify")
        if m := w.pattern("recall").match(text):
            said = next((v for k, v in m.groupdict().items() if k.startswith("period") and v), "")
            return self._guard(room) or self._recall(self._period(said))
        if m := w.pattern("about").match(text):
            return self._guard(room) or self._about(m.group("topic"))
        if w.pattern("forget_all").match(text):
            return self._guard(room) or self._ask_forget_all(room)
        if m := w.pattern("forget").match(text):
            return self._forget(m.group("topic"), room)
        return None

    def _asked_part(self, text: str, room: str) -> SkillReply | None:
        """A question, or a forgetting of what nothing kept names (no other skill took it either)."""
        if m := self.w.pattern("forget").match(text):
            topic = m.group("topic")
            return self._guard(room) or self._reply("nothing_about", "fact_forget", {"forgotten": []},
                                                    topic=self._back(topic)) if words_of(topic, self.stop) else None
        return self._question(text, room)

    def _guard(self, room: str) -> SkillReply | None:
        """The reply for a room that may not tell or ask, else None."""
        return self._reply("closed", "fact_closed") if room in self.closed else None

    def _period(self, said: str) -> str:
        return next((p for p in PERIODS if said and self.w.pattern(f"period:{p}").match(said)), "")

    # ---- telling -------------------------------------------------------------------

    def _tell(self, said: str) -> SkillReply:
        if not words_of(said, self.stop):
            return self._reply("tell_alone", "fact_clarify")
        topic = self._topic(said)
        try:
            fact, replaced = self.store.add(said, self.kit.clock(), lambda old: _same_topic(topic, self._topic(old.said)))
        except FactError as exc:
            _LOGGER.warning("Cannot keep a fact: %s", exc)
            return self._reply(exc.kind, "fact_error", {"error": exc.kind}, limit=exc.limit)
        data = {"facts": [fact.json()], "replaced": [f.json() for f in replaced]}
        if replaced:
            return self._reply("told_again", "fact_told", data, fact=self._back(fact.said),
                               when=self._when(replaced[-1].told))
        return self._reply("told", "fact_told", data, fact=self._back(fact.said))

    def _topic(self, said: str) -> list[str]:
        m = self.w.pattern("topic").match(said)
        return words_of(m.group("topic"), self.stop, self.alias) if m is not None else []

    # ---- asking --------------------------------------------------------------------

    def _question(self, text: str, room: str) -> SkillReply | None:
        w = self.w
        asked = w.pattern("lead").sub("", text)
        if not w.pattern("asks").match(asked):
            return None
        general = bool(w.pattern("general").search(asked))
        household = bool(w.pattern("household").search(asked)) or (
            not general and bool(w.pattern("home").search(asked)))
        if not household and general:
            return None
        words = words_of(asked, self.stop, self.alias)
        chosen = [f for f in self.index().find(words) if self._answers(f, household)]
        if not chosen:
            if not household or controls_device(text, self.kit.words) or needs_internet(text, self.kit.words) \
                    or requested_act(text, self.kit.words) is not None:
                return None  # a device, the internet, or what the hub cannot see ("what's on my calendar?")
            return self._guard(room) or self._reply("not_told", "fact_not_told", {"facts": []})
        if (guarded := self._guard(room)) is not None:
            return guarded
        best = chosen[0]
        tied = [f for f in chosen[1:2] if abs(f.covered - best.covered) < 1e-6 and f.topic == best.topic]
        facts = [best.fact, *(f.fact for f in tied)]
        data = {"facts": [f.json() for f in facts]}
        if tied:
            second = tied[0].fact
            return self._reply("answer_two", "fact_answer", data, When=capital(self._when(best.fact.told)),
                               fact=self._back(best.fact.said, best.fact.told),
                               when2=self._when(second.told), fact2=self._back(second.said, second.told))
        return self._answer_one(best.fact, data)

    def _answers(self, found: Found, household: bool) -> bool:
        """Whether a fact found answers the question: it holds most of its words (by rarity) and the question
        names what it is about, or holds all of two or more; and the question is about the household, or
        names all of what the fact is about."""
        whole = found.whole and found.asked >= 2
        if found.covered < COVERED or (found.has_topic and found.topic < TOPIC and not whole):
            return False
        return household or found.topic >= WHOLE or whole

    def _answer_one(self, fact: Fact, data: dict) -> SkillReply:
        if self._day(fact.told) == self._day(self.kit.clock()):
            return self._reply("answer_now", "fact_answer", data, fact=self._back(fact.said))
        return self._reply("answer", "fact_answer", data, When=capital(self._when(fact.told)),
                           fact=self._back(fact.said, fact.told))

    def _recall(self, period: str) -> SkillReply:
        facts, _ = self.store.all()
        if period:
            start, end = self._span(period)
            facts = [f for f in facts if start <= f.told < end]
        said = self.w.say(f"period:{period}")
        if not facts:
            key = "nothing_then" if period else "nothing"
            return self._reply(key, "fact_recall", {"facts": []}, period=said.strip())
        return self._read(facts, "fact_recall", period=said)

    def _about(self, topic: str) -> SkillReply:
        found = self.index().find(words_of(topic, self.stop, self.alias))
        facts = [f.fact for f in found if f.covered >= COVERED]
        if not facts:
            return self._reply("nothing_about", "fact_recall", {"facts": []}, topic=self._back(topic))
        return self._read(sorted(facts, key=lambda f: f.told), "fact_recall", period="")

    def _read(self, facts: list[Fact], intent: str, period: str) -> SkillReply:
        """The facts read out, newest first: a few one by one, the rest counted."""
        newest = sorted(facts, key=lambda f: -f.told)
        shown = newest[:READ_MAX]
        items = " ".join(self.w.say("item", When=capital(self._when(f.told)), fact=self._back(f.said, f.told))
                         for f in shown)
        key = "recall_one" if len(facts) == 1 else "recall_many" if len(facts) <= READ_MAX else "recall_long"
        return self._reply(key, intent, {"facts": [f.json() for f in newest]}, count=len(facts), period=period,
                           items=items, shown=len(shown))

    # ---- forgetting ----------------------------------------------------------------

    def _forget(self, topic: str, room: str) -> SkillReply | None:
        """The facts `topic` names forgotten; None when it names none (the later skills may know it)."""
        words = words_of(topic, self.stop, self.alias)
        if not words:
            return None
        found = [f for f in self.index().find(words) if f.covered >= COVERED]
        whole = [f for f in found if f.whole]
        chosen = {f.fact for f in (whole or found[:1])}
        if not chosen:
            return None
        if (guarded := self._guard(room)) is not None:
            return guarded
        gone = self.store.forget(lambda fact: fact in chosen)
        data = {"forgotten": [f.json() for f in gone]}
        if len(gone) == 1:
            return self._reply("forgot_one", "fact_forget", data, fact=self._back(gone[0].said, gone[0].told))
        return self._reply("forgot_many", "fact_forget", data, count=len(gone), topic=self._back(topic))

    def _ask_forget_all(self, room: str) -> SkillReply:
        count = self.store.count()
        if not count:
            return self._reply("nothing", "fact_forget", {"forgotten": []})
        self._asked[room] = self.kit.clock() + PENDING_S
        key = "ask_forget_one" if count == 1 else "ask_forget_all"
        return self._reply(key, "fact_clarify", {"waiting_for": "yes_no", "count": count}, count=count)

    def _answer_forget_all(self, text: str, room: str) -> SkillReply | None:
        tokens = text.split()
        if tokens[0] in self.kit.words.skills.yes:
            gone = self.store.clear()
            return self._reply("forgot_all", "fact_forget", {"forgotten_count": gone})
        if self.w.pattern("no").match(text):
            return self._reply("kept_all", "fact_kept", {})
        return None

    # ---- how it is said ------------------------------------------------------------

    def index(self) -> FactIndex:
        """The kept facts by their words, built anew only when they changed."""
        facts, version = self.store.all()
        if self._index is None or version != self._version:
            self._index = FactIndex(facts, self.stop, self._topic, self.alias)
            self._version = version
        return self._index

    def _back(self, said: str, told: float | None = None) -> str:
        """`said` turned to the listener ("my" -> "your"); told on another day, its "today" is "that day"."""
        swaps = self._swaps
        if told is not None and self._day(told) != self._day(self.kit.clock()):
            swaps = self._then + swaps
        return swap_words(said.split(), swaps)

    def _local(self, t: float) -> datetime:
        return datetime.fromtimestamp(t, self.kit.tz)

    def _day(self, t: float) -> date:
        return self._local(t).date()

    def _when(self, told: float) -> str:
        """When a fact was told, as said inside a sentence: "just now", "today", "on Monday", "on March 3"."""
        now = self.kit.clock()
        then, today = self._local(told), self._day(now)
        days = (today - then.date()).days
        if days == 0:
            return self.w.say("when_just_now" if now - told < JUST_NOW_S else "when_today")
        if days == 1:
            return self.w.say("when_yesterday")
        clock = self.kit.words.clock
        if 1 < days < 7:
            return self.w.say("when_weekday", weekday=clock.weekdays[then.weekday()])
        key = "when_date" if then.year == today.year else "when_date_year"
        return self.w.say(key, month=clock.months[then.month - 1], day=self.kit.words.say.ordinal(then.day),
                          year=then.year)

    def _span(self, period: str) -> tuple[float, float]:
        """Seconds since the epoch from and before which `period` runs, in the hub's zone."""
        today = self._day(self.kit.clock())
        monday = today - timedelta(days=today.weekday())
        first, last = {
            "today": (today, today + timedelta(days=1)),
            "yesterday": (today - timedelta(days=1), today),
            "week": (monday, today + timedelta(days=1)),
            "last_week": (monday - timedelta(days=7), monday),
            "month": (today.replace(day=1), today + timedelta(days=1)),
        }[period]
        tz = self.kit.tz

        def at(day: date) -> float:
            midnight = datetime(day.year, day.month, day.day, tzinfo=tz)
            return midnight.timestamp() if tz is not None else midnight.astimezone().timestamp()

        return at(first), at(last)

    def _reply(self, key: str, intent: str, data: dict | None = None, **fields: object) -> SkillReply:
        return SkillReply(self.w.say(key, **fields), intent, data=data or {}, private=True)


def _same_topic(new: list[str], old: list[str]) -> bool:
    """Two facts are about the same thing when their topics' words are alike, each to one of the other's."""
    return bool(new) and bool(old) and all(any(alike(a, b) for b in old) for a in new) \
        and all(any(alike(a, b) for b in new) for a in old)


@local_skill("remember", REMEMBER)
def _build_first(kit: SkillKit) -> FactSkill | None:
    """The first part (tellings, recalls, forgetting), with the facts' words; None without a store to keep
    facts in: the words are then left for the model."""
    return None if kit.facts is None else FactSkill(kit, kit.facts, kit.facts_closed)


@local_skill(NAME, FACTS)
def _build(kit: SkillKit) -> FactSkill | None:
    """The second part: questions answered from what was told."""
    return None if kit.facts is None else FactSkill(kit, kit.facts, kit.facts_closed, asking=True)


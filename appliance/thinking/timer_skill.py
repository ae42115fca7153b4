"""Kitchen timers as a local skill: set ("set a pasta timer for ten minutes"), asked after ("how long is
left?"), changed ("give it five more minutes"), cancelled, and the question back when a request says too
little ("how long should the timer be?"), answered next in the room that was asked.

Asked after the alarms and reminders (skillkit.TIMERS): a length of time is a timer, a time of day an
alarm. The timers ring through Timers.due (thinking/timers.py); "stop" silences them (stop_skill).
"""

from __future__ import annotations

import difflib
import logging
from dataclasses import dataclass
from typing import Final

from appliance.contracts import SkillReply
from appliance.thinking.honesty import is_request
from appliance.thinking.skillkit import TIMERS, RoomQuestions, SkillKit, local_skill
from appliance.thinking.skillparse import DURATION_MARK, UNIT_S, Span, capital
from appliance.thinking.stop_skill import stopped
from appliance.thinking.timers import MAX_DURATION_S, MIN_DURATION_S, Timer, TimerError
from appliance.thinking.which import Choice, refer

_LOGGER = logging.getLogger(__name__)

PENDING_S: Final = 30.0  # seconds a question back waits for its answer
REPORT_MAX: Final = 4  # timers read out one by one; more are counted
WHICH_MAX: Final = 4  # timers a question back names; more are counted


@dataclass(frozen=True)
class _Change:
    """A change asked of a timer already there: `by_s` more time (less when negative), or `to_s` from now."""

    by_s: float = 0.0
    to_s: float | None = None
    name: str | None = None
    """The timer's name as said ("add five minutes to the pasta timer"); None: not said."""
    length_s: float | None = None
    """The timer said by its length ("change the 10 minute timer to 12 minutes")."""


@dataclass
class _Pending:
    kind: str
    """'set' (waiting for a duration), 'cancel' or 'change' (waiting for which timer), 'other' (one of the
    `options` was cancelled or changed: "the other one" may follow)."""
    name: str | None
    expires_at: float
    change: _Change | None = None
    """What a 'change' does to the timer its answer names."""
    options: tuple[int, ...] = ()
    """The timers the question listed, in the order said ("the second one"); for 'other', those the request
    fitted."""
    done: tuple[Timer, ...] = ()
    """'other': the timer acted on, as it was before ("no, the other one" puts it back)."""


class TimerSkill:
    """Sets, reports, changes and cancels the timers kept in `kit.timers`; a timer set from a room rings there."""

    def __init__(self, kit: SkillKit) -> None:
        self.words = kit.words
        self.parse = kit.parse
        self.timers = kit.timers
        self.clock = kit.clock
        self.follow_up_s = kit.follow_up_s
        """How long "the other one" refers to the timer a request picked of two."""
        self._w = kit.words.timers
        self._say = kit.words.say
        self._yes = kit.words.skills.yes
        self.questions: RoomQuestions[_Pending] = RoomQuestions(kit.clock)
        """Each room's question back ("how long should the timer be?")."""

    def match(self, text: str, room: str = "") -> SkillReply | None:
        """The answer to the room's question back while it waits, else a timer request."""
        tokens = text.split()
        pending = self.questions.take(room)
        if pending is not None:
            reply = self._answer_pending(pending, tokens, room)
            if reply is not None:
                return reply
        return self._timer_intent(tokens, room)

    def _timer_intent(self, tokens: list[str], room: str = "") -> SkillReply | None:
        w, parse = self._w, self.parse
        change = self._change_asked(tokens)
        if change is not None:  # before the cancel: "remove two minutes from the timer" keeps the timer
            return self._change(change, room)
        spans = parse.find_durations(tokens)
        tokens = self._repair_timer_word(tokens, spans)
        text = " ".join(tokens)
        has_timer = any(t in w.timer_words for t in tokens)
        first = tokens[0]
        cancel_verb = first in w.cancel_verbs or text.startswith(w.cancel_starts)
        if cancel_verb and has_timer:
            return self._cancel(tokens, spans, room)
        if cancel_verb and len(tokens) > 1 and self._timers_named(parse.rest_name(tokens[1:])):
            return self._cancel(tokens, spans, room)
        general = bool(w.general_re.search(text))  # "are timers on ovens accurate?": timers in general
        if has_timer and w.list_re.search(text) and not spans and not general:
            return self._report("timer_list", None)
        if has_timer and not is_request(text, self.words) and not (
                w.state_re.match(text) or w.left_re.search(text) or w.left_alone_re.search(text)):
            return None  # "how do I set an alarm on my phone?": a question about timers in general, the model's
        wants_set = (first in w.set_verbs or text.startswith(w.set_starts)
                     or bool(w.set_start_re.match(text)) or bool(w.remind_re.search(text)))
        asks_left = (has_timer and (w.left_re.search(text) or first in w.is_words and not general)) \
            or w.left_alone_re.search(text)
        if asks_left and not (spans and wants_set):
            return self._report("timer_left", parse.timer_name(tokens, spans) if has_timer else None)
        if spans and (has_timer or wants_set):
            return self._set(tokens, spans, room)
        if spans and not has_timer and (needs := w.needs_re.match(text)) is not None:  # "the rice wants 18 minutes"
            said = w.needs_said_as.format(name=needs["name"], duration=" ".join(tokens[spans[0].start:spans[0].end]))
            return self._set(said.split(), parse.find_durations(said.split()), room)
        if has_timer and first in w.question_start and not wants_set and not w.generic_re.search(text):
            return self._report("timer_left", parse.timer_name(tokens, spans))  # "what's the timer at"
        if has_timer and wants_set and (bare := self._bare_length(tokens)) is not None:
            return self._set(tokens, [bare], room)
        if has_timer and (wants_set or first not in w.question_start):
            return self._clarify(room, w.how_long, "set", parse.timer_name(tokens, spans))
        return None

    def _bare_length(self, tokens: list[str]) -> Span | None:
        """The length in "a timer for five": a whole number said last, for the timer's length, without its unit,
        is minutes, the unit the hub's own question back gives its example in ("... for example ten minutes")."""
        for k in range(1, len(tokens)):
            number = self.parse.parse_number(tokens, k) if tokens[k - 1] in self._w.length_for else None
            if number is not None and number[1] == len(tokens) and number[0].is_integer() and number[0] > 0:
                return Span(k, number[1], number[0] * UNIT_S["minute"])
        return None

    def _set(self, tokens: list[str], spans: list[Span], room: str = "") -> SkillReply:
        w, say = self._w, self._say
        wanted = [(span.seconds, self.parse.timer_name(seg, seg_spans))
                  for span, seg, seg_spans in self.parse.segments(tokens, spans)]
        for seconds, name in wanted:
            if not MIN_DURATION_S <= seconds <= MAX_DURATION_S:
                return self._clarify(room, w.out_of_range.format(longest=say.duration(MAX_DURATION_S)), "set",
                                     name)
        try:
            made = [self.timers.add(seconds, name, room) for seconds, name in wanted]
        except TimerError as exc:
            _LOGGER.error("Cannot set a timer: %s", exc)
            return SkillReply(w.cannot_set.format(error=exc), "timer_error", data={"error": str(exc)})
        if len(made) == 1:
            t = made[0]
            duration = say.duration(t.duration_s)
            text = w.set_named.format(Name=capital(t.name), duration=duration) if t.name else \
                w.set_one.format(duration=duration)
        else:
            parts = [w.set_piece_named.format(name=t.name, duration=say.duration(t.duration_s)) if t.name
                     else say.duration(t.duration_s) for t in made]
            text = w.set_many.format(count=len(made), timers=say.join(parts))
        return SkillReply(text, "timer_set", data={"timers": [_timer_data(t, self.clock()) for t in made]})

    def _cancel(self, tokens: list[str], spans: list[Span], room: str) -> SkillReply:
        w = self._w
        everything = bool(w.all_words & set(tokens))
        name = self.parse.timer_name(tokens, spans)
        guess = self.parse.rest_name(tokens[1:])
        if name is None and self._timers_named(guess):  # "cancel pasta", "cancel the paste a timer"
            name = guess
        everything = everything or (name is None and not spans and bool(w.plural_words & set(tokens)))
        timers = self.timers.all()
        if not timers:
            return SkillReply(w.none, "timer_cancel", data={"cancelled": []})
        if everything:
            chosen = timers
        elif name:
            chosen = self._timers_named(name)
            if not chosen:
                return self._clarify(room, w.not_found.format(name=name, which=self._which(timers)), "cancel",
                                     None, options=_ids(timers))
        elif spans:
            chosen = [t for t in timers if abs(t.duration_s - spans[0].seconds) < 1.0]
        elif self.timers.ringing():
            return stopped(self.timers)
        else:
            chosen = timers if len(timers) == 1 else []
        if not chosen:
            return self._clarify(room, self._which(timers), "cancel", None, options=_ids(timers))
        return self._cancelled(chosen, len(timers))

    def _cancelled(self, chosen: list[Timer], of: int) -> SkillReply:
        """`chosen` cancelled, of the `of` timers there were."""
        w = self._w
        gone = self.timers.cancel([t.id for t in chosen])
        if len(gone) == 1:
            text = w.cancelled_one.format(Label=capital(self._label(gone[0])))
        else:
            text = w.cancelled_all.format(count=len(gone)) if len(gone) == of else \
                w.cancelled_some.format(count=len(gone), labels=self._say.join([self._label(t) for t in gone]))
        return SkillReply(text, "timer_cancel", data={"cancelled": [t.id for t in gone]})

    def _change_asked(self, tokens: list[str]) -> _Change | None:
        """A change of a timer already there, when the words ask one ("add five minutes to the pasta timer",
        "take two minutes off", "give it five more minutes", "make the timer fifteen minutes instead"), else
        None: the words are read as ever ("add a timer for five minutes", "put five minutes on the timer" set
        one). Read whether or not a timer runs, so that with none the hub says so rather than set one."""
        w, parse = self._w, self.parse
        if not tokens or w.not_changed & set(tokens) or tokens[0] in w.question_start:
            return None
        tokens, more = self._more_marked(tokens)
        spans = parse.find_durations(tokens)
        labels = [s for s in spans if s.end < len(tokens) and tokens[s.end] in w.timer_words]  # "the 10 minute timer"
        amounts = [s for s in spans if s not in labels]
        if len(amounts) != 1 or len(labels) > 1:
            return None
        amount = amounts[0]
        before = tokens[amount.start - 1] if amount.start > 0 else ""
        after = tokens[amount.end] if amount.end < len(tokens) else ""
        if after and after not in w.change_after:
            return None  # "add five minute rice to my list": no amount of time
        verb, said = tokens[0], set(tokens)
        more = more or before in w.more_words or after in w.more_words
        definite = len(tokens) > 1 and tokens[1] in w.definite
        by_s: float | None = None
        to_s: float | None = None
        if after in w.fewer_words or verb in w.less_verbs or (verb in w.off_verbs and w.off_words & said):
            to_s, by_s = (amount.seconds, None) if before in w.to_words and verb in w.to_verbs else \
                (None, -amount.seconds)
        elif verb in w.more_verbs and before not in w.length_for:
            to_s, by_s = (amount.seconds, None) if before in w.to_words else (None, amount.seconds)
        elif more and before not in w.length_for:
            by_s = amount.seconds
        elif ((w.instead_words & said and (before not in w.length_for or definite))
              or (before in w.to_words and verb in w.to_verbs)
              or (definite and verb in w.make_verbs and before not in w.length_for)
              or (definite and before in w.to_words and verb in w.to_if_running and self.timers.all())):
            to_s = amount.seconds
        if (by_s is None and to_s is None) or not is_request(" ".join(tokens), self.words):
            return None
        return _Change(by_s or 0.0, to_s, self._changed_name(tokens, amount, labels),
                       labels[0].seconds if labels else None)

    def _more_marked(self, tokens: list[str]) -> tuple[list[str], bool]:
        """The tokens with a word saying "more" taken out of an amount, so that the amount reads as one ("five
        more minutes" -> "five minutes", "another minute" -> "a minute"), and whether one was."""
        w, parse = self._w, self.parse
        article = min(self.words.numbers.articles)  # "a": the article that counts as one
        out: list[str] = []
        more = False
        for k, tok in enumerate(tokens):
            unit_next = k + 1 < len(tokens) and parse.unit_of(tokens[k + 1]) is not None
            if tok in w.more_words and unit_next:
                counted = bool(out) and (out[-1] in self.words.numbers.articles
                                         or parse.parse_number(out[-1:], 0) is not None)
                more = True
                if not counted:
                    out.append(article)
                continue
            out.append(tok)
        return out, more

    def _changed_name(self, tokens: list[str], amount: Span, labels: list[Span]) -> str | None:
        """The name of the timer a change is for: said with the word timer ("the pasta timer"), or alone
        ("give the pasta five more minutes"); None when only "it" or "the timer" is said."""
        w = self._w
        spans = [amount, *labels]
        if w.timer_words & set(tokens):
            return self.parse.timer_name(tokens, spans)
        vocabulary = (w.more_verbs | w.off_verbs | w.less_verbs | w.off_words | w.more_words | w.fewer_words
                      | w.to_verbs | w.to_words | w.to_if_running | w.make_verbs | w.instead_words | w.change_after)
        words = [t for i, t in enumerate(tokens) if not any(s.start <= i < s.end for s in spans)
                 and t not in vocabulary and t not in self.parse.name_stop]
        return " ".join(words) if 0 < len(words) <= 3 else None

    def _change(self, change: _Change, room: str) -> SkillReply:
        """The timer a change is for, changed, or the question which one it is; never a new timer."""
        w = self._w
        timers = self.timers.all()
        if not timers:
            return SkillReply(w.change_none, "timer_change", data={"timers": []})
        if change.name:
            chosen = self._timers_named(change.name)
            if not chosen:
                which = self._which(timers, w.change_which_one, w.change_which_many)
                return self._clarify(room, w.not_found.format(name=change.name, which=which), "change", None,
                                     change, _ids(timers))
        elif change.length_s is not None:
            chosen = [t for t in timers if abs(t.duration_s - change.length_s) < 1.0]
        elif len(timers) == 1:
            chosen = timers
        else:
            chosen = self.timers.ringing()  # "give it two more minutes" while one rings: that one
            if len(chosen) == 1 and len(timers) == 2:  # the hub's own pick of two: "no, the other one" may follow
                self.questions.put(room, _Pending("other", None, self.clock() + self.follow_up_s, change,
                                                  _ids(timers), (chosen[0],)))
        if len(chosen) != 1:
            return self._clarify(room, self._which(timers, w.change_which_one, w.change_which_many), "change",
                                 None, change, _ids(timers))
        return self._changed(chosen[0], change)

    def _changed(self, timer: Timer, change: _Change) -> SkillReply:
        w, say = self._w, self._say
        now = self.clock()
        label = self._label(timer)
        if change.by_s < 0 and timer.remaining(now) + change.by_s < MIN_DURATION_S:
            text = w.change_too_short.format(label=label, remaining=say.remaining(timer.remaining(now)),
                                             duration=say.duration(-change.by_s))
            return SkillReply(text, "timer_change", data={"timers": [_timer_data(timer, now)]})
        try:
            new = self.timers.change(timer.id, change.by_s, change.to_s)
        except TimerError as exc:
            _LOGGER.info("Timer %d not changed: %s", timer.id, exc)
            text = w.change_out_of_range.format(label=label, longest=say.duration(MAX_DURATION_S))
            return SkillReply(text, "timer_change", data={"timers": [_timer_data(timer, now)]})
        data: dict = {"timers": [_timer_data(new, now)]}
        left = new.remaining(now)  # to the second when seconds were said ("take off thirty seconds")
        remaining = say.remaining(left) if change.by_s % 60 == 0 else say.duration(left)
        if change.to_s is not None:
            text = w.changed_to.format(Label=capital(label), duration=say.duration(change.to_s))
        elif change.by_s > 0:
            text = w.changed_more.format(duration=say.duration(change.by_s), label=label, remaining=remaining)
        else:
            text = w.changed_less.format(duration=say.duration(-change.by_s), label=label, remaining=remaining)
        if change.to_s is None:
            data["change_s"] = change.by_s
        return SkillReply(text, "timer_change", data=data)

    def _report(self, intent: str, name: str | None) -> SkillReply:
        w = self._w
        now = self.clock()
        timers = self.timers.all()
        if name:
            timers = self._timers_named(name) or timers
        data = {"timers": [_timer_data(t, now) for t in timers]}
        if not timers:
            return SkillReply(w.none, intent, data=data)

        def state(t: Timer) -> str:
            return w.done_state if t.ends_at <= now else w.left_state.format(
                remaining=self._say.remaining(t.remaining(now)))

        if len(timers) == 1:
            return SkillReply(w.report_one.format(label=self._label(timers[0]), state=state(timers[0])),
                              intent, data=data)
        parts = [w.report_piece.format(label=self._label(t), state=state(t)) for t in timers[:REPORT_MAX]]
        if len(timers) > REPORT_MAX:  # a long list is no use spoken: the soonest ones, and a count
            parts.append(w.report_more.format(count=len(timers) - REPORT_MAX))
        return SkillReply(w.report_many.format(count=len(timers), timers=self._say.join(parts)), intent, data=data)

    def _timers_named(self, name: str | None) -> list[Timer]:
        if not name:
            return []
        timers = self.timers.all()
        exact = [t for t in timers if t.name == name]
        if exact:
            return exact
        names = [t.name for t in timers if t.name]
        close = set(difflib.get_close_matches(name, names, n=3, cutoff=0.75))
        return [t for t in timers if t.name in close]

    def _clarify(self, room: str, text: str, kind: str, name: str | None, change: _Change | None = None,
                 options: tuple[int, ...] = ()) -> SkillReply:
        self.questions.put(room, _Pending(kind, name, self.clock() + PENDING_S, change, options))
        return SkillReply(text, "timer_clarify", data={"waiting_for": kind})

    def _answer_pending(self, pending: _Pending, tokens: list[str], room: str = "") -> SkillReply | None:
        """The answer to the room's question back, or None when the words are no answer to it; once the answer
        picked one of the timers listed, "the other one" may follow."""
        if pending.kind not in ("cancel", "change"):
            return self._referred(pending, tokens, room) if pending.kind == "other" else \
                self._answered(pending, tokens, room)
        before = {t.id: t for t in self.timers.all()}
        reply = self._referred(pending, tokens, room)
        if reply is None:
            reply = self._answered(pending, tokens, room)
        acted: list[int] = []
        if reply is not None and reply.intent == "timer_cancel":
            acted = reply.data.get("cancelled", [])
        elif reply is not None and reply.intent == "timer_change":
            acted = [t["id"] for t in reply.data.get("timers", [])]
        if len(acted) == 1 and acted[0] in before and len(pending.options) > 1 \
                and not self.questions.asked(room):
            self.questions.put(room, _Pending("other", None, self.clock() + self.follow_up_s, pending.change,
                                              pending.options, (before[acted[0]],)))
        return reply

    def _referred(self, pending: _Pending, tokens: list[str], room: str) -> SkillReply | None:
        """The answer that says a timer by reference (thinking/which.py: "the second one", "the shorter one",
        "the other one"), acted on as the request would have; the question asked again when it picks out no
        single one; None when the words are no reference."""
        w, text = self._w, " ".join(tokens)
        timers = {t.id: t for t in self.timers.all()}
        options = [Choice(i, timers[i].ends_at, timers[i].duration_s) if i in timers else Choice(i, float("inf"))
                   for i in pending.options]
        ids = refer(self.words.follow_ups.which, self.parse, text, options, [t.id for t in pending.done])
        if ids is None:
            return None
        chosen = [timers[i] for i in ids if i in timers]
        if not chosen:  # never a guess: the question again, of the timers there now
            if len(timers) < 2:
                return None
            if pending.change is not None:
                which = self._which(list(timers.values()), w.change_which_one, w.change_which_many)
                return self._clarify(room, which, "change", None, pending.change, _ids(list(timers.values())))
            return self._clarify(room, self._which(list(timers.values())), "cancel", None,
                                 options=_ids(list(timers.values())))
        reply = self._changed(chosen[0], pending.change) if pending.change is not None else \
            self._cancelled(chosen, len(timers))
        if pending.kind == "other" and self.words.follow_ups.which.correction.search(text):
            for timer in pending.done:  # "no, the other one": the one acted on is put back as it was
                self.timers.put_back(timer)
            back = " ".join(self.words.follow_ups.which.back_timer.format(label=self._label(t)) for t in pending.done)
            reply = SkillReply(f"{reply.text} {back}", reply.intent, data=reply.data)
        return reply

    def _answered(self, pending: _Pending, tokens: list[str], room: str = "") -> SkillReply | None:
        """The answer to the room's question back as the skill reads it: a length, a name, "both"."""
        w = self._w
        spans = self.parse.find_durations(tokens)
        if pending.kind == "set" and not spans:
            number = self.parse.parse_number(tokens, 0)
            if number is not None and number[1] == len(tokens) and number[0].is_integer() and number[0] > 0:
                spans = [Span(0, len(tokens), number[0] * UNIT_S["minute"])]  # "five": minutes, as in the question
            elif (bare := self._bare_length(tokens)) is not None:
                spans = [bare]
        if pending.kind == "set" and spans:
            if any(t in w.timer_words for t in tokens) or tokens[0] in w.set_verbs:
                return self._set(tokens, spans, room)
            seconds = sum(s.seconds for s in spans)
            return self._set([DURATION_MARK], [Span(0, 1, seconds)], room) if pending.name is None else \
                self._set([DURATION_MARK, w.name_for, *pending.name.split()], [Span(0, 1, seconds)], room)
        if pending.kind == "set" and any(self.parse.parse_number(tokens, i) for i in range(len(tokens))):
            return self._clarify(room, w.how_long_again, "set", pending.name)
        if pending.kind == "change" and pending.change is not None:
            timers = self.timers.all()
            if tokens[0] in self._yes and len(timers) == 1:
                return self._changed(timers[0], pending.change)
            if w.all_words & set(tokens) and len(timers) > 1:  # "both": each of them changed alike
                replies = [self._changed(t, pending.change) for t in timers]
                return SkillReply(" ".join(r.text for r in replies), "timer_change",
                                  data={"timers": [d for r in replies for d in r.data["timers"]]})
            chosen = self._timers_named(self.parse.rest_name(tokens)) or \
                [t for t in timers if spans and abs(t.duration_s - spans[0].seconds) < 1.0]
            return self._changed(chosen[0], pending.change) if len(chosen) == 1 else None
        if pending.kind == "cancel":
            if tokens[0] in self._yes and len(self.timers.all()) == 1:
                return self._cancel([w.cancel_word, w.timer_word], [], room)
            if w.all_words & set(tokens) or spans or self._timers_named(self.parse.rest_name(tokens)):
                return self._cancel([w.cancel_word, *tokens], spans, room)
        return None

    def _repair_timer_word(self, tokens: list[str], spans: list[Span]) -> list[str]:
        """'set a tiger for 5 minutes' -> timer, but never in 'how fast is a tiger'."""
        w = self._w
        if any(t in w.timer_words for t in tokens):
            return tokens
        starts_like_request = tokens[0] in w.set_verbs or tokens[0] in w.cancel_verbs
        out = list(tokens)
        for i, tok in enumerate(tokens):
            if tok not in w.soundalikes or i == 0:
                continue
            after = tokens[i + 1] if i + 1 < len(tokens) else ""
            in_span = any(s.start <= i < s.end for s in spans)
            fits = after in w.soundalike_after or any(s.start == i + 1 for s in spans)
            if not in_span and fits and starts_like_request and (spans or tokens[0] in w.cancel_verbs):
                out[i] = w.timer_word
        return out

    def _which(self, timers: list[Timer], one: str | None = None, many: str | None = None) -> str:
        """The question after an unclear cancel (or change, with its `one` and `many`): names the timers when
        there are few."""
        w = self._w
        if len(timers) == 1:
            return (one or w.which_one).format(label=self._label(timers[0]))
        pieces = [w.which_piece.format(label=self._label(t)) for t in timers]
        listed = w.which_listed.format(labels=self._say.join(pieces)) if len(timers) <= WHICH_MAX else ""
        return (many or w.which_many).format(count=len(timers), listed=listed)

    def _label(self, timer: Timer) -> str:
        return self._say.timer_label(timer.name, timer.duration_s)


def _ids(timers: list[Timer]) -> tuple[int, ...]:
    """The timers a question back names, in its order, for an answer by reference ("the second one"); none
    when it only counts them."""
    return tuple(t.id for t in timers) if len(timers) <= WHICH_MAX else ()


def _timer_data(t: Timer, now: float) -> dict:
    return {"id": t.id, "name": t.name, "duration_s": t.duration_s, "remaining_s": round(t.remaining(now), 1)}


@local_skill("timers", TIMERS)
def _build(kit: SkillKit) -> TimerSkill:
    return TimerSkill(kit)

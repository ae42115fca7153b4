"""Lists as a local skill: things put on a named list, taken off, read out, asked about, cleared.

Notes are a list of their own ("make a note to call the plumber").

Asked after the clock (skillkit.LISTS). The lists come from the kit (lists.Lists): kept in the state
folder, the shopping list in Home Assistant when it is configured. A list that could not be changed
is said so, with why; the reply never claims an item was added that was not. Works on text already
normalised and stripped of "hey jarvis" and "please" (LocalSkills.match).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Final

from appliance.contracts import SkillReply
from appliance.errors import (
    BadConfig,
    HomeAssistantLacks,
    HomeAssistantRefused,
    HomeAssistantUnreachable,
    ListError,
)
from appliance.language import LanguagePack, SkillPhrases
from appliance.thinking.lists import HERE, ItemList, Lists, find, named_in
from appliance.thinking.skillkit import LISTS, SkillKit, local_skill
from appliance.thinking.skillparse import capital, said_group

_LOGGER = logging.getLogger(__name__)

NAME: Final = "lists"
"""The skill's name: its words in the pack."""
READ_MAX: Final = 5  # items read out one by one; more are counted
CONTEXT_S: Final = 30.0  # seconds a list spoken of stays the one "add eggs" (no list named) goes on
_FAILED: Final = (ListError, HomeAssistantUnreachable, HomeAssistantRefused, BadConfig)
"""What a list raises when it cannot be read or changed; each is said as what it is."""
_ASKED: Final = ("note", "clear", "add", "remove", "remove_after", "remove_kept", "count", "read", "has", "has_kept",
                 "add_after", "add_bare")
"""The patterns tried, in this order: the first that matches is what was asked."""
_ADDS: Final = frozenset({"note", "add", "add_after", "add_bare"})
"""The patterns that put something on a list."""
_KEPT: Final = {"remove_after": "remove", "remove_kept": "remove", "has_kept": "has"}
"""The patterns that take off or ask of only an item the list has, named in what was said, and what they ask."""


class ListSkill:
    """Turns list requests into changes of the kit's lists and a short spoken reply."""

    def __init__(self, lists: Lists, words: LanguagePack, clock: Callable[[], float]) -> None:
        self.lists = lists
        self.words = words
        self.clock = clock
        self._w: SkillPhrases = words.skill(NAME)
        self._recent: dict[str, tuple[str, float]] = {}
        """Each room's list last spoken of, and until when "add eggs" goes on it."""

    def match(self, text: str, room: str = "") -> SkillReply | None:
        """The reply to a list request in `text` asked in `room`, or None when it is not one."""
        w = self._w
        for asked in _ASKED:
            m = w.pattern(asked).match(text)
            if m is not None:
                name = w.say("notes_list") if asked == "note" else self._list(m)
                items = (self._kept_in(name, said_group(m, "items"), _names_list(m)) if asked in _KEPT
                         else self._said(m, name))
                # the list named could not be read (Home Assistant down): said as reading it says it
                reply = self._do("read", name, [], room) if items is None else self._do(asked, name, items, room)
                if reply is not None:
                    return reply
        if w.pattern("note_alone").match(text):
            return self._unclear("add", self.lists.open(w.say("notes_list")))
        recent = self._recent.get(room)
        if recent is not None and recent[1] >= self.clock():
            for asked, kind in (("add_more", "add"), ("remove_more", "remove")):
                m = w.pattern(asked).match(text)
                items = self._said(m, recent[0]) if m is not None else []
                if items and not all(self._number(item) for item in items):  # "add 2 and 2" is a sum
                    return self._do(kind, recent[0], items, room)
        return None

    # ---- what was said ---------------------------------------------------------------

    def _list(self, m: re.Match[str]) -> str:
        """The list named in a match: the notes, a known list by any of its names, the name said, or the default."""
        w = self._w
        groups = m.groupdict()
        if any(v for k, v in groups.items() if k.startswith("notes")):
            return w.say("notes_list")
        said = next((v for k, v in groups.items() if k.startswith("list") and v), "")
        said = w.pattern("name_lead").sub("", said).strip()
        if not said:
            return w.say("default_list")
        for key, pattern in w.patterns.items():
            if key.startswith("name:") and pattern.match(said):
                return key.removeprefix("name:")
        return said

    def _said(self, m: re.Match[str], name: str) -> list[str]:
        """The items in a match, one by one (a note is one item, however it is said)."""
        w = self._w
        text = said_group(m, "items")
        if not text:
            return []
        if name == w.say("notes_list"):
            return [text]
        items: list[str] = []
        for piece in w.pattern("split").split(text):
            piece = w.pattern("item_tail").sub("", w.pattern("item_lead").sub("", piece)).strip()
            if piece and piece not in items:
                items.append(piece)
        return items

    def _kept_in(self, name: str, said: str, named_list: bool) -> list[str] | None:
        """The one item of the list that words said name, word for word or nearly ("I got the eggs": eggs;
        "I fixed the gate": fix the gate), or whose words hold every word said; none when they name no item or
        more than one. A list not named ("do I need an umbrella?") is looked in only where it is kept here: a
        guess never waits on Home Assistant; None when a list named cannot be read (Home Assistant down)."""
        lst = self.lists.open(name)
        if not named_list and lst.kept != HERE:
            return []
        try:
            kept = lst.items()
        except _FAILED:
            return None if named_list else []
        named = named_in(kept, said.split())
        if not named:  # "the note about the boiler code": the note that says those words
            wanted = set(self._w.pattern("item_lead").sub("", said).split())
            named = {item for item in kept if wanted and wanted <= set(item.lower().split())}
        return list(named) if len(named) == 1 else []

    def _number(self, item: str) -> bool:
        """Only a number, in digits or words ("2", "twenty two")."""
        n = self.words.numbers
        return all(t.replace(".", "").isdigit() or t in n.ones or t in n.tens for t in item.split())

    # ---- what is done ----------------------------------------------------------------

    def _do(self, asked: str, name: str, items: list[str], room: str) -> SkillReply | None:
        every = bool(items) and all(self._w.pattern("everything").match(item) for item in items)
        asked = _KEPT.get(asked, asked)
        if (asked in _ADDS or asked in ("remove", "has")) and not items:
            return None
        if every and asked in _ADDS:
            return None  # "add everything to the list": nothing to put on it
        if every:
            asked = "clear" if asked == "remove" else "read"
        lst = self.lists.open(name)
        if any(self._w.pattern("pronoun").match(item) for item in items):  # "add it to my list": what is it
            return self._unclear("add" if asked in _ADDS else asked, lst)
        reply = (self._add if asked in _ADDS else {"remove": self._remove, "clear": self._clear, "count": self._count,
                                                   "read": self._read, "has": self._has}[asked])(lst, items)
        if reply.intent != "list_error" or reply.data.get("done"):
            self._recent[room] = (name, self.clock() + CONTEXT_S)
        return reply

    def _add(self, lst: ItemList, items: list[str]) -> SkillReply:
        added: list[str] = []
        already: list[str] = []
        failed = None
        for item in items:
            try:
                (added if lst.add(item) else already).append(item)
            except _FAILED as exc:
                failed = self._failed(exc, lst, "do_add", [i for i in items if i not in added and i not in already])
                break
        text = self._join([self._many("added", lst, added), self._many("already", lst, already), failed])
        data = {"added": added, "already": already}
        return self._reply(text, "list_add", lst, data, failed is not None, done=added)

    def _remove(self, lst: ItemList, items: list[str]) -> SkillReply:
        removed: list[str] = []
        missing: list[str] = []
        failed = None
        for item in items:
            try:
                kept = lst.remove(item)
            except _FAILED as exc:
                failed = self._failed(exc, lst, "do_remove", items[len(removed) + len(missing):])
                break
            if kept is not None:
                removed.append(kept)
            else:
                missing.append(item)
        text = self._join([self._many("removed", lst, removed), self._many("missing", lst, missing), failed])
        return self._reply(text, "list_remove", lst, {"removed": removed, "missing": missing}, failed is not None,
                           done=removed)

    def _clear(self, lst: ItemList, items: list[str]) -> SkillReply:
        try:
            count = lst.clear()
        except _FAILED as exc:
            return self._reply(self._failed(exc, lst, "do_clear", []), "list_clear", lst, {}, failed=True)
        return self._reply(self._say("cleared" if count else "cleared_empty", lst), "list_clear", lst,
                           {"cleared": count})

    def _read(self, lst: ItemList, items: list[str]) -> SkillReply:
        try:
            kept = lst.items()
        except _FAILED as exc:
            return self._reply(self._failed(exc, lst, "do_read", []), "list_read", lst, {}, failed=True)
        data = {"items": kept, "count": len(kept)}
        if not kept:
            return self._reply(self._say("empty", lst), "list_read", lst, data)
        shown = kept[:READ_MAX]
        key = "read_one" if len(kept) == 1 else "read_many" if len(kept) <= READ_MAX else "read_long"
        return self._reply(self._say(key, lst, items=self._items(lst, shown), count=len(kept), shown=len(shown)),
                           "list_read", lst, data)

    def _count(self, lst: ItemList, items: list[str]) -> SkillReply:
        try:
            count = len(lst.items())
        except _FAILED as exc:
            return self._reply(self._failed(exc, lst, "do_count", []), "list_count", lst, {}, failed=True)
        key = "empty" if not count else "count_one" if count == 1 else "count_many"
        return self._reply(self._say(key, lst, count=count), "list_count", lst, {"count": count})

    def _has(self, lst: ItemList, items: list[str]) -> SkillReply:
        try:
            kept = lst.items()
        except _FAILED as exc:
            return self._reply(self._failed(exc, lst, "do_has", []), "list_has", lst, {}, failed=True)
        on = [found for item in items if (found := find(kept, item)) is not None]
        off = [item for item in items if find(kept, item) is None]
        if not off:
            text = self._many("has", lst, on)
        elif not on:
            text = self._many("hasnt", lst, off)
        else:
            text = self._join([self._many("on", lst, on), self._many("missing", lst, off)])
        return self._reply(text, "list_has", lst, {"on": on, "missing": off})

    # ---- how it is said --------------------------------------------------------------

    def _unclear(self, asked: str, lst: ItemList) -> SkillReply:
        """How to say a request that left out what it is about ("add it to my list")."""
        return self._reply(self._say(f"unclear_{asked}", lst), "list_clarify", lst, {})

    def _failed(self, exc: Exception, lst: ItemList, action: str, items: list[str]) -> str:
        """Why the list could not be changed or read, and what was not done."""
        _LOGGER.warning("The %s list: %s", lst.name, exc)
        if isinstance(exc, ListError):
            kind, limit = exc.kind, exc.limit
        else:
            kind = "refused" if isinstance(exc, HomeAssistantRefused) else "token" if isinstance(exc, BadConfig) \
                else "lacks" if isinstance(exc, HomeAssistantLacks) else "down"
            limit = 0
        doing = self._say(action, lst, items=self._items(lst, items) if items else "")
        return self._say(kind, lst, action=doing, limit=limit)

    def _reply(self, text: str, intent: str, lst: ItemList, data: dict, failed: bool = False,
               done: list[str] | None = None) -> SkillReply:
        """The reply, with the list and where it is kept in its data; "list_error" when something failed
        (`done`: what was done before)."""
        data = {"list": lst.name, "kept": lst.kept, **data}
        if failed:
            data["done"] = done or []
            return SkillReply(text, "list_error", data=data)
        return SkillReply(text, intent, data=data)

    def _many(self, key: str, lst: ItemList, items: list[str]) -> str:
        """`key`_one or `key`_many with the items, or "" for none."""
        if not items:
            return ""
        return self._say(f"{key}_one" if len(items) == 1 else f"{key}_many", lst, items=self._items(lst, items),
                         item=items[0])

    def _items(self, lst: ItemList, items: list[str]) -> str:
        pieces = [self._say("piece", lst, item=item) for item in items]
        joiner = self._w.replies.get(f"join@{lst.name}")
        return joiner.join(pieces) if joiner is not None else self.words.say.join(pieces)

    def _say(self, key: str, lst: ItemList, **fields: object) -> str:
        """The reply `key` in this list's own words when it has them ("empty@notes"), with its title."""
        title = self._w.say(self._own("title", lst.name), name=lst.name)
        words = {**fields, "title": title, "Title": capital(title)}
        for field in ("item", "items"):
            if isinstance(fields.get(field), str):
                words[field.capitalize()] = capital(str(fields[field]))
        return self._w.say(self._own(key, lst.name), **words)

    def _own(self, key: str, name: str) -> str:
        """`key`@`name` when the pack has the list's own words for it, else `key`."""
        own = f"{key}@{name}"
        return own if own in self._w.replies else key

    @staticmethod
    def _join(sentences: list[str | None]) -> str:
        return " ".join(s for s in sentences if s)



@local_skill(NAME, LISTS)
def _build(kit: SkillKit) -> ListSkill | None:
    """None without lists to keep: the words are then left for Home Assistant or the model."""
    return None if kit.lists is None else ListSkill(kit.lists, kit.words, kit.clock)


def _names_list(m: re.Match[str]) -> bool:
    """Whether a list pattern's match names its list ("... off the shopping list", "the note about ...")."""
    return any(v for k, v in m.groupdict().items() if (k.startswith("list") or k.startswith("notes")) and v)

"""Named lists kept in the state folder, and the book that hands a skill each list from where it is kept.

The lists are the shopping list, to do, notes and any name the owner says; the book gives the
shopping list from Home Assistant when it is configured (home_shopping.py).

    book = ListBook(ListStore(Path(cfg.service.state_dir)))
    shopping = book.open("shopping")
    shopping.add("milk")          # True: added; False: it was already there
    shopping.remove("milk")       # "milk" as it was kept, or None when it was not there
    shopping.items(); shopping.clear()

The file (lists.json) is written whole under a file lock and re-read whenever another process
(`appliance ask`) changed it; an unreadable one is moved aside (lists.json.bad) with an error in
the log, and the lists start empty.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

from appliance.errors import ListError
from appliance.state_file import SharedState

_LOGGER = logging.getLogger(__name__)

STATE_FILE: Final = "lists.json"
LOCK_FILE: Final = "lists.lock"
FORMAT_VERSION: Final = 1
MAX_LISTS: Final = 20  # lists kept at once
MAX_ITEMS: Final = 100  # items on one list
MAX_ITEM_CHARS: Final = 200  # characters in one item (a note is one item)
MAX_NAME_CHARS: Final = 40  # characters in a list's name
SAME_ITEM_RATIO: Final = 0.8  # difflib ratio from which a said item is one kept ("egg", "eggs")
HERE: Final = "here"
"""ItemList.kept of a list in the state folder."""


class ItemList(Protocol):
    """One named list's items, wherever they are kept. Raises ListError (HomeAssistantUnreachable,
    HomeAssistantRefused for Home Assistant's) when the list cannot be read or changed."""

    @property
    def name(self) -> str:
        """The list's name, as the owner says it ("shopping", "to do")."""

    @property
    def kept(self) -> str:
        """Where: HERE (the state folder) or "home_assistant"."""

    def items(self) -> list[str]:
        """The items, oldest first."""

    def add(self, item: str) -> bool:
        """Put `item` on the list; False when it (or one like it) is already there."""

    def remove(self, item: str) -> str | None:
        """Take `item` (or the one most like it) off: the item as it was kept, or None when it is not there."""

    def clear(self) -> int:
        """Take everything off; how many items there were."""


class Lists(Protocol):
    """What the list skill is given: each list by its name."""

    def open(self, name: str) -> ItemList:
        """The list called `name` (an empty one when there is none yet)."""


def find(items: Sequence[str], wanted: str, close: bool = True) -> str | None:
    """The kept item that `wanted` names: the same words whatever their case, else (`close`) the
    closest one with the same digits ("egg" for "eggs", never "size 4" for "size 5"); None for none."""
    lowered = {item.lower(): item for item in items}
    key = wanted.lower()
    if key in lowered or not close:
        return lowered.get(key)
    digits = _digits(key)
    alike = [item for item in lowered if _digits(item) == digits]
    found = difflib.get_close_matches(key, alike, n=1, cutoff=SAME_ITEM_RATIO)
    return lowered[found[0]] if found else None


def named_in(items: Sequence[str], words: Sequence[str], longest: int = 3) -> set[str]:
    """The kept items that runs of up to `longest` of `words` name (find): "how much longer for the pasta's",
    "I got the eggs, cross them off"."""
    return {found for size in range(1, longest + 1) for k in range(len(words) - size + 1)
            if (found := find(items, " ".join(words[k:k + size]))) is not None}


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def check_item(item: str) -> str:
    """`item` without spaces around it; ListError('long') when it is longer than MAX_ITEM_CHARS."""
    item = " ".join(item.split())
    if len(item) > MAX_ITEM_CHARS:
        raise ListError(f"a list item may be {MAX_ITEM_CHARS} characters long, this one has {len(item)}",
                        "long", MAX_ITEM_CHARS)
    return item


class ListBook:
    """Every list by its name: the one called `home_name` from `home` when it is given (Home
    Assistant's shopping list), every other from the local store."""

    def __init__(self, store: ListStore, home: ItemList | None = None, home_name: str = "") -> None:
        self.store = store
        self.home = home
        self.home_name = home_name

    def open(self, name: str) -> ItemList:
        if self.home is not None and name == self.home_name:
            return self.home
        return LocalList(self.store, name)


@dataclass
class _ListState:
    lists: dict[str, list[str]] = field(default_factory=dict)
    """Each list's items, oldest first; a list with none is not kept."""


class LocalList:
    """One list of a ListStore (satisfies ItemList)."""

    kept = HERE

    def __init__(self, store: ListStore, name: str) -> None:
        self.store = store
        self.name = name

    def items(self) -> list[str]:
        return self.store.items(self.name)

    def add(self, item: str) -> bool:
        return self.store.add(self.name, item)

    def remove(self, item: str) -> str | None:
        return self.store.remove(self.name, item)

    def clear(self) -> int:
        return self.store.clear(self.name)


class ListStore(SharedState[_ListState]):
    """The lists kept as JSON in `state_dir`, written atomically (temp file, fsync, rename)."""

    FILE, LOCK_FILE, NOUN = STATE_FILE, LOCK_FILE, "the lists"

    def __init__(self, state_dir: Path) -> None:
        self._open_state(state_dir)

    def names(self) -> list[str]:
        """The lists that have items, in the order they were started."""
        with self._locked():
            return list(self._state.lists)

    def items(self, name: str) -> list[str]:
        with self._locked():
            return list(self._state.lists.get(name, []))

    def add(self, name: str, item: str) -> bool:
        """Put `item` on list `name` (started if new); False when it is there already. ListError when
        the list is full, there are too many lists, the item or the name is too long, or it cannot be saved."""
        item = check_item(item)
        if len(name) > MAX_NAME_CHARS:
            raise ListError(f"a list's name may be {MAX_NAME_CHARS} characters long, {name!r} has {len(name)}",
                            "long", MAX_NAME_CHARS)
        with self._locked(write=True):
            lists = self._state.lists
            if name not in lists and len(lists) >= MAX_LISTS:
                raise ListError(f"{MAX_LISTS} lists are already kept; clear one to start the {name} list",
                                "lists", MAX_LISTS)
            items = lists.get(name, [])
            if find(items, item, close=False) is not None:  # "egg" and "eggs" may both be wanted
                return False
            if len(items) >= MAX_ITEMS:
                raise ListError(f"the {name} list already holds {MAX_ITEMS} items; take some off first",
                                "full", MAX_ITEMS)
            lists[name] = [*items, item]
        _LOGGER.info("List %s: %d items", name, len(items) + 1)  # the items themselves are the owner's
        return True

    def remove(self, name: str, item: str) -> str | None:
        with self._locked(write=True):
            items = self._state.lists.get(name, [])
            kept = find(items, item)
            if kept is None:
                return None
            items.remove(kept)
            if not items:
                del self._state.lists[name]
        _LOGGER.info("List %s: %d items", name, len(items))
        return kept

    def clear(self, name: str) -> int:
        with self._locked(write=True):
            gone = self._state.lists.pop(name, [])
        if gone:
            _LOGGER.info("List %s cleared (%d items)", name, len(gone))
        return len(gone)

    # ---- storage -------------------------------------------------------------------

    def _empty(self) -> _ListState:
        return _ListState()

    def _parse(self, data: Any) -> _ListState:
        lists: dict[str, list[str]] = {}
        for name, entry in data["lists"].items():
            items = [str(item["text"]) for item in entry["items"]]
            if items:
                lists[str(name)] = items
        return _ListState(lists)

    def _dump(self) -> Any:
        return {"version": FORMAT_VERSION,
                "lists": {name: {"items": [{"text": item} for item in items]}
                          for name, items in self._state.lists.items()}}

    def _store_error(self, exc: OSError) -> ListError:
        return ListError(f"cannot save the lists in {self.state_dir} (service.state_dir): {exc.strerror or exc}; "
                         "make the folder writable for the appliance user or point service.state_dir at one that is")

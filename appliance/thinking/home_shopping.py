"""Home Assistant's shopping list, over its REST API, as one of the hub's lists; and the book of every list,
with the shopping list Home Assistant's when it is configured (`book`).

It is HA's `shopping_list` integration: what is added here shows in HA's to-do list and its app,
and what is ticked off there is gone here.

Taking an item off ticks it off (complete), as HA's own "I bought milk" does; clearing the list
ticks off every item and then removes the ticked ones. Nothing is kept on the hub: every question
asks Home Assistant, so the answer is what its list holds now.
"""

from __future__ import annotations

import logging
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, Protocol

from appliance.config import HomeAssistantConfig
from appliance.errors import HomeAssistantUnreachable
from appliance.thinking.lists import ListBook, ListStore, check_item, find

_LOGGER = logging.getLogger(__name__)

LIST_PATH: Final = "/api/shopping_list"
ITEM_PATH: Final = "/api/shopping_list/item"
CLEAR_PATH: Final = "/api/shopping_list/clear_completed"
KEPT: Final = "home_assistant"
"""ItemList.kept of this list."""


class HomeApi(Protocol):
    """Home Assistant's REST API (home_assistant.HomeAssistant.request)."""

    def request(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """GET `path` (no body) or POST `body`; raises HomeAssistantUnreachable or HomeAssistantRefused."""


class HomeShoppingList:
    """Satisfies lists.ItemList with Home Assistant's shopping list. Raises HomeAssistantUnreachable
    (HomeAssistantLacks: no shopping list there), HomeAssistantRefused, or BadConfig (the token file)."""

    kept = KEPT

    def __init__(self, name: str, connect: Callable[[], HomeApi]) -> None:
        self.name = name
        """The hub's name for it ("shopping")."""
        self._connect = connect
        """Makes the client on first use (the token is read then)."""
        self._api: HomeApi | None = None

    def __repr__(self) -> str:
        return f"HomeShoppingList({self.name!r})"

    def items(self) -> list[str]:
        return [entry["name"] for entry in self._entries() if not entry["complete"]]

    def add(self, item: str) -> bool:
        item = check_item(item)
        entries = self._entries()
        if find([e["name"] for e in entries if not e["complete"]], item, close=False) is not None:
            return False
        ticked = next((e for e in entries if e["complete"] and e["name"].lower() == item.lower()), None)
        if ticked is not None:  # bought before: back on the list, not a second "milk"
            self._call(f"{ITEM_PATH}/{_quoted(ticked['id'])}", {"complete": False})
        else:
            self._call(ITEM_PATH, {"name": item})
        _LOGGER.info("Home Assistant's shopping list: one item added")
        return True

    def remove(self, item: str) -> str | None:
        open_ = [e for e in self._entries() if not e["complete"]]
        name = find([e["name"] for e in open_], item)
        if name is None:
            return None
        entry = next(e for e in open_ if e["name"] == name)
        self._call(f"{ITEM_PATH}/{_quoted(entry['id'])}", {"complete": True})
        _LOGGER.info("Home Assistant's shopping list: one item ticked off")
        return name

    def clear(self) -> int:
        open_ = [e for e in self._entries() if not e["complete"]]
        for entry in open_:
            self._call(f"{ITEM_PATH}/{_quoted(entry['id'])}", {"complete": True})
        self._call(CLEAR_PATH, {})
        _LOGGER.info("Home Assistant's shopping list cleared (%d items)", len(open_))
        return len(open_)

    def _call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        if self._api is None:
            self._api = self._connect()
        return self._api.request(path, body)

    def _entries(self) -> list[dict[str, Any]]:
        """Every item HA keeps, ticked off or not: {"id", "name", "complete"}."""
        data = self._call(LIST_PATH)
        if not isinstance(data, list) or not all(isinstance(e, dict) and isinstance(e.get("name"), str)
                                                 and isinstance(e.get("id"), str) for e in data):
            raise HomeAssistantUnreachable(f"Home Assistant sent a shopping list that is not a list of items "
                                           f"for {LIST_PATH}")
        return [{"id": e["id"], "name": e["name"], "complete": bool(e.get("complete"))} for e in data]


def _quoted(item_id: str) -> str:
    return urllib.parse.quote(item_id, safe="")


def book(state_dir: Path, home_assistant: HomeAssistantConfig, default_name: str) -> ListBook:
    """The lists kept in `state_dir`; the list called `default_name` (the shopping list) Home Assistant's when it
    is enabled."""
    store = ListStore(state_dir)
    if not home_assistant.enabled:
        return ListBook(store)
    from appliance.thinking.home_assistant import HomeAssistant

    return ListBook(store, HomeShoppingList(default_name, lambda: HomeAssistant(home_assistant)), default_name)

"""The lists file in the state folder: written whole, shared with another process, bounded, and an
unreadable one moved aside with a clear entry in the log."""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path

import pytest

from appliance.errors import ListError
from appliance.thinking.lists import LOCK_FILE, MAX_ITEM_CHARS, MAX_LISTS, STATE_FILE, ListStore, find


def test_the_lists_are_kept_as_json_readable_by_another_user_and_an_emptied_list_is_gone(tmp_path: Path) -> None:
    store = ListStore(tmp_path)
    assert store.add("shopping", "milk") and store.add("to do", "paint the fence")
    assert not store.add("shopping", "Milk")  # already there, whatever its case
    kept = json.loads((tmp_path / STATE_FILE).read_text())
    assert kept == {"version": 1, "lists": {"shopping": {"items": [{"text": "milk"}]},
                                             "to do": {"items": [{"text": "paint the fence"}]}}}
    assert stat.S_IMODE((tmp_path / STATE_FILE).stat().st_mode) == 0o644
    assert (tmp_path / LOCK_FILE).exists()
    assert store.remove("to do", "paint the fence") == "paint the fence"
    assert store.names() == ["shopping"] and store.items("to do") == []


def test_a_second_store_on_the_folder_sees_every_change_of_the_first(tmp_path: Path) -> None:
    daemon, ask = ListStore(tmp_path), ListStore(tmp_path)
    for n in range(5):  # each write is seen, even when the file keeps its size
        daemon.add("shopping", f"size {n} nails")
        assert ask.items("shopping") == [f"size {i} nails" for i in range(n + 1)]
    assert ask.remove("shopping", "size 3 nails") == "size 3 nails"
    assert daemon.items("shopping") == [f"size {i} nails" for i in (0, 1, 2, 4)]
    assert ask.clear("shopping") == 4 and daemon.items("shopping") == []


def test_an_unreadable_file_is_moved_aside_said_in_the_log_and_the_lists_start_empty(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / STATE_FILE).write_text('{"version": 1, "lists": {"shopping": ')
    with caplog.at_level(logging.ERROR, logger="appliance.thinking.lists"):
        store = ListStore(tmp_path)
    bad = tmp_path / (STATE_FILE + ".bad")
    assert bad.read_text() == '{"version": 1, "lists": {"shopping": '
    [entry] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert str(tmp_path / STATE_FILE) in entry.getMessage() and str(bad) in entry.getMessage()
    assert "unreadable" in entry.getMessage() and "starting with no lists" in entry.getMessage()
    assert store.items("shopping") == []
    assert store.add("shopping", "milk") and ListStore(tmp_path).items("shopping") == ["milk"]
    (tmp_path / STATE_FILE).write_text('{"version": 1, "lists": {"shopping": {"items": ["milk"]}}}')  # no text
    assert ListStore(tmp_path).items("shopping") == []


def test_bounds_are_errors_that_say_which_and_how_far(tmp_path: Path) -> None:
    store = ListStore(tmp_path)
    for n in range(MAX_LISTS):
        store.add(f"list {n}", "a thing")
    with pytest.raises(ListError) as caught:
        store.add("one more", "a thing")
    assert (caught.value.kind, caught.value.limit) == ("lists", MAX_LISTS)
    assert f"{MAX_LISTS} lists are already kept" in str(caught.value)
    assert store.add("list 0", "another thing")  # a list that exists still takes items
    with pytest.raises(ListError) as caught:
        store.add("list 0", "x" * (MAX_ITEM_CHARS + 1))
    assert caught.value.kind == "long" and f"{MAX_ITEM_CHARS} characters" in str(caught.value)
    assert store.items("list 0") == ["a thing", "another thing"]


def test_a_folder_that_cannot_be_written_is_named_with_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    store = ListStore(tmp_path / "file" / "state")
    with pytest.raises(ListError) as caught:
        store.add("shopping", "milk")
    said = str(caught.value)
    assert caught.value.kind == "store" and str(tmp_path / "file" / "state") in said and "service.state_dir" in said


def test_an_item_is_found_by_its_words_or_a_near_spelling_with_the_same_numbers() -> None:
    kept = ["Eggs", "size 4 screws", "bread"]
    assert find(kept, "eggs") == "Eggs" and find(kept, "egg") == "Eggs"
    assert find(kept, "egg", close=False) is None
    assert find(kept, "size 5 screws") is None and find(kept, "size 4 screw") == "size 4 screws"
    assert find(kept, "butter") is None

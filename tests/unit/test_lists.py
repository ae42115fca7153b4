"""The lists skill through LocalSkills.match, as the hub asks it: real sentences in, the spoken reply
and the intent out, the lists kept in the state folder (the shopping list in a Home Assistant that
behaves like HA's shopping_list integration, see FakeHomeApi)."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path
from typing import Any

import pytest

from appliance.config import Config, HomeAssistantConfig, SkillsConfig
from appliance.contracts import SkillReply
from appliance.errors import HomeAssistantLacks, HomeAssistantRefused, HomeAssistantUnreachable
from appliance.thinking import skills
from appliance.thinking.home_shopping import CLEAR_PATH, ITEM_PATH, LIST_PATH, HomeShoppingList
from appliance.thinking.list_skill import CONTEXT_S, READ_MAX
from appliance.thinking.lists import MAX_ITEM_CHARS, MAX_ITEMS, ListBook, ListStore
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import ManualClock, Timers
from tests.fixtures.home_assistant import free_port


def local(tmp_path: Path, clock: ManualClock | None = None) -> LocalSkills:
    """The skills with their lists in `tmp_path`, no Home Assistant."""
    clock = clock or ManualClock()
    return LocalSkills(SkillsConfig(), Timers(tmp_path, clock=clock), clock, lists=ListBook(ListStore(tmp_path)))


def say(skills: LocalSkills, text: str, room: str = "") -> SkillReply:
    reply = skills.match(text, room)
    assert reply is not None, f"no skill took {text!r}"
    return reply


class FakeHomeApi:
    """HA's shopping_list REST API as its integration answers it (items with an id, a name and a
    completed flag; clear_completed drops the completed ones), or failing as told."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.fails: Exception | None = None
        self.calls: list[str] = []
        self.fail_after: int | None = None
        """Calls that succeed before `fails` is raised (None: from the first)."""

    def request(self, path: str, body: dict[str, Any] | None = None) -> Any:
        self.calls.append(path)
        if self.fails is not None and (self.fail_after is None or len(self.calls) > self.fail_after):
            raise self.fails
        if path == LIST_PATH and body is None:
            return [dict(item) for item in self.items]
        if path == ITEM_PATH and body is not None:
            item = {"name": body["name"], "id": uuid.uuid4().hex, "complete": False}
            self.items.append(item)
            return dict(item)
        if path.startswith(ITEM_PATH + "/") and body is not None:
            item = next(i for i in self.items if i["id"] == path.rsplit("/", 1)[1])
            item.update(body)
            return dict(item)
        if path == CLEAR_PATH and body is not None:
            self.items = [i for i in self.items if not i["complete"]]
            return {"message": "Cleared completed items."}
        raise AssertionError(f"Home Assistant has no {path} for {body}")

    def open_names(self) -> list[str]:
        return [i["name"] for i in self.items if not i["complete"]]


def with_home(tmp_path: Path, api: FakeHomeApi) -> LocalSkills:
    clock = ManualClock()
    book = ListBook(ListStore(tmp_path), HomeShoppingList("shopping", lambda: api), "shopping")
    return LocalSkills(SkillsConfig(), Timers(tmp_path, clock=clock), clock, lists=book)


# ---- the local lists ---------------------------------------------------------------------


def test_the_shopping_list_takes_items_reads_them_and_answers_questions(tmp_path: Path) -> None:
    hub = local(tmp_path)
    added = say(hub, "Hey Jarvis, add milk to my shopping list.")
    assert (added.intent, added.text) == ("list_add", "I've added milk to your shopping list.")
    assert added.data == {"list": "shopping", "kept": "here", "added": ["milk"], "already": []}
    assert say(hub, "put eggs and bread on the shopping list").text == \
        "I've added eggs and bread to your shopping list."
    assert say(hub, "add some milk to the shopping list").text == "Milk is already on your shopping list."
    assert say(hub, "and butter to my shopping list").text == "I've added butter to your shopping list."  # "add"
    assert say(hub, "add a couple of lemons to the list").text == "I've added lemons to your shopping list."
    read = say(hub, "What's on my shopping list?")
    assert (read.intent, read.text) == ("list_read",
                                        "You have 5 things on your shopping list: milk, eggs, bread, butter and "
                                        "lemons.")
    assert say(hub, "read me my shopping list").text == read.text
    assert say(hub, "is milk on my shopping list").text == "Yes, your shopping list has milk."
    asked = say(hub, "are eggs and jam on my list")
    assert (asked.intent, asked.text) == ("list_has", "Your shopping list has eggs. I can't see jam on your shopping list.")
    count = say(hub, "how many things are on my shopping list")
    assert (count.intent, count.text, count.data["count"]) == ("list_count", "You have 5 things on your shopping list.", 5)


@pytest.mark.parametrize(("said", "added"), [
    ("pop a few onions on the list", "onions"),
    ("chuck a couple of lemons on the shopping list", "lemons"),
    ("at rice to the shopping list", "rice"),  # how a recogniser writes "add" at times
    ("add to leeks to the list", "leeks"),  # and "two"
    ("add rice to my shopping lest", "rice"),  # and "list"
    ("crumpets on the list, ta", "crumpets"),  # as curtly as people say it
    ("can we get some marmite on the shopping list", "marmite"),
    ("we need more kitchen roll", "kitchen roll"),  # what is missing
    ("we have run out of foil", "foil"),
    # said first, then pointed back to
    ("We'll need candles for Sunday, add them to the shopping list.", "candles"),
    ("we're out of foil so put it on the list", "foil"),
])
def test_the_item_is_what_was_asked_for_without_how_many(tmp_path: Path, said: str, added: str) -> None:
    assert say(local(tmp_path), said).text == f"I've added {added} to your shopping list."


@pytest.mark.parametrize(("asked", "heard"), [
    ("Shopping list?", "You have one thing on your shopping list: milk."),
    ("I'm off to the shops, what do I need?", "You have one thing on your shopping list: milk."),
    ("Give me a rundown of the shopping list.", "You have one thing on your shopping list: milk."),
    ("What jobs have I got on today?", "You have one thing on your to do list: sweep the yard."),
    ("the to do list", "You have one thing on your to do list: sweep the yard."),
])
def test_the_list_read_when_asked_for_as_people_ask(tmp_path: Path, asked: str, heard: str) -> None:
    hub = local(tmp_path)
    say(hub, "add milk to the list")
    say(hub, "add sweep the yard to my to do list")
    assert say(hub, asked).text == heard


@pytest.mark.parametrize("question", ["I'm going to the shop for a cake, what do I need to make it?",
                                      "What do I need?", "What jobs are there in nursing?"])
def test_what_is_needed_for_something_else_is_the_models(tmp_path: Path, question: str) -> None:
    hub = local(tmp_path)
    say(hub, "add milk to the list")
    assert hub.match(question) is None


def test_a_job_said_first_goes_on_the_list_pointed_back_to(tmp_path: Path) -> None:
    hub = local(tmp_path)
    assert say(hub, "I have to paint the shed, put that on my jobs list").text == \
        "I've added paint the shed to your to do list."
    assert say(hub, "I painted the shed, tick that off my jobs list").text == \
        "I've taken paint the shed off your to do list."
    say(hub, "I have to sweep the yard, put that on my jobs list")
    assert say(hub, "I swept the yard, tick it off my jobs").text == "I've taken sweep the yard off your to do list."


def test_an_item_kept_comes_off_without_the_list_named_and_nothing_else_does(tmp_path: Path) -> None:
    hub = local(tmp_path)
    say(hub, "add milk, eggs and flour to the list")
    assert say(hub, "we don't need milk any more").text == "I've taken milk off your shopping list."
    assert say(hub, "strike the eggs, got plenty").text == "I've taken eggs off your shopping list."
    assert hub.match("strike a match") is None  # nothing kept: not a list request
    assert hub.match("I no longer need glasses") is None


def test_asked_of_an_item_without_the_list_named_only_an_item_kept_is_the_lists(tmp_path: Path) -> None:
    hub = local(tmp_path)
    say(hub, "add bread to the list")
    assert say(hub, "do we still need bread").text == "Yes, your shopping list has bread."
    assert hub.match("do I need a passport to fly to Spain") is None
    assert hub.match("we need more space in the freezer") is None


def test_jotted_down_for_the_shops_goes_on_the_shopping_list(tmp_path: Path) -> None:
    hub = local(tmp_path)
    assert say(hub, "jot down rice for the shops").text == "I've added rice to your shopping list."
    assert say(hub, "jot down call the bank").text == "Noted: call the bank."


def test_a_note_comes_off_by_what_it_is_about_and_bin_clears(tmp_path: Path) -> None:
    hub = local(tmp_path)
    say(hub, "make a note that the wifi code is 2231")
    say(hub, "make a note that the gas meter is in the porch")
    assert say(hub, "delete the note about the wifi code").text == "I've deleted the note the wifi code is 2231."
    assert say(hub, "bin all my notes").intent == "list_clear"


def test_what_was_got_said_first_comes_off_the_list_pointed_back_to(tmp_path: Path) -> None:
    hub = local(tmp_path)
    say(hub, "add milk and eggs to the list")
    assert say(hub, "I got the eggs, cross them off the list").text == "I've taken eggs off your shopping list."
    assert say(hub, "picked up some milk so take it off the shopping list").text == \
        "I've taken milk off your shopping list."
    say(hub, "add flour to the list")
    assert say(hub, "I've bought the flour, you can cross it off").text == "I've taken flour off your shopping list."


@pytest.mark.parametrize("question", ["anything on the list?", "is there anything on my shopping list",
                                      "anything on the shopping list"])
def test_asking_whether_the_list_has_anything_reads_it(tmp_path: Path, question: str) -> None:
    hub = local(tmp_path)
    say(hub, "add milk to the list")
    assert say(hub, question).text == "You have one thing on your shopping list: milk."


def test_items_come_off_by_the_name_they_were_put_on_with_and_the_list_empties(tmp_path: Path) -> None:
    hub = local(tmp_path)
    say(hub, "add milk, eggs and bread to my shopping list")
    removed = say(hub, "remove milk from the shopping list")
    assert (removed.intent, removed.text) == ("list_remove", "I've taken milk off your shopping list.")
    assert say(hub, "take egg off my list").text == "I've taken eggs off your shopping list."  # as it was kept
    assert say(hub, "take cheese off my list").text == "I can't see cheese on your shopping list."
    assert say(hub, "is milk on my shopping list").text == "No, your shopping list doesn't have milk."
    cleared = say(hub, "clear my shopping list")
    assert (cleared.intent, cleared.text, cleared.data["cleared"]) == ("list_clear", "I've cleared your shopping list.", 1)
    assert say(hub, "empty the shopping list").text == "Your shopping list was already empty."
    assert say(hub, "what's on my shopping list").text == "Your shopping list is empty."
    assert say(hub, "how many things are on my list").text == "Your shopping list is empty."


def test_any_list_the_owner_names_is_its_own_and_my_list_is_the_shopping_list(tmp_path: Path) -> None:
    hub = local(tmp_path)
    assert say(hub, "add paint to my DIY list").text == "I've added paint to your diy list."
    assert say(hub, "add a trip to the zoo to my to-do list").text == "I've added trip to the zoo to your to do list."
    assert say(hub, "add milk to my list").data["list"] == "shopping"
    assert say(hub, "add apples to the grocery list").data["list"] == "shopping"
    assert say(hub, "what is on my todo list").text == "You have one thing on your to do list: trip to the zoo."
    assert say(hub, "what do I need to buy").text == "You have 2 things on your shopping list: milk and apples."
    assert say(hub, "what's on my diy list").text == "You have one thing on your diy list: paint."


def test_a_long_list_is_read_as_its_first_few_and_a_count(tmp_path: Path) -> None:
    hub = local(tmp_path)
    things = ["milk", "eggs", "bread", "butter", "jam", "tea", "rice", "pasta"]
    assert say(hub, f"add {' and '.join(things)} to my shopping list").data["added"] == things
    read = say(hub, "read my shopping list")
    shown = things[:READ_MAX]
    assert read.text == (f"You have {len(things)} things on your shopping list. "
                         f"The first {READ_MAX} are {', '.join(shown[:-1])} and {shown[-1]}.")
    assert read.data["items"] == things


def test_notes_are_made_read_counted_and_deleted(tmp_path: Path) -> None:
    hub = local(tmp_path)
    note = say(hub, "make a note to call the plumber")
    assert (note.intent, note.text, note.data["list"]) == ("list_add", "Noted: call the plumber.", "notes")
    assert say(hub, "make a note that the boiler code is 1234").text == "Noted: the boiler code is 1234."
    assert say(hub, "read my notes").text == "You have 2 notes. Call the plumber. The boiler code is 1234."
    assert say(hub, "how many notes do I have").text == "You have 2 notes."
    assert say(hub, "delete all my notes").text == "I've deleted your notes."
    assert say(hub, "read my notes").text == "You have no notes."


def test_add_without_a_list_goes_on_the_list_just_spoken_of_in_that_room_only(tmp_path: Path) -> None:
    clock = ManualClock()
    hub = local(tmp_path, clock)
    assert say(hub, "what's on my DIY list", room="garage").text == "Your diy list is empty."
    assert say(hub, "add paint", room="garage").text == "I've added paint to your diy list."
    assert say(hub, "add brushes too", room="garage").text == "I've added brushes to your diy list."
    assert say(hub, "take paint off", room="garage").text == "I've taken paint off your diy list."
    # Nothing was spoken of in the kitchen: the list a list request means when it names none.
    assert say(hub, "add paint", room="kitchen").text == "I've added paint to your shopping list."
    for device in ("put the lights on", "take a picture", "add 2 and 2"):
        assert hub.match(device, room="garage") is None, device
    clock.advance(CONTEXT_S + 1)
    assert say(hub, "add glue", room="garage").text == "I've added glue to your shopping list."


def test_a_request_that_leaves_out_what_it_is_about_is_told_how_to_say_it(tmp_path: Path) -> None:
    hub = local(tmp_path)
    unclear = say(hub, "add it to my shopping list")
    assert (unclear.intent, unclear.text) == ("list_clarify", "Say what to add, like: add milk to your shopping list.")
    assert say(hub, "make a note").text == "Say it with the note, like: make a note to call the plumber."
    assert say(hub, "note that").text == "Say it with the note, like: make a note to call the plumber."
    assert say(hub, "is that on my list").text == "Say what to look for, like: is milk on your shopping list?"
    assert say(hub, "what's on my shopping list").text == "Your shopping list is empty."  # nothing was added


def test_other_requests_still_reach_their_skills_and_questions_about_lists_the_model(tmp_path: Path) -> None:
    hub = local(tmp_path)
    assert say(hub, "set a timer for 5 minutes").intent == "timer_set"
    assert say(hub, "what time is it").intent == "time"
    for question in ("what is a shopping list", "give me a list of fruits", "what is the longest list",
                     "tell me a joke", "add 2 and 2", "what is on tv tonight", "note", "how to make a shopping list",
                     "welcome to the list"):
        assert hub.match(question) is None, question


def test_the_lists_outlive_the_skills_and_another_process_sees_each_change(tmp_path: Path) -> None:
    first = local(tmp_path)
    say(first, "add milk to my shopping list")
    say(first, "make a note to call the plumber")
    again = local(tmp_path)  # a restart, or `appliance ask` beside the daemon
    assert say(again, "what's on my shopping list").text == "You have one thing on your shopping list: milk."
    say(again, "add eggs to my shopping list")
    assert say(first, "what's on my shopping list").text == "You have 2 things on your shopping list: milk and eggs."
    assert say(first, "read my notes").text == "You have one note. Call the plumber."


def test_a_full_list_a_long_item_and_a_folder_that_cannot_be_written_are_said_and_nothing_is_claimed(
        tmp_path: Path) -> None:
    hub = local(tmp_path)
    store = ListStore(tmp_path)
    for n in range(MAX_ITEMS):
        store.add("shopping", f"thing {n}")
    full = say(hub, "add milk to my shopping list")
    assert full.intent == "list_error"
    assert full.text == f"Your shopping list is full at {MAX_ITEMS} things, so I couldn't add milk. Take something off first."
    assert "milk" not in store.items("shopping")
    long = say(hub, f"add {'very ' * (MAX_ITEM_CHARS // 5)}long thing to my DIY list")
    assert (long.intent, long.text) == ("list_error", "That's too long to keep on a list. Say it in fewer words.")
    assert store.items("diy") == []
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    stuck = local(blocked / "state")
    failed = say(stuck, "add milk to my shopping list")
    assert (failed.intent, failed.text) == ("list_error",
                                            "Something went wrong keeping your shopping list, so I couldn't add milk.")


def test_skills_built_from_the_config_keep_the_lists_in_the_state_folder(tmp_path: Path) -> None:
    cfg = Config()
    hub = skills.build(dataclasses.replace(cfg, service=dataclasses.replace(cfg.service, state_dir=str(tmp_path))))
    assert hub.asked.index("lists") == hub.asked.index("clock") + 1  # asked after the clock
    without = LocalSkills(SkillsConfig(), Timers(tmp_path / "bare"), lists=None)
    assert "lists" not in without.asked and without.match("add milk to my shopping list") is None
    assert say(hub, "add milk to my shopping list").data["kept"] == "here"
    assert (tmp_path / "lists.json").exists()


# ---- the shopping list in Home Assistant --------------------------------------------------


def test_with_home_assistant_the_shopping_list_is_its_and_other_lists_stay_here(tmp_path: Path) -> None:
    api = FakeHomeApi()
    hub = with_home(tmp_path, api)
    added = say(hub, "add milk and eggs to my shopping list")
    assert (added.text, added.data["kept"]) == ("I've added milk and eggs to your shopping list.", "home_assistant")
    assert api.open_names() == ["milk", "eggs"]
    api.items.append({"name": "Coffee", "id": "made-in-the-app", "complete": False})  # added in HA's app
    assert say(hub, "what's on my shopping list").text == \
        "You have 3 things on your shopping list: milk, eggs and Coffee."
    assert say(hub, "add coffee to the shopping list").text == "Coffee is already on your shopping list."
    assert say(hub, "take eggs off my list").text == "I've taken eggs off your shopping list."
    assert [(i["name"], i["complete"]) for i in api.items] == [("milk", False), ("eggs", True), ("Coffee", False)]
    assert say(hub, "add eggs to my shopping list").text == "I've added eggs to your shopping list."
    assert len(api.items) == 3  # ticked off before: back on the list, not a second one
    paint = say(hub, "add paint to my DIY list")
    assert paint.data["kept"] == "here" and "paint" not in api.open_names()
    assert say(hub, "clear my shopping list").text == "I've cleared your shopping list."
    assert api.items == []


@pytest.mark.parametrize(("error", "said"), [
    (HomeAssistantUnreachable("Home Assistant at http://ha:8123 is not reachable: refused"),
     "I can't reach Home Assistant, so I couldn't add milk."),
    (HomeAssistantRefused("Home Assistant at http://ha:8123 refused the access token (HTTP 401)"),
     "Home Assistant didn't accept my access token, so I couldn't add milk."),
    (HomeAssistantLacks("Home Assistant at http://ha:8123 has nothing at /api/shopping_list (HTTP 404)"),
     ("Home Assistant has no shopping list, so I couldn't add milk. Add the Shopping list integration in "
      "Home Assistant.")),
])
def test_home_assistant_failing_is_said_and_nothing_is_claimed(tmp_path: Path, error: Exception, said: str) -> None:
    api = FakeHomeApi()
    api.fails = error
    hub = with_home(tmp_path, api)
    reply = say(hub, "add milk to my shopping list")
    assert (reply.intent, reply.text, reply.data["done"]) == ("list_error", said, [])
    assert api.items == []
    read = say(hub, "what's on my shopping list")
    assert (read.intent, read.text) == ("list_error", said.replace("add milk", "read your shopping list"))
    assert say(hub, "add paint to my DIY list").text == "I've added paint to your diy list."  # kept here


def test_with_home_assistant_down_a_list_not_named_is_never_asked_and_one_named_says_why(tmp_path: Path) -> None:
    api = FakeHomeApi()
    api.fails = HomeAssistantUnreachable("Home Assistant at http://ha:8123 is not reachable: refused")
    hub = with_home(tmp_path, api)
    guess = hub.match("do I need an umbrella today")
    assert guess is None or guess.intent != "list_error"  # a guess never asks it
    assert hub.match("don't need milk any more") is None
    reply = say(hub, "I got the eggs, cross them off the shopping list")
    assert (reply.intent, reply.text) == ("list_error",
                                          "I can't reach Home Assistant, so I couldn't read your shopping list.")


def test_home_assistant_going_down_midway_is_said_with_what_was_done(tmp_path: Path) -> None:
    api = FakeHomeApi()
    api.fails, api.fail_after = HomeAssistantUnreachable("timed out"), 2  # milk: a look and an add
    hub = with_home(tmp_path, api)
    reply = say(hub, "add milk and eggs to my shopping list")
    assert reply.text == "I've added milk to your shopping list. I can't reach Home Assistant, so I couldn't add eggs."
    assert (reply.intent, reply.data["done"], api.open_names()) == ("list_error", ["milk"], ["milk"])


def test_a_home_assistant_that_does_not_answer_is_said_through_the_real_client(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("secret-token\n")
    cfg = Config()
    cfg = dataclasses.replace(
        cfg, service=dataclasses.replace(cfg.service, state_dir=str(tmp_path / "state")),
        home_assistant=HomeAssistantConfig(enabled=True, url=f"http://127.0.0.1:{free_port()}", token_file=str(token),
                                           timeout_s=2.0))
    hub = skills.build(cfg)
    assert say(hub, "add milk to my shopping list").text == "I can't reach Home Assistant, so I couldn't add milk."
    assert say(hub, "add paint to my DIY list").text == "I've added paint to your diy list."
    token.unlink()
    hub = skills.build(cfg)
    assert say(hub, "add milk to my shopping list").text == \
        "I have no access token for Home Assistant that I can read, so I couldn't add milk."

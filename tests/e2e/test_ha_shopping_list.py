"""The shopping list in a real Home Assistant: `appliance ask` (the CLI in a subprocess) puts milk
on it and reads it back, HA's own REST API shows the item, what HA's app adds is read out, other
lists stay on the hub, and Home Assistant down or refusing the token is said, never claimed.

No models are installed for these questions: a question that missed the skill and went to the
model would fail loudly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.home_assistant import INSTALL_WAIT_S, HomeAssistantServer
from tests.fixtures.waits import LOAD_WAIT_S, SLOW_WAIT_S

# The first run on a machine installs Home Assistant inside the first test's setup.
pytestmark = pytest.mark.timeout(INSTALL_WAIT_S + 2 * LOAD_WAIT_S)

APPLIANCE = [sys.executable, "-m", "appliance.cli"]


def write_config(folder: Path, home_assistant: HomeAssistantServer, token_file: Path) -> Path:
    (folder / "no-models").mkdir(parents=True, exist_ok=True)
    path = folder / "appliance.yaml"
    path.write_text(
        f"service:\n  state_dir: {folder / 'state'}\n"
        f"models:\n  dir: {folder / 'no-models'}\n  dev_packages: false\n"
        f"home_assistant:\n  enabled: true\n  url: {home_assistant.url}\n  token_file: {token_file}\n",
        encoding="utf-8")
    return path


@pytest.fixture()
def config(home_assistant: HomeAssistantServer, tmp_path: Path) -> Path:
    """Home Assistant on and running with an empty shopping list; the hub's state in tmp."""
    home_assistant.start()  # a test before may have stopped it
    home_assistant.empty_shopping_list()
    return write_config(tmp_path, home_assistant, home_assistant.token_file)


def ask(config: Path, question: str) -> dict[str, Any]:
    """`appliance ask --json QUESTION`: its record."""
    env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_CONFIG", "JOURNAL_STREAM")}
    done = subprocess.run([*APPLIANCE, "--config", str(config), "ask", "--json", question], capture_output=True,
                          text=True, timeout=SLOW_WAIT_S, env=env, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout))


def on_the_list(home_assistant: HomeAssistantServer) -> list[str]:
    """The items HA's shopping list holds, not ticked off."""
    return [item["name"] for item in home_assistant.shopping_list() if not item["complete"]]


def test_milk_goes_on_home_assistants_shopping_list_and_is_read_back(home_assistant, config) -> None:
    added = ask(config, "add milk to my shopping list")
    assert (added["route"], added["intent"], added["answer"]) == ("skill", "list_add",
                                                                   "I've added milk to your shopping list.")
    assert added["data"]["kept"] == "home_assistant"
    assert [(i["name"], i["complete"]) for i in home_assistant.shopping_list()] == [("milk", False)]
    read = ask(config, "what's on my shopping list")
    assert (read["intent"], read["answer"]) == ("list_read", "You have one thing on your shopping list: milk.")

    home_assistant.add_to_shopping_list("Bread")  # as HA's app adds it
    assert ask(config, "what's on my shopping list")["answer"] == \
        "You have 2 things on your shopping list: milk and Bread."
    taken = ask(config, "take milk off my shopping list")
    assert taken["answer"] == "I've taken milk off your shopping list."
    assert [(i["name"], i["complete"]) for i in home_assistant.shopping_list()] == [("milk", True), ("Bread", False)]

    diy = ask(config, "add paint to my DIY list")
    assert (diy["answer"], diy["data"]["kept"]) == ("I've added paint to your diy list.", "here")
    assert on_the_list(home_assistant) == ["Bread"]
    stored = json.loads((config.parent / "state" / "lists.json").read_text())
    assert stored["lists"] == {"diy": {"items": [{"text": "paint"}]}}

    cleared = ask(config, "clear my shopping list")
    assert cleared["answer"] == "I've cleared your shopping list."
    assert home_assistant.shopping_list() == []


def test_a_refused_token_is_said_and_nothing_is_added(home_assistant, config, tmp_path) -> None:
    wrong = tmp_path / "wrong-token"
    wrong.write_text("not.a.token\n")
    wrong.chmod(0o600)
    refused = ask(write_config(tmp_path / "refused", home_assistant, wrong), "add milk to my shopping list")
    assert (refused["intent"], refused["answer"]) == (
        "list_error", "Home Assistant didn't accept my access token, so I couldn't add milk.")
    assert home_assistant.shopping_list() == []


def test_home_assistant_down_is_said_and_nothing_is_claimed(home_assistant, config) -> None:
    home_assistant.stop()
    try:
        down = ask(config, "add eggs to my shopping list")
        assert (down["route"], down["intent"], down["answer"]) == (
            "skill", "list_error", "I can't reach Home Assistant, so I couldn't add eggs.")
        read = ask(config, "what's on my shopping list")
        assert read["answer"] == "I can't reach Home Assistant, so I couldn't read your shopping list."
        assert ask(config, "add paint to my DIY list")["answer"] == "I've added paint to your diy list."
    finally:
        home_assistant.start()
    assert home_assistant.shopping_list() == []

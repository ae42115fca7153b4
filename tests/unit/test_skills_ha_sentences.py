"""The hub's own skills carry out the requests Home Assistant's sentence library says for them: a
sample of Assist's English sentences for the time, the date, timers and the volume, each answered by
the skill it is for; and none of Assist's sentences for the hub's own skills is handed to the model."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from appliance.audio.volume import shared
from appliance.config import SkillsConfig
from appliance.conversation.policy import Policy, Say
from appliance.thinking.intents import _KINDS, Kind, understanding
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import ManualClock, Timers

SAMPLED = 40  # sentences of each intent, drawn with a fixed seed
POOL = 3000  # sentences of each intent drawn from


def sentences(intent: str, plain: bool = False) -> list[str]:
    """Sentences said to the hub itself (a room's timer or speaker is Home Assistant's); `plain`: only
    those that name no timer ("cancel the timer", not "cancel the 5 minute timer")."""
    said = understanding().examples(intent, POOL, named=False)
    random.Random(intent).shuffle(said)
    if plain:
        said = [s for s in said[:10 * SAMPLED] if not (found := understanding().recognize(s)) or not found.slots]
    assert said, intent
    return said[:SAMPLED]


def make(tmp_path: Path, timers: int = 0) -> LocalSkills:
    clock = ManualClock()
    skills = LocalSkills(SkillsConfig(), Timers(tmp_path, clock=clock), clock,
                         volume_of=lambda room: shared(tmp_path, room))
    for _ in range(timers):
        skills.timers.add(300)
    return skills


@pytest.mark.parametrize(("intent", "answered", "timers"), [
    ("HassGetCurrentTime", {"time"}, 0),
    ("HassGetCurrentDate", {"date"}, 0),
    ("HassStartTimer", {"timer_set"}, 0),
    ("HassTimerStatus", {"timer_left", "timer_list"}, 1),
    ("HassCancelTimer", {"timer_cancel"}, 1),
    ("HassCancelAllTimers", {"timer_cancel"}, 2),
    ("HassSetVolume", {"volume"}, 0),
    ("HassMediaPlayerMute", {"volume"}, 0),
])
def test_home_assistants_sentences_for_a_skill_are_carried_out_by_it(tmp_path: Path, intent: str,
                                                                     answered: set[str], timers: int) -> None:
    missed = []
    for i, said in enumerate(sentences(intent, plain=timers > 0)):
        reply = make(tmp_path / str(i), timers).match(said)
        if reply is None or reply.intent not in answered:
            missed.append((said, reply.intent if reply else None))
    assert missed == []


@pytest.mark.parametrize("intent", sorted(name for name, kind in _KINDS.items() if kind is not Kind.LIST))
def test_no_sentence_for_the_hubs_own_skills_reaches_the_model(tmp_path: Path, intent: str) -> None:
    """The lists' sentences leave the item to a wildcard, which sampling cannot fill: the list skill's
    own tests say them."""
    policy = Policy(make(tmp_path), None)
    thought = [said for said in sentences(intent) if not isinstance(policy.begin(said), Say)]
    assert thought == []

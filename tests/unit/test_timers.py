"""Timers: firing under a controllable clock, repeats, persistence across a restart, safe writes."""

from __future__ import annotations

import errno
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from appliance.config import SkillsConfig
from appliance.thinking.timers import MAX_TIMERS, STATE_FILE, ManualClock, TimerError, Timers
from tests.fixtures.waits import SLOW_WAIT_S

REPEAT = SkillsConfig(timer_repeat_s=60.0, timer_repeat_interval_s=10.0)


def run(timers: Timers, clock: ManualClock, seconds: float, step_s: float = 0.5) -> list[tuple[float, str, int]]:
    """Poll due() like the conductor does for `seconds`; (time since start, text, repeat) per announcement."""
    start = clock()
    heard = []
    for _ in range(int(seconds / step_s)):
        clock.advance(step_s)
        heard += [(clock() - start, a.text, a.repeat) for a in timers.due()]
    return heard


def test_timer_fires_at_its_end_and_repeats_until_the_repeat_time(tmp_path: Path) -> None:
    clock = ManualClock()
    timers = Timers(tmp_path, REPEAT, clock)
    timer = timers.add(600)
    assert timers.running() == [timer] and timers.ringing() == []
    assert timers.next_due_in() == 600.0
    heard = run(timers, clock, 599.5)
    assert heard == []
    heard = run(timers, clock, 90)
    assert [h[1] for h in heard] == ["Your 10 minute timer is done."] * 6
    assert [h[2] for h in heard] == [0, 1, 2, 3, 4, 5]
    assert [h[0] for h in heard] == [0.5, 10.5, 20.5, 30.5, 40.5, 50.5]
    assert timers.all() == [], "dropped after ringing for timer_repeat_s"
    assert json.loads((tmp_path / STATE_FILE).read_text())["timers"] == []


def test_acknowledge_stops_the_ringing(tmp_path: Path) -> None:
    clock = ManualClock()
    timers = Timers(tmp_path, REPEAT, clock)
    pasta = timers.add(480, "pasta")
    other = timers.add(900)
    clock.advance(480)
    (announcement,) = timers.due()
    assert announcement.timer == pasta and announcement.text == "Your pasta timer is done."
    assert announcement.earcon == "timer" and not announcement.missed
    assert timers.next_due_in() == 10.0
    assert timers.acknowledge() == [pasta]
    assert timers.all() == [other]
    assert run(timers, clock, 60) == []
    assert timers.next_due_in() == pytest.approx(900 - 540)


def test_no_repeat_when_repeat_time_is_zero(tmp_path: Path) -> None:
    clock = ManualClock()
    timers = Timers(tmp_path, SkillsConfig(timer_repeat_s=0.0), clock)
    timers.add(5)
    assert len(run(timers, clock, 60)) == 1
    assert timers.all() == []


def test_timers_survive_a_restart(tmp_path: Path) -> None:
    clock = ManualClock()
    first = Timers(tmp_path, REPEAT, clock)
    eggs = first.add(300, "eggs")
    roast = first.add(5400)
    clock.advance(100)
    del first  # the process ends; a new one starts on the same folder
    second = Timers(tmp_path, REPEAT, clock)
    assert second.all() == [eggs, roast]
    assert second.all()[0].remaining(clock()) == 200.0
    assert run(second, clock, 199) == []
    heard = run(second, clock, 2)
    assert heard == [(1.0, "Your eggs timer is done.", 0)]
    assert second.add(60).id == 3, "ids go on from where the last run stopped"


def test_a_rooms_timer_rings_in_that_room_while_it_is_there_and_on_the_hub_otherwise(tmp_path: Path) -> None:
    clock = ManualClock()
    timers = Timers(tmp_path, REPEAT, clock)
    timers.ring_in_room("kitchen", True)
    pasta, tea = timers.add(60, "pasta", room="kitchen"), timers.add(60, "tea")
    assert Timers(tmp_path, REPEAT, clock).all() == [pasta, tea]  # the room is kept across a restart
    clock.advance(61)
    assert [a.text for a in timers.due(room="kitchen")] == ["Your pasta timer is done."]
    assert [a.text for a in timers.due()] == ["Your tea timer is done."]
    timers.ring_in_room("kitchen", False)  # the kitchen's satellite went away: its timer comes to the hub
    clock.advance(10)
    assert sorted(a.text for a in timers.due()) == ["Your pasta timer is done.", "Your tea timer is done."]
    assert timers.due(room="kitchen") == []


def test_a_timers_file_without_rooms_is_read_as_the_hubs(tmp_path: Path) -> None:
    clock = ManualClock()
    Timers(tmp_path, REPEAT, clock).add(60, "eggs")
    path = tmp_path / STATE_FILE
    data = json.loads(path.read_text())
    for timer in data["timers"]:
        del timer["room"]
    path.write_text(json.dumps(data))
    (eggs,) = Timers(tmp_path, REPEAT, clock).all()
    assert (eggs.name, eggs.room) == ("eggs", "")


def test_timer_that_ended_while_off_is_announced_on_start(tmp_path: Path) -> None:
    clock = ManualClock()
    Timers(tmp_path, REPEAT, clock).add(300, "bread")
    clock.advance(300 + 12 * 60)  # power cut: off for the end of the timer and twelve minutes more
    back = Timers(tmp_path, REPEAT, clock)
    (announcement,) = back.due()
    assert announcement.missed
    assert announcement.text == "Your bread timer ended while I was off, 12 minutes ago."
    assert back.acknowledge() and back.all() == []
    assert Timers(tmp_path, REPEAT, clock).all() == []


def test_another_process_sees_and_changes_the_same_timers(tmp_path: Path) -> None:
    clock = ManualClock()
    daemon = Timers(tmp_path, REPEAT, clock)
    daemon.add(600, "pasta")
    code = (
        "import sys; from pathlib import Path; from appliance.thinking.timers import Timers\n"
        "t = Timers(Path(sys.argv[1])); print([x.name for x in t.all()]); t.add(60, 'tea')\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                         timeout=SLOW_WAIT_S, check=True)
    assert out.stdout.strip() == "['pasta']"
    assert sorted(t.name for t in daemon.all()) == ["pasta", "tea"]
    tea = next(t for t in daemon.all() if t.name == "tea")
    assert tea.id == 2


def test_writes_are_atomic_and_leave_no_temporary_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    timers = Timers(tmp_path, REPEAT, ManualClock())
    kept = timers.add(60, "tea")
    before = (tmp_path / STATE_FILE).read_bytes()

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(TimerError, match="No space left on device"):
        timers.add(120, "lost")
    monkeypatch.undo()
    assert (tmp_path / STATE_FILE).read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["timers.json", "timers.lock"]
    assert (tmp_path / STATE_FILE).stat().st_mode & 0o777 == 0o644
    assert timers.all() == [kept], "the unsaved timer is not kept in memory either"


def test_unreadable_file_is_set_aside(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / STATE_FILE).write_text('{"timers": [{"id": "x"')
    with caplog.at_level(logging.ERROR):
        timers = Timers(tmp_path, REPEAT, ManualClock())
    assert timers.all() == []
    assert "unreadable" in caplog.text
    assert (tmp_path / "timers.json.bad").read_text().startswith('{"timers"')
    timers.add(60)
    assert len(json.loads((tmp_path / STATE_FILE).read_text())["timers"]) == 1


def test_state_folder_that_cannot_be_written_names_itself(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    timers = Timers(blocker / "state", REPEAT, ManualClock())
    assert timers.all() == [], "reading a missing folder is fine"
    with pytest.raises(TimerError) as info:
        timers.add(60)
    assert str(blocker / "state") in str(info.value) and "service.state_dir" in str(info.value)


def test_limits(tmp_path: Path) -> None:
    timers = Timers(tmp_path, REPEAT, ManualClock())
    for bad in (0, 0.5, 24 * 3600 + 1):
        with pytest.raises(TimerError, match="between"):
            timers.add(bad)
    for _ in range(MAX_TIMERS):
        timers.add(60)
    with pytest.raises(TimerError, match="cancel one first"):
        timers.add(60)
    assert len(timers.all()) == MAX_TIMERS

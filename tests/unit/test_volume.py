"""The hub's own volume: what each request does and says, that it is kept across restarts, and that the
speaker and a reply WAV are heard at it (muted: nothing at all)."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import numpy as np
import pytest

from appliance.audio import AudioChunk, read_wav
from appliance.audio.playback import WavSink
from appliance.audio.speaker import SpeakerSink
from appliance.audio.volume import STATE_FILE, Volume, gain_for, shared
from appliance.config import Config
from appliance.conversation.policy import Policy, Say
from appliance.conversation.responder import Responder
from appliance.thinking import honesty, skills
from appliance.thinking.volume_skill import RANGE_REPLY
from tests.fixtures.fakes import FakeChat
from tests.fixtures.waits import WAIT_S
from tests.unit.test_speaker import FakeSD, chunk_of, config, first_sound, sine

RATE: Final = 16000


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))


def hub(state_dir: Path) -> skills.LocalSkills:
    """The skills as the hub builds them, kept in `state_dir`."""
    cfg = Config()
    return skills.build(dataclasses.replace(cfg, service=dataclasses.replace(cfg.service, state_dir=str(state_dir))))


class ToneVoice:
    """A voice that says everything as the same half-second tone."""

    rate = RATE

    def synthesize(self, text: str) -> Iterator[AudioChunk]:
        yield chunk_of(sine(440, 0.5, rate=RATE), rate=RATE)


# ---- the level and its gain ------------------------------------------------------------


def test_level_ten_plays_as_made_each_step_down_is_three_db_and_zero_or_mute_is_silence() -> None:
    assert gain_for(10) == 1.0
    for level in range(1, 10):
        assert 20 * np.log10(gain_for(level) / gain_for(level + 1)) == pytest.approx(-3.0)
    assert gain_for(0) == 0.0 and gain_for(7, muted=True) == 0.0


def test_the_level_is_kept_across_a_restart(tmp_path: Path) -> None:
    assert hub(tmp_path).match("set the volume to 4").text == "Volume 4."
    again = Volume(tmp_path)  # a new start: nothing but the file
    assert again.level == 4 and not again.muted
    assert hub(tmp_path).match("what's the volume").text == "Volume 4."


def test_mute_is_kept_across_a_restart_and_unmute_brings_the_level_back(tmp_path: Path) -> None:
    Volume(tmp_path).set_level(3)
    Volume(tmp_path).mute()
    assert Volume(tmp_path).muted and Volume(tmp_path).gain() == 0.0
    assert Volume(tmp_path).unmute() == 3 and Volume(tmp_path).gain() == gain_for(3)


def test_a_change_in_another_process_is_heard_by_the_speaker_here(tmp_path: Path) -> None:
    speaker_side, ask_side = Volume(tmp_path), Volume(tmp_path)  # the daemon's and `appliance ask`'s
    assert speaker_side.gain() == 1.0
    ask_side.set_level(2)
    assert speaker_side.gain() == gain_for(2)


def test_without_a_writable_state_folder_the_change_holds_until_restart(tmp_path: Path,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    volume = Volume(blocked / "state")
    with caplog.at_level(logging.WARNING):
        assert volume.set_level(5) == 5
    assert volume.gain() == gain_for(5)
    assert "Cannot keep the volume" in caplog.text


def test_an_unreadable_file_keeps_the_volume_and_says_so(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / STATE_FILE).write_text("{nonsense", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        assert Volume(tmp_path).level == 10
    assert "unreadable" in caplog.text


def test_one_volume_per_state_folder_in_a_process(tmp_path: Path) -> None:
    assert shared(tmp_path) is shared(tmp_path / ".") and shared(tmp_path) is not shared(tmp_path / "other")


# ---- what is said and done ------------------------------------------------------------

@pytest.mark.parametrize(("start", "request_text", "reply", "level"), [
    (6, "Volume up.", "Volume 7.", 7),
    (6, "Hey Jarvis, turn it up please.", "Volume 7.", 7),
    (6, "Turn it up a bit, I can't hear the music.", "Volume 7.", 7),
    (6, "Turn the volume up.", "Volume 7.", 7),
    (6, "Louder.", "Volume 7.", 7),
    (6, "A bit louder, please.", "Volume 7.", 7),
    (6, "Can you speak up?", "Volume 7.", 7),
    (10, "Turn it up.", "Volume 10, as loud as I go.", 10),
    (6, "Volume down.", "Volume 5.", 5),
    (6, "Turn it down.", "Volume 5.", 5),
    (6, "Quieter.", "Volume 5.", 5),
    (6, "Turn down the volume a little.", "Volume 5.", 5),
    (6, "You're too loud.", "Volume 5.", 5),
    (1, "Volume down.", "Volume 1, as quiet as I go.", 1),
    (10, "Set the volume to 6.", "Volume 6.", 6),
    (10, "Set the volume to six.", "Volume 6.", 6),
    (10, "Volume 3", "Volume 3.", 3),
    (10, "Change the volume to 0.", "Volume 0.", 0),
    (3, "Set the volume to max.", "Volume 10.", 10),
    (10, "Turn the volume to fifty percent.", "Volume 5.", 5),
    (4, "Set the volume to 11.", RANGE_REPLY, 4),
    (4, "Set the volume to loud.", RANGE_REPLY, 4),
    (6, "Bring the volume down a notch.", "Volume 5.", 5),
    (6, "Put the volume up a smidge.", "Volume 7.", 7),
    (3, "Turn the sound all the way up.", "Volume 10.", 10),
    (7, "Turn the volume all the way down.", "Volume 1.", 1),
    (4, "What is the volume?", "Volume 4.", 4),
    (6, "Whack the volume up.", "Volume 7.", 7),
    (6, "Kick it up a notch.", "Volume 7.", 7),
    (3, "Full volume, please.", "Volume 10.", 10),
    (8, "Half volume.", "Volume 5.", 5),
])
def test_a_volume_request_is_answered_here_and_changes_the_level(tmp_path: Path, start: int, request_text: str,
                                                                 reply: str, level: int) -> None:
    Volume(tmp_path).set_level(start)
    local = hub(tmp_path)
    answer = local.match(request_text)
    assert answer is not None and answer.text == reply and answer.intent == "volume"
    assert Volume(tmp_path).level == level and answer.data == {"level": level, "muted": False}


def test_a_satellites_room_has_a_volume_of_its_own_kept_across_a_restart(tmp_path: Path) -> None:
    local = hub(tmp_path)
    answer = local.match("Turn it down.", "kitchen")
    assert answer is not None and answer.text == "Volume 9." and answer.data["room"] == "kitchen"
    assert local.match("Mute.", "living room").text == "Muted."
    assert local.match("What's the volume?", "").text == "Volume 10."  # the hub's own is untouched
    assert Volume(tmp_path, "kitchen").level == 9 and not Volume(tmp_path, "kitchen").muted
    assert Volume(tmp_path, "living room").muted and Volume(tmp_path).level == 10 and not Volume(tmp_path).muted
    assert (tmp_path / "volume.kitchen.json").is_file()
    odd = [p.name for p in tmp_path.glob("volume.*.json") if p.name != "volume.kitchen.json"]
    assert len(odd) == 1 and " " not in odd[0]  # a name that is no file name is made one


def test_mute_and_unmute(tmp_path: Path) -> None:
    local = hub(tmp_path)
    local.match("set the volume to 7")
    assert local.match("Mute.").text == "Muted."
    assert Volume(tmp_path).muted
    assert local.match("what's the volume").text == "Muted. Volume 7 when unmuted."
    assert local.match("Unmute.").text == "Unmuted, volume 7."
    assert not Volume(tmp_path).muted
    local.match("mute yourself")
    assert local.match("volume up").text == "Volume 8." and not Volume(tmp_path).muted  # a change unmutes
    assert local.match("Go quiet for a bit.").text == "Muted." and Volume(tmp_path).muted


@pytest.mark.parametrize("text", ["How loud is a jet engine?", "Why is the TV louder than the film?",
                                  "What is the volume of a sphere?", "Turn on the kitchen lights.",
                                  "What does full volume mean on a stereo?", "Why do babies go quiet?"])
def test_other_questions_are_not_volume_requests(tmp_path: Path, text: str) -> None:
    answer = hub(tmp_path).match(text)
    assert answer is None or answer.intent != "volume"
    assert Volume(tmp_path).level == 10


def test_without_home_assistant_the_volume_is_still_the_hubs_own_never_refused(tmp_path: Path) -> None:
    policy = Policy(hub(tmp_path), home=None)
    for text in ("Turn up the volume.", "Turn the volume down.", "Mute.", "Unmute.", "Set the volume to 6."):
        step = policy.begin(text)
        assert isinstance(step, Say) and step.reply.intent == "volume" and step.reply.text != honesty.NO_HOME_ASSISTANT


# ---- what is heard -------------------------------------------------------------------


def test_a_reply_wav_is_written_at_the_volume_and_muted_is_silent(tmp_path: Path) -> None:
    tone = sine(440, 0.5, rate=RATE)
    volume = Volume(tmp_path)
    heard = {}
    for level in (10, 2):
        volume.set_level(level)
        with WavSink(tmp_path / f"{level}.wav", volume=volume) as sink:
            sink.play(chunk_of(tone, rate=RATE))
        heard[level] = read_wav(tmp_path / f"{level}.wav").to_float()[:, 0]
    assert rms(heard[2]) / rms(heard[10]) == pytest.approx(gain_for(2), rel=0.02)
    volume.mute()
    with WavSink(tmp_path / "muted.wav", volume=volume) as sink:
        sink.play(chunk_of(tone, rate=RATE))
    muted = read_wav(tmp_path / "muted.wav").to_float()[:, 0]
    assert len(muted) == len(tone) and not np.any(muted)


def test_the_speaker_plays_at_the_volume(tmp_path: Path) -> None:
    volume = Volume(tmp_path)
    volume.set_level(4)
    tone = sine(440, 0.3, rate=RATE)
    sd = FakeSD(rates=(RATE,))
    with SpeakerSink(config(), sd_module=sd, volume=volume) as sink:
        sink.play(chunk_of(tone, rate=RATE))
        assert sink.drain(WAIT_S)
    out = sd.streams[0].output()
    expected = chunk_of(tone, rate=RATE).to_float()[:, 0] * gain_for(4)
    start = first_sound(out, threshold=1e-5) - first_sound(expected, threshold=1e-5)
    np.testing.assert_allclose(out[start:start + len(expected)], expected, atol=1e-5)


def test_the_confirmation_is_heard_at_the_new_level(tmp_path: Path) -> None:
    responder = Responder(FakeChat(), ToneVoice(), lambda: None, time.monotonic)
    policy = Policy(hub(tmp_path), home=None)
    volume = shared(tmp_path)
    loudness = {}
    for name, request in (("full", "set the volume to 10"), ("low", "set the volume to 2"),
                          ("muted", "mute"), ("unmuted", "unmute")):
        step = policy.begin(request)
        assert isinstance(step, Say)
        with WavSink(tmp_path / f"{name}.wav", volume=volume) as sink:
            answer = responder.say([step.reply.text], sink)
            deadline = time.monotonic() + WAIT_S
            while not answer.done and time.monotonic() < deadline:
                answer.next_update(0.05)
            assert answer.done
        loudness[name] = rms(read_wav(tmp_path / f"{name}.wav").to_float()[:, 0])
    assert loudness["low"] / loudness["full"] == pytest.approx(gain_for(2), rel=0.02)
    assert loudness["muted"] == 0.0
    assert loudness["unmuted"] == pytest.approx(loudness["low"], rel=0.02)  # unmute: back at level 2

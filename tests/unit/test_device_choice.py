"""MicSource and SpeakerSink choose their device on a fake Pi 5: plugged late, replugged, busy."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pytest

from appliance.audio import device
from appliance.audio.mic import MicSource
from appliance.audio.speaker import SpeakerSink
from appliance.config import AudioConfig
from tests.fixtures.pi5_sound import FakeSd, Held, Pi5, moved, usb_mic, usb_speaker
from tests.fixtures.waits import wait_for


class Events:
    """An EventLog that keeps what it is told."""

    def __init__(self) -> None:
        self.said: list[tuple[str, str, dict[str, Any]]] = []

    def event(self, name: str, message: str = "", traceback: str | None = None, **fields: Any) -> None:
        self.said.append((name, message, fields))

    def devices(self) -> list[str]:
        return [message for name, message, _ in self.said if name == "audio_device"]


CFG = AudioConfig(retry_backoff_s=[0.02, 0.05], stall_timeout_s=0.5)


@pytest.fixture(autouse=True)
def fresh_listing(monkeypatch) -> None:
    """Each test's fake PortAudio starts with a list that matches its cards."""
    monkeypatch.setattr(device, "_listed", device._UNSEEN)
    monkeypatch.setattr(device, "_rescanned_for", None)


def reading(mic: MicSource):
    return lambda: mic.read(0.05)


def test_a_microphone_plugged_in_after_start_is_found_and_said_once(tmp_path, caplog) -> None:
    pi = Pi5(tmp_path)
    sd, events = FakeSd(pi), Events()
    with caplog.at_level(logging.WARNING), MicSource(CFG, sd_module=sd, proc=pi.proc, events=events) as mic:
        wait_for(lambda: mic.status().startswith("Waiting"), "the microphone to be missed")
        assert mic.status() == "Waiting for a microphone (none found)"
        rescans = sd.rescans
        pi.plug(usb_mic(2))
        wait_for(lambda: mic.status() == "ok", "the microphone", between=reading(mic))
        assert sd.rescans == rescans + 1  # listed again once, because the cards changed
        chunk = mic.read(1.0)
        assert chunk is not None and (chunk.rate, chunk.frames) == (16000, 1280)
    chosen = "Microphone: default cannot record: using 'USB PnP Sound Device' (card 2, USB)"
    assert events.devices() == [chosen]
    missing = [r.getMessage() for r in caplog.records if "no microphone found" in r.getMessage().lower()]
    assert missing == ["No microphone found: plug in a USB microphone; `arecord -l` lists what ALSA sees; "
                       "retrying every 0.02/0.05 s (backoff)"]


def test_without_a_microphone_the_keeper_does_not_list_the_devices_again_and_again(tmp_path) -> None:
    pi = Pi5(tmp_path)
    sd = FakeSd(pi)
    with MicSource(CFG, sd_module=sd, proc=pi.proc) as mic:
        wait_for(lambda: mic._attempt >= 5, "five tries")
        assert sd.rescans == 0  # the cards did not change: a new list would close the speaker for nothing


def test_a_microphone_replugged_on_another_card_number_comes_back_as_the_same_device(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    sd, events = FakeSd(pi), Events()
    with MicSource(CFG, sd_module=sd, proc=pi.proc, events=events) as mic:
        wait_for(lambda: mic.status() == "ok", "the microphone", between=reading(mic))
        pi.unplug(2)
        wait_for(lambda: mic.status().startswith("Waiting"), "the microphone to be lost",
                 between=reading(mic))
        assert mic.status() == "Waiting for microphone 'USB PnP Sound Device'"
        pi.plug(usb_speaker(2))
        pi.plug(moved(usb_mic(2), 3))
        wait_for(lambda: mic.status() == "ok", "the microphone back", between=reading(mic))
        assert sd.opened[-1].card.number == 3 and mic.reopens == 1
    assert len(events.devices()) == 1, "the same device again is not a new choice"


def test_a_different_microphone_after_a_reopen_is_said_again(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    sd, events = FakeSd(pi), Events()
    with MicSource(CFG, sd_module=sd, proc=pi.proc, events=events) as mic:
        wait_for(lambda: mic.status() == "ok", "the microphone", between=reading(mic))
        pi.unplug(2)
        pi.plug(usb_mic(2, card_id="Microphone", name="Blue Snowball"))
        wait_for(lambda: len(events.devices()) == 2, "the new choice", between=reading(mic))
    assert events.devices()[1] == ("Microphone: default cannot record: using 'Blue Snowball' (card 2, USB) "
                                   "(was 'USB PnP Sound Device')")
    assert events.said[1][2] == {"kind": "microphone", "device": "Blue Snowball: USB Audio (hw:2,0)",
                                 "card": "Microphone"}


def test_a_48khz_only_microphone_opens_at_48khz_and_gives_16khz(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2, rates=(48000,)))
    sd = FakeSd(pi)
    with MicSource(CFG, sd_module=sd, proc=pi.proc) as mic:
        wait_for(lambda: mic.status() == "ok", "the microphone", between=reading(mic))
        chunk = mic.read(1.0)
        assert sd.opened[-1].rate == 48000 and sd.opened[-1].channels == 1
    assert chunk is not None and (chunk.rate, chunk.channels, chunk.frames) == (16000, 1, 1280)
    spectrum = np.abs(np.fft.rfft(chunk.to_int16().astype(float)))
    assert abs(np.argmax(spectrum) * 16000 / 1280 - 1000) <= 13  # the 1 kHz tone survives resampling


def test_a_busy_microphone_says_who_holds_it(tmp_path, caplog) -> None:
    pi = Pi5(tmp_path, desktop=True)
    pi.plug(usb_mic(2))
    sd = FakeSd(pi)
    pi.hold(2, "input", Held(812, "pipewire"))  # the desktop's PipeWire takes it after it was listed
    sd.busy_error = "Error opening RawInputStream: Device unavailable [PaErrorCode -9985]"
    with caplog.at_level(logging.WARNING), MicSource(CFG, sd_module=sd, proc=pi.proc) as mic:
        wait_for(lambda: mic.status().startswith("Waiting"), "the microphone to be missed")
        pi.hold(2, "input", None)
        sd.busy_error = None
        wait_for(lambda: mic.status() == "ok", "the microphone once PipeWire let go", between=reading(mic))
    said = [r.getMessage() for r in caplog.records if r.name == "appliance.audio.mic"]
    assert said[0].startswith("Cannot open microphone 'USB PnP Sound Device': 'USB PnP Sound Device' "
                              "(card 2, USB) is held by pipewire (pid 812, user ")


def test_the_speaker_skips_the_hdmi_default_for_a_usb_speaker(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    pi.plug(usb_speaker(3))
    sd, events = FakeSd(pi), Events()
    with SpeakerSink(CFG, rate=22050, sd_module=sd, proc=pi.proc, events=events) as sink:
        assert sink.status() == "ok"
        stream = sd.opened[-1]
        assert stream.card is not None and stream.card.id == "UACDemoV10" and stream.rate == 48000
    assert events.devices() == ["Speaker: the default plays on card 0 ('vc4hdmi0', HDMI): "
                                "using 'UACDemoV1.0' (card 3, USB)"]


def test_the_speaker_uses_hdmi_when_nothing_else_is_there_and_says_so(tmp_path) -> None:
    pi = Pi5(tmp_path)
    sd, events = FakeSd(pi), Events()
    with SpeakerSink(CFG, rate=22050, sd_module=sd, proc=pi.proc, events=events) as sink:
        assert sink.status() == "ok"
        assert sd.listed[sd.opened[-1].device]["name"] == "default"
    assert events.devices()[0].startswith("Speaker: only HDMI outputs: using the system default "
                                          "(card 0 'vc4hdmi0', HDMI)")

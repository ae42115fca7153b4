"""`appliance doctor` says which microphone and speaker the service would open, and why, on a fake Pi 5."""

from __future__ import annotations

import pytest

from appliance.audio import device
from appliance.commands.doctor import check_sound
from appliance.config import AudioConfig, Config
from tests.fixtures.pi5_sound import FakeSd, Held, Pi5, usb_mic, usb_speaker


@pytest.fixture(autouse=True)
def fresh_listing(monkeypatch) -> None:
    monkeypatch.setattr(device, "_listed", device._UNSEEN)
    monkeypatch.setattr(device, "_rescanned_for", None)


def lines(pi: Pi5, cfg: Config | None = None) -> list[str]:
    return [c.line() for c in check_sound(cfg or Config(), sd=FakeSd(pi), proc=pi.proc)]


def test_a_usb_microphone_and_speaker_on_a_pi5(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    pi.plug(usb_speaker(3))
    assert lines(pi) == [
        "ok    microphone         default cannot record: using 'USB PnP Sound Device' (card 2, USB)",
        "ok    speaker            the default plays on card 0 ('vc4hdmi0', HDMI): "
        "using 'UACDemoV1.0' (card 3, USB)"]


def test_nothing_plugged_in_says_what_to_do(tmp_path) -> None:
    out = lines(Pi5(tmp_path))
    assert out[0] == ("fail  microphone         no microphone found: plug in a USB microphone; "
                      "`arecord -l` lists what ALSA sees")
    assert out[1].startswith("warn  speaker            only HDMI outputs: using the system default "
                             "(card 0 'vc4hdmi0', HDMI); plug in a USB speaker")


def test_a_microphone_the_running_service_holds_is_fine(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    pi.hold(2, "input", Held(4242, "appliance", uid=0))
    assert lines(pi)[0] == ("ok    microphone         'USB PnP Sound Device' (card 2, USB) is in use by the "
                            "appliance service (pid 4242)")


def test_a_microphone_pipewire_holds_says_what_to_do(tmp_path) -> None:
    pi = Pi5(tmp_path, desktop=True)
    pi.plug(usb_mic(2))
    pi.hold(2, "input", Held(812, "pipewire"))
    first = lines(pi)[0]
    assert first.startswith("fail  microphone         no microphone free: 'USB PnP Sound Device' "
                            "(card 2, USB) is held by pipewire (pid 812, user ")
    assert "stop it from using that card, or run the hub in that session (docs/audio.md)" in first


def test_a_configured_microphone_that_is_not_there_names_what_is(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    cfg = Config(audio=AudioConfig(input_device="Blue Yeti"))
    assert lines(pi, cfg)[0] == ("fail  microphone         audio.input_device 'Blue Yeti' matches no "
                                 "microphone; microphones here: 'USB PnP Sound Device: USB Audio (hw:2,0)'")


def test_echo_cancellation_turned_on_is_checked_and_a_missing_library_named(monkeypatch) -> None:
    from appliance.audio import echo_engines as echo
    from appliance.commands.doctor import check_echo, run_checks

    cfg = Config(audio=AudioConfig(echo_cancel=True))
    assert check_echo(cfg).status == "ok"  # Speex through libspeexdsp1, as the package lists install it

    def missing(rate: int) -> echo.BlockCanceller:
        raise OSError("libspeexdsp is not installed (apt-get install libspeexdsp1): libspeexdsp.so.1 not found")

    monkeypatch.setitem(echo.ENGINES, "speex", missing)
    found = check_echo(cfg)
    assert found.status == "warn" and "apt-get install libspeexdsp1" in found.detail, found
    assert "echo cancellation" in [c.name for c in run_checks(None)]  # on by default


def test_echo_cancellation_turned_off_is_not_checked(tmp_path) -> None:
    from appliance.commands.doctor import run_checks

    config = tmp_path / "appliance.yaml"
    config.write_text("audio:\n  echo_cancel: false\n")
    assert "echo cancellation" not in [c.name for c in run_checks(str(config))]

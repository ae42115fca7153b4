"""Choosing the microphone and the speaker among devices shaped like a Raspberry Pi 5's (choose, asound)."""

from __future__ import annotations

import pytest

from appliance.audio import asound
from appliance.audio.choose import NoDevice, busy_advice, choose, unlisted
from tests.fixtures.pi5_sound import HDMI0, HDMI1, Held, Pi5, moved, usb_mic, usb_speaker

PI5_CARDS = """\
 0 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0
                      vc4-hdmi-0
 1 [vc4hdmi1       ]: vc4-hdmi - vc4-hdmi-1
                      vc4-hdmi-1
 2 [Device         ]: USB-Audio - USB PnP Sound Device
                      C-Media Electronics Inc. USB PnP Sound Device at usb-xhci-hcd.0-1, full speed
"""
PIPEWIRE = Held(812, "pipewire", uid=1000)


def test_proc_asound_cards_are_read_with_their_id_and_kind() -> None:
    cards = asound.parse_cards(PI5_CARDS)
    assert [(c.number, c.id, c.usb, c.hdmi) for c in cards] == [
        (0, "vc4hdmi0", False, True), (1, "vc4hdmi1", False, True), (2, "Device", True, False)]
    assert cards[2].name == "USB PnP Sound Device" and cards[2].facts() == "card 2, USB"
    assert asound.parse_cards("--- no soundcards ---\n") == []


def test_a_pcm_status_says_whether_it_is_open_and_by_whom() -> None:
    assert asound.parse_status("closed\n") == (False, None)
    assert asound.parse_status("state: RUNNING\nowner_pid   : 812\ntrigger_time: 1.0\n") == (True, 812)


def test_without_proc_asound_there_are_no_cards(tmp_path) -> None:
    assert asound.read_cards(tmp_path) is None


def test_pi5_lite_usb_microphone_is_found_because_the_default_cannot_record(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    cards = asound.read_cards(pi.proc)
    mic = choose(pi.listing(), cards, "input")
    assert mic.name == "USB PnP Sound Device: USB Audio (hw:2,0)"
    assert mic.reason == "default cannot record: using 'USB PnP Sound Device' (card 2, USB)"
    assert mic.key == "CARD=Device,DEV=0" and mic.fields() == {"kind": "microphone", "device": mic.name,
                                                               "card": "Device"}


def test_pi5_lite_with_only_hdmi_plays_on_the_default_and_says_so(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    speaker = choose(pi.listing(), asound.read_cards(pi.proc), "output")
    assert speaker.name == "default" and speaker.warn
    assert speaker.reason.startswith("only HDMI outputs: using the system default (card 0 'vc4hdmi0', HDMI)")


def test_a_usb_speaker_is_taken_over_the_hdmi_default(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    pi.plug(usb_speaker(3))
    speaker = choose(pi.listing(), asound.read_cards(pi.proc), "output")
    assert speaker.name == "UACDemoV1.0: USB Audio (hw:3,0)" and not speaker.warn
    assert speaker.reason == ("the default plays on card 0 ('vc4hdmi0', HDMI): "
                              "using 'UACDemoV1.0' (card 3, USB)")


@pytest.mark.parametrize("number", [3, 4])
def test_a_usb_microphone_replugged_on_another_card_number_is_the_same_device(tmp_path, number) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    first = choose(pi.listing(), asound.read_cards(pi.proc), "input")
    pi.unplug(2)
    pi.plug(usb_speaker(2))  # something else takes card 2 meanwhile
    pi.plug(moved(usb_mic(2), number))
    again = choose(pi.listing(), asound.read_cards(pi.proc), "input", previous=first.key)
    assert again.key == first.key and again.name == f"USB PnP Sound Device: USB Audio (hw:{number},0)"
    assert again.index != first.index


def test_of_two_usb_microphones_the_one_chosen_before_is_kept(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    pi.plug(usb_mic(3, card_id="Microphone", name="Blue Snowball"))
    assert choose(pi.listing(), asound.read_cards(pi.proc), "input").label == "USB PnP Sound Device"
    kept = choose(pi.listing(), asound.read_cards(pi.proc), "input", previous="CARD=Microphone,DEV=0")
    assert kept.label == "Blue Snowball"


def test_no_microphone_at_all_says_what_to_do(tmp_path) -> None:
    pi = Pi5(tmp_path)
    with pytest.raises(NoDevice) as caught:
        choose(pi.listing(), asound.read_cards(pi.proc), "input")
    assert str(caught.value) == ("no microphone found: plug in a USB microphone; "
                                 "`arecord -l` lists what ALSA sees")


def test_no_card_at_all_has_no_speaker_either(tmp_path) -> None:
    pi = Pi5(tmp_path, cards=())
    with pytest.raises(NoDevice, match="no speaker found: plug in a USB speaker; `aplay -l`"):
        choose(pi.listing(), asound.read_cards(pi.proc), "output")


def test_a_48khz_only_microphone_is_chosen_like_any_other(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2, rates=(48000,)))
    mic = choose(pi.listing(), asound.read_cards(pi.proc), "input")
    assert mic.label == "USB PnP Sound Device"
    assert pi.listing().devices[mic.index]["default_samplerate"] == 48000


def test_a_login_sessions_sound_server_is_the_default_for_both(tmp_path) -> None:
    pi = Pi5(tmp_path, server=True)
    pi.plug(usb_mic(2))
    pi.plug(usb_speaker(3))
    cards = asound.read_cards(pi.proc)
    assert choose(pi.listing(), cards, "input").name == "default"
    speaker = choose(pi.listing(), cards, "output")
    assert speaker.name == "default" and speaker.reason == "using the system default ('default')"


def test_desktop_service_user_opens_the_usb_hardware_itself(tmp_path) -> None:
    pi = Pi5(tmp_path, desktop=True)  # PipeWire's default cannot be reached from the service
    pi.plug(usb_mic(2))
    cards = asound.read_cards(pi.proc)
    assert choose(pi.listing(), cards, "input").name == "USB PnP Sound Device: USB Audio (hw:2,0)"
    speaker = choose(pi.listing(), cards, "output")
    assert speaker.name == "hdmi" and speaker.warn  # HDMI's plug-in, not hw:0,0 (vc4 takes only IEC958)
    assert speaker.reason == "default cannot play and only HDMI outputs exist: using 'hdmi' (HDMI)"


def test_a_microphone_held_by_the_desktops_pipewire_says_who_and_what_to_do(tmp_path) -> None:
    pi = Pi5(tmp_path, desktop=True)
    pi.plug(usb_mic(2))
    pi.hold(2, "input", PIPEWIRE)
    with pytest.raises(NoDevice) as caught:
        choose(pi.listing(), asound.read_cards(pi.proc), "input", self_pid=1)
    message = str(caught.value)
    assert message.startswith("no microphone free: 'USB PnP Sound Device' (card 2, USB) is held by pipewire "
                              "(pid 812, user ")
    assert ("a login session's sound server; stop it from using that card, or run the hub in that session"
            in message)


def test_held_by_the_hub_itself_is_said_as_such(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    pi.hold(2, "input", Held(4242, "appliance", uid=0))
    with pytest.raises(NoDevice) as caught:
        choose(pi.listing(), asound.read_cards(pi.proc), "input", self_pid=1)
    assert caught.value.busy[0][1].appliance
    assert "is in use by the appliance service (pid 4242)" in str(caught.value)


def test_a_busy_open_names_the_holder(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    cards = asound.read_cards(pi.proc)
    mic = choose(pi.listing(), cards, "input")
    pi.hold(2, "input", PIPEWIRE)  # PipeWire took it after PortAudio listed it
    error = "Error opening RawInputStream: Device unavailable [PaErrorCode -9985]"
    advice = busy_advice(error, mic, asound.read_cards(pi.proc), self_pid=1)
    assert advice is not None
    assert advice.startswith("'USB PnP Sound Device' (card 2, USB) is held by pipewire")
    rate = "Error opening RawInputStream: Invalid sample rate [PaErrorCode -9997]"
    assert busy_advice(rate, mic, cards) is None
    assert "fuser -v /dev/snd/*" in busy_advice(error, mic, cards, self_pid=1)


def test_a_card_missing_from_portaudios_list_makes_it_stale(tmp_path) -> None:
    pi = Pi5(tmp_path)
    listing = pi.listing()  # listed before the microphone came
    pi.plug(usb_mic(2))
    assert unlisted(listing, asound.read_cards(pi.proc), "input") == [2]
    assert unlisted(pi.listing(), asound.read_cards(pi.proc), "input") == []


def test_a_configured_name_that_matches_nothing_names_it_and_what_exists(tmp_path) -> None:
    pi = Pi5(tmp_path)
    pi.plug(usb_mic(2))
    with pytest.raises(NoDevice) as caught:
        choose(pi.listing(), asound.read_cards(pi.proc), "input", wanted="Blue Yeti")
    assert str(caught.value) == ("audio.input_device 'Blue Yeti' matches no microphone; microphones here: "
                                 "'USB PnP Sound Device: USB Audio (hw:2,0)'")
    with pytest.raises(NoDevice, match=r"audio.output_device 'USB' matches no speaker; speakers here: "
                                       r"'vc4-hdmi-0: MAI PCM i2s-hifi-0 \(hw:0,0\)', 'vc4-hdmi-1: .*, "
                                       r"'hdmi', 'sysdefault', 'default'$"):
        choose(pi.listing(), asound.read_cards(pi.proc), "output", wanted="USB")


@pytest.mark.parametrize("wanted", ["USB PnP", "Device", "plughw:CARD=Device,DEV=0", "hw:CARD=Device"])
def test_a_configured_card_is_found_by_name_whatever_its_number(tmp_path, wanted) -> None:
    pi = Pi5(tmp_path, cards=(HDMI0, HDMI1, usb_speaker(2), usb_mic(3)))
    mic = choose(pi.listing(), asound.read_cards(pi.proc), "input", wanted=wanted)
    assert mic.name == "USB PnP Sound Device: USB Audio (hw:3,0)"
    assert mic.reason == f"configured {wanted!r}: using 'USB PnP Sound Device' (card 3, USB)"


def test_sound_without_host_api_names_uses_portaudios_default() -> None:
    from appliance.audio.choose import Listing

    listing = Listing([{"name": "Speaker", "max_input_channels": 0, "max_output_channels": 2},
                       {"name": "Mic", "max_input_channels": 1, "max_output_channels": 0}], (1, 0))
    assert choose(listing, None, "input").index == 1 and choose(listing, None, "output").index == 0

"""`appliance doctor` asks the Wyoming services port what Home Assistant asks it: describe, within 1 s."""

from __future__ import annotations

import dataclasses
import socket
import threading

from appliance.commands.doctor import check_wyoming
from appliance.config import Config, WyomingConfig
from appliance.conversation.policy import Policy
from appliance.links.wyoming_info import Engines
from appliance.links.wyoming_services import WyomingServices
from tests.fixtures.fakes import FakeAsr, FakeChat, FakeTts
from tests.fixtures.waits import WAIT_S


def cfg_for(port: int, **more: object) -> Config:
    return dataclasses.replace(Config(), wyoming=WyomingConfig(services=f"tcp://127.0.0.1:{port}", **more))


def test_a_running_port_is_ok_and_names_its_engines() -> None:
    engines = Engines(asr=FakeAsr(), tts=FakeTts(), chat=FakeChat(), asr_name="whisper",
                      voice_name="en_US-joe-medium", model_name="qwen")
    server = WyomingServices(WyomingConfig(services="tcp://127.0.0.1:0"), engines, Policy(None, None))
    server.start()
    try:
        assert server.listening.wait(WAIT_S)
        check = check_wyoming(cfg_for(server.port))
    finally:
        server.stop()
    assert check.status == "ok", check
    assert check.detail.startswith(f"tcp://127.0.0.1:{server.port}: info in ")
    assert check.detail.endswith("(asr whisper, tts en_US-joe-medium, handle appliance assistant)")
    after = check_wyoming(cfg_for(server.port))
    assert after.status == "warn" and "is the service running" in after.detail


def serve_once(behaviour: str) -> tuple[int, threading.Thread]:
    """A port that accepts one connection and then closes it ('close') or says nothing ('silent')."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        with listener:
            conn, _ = listener.accept()
            with conn:
                if behaviour == "silent":
                    conn.recv(1000)
                    conn.settimeout(WAIT_S)
                    try:
                        conn.recv(1000)
                    except OSError:
                        pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener.getsockname()[1], thread


def test_another_program_on_the_port_fails() -> None:
    port, thread = serve_once("close")
    check = check_wyoming(cfg_for(port))
    assert check.status == "fail" and "another program holds it" in check.detail
    thread.join(WAIT_S)
    port, thread = serve_once("silent")
    check = check_wyoming(cfg_for(port), timeout_s=0.3)
    assert check.status == "fail" and "did not answer describe within 0.3 s" in check.detail


def test_a_configured_satellite_is_asked_what_it_is() -> None:
    from appliance.commands.doctor import check_satellite
    from appliance.config import SatelliteConfig
    from tests.fixtures.satellite import FakeSatellite

    kitchen, other = FakeSatellite("kitchen").start(), FakeSatellite("tv", is_satellite=False).start()
    try:
        ok = check_satellite(SatelliteConfig(uri=f"tcp://127.0.0.1:{kitchen.port}", name="kitchen"))
        assert ok.status == "ok" and "a satellite (kitchen)" in ok.detail, ok
        assert not kitchen.running.is_set()  # asking does not run it
        wrong = check_satellite(SatelliteConfig(uri=f"tcp://127.0.0.1:{other.port}"))
        assert wrong.status == "fail" and "not a satellite" in wrong.detail
    finally:
        kitchen.close()
        other.close()
    down = check_satellite(SatelliteConfig(uri=f"tcp://127.0.0.1:{kitchen.port}"), timeout_s=0.5)
    assert down.status == "warn" and "is wyoming-satellite running there" in down.detail

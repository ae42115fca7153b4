"""The wyoming section: off by default, a tcp:// address to listen on, peers as addresses or networks."""

from __future__ import annotations

from pathlib import Path

import pytest

from appliance import EXIT_CONFIG, cli, config
from appliance.config import Config, ConfigError, WyomingConfig, wyoming_address


def load(tmp_path: Path, text: str) -> Config:
    path = tmp_path / "appliance.yaml"
    path.write_text(text)
    return config.load(path)


def messages(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    assert cli.exit_code(info.value) == EXIT_CONFIG
    return [p.render("appliance.yaml") for p in info.value.problems]


def test_off_by_default_in_the_dataclass_and_the_shipped_file() -> None:
    assert Config().wyoming == WyomingConfig()
    assert WyomingConfig().services == "" and WyomingConfig().zeroconf is False and WyomingConfig().peers == []
    assert config.load(config.SHIPPED_CONFIG).wyoming.services == ""


def test_a_services_address_and_peers_are_read(tmp_path: Path) -> None:
    cfg = load(tmp_path, "wyoming:\n  services: tcp://0.0.0.0:10300\n  peers: [192.168.1.20, 10.0.0.0/8, 'fd00::/8']\n"
                         "  zeroconf: true\n  name: kitchen hub\n")
    assert cfg.wyoming.services == "tcp://0.0.0.0:10300"
    assert cfg.wyoming.peers == ["192.168.1.20", "10.0.0.0/8", "fd00::/8"]
    assert cfg.wyoming.zeroconf is True and cfg.wyoming.name == "kitchen hub"
    assert wyoming_address(cfg.wyoming.services) == ("0.0.0.0", 10300)
    assert wyoming_address("tcp://[::]:10300") == ("::", 10300)


@pytest.mark.parametrize("uri", [
    "http://0.0.0.0:10300", "0.0.0.0:10300", "tcp://0.0.0.0", "tcp://:10300", "tcp://0.0.0.0:99999",
    "tcp://0.0.0.0:port", "tcp://0.0.0.0:0", "tcp://homeassistant.local:10300", "tcp://0.0.0.0:10300/x",
    "unix:///run/wyoming.sock", "stdio://",
])
def test_a_bad_services_address_names_the_key_and_the_line(tmp_path: Path, uri: str) -> None:
    found = messages(tmp_path, f"wyoming:\n  services: '{uri}'\n")
    assert len(found) == 1
    assert found[0].startswith("wyoming.services: ") and "tcp://0.0.0.0:10300" in found[0]
    assert repr(uri) in found[0] and found[0].endswith("(appliance.yaml line 2)")


@pytest.mark.parametrize(("text", "expected"), [
    ("wyoming:\n  services: 10300\n", "wyoming.services: must be text, got 10300 (int)"),
    ("wyoming:\n  zeroconf: yes please\n", "wyoming.zeroconf: must be true or false"),
    ("wyoming:\n  peers: 192.168.1.20\n", "wyoming.peers: must be a list of texts"),
    ("wyoming:\n  peers: [homeassistant.local]\n", "wyoming.peers: must list IP addresses or networks"),
    ("wyoming:\n  peers: [192.168.1.0/33]\n", "wyoming.peers: must list IP addresses or networks"),
    ("wyoming:\n  max_connections: 0\n", "wyoming.max_connections: must be between 1 and 256, got 0"),
    ("wyoming:\n  idle_timeout_s: 0.1\n", "wyoming.idle_timeout_s: must be between 1 and 3600"),
    ("wyoming:\n  service: tcp://0.0.0.0:10300\n",
     "wyoming.service: unknown key in section 'wyoming'; did you mean 'services'?"),
    ("wyoming: tcp://0.0.0.0:10300\n", "wyoming: must be a mapping of settings"),
])
def test_every_other_mistake_is_named(tmp_path: Path, text: str, expected: str) -> None:
    found = messages(tmp_path, text)
    assert any(m.startswith(expected) for m in found), found


def test_all_problems_come_at_once(tmp_path: Path) -> None:
    found = messages(tmp_path, "wyoming:\n  services: tcp://nowhere\n  peers: [me]\nllm:\n  n_ctx: 1\n")
    assert [m.split(":", 1)[0] for m in found] == ["llm.n_ctx", "wyoming.services", "wyoming.peers"]


# ---------------------------------------------------------------- satellites


def test_no_satellites_by_default() -> None:
    assert WyomingConfig().satellites == [] and config.load(config.SHIPPED_CONFIG).wyoming.satellites == []


def test_satellites_are_read_and_named_after_their_host_by_default(tmp_path: Path) -> None:
    cfg = load(tmp_path, "wyoming:\n  satellites:\n    - uri: tcp://kitchen.local:10700\n      area: Kitchen\n"
                         "    - {uri: 'tcp://192.168.1.32:10700', name: bedroom}\n  satellite_wait_s: 5\n")
    kitchen, bedroom = cfg.wyoming.satellites
    assert (kitchen.uri, kitchen.area, config.satellite_name(kitchen)) == ("tcp://kitchen.local:10700", "Kitchen",
                                                                           "kitchen.local")
    assert config.satellite_name(bedroom) == "bedroom" and cfg.wyoming.satellite_wait_s == 5.0


@pytest.mark.parametrize(("entry", "said"), [
    ("{uri: 'http://kitchen.local:10700'}", "wyoming.satellites[0].uri: must be the satellite's tcp:// address"),
    ("{uri: 'tcp://kitchen.local'}", "wyoming.satellites[0].uri: must name a host and a port"),
    ("{uri: 'tcp://kitchen.local:99999'}", "wyoming.satellites[0].uri: has a port that cannot be"),
    ("{name: kitchen}", "wyoming.satellites[0]: must be the satellite's tcp:// address"),
    ("{uri: 'tcp://a:1', room: x}", "wyoming.satellites[0].room: unknown key in section 'wyoming.satellites[0]'"),
    ("tcp://a:1", "wyoming.satellites[0]: must be a mapping of settings"),
])
def test_a_wrong_satellite_is_reported_with_its_line(tmp_path: Path, entry: str, said: str) -> None:
    (problem,) = messages(tmp_path, f"wyoming:\n  satellites:\n    - {entry}\n")
    assert said in problem and "line 3" in problem, problem


def test_two_satellites_may_not_share_a_name(tmp_path: Path) -> None:
    (problem,) = messages(tmp_path, "wyoming:\n  satellites:\n    - {uri: 'tcp://a:1', name: hall}\n"
                                    "    - {uri: 'tcp://b:1', name: hall}\n")
    assert "wyoming.satellites[1].name: must differ from the other satellites' names" in problem and "line 4" in problem

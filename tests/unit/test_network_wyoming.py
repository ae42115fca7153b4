"""`appliance network` with wyoming.services: a drop-in of its own that lets peers reach that one port."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from appliance import EXIT_CONFIG, cli
from appliance.config import WyomingConfig
from appliance.setup import network
from tests.fixtures.waits import SLOW_WAIT_S

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "appliance.service"


def settings(text: str) -> dict[str, str]:
    """The drop-in's [Service] settings, key -> value (a repeated key's values joined by spaces)."""
    body = text.split("[Service]\n", 1)[1]
    found: dict[str, str] = {}
    for key, value in (line.split("=", 1) for line in body.splitlines() if line and not line.startswith("#")):
        found[key] = f"{found[key]} {value}" if key in found else value
    return found


def test_off_needs_no_drop_in() -> None:
    assert network.wyoming_dropin_text(WyomingConfig(), "x") is None


def test_the_port_only_and_the_private_networks_by_default() -> None:
    text = network.wyoming_dropin_text(WyomingConfig(services="tcp://0.0.0.0:10300"), "/etc/appliance/appliance.yaml")
    assert text is not None and text.startswith("# Written by `appliance network` for wyoming.services: "
                                                "tcp://0.0.0.0:10300 (/etc/appliance/appliance.yaml).")
    assert settings(text) == {
        "PrivateNetwork": "no", "RestrictAddressFamilies": "AF_UNIX AF_INET", "IPAddressDeny": "any",
        "IPAddressAllow": "localhost 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7 link-local",
        "SocketBindDeny": "any", "SocketBindAllow": "tcp:10300"}


def test_configured_peers_replace_the_private_networks() -> None:
    cfg = WyomingConfig(services="tcp://192.168.1.5:10400", peers=["192.168.1.20", "192.168.2.0/24"])
    s = settings(network.wyoming_dropin_text(cfg, "x") or "")
    assert s["IPAddressAllow"] == "localhost 192.168.1.20/32 192.168.2.0/24"
    assert s["SocketBindAllow"] == "tcp:10400"


def test_ipv6_and_zeroconf_add_only_what_they_need() -> None:
    s = settings(network.wyoming_dropin_text(WyomingConfig(services="tcp://[::]:10300"), "x") or "")
    assert s["RestrictAddressFamilies"] == "AF_UNIX AF_INET6"
    s = settings(network.wyoming_dropin_text(WyomingConfig(services="tcp://0.0.0.0:10300", zeroconf=True), "x") or "")
    assert s["RestrictAddressFamilies"] == "AF_UNIX AF_INET AF_NETLINK"
    assert s["SocketBindAllow"] == "tcp:10300 udp:5353" and s["IPAddressAllow"].endswith(" multicast")
    assert "AF_PACKET" not in s["RestrictAddressFamilies"]


def config(tmp_path: Path, services: str, home_assistant: bool = False) -> str:
    token = tmp_path / "ha_token"
    token.write_text("secret\n")
    path = tmp_path / f"appliance-{len(list(tmp_path.iterdir()))}.yaml"
    path.write_text(f"wyoming:\n  services: '{services}'\n  peers: [192.168.1.20]\n"
                    f"home_assistant:\n  enabled: {'true' if home_assistant else 'false'}\n"
                    f"  url: http://192.168.1.20:8123\n  token_file: {token}\n")
    return str(path)


def test_the_command_writes_and_removes_it_beside_the_home_assistant_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    units = tmp_path / "units"
    units.mkdir()
    both, alone, off = (config(tmp_path, "tcp://0.0.0.0:10300", True), config(tmp_path, "tcp://0.0.0.0:10300"),
                        config(tmp_path, ""))
    wyoming = units / "appliance.service.d" / "wyoming.conf"
    home = units / "appliance.service.d" / "home-assistant.conf"

    assert cli.main(["network", "--config", both]) == 0
    printed = capsys.readouterr().out
    assert "# appliance.service.d/home-assistant.conf\n" in printed and "SocketBindAllow=tcp:10300\n" in printed
    assert "# appliance.service.d/wyoming.conf\n" in printed

    assert cli.main(["network", "--config", both, "--write", str(units)]) == 0
    out = capsys.readouterr().out
    assert f"{wyoming} written: the service may listen on tcp://0.0.0.0:10300" in out and "then: sudo" in out
    assert settings(wyoming.read_text())["IPAddressAllow"] == "localhost 192.168.1.20/32"
    assert stat.S_IMODE(wyoming.stat().st_mode) == 0o644 and home.exists()

    assert cli.main(["network", "--config", both, "--write", str(units)]) == 0
    assert "then:" not in (again := capsys.readouterr().out) and f"{wyoming} is up to date" in again

    assert cli.main(["network", "--config", alone, "--write", str(units)]) == 0
    out = capsys.readouterr().out
    assert not home.exists() and wyoming.exists() and "the Wyoming port has its own drop-in" in out

    assert cli.main(["network", "--config", alone]) == 0
    assert capsys.readouterr().out.startswith("# Written by `appliance network` for wyoming.services")

    assert cli.main(["network", "--config", off, "--write", str(units)]) == 0
    out = capsys.readouterr().out
    assert f"removed {wyoming}: wyoming.services is off" in out and "then: sudo" in out
    assert not (units / "appliance.service.d").exists()


def test_a_bad_address_is_a_config_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["network", "--config", config(tmp_path, "tcp://hub.local:10300")]) == EXIT_CONFIG
    assert "wyoming.services" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_reads_the_unit_with_both_drop_ins_cleanly(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("appliance")
    unit = tmp_path / "appliance.service"
    unit.write_text(UNIT.read_text().replace("/opt/appliance/venv/bin/appliance", str(exe)))
    peer = network.peer("http://192.168.1.20:8123", resolv_conf="/nonexistent")
    assert network.write(str(tmp_path), network.dropin_text(peer, "x")) == "written"
    text = network.wyoming_dropin_text(WyomingConfig(services="tcp://0.0.0.0:10300", zeroconf=True), "x")
    assert network.write(str(tmp_path), text, network.WYOMING_DROPIN) == "written"
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], check=False, capture_output=True, text=True,
                            timeout=SLOW_WAIT_S)
    assert result.returncode == 0 and result.stderr.strip() == "", result.stderr
    security = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager", str(unit)], check=False,
                              capture_output=True, text=True, timeout=SLOW_WAIT_S)
    exposure = float(security.stdout.split("Overall exposure level for appliance.service: ", 1)[1].split()[0])
    assert exposure <= 2.0, security.stdout  # the same bound as the unit alone and with Home Assistant


def test_satellites_open_the_way_to_them_and_nothing_else(tmp_path: Path) -> None:
    from appliance.config import SatelliteConfig

    resolv = tmp_path / "resolv.conf"
    resolv.write_text("nameserver 127.0.0.53\n")
    by_address = WyomingConfig(satellites=[SatelliteConfig(uri="tcp://192.168.1.31:10700")])
    text = network.wyoming_dropin_text(by_address, "x.yaml", str(resolv))
    assert text is not None and "IPAddressAllow=localhost 192.168.1.31\n" in text
    assert "RestrictAddressFamilies=AF_UNIX AF_INET\n" in text and "SocketBindAllow" not in text
    by_name = WyomingConfig(services="tcp://0.0.0.0:10300", satellites=[SatelliteConfig(uri="tcp://kitchen.local:10700")])
    text = network.wyoming_dropin_text(by_name, "x.yaml", str(resolv))
    assert text is not None and "kitchen.local (any address on the private networks)" in text
    assert "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6\n" in text and "SocketBindAllow=tcp:10300\n" in text

"""`appliance network`: the drop-in that lets the service reach Home Assistant and nothing else."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest

from appliance import EXIT_CONFIG, EXIT_NOHOST, cli
from appliance.setup import network


def settings(text: str) -> dict[str, str]:
    """The drop-in's [Service] settings, key -> value."""
    body = text.split("[Service]\n", 1)[1]
    return dict(line.split("=", 1) for line in body.splitlines() if line and not line.startswith("#"))


def fake_dns(answers: dict[str, list[str]]):
    """getaddrinfo that knows only `answers` (host -> addresses)."""
    def getaddrinfo(host: str, port: int, *args: object, **kwargs: object) -> list:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
                for a in answers[host]]
    return getaddrinfo


@pytest.fixture
def resolv(tmp_path: Path):
    """resolv(*nameservers) -> the path of a resolv.conf naming them."""
    def make(*servers: str) -> str:
        path = tmp_path / "resolv.conf"
        path.write_text("# made up\nsearch lan\n" + "".join(f"nameserver {s}\n" for s in servers))
        return str(path)
    return make


def test_a_literal_ip_is_allowed_as_given_with_localhost_and_no_dns(resolv) -> None:
    peer = network.peer("http://192.168.1.20:8123", resolv_conf=resolv("192.168.1.1"),
                        getaddrinfo=fake_dns({}))
    text = network.dropin_text(peer, "/etc/appliance/appliance.yaml")
    assert settings(text) == {"PrivateNetwork": "no", "RestrictAddressFamilies": "AF_UNIX AF_INET",
                              "IPAddressDeny": "any", "IPAddressAllow": "localhost 192.168.1.20"}
    assert "http://192.168.1.20:8123" in text and "/etc/appliance/appliance.yaml" in text


def test_localhost_is_resolved_now_and_needs_no_dns_server(resolv) -> None:
    peer = network.peer("http://localhost:8123", resolv_conf=resolv("10.0.0.1"))  # the real resolver
    s = settings(network.dropin_text(peer, "appliance.yaml"))
    assert s["IPAddressAllow"] == "localhost" and s["PrivateNetwork"] == "no" and s["IPAddressDeny"] == "any"
    assert s["RestrictAddressFamilies"].split()[0] == "AF_UNIX"
    assert "10.0.0.1" not in network.dropin_text(peer, "appliance.yaml")


def test_a_name_from_dns_allows_its_addresses_and_a_dns_server_that_is_not_local(resolv) -> None:
    dns = fake_dns({"homeassistant.lan": ["192.168.1.20", "fe80::5%eth0", "192.168.1.20"]})
    remote = network.peer("https://homeassistant.lan", resolv_conf=resolv("192.168.1.1", "127.0.0.53"),
                          getaddrinfo=dns)
    text = network.dropin_text(remote, "appliance.yaml")
    assert settings(text)["IPAddressAllow"] == "localhost 192.168.1.20 fe80::5 192.168.1.1"
    assert settings(text)["RestrictAddressFamilies"] == "AF_UNIX AF_INET AF_INET6"
    assert "homeassistant.lan was 192.168.1.20, fe80::5 when this was written" in text
    local = network.peer("https://homeassistant.lan", resolv_conf=resolv("127.0.0.53"), getaddrinfo=dns)
    assert settings(network.dropin_text(local, "x"))["IPAddressAllow"] == "localhost 192.168.1.20 fe80::5"


def test_nothing_else_is_allowed_and_no_netlink_or_raw_sockets() -> None:
    peer = network.peer("http://192.168.1.20:8123", resolv_conf="/nonexistent")
    s = settings(network.dropin_text(peer, "x"))
    assert set(s) == {"PrivateNetwork", "RestrictAddressFamilies", "IPAddressDeny", "IPAddressAllow"}
    assert not {"AF_NETLINK", "AF_PACKET"} & set(s["RestrictAddressFamilies"].split())


# ---- the command


def config(tmp_path: Path, enabled: bool, url: str = "http://192.168.1.20:8123") -> str:
    """A config file with home_assistant on or off."""
    token = tmp_path / "ha_token"
    token.write_text("secret\n")
    path = tmp_path / f"appliance-{'on' if enabled else 'off'}.yaml"
    path.write_text(f"home_assistant:\n  enabled: {'true' if enabled else 'false'}\n  url: \"{url}\"\n"
                    f"  token_file: {token}\n")
    return str(path)


def test_the_command_prints_the_drop_in(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["network", "--config", config(tmp_path, True)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Written by `appliance network`")
    assert "IPAddressAllow=localhost 192.168.1.20\n" in out


def test_with_home_assistant_off_none_is_needed_and_a_written_one_is_removed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    units = tmp_path / "units"
    units.mkdir()
    on, off = config(tmp_path, True), config(tmp_path, False)
    assert cli.main(["network", "--config", on, "--write", str(units)]) == 0
    dropin = units / "appliance.service.d" / "home-assistant.conf"
    assert "IPAddressAllow=localhost 192.168.1.20" in dropin.read_text()
    assert stat.S_IMODE(dropin.stat().st_mode) == 0o644
    first = capsys.readouterr().out
    assert "written" in first and "then: sudo systemctl daemon-reload" in first

    assert cli.main(["network", "--config", on, "--write", str(units)]) == 0
    assert "is up to date" in (again := capsys.readouterr().out) and "then:" not in again

    owners = units / "appliance.service.d" / "override.conf"  # the owner's own (systemctl edit)
    owners.write_text("[Service]\nCPUAffinity=1-3\n")
    assert cli.main(["network", "--config", off, "--write", str(units)]) == 0
    assert f"removed {dropin}" in capsys.readouterr().out
    assert not dropin.exists() and owners.exists()
    assert cli.main(["network", "--config", off, "--write", str(units)]) == 0
    assert "no drop-in is needed" in capsys.readouterr().out
    assert cli.main(["network", "--config", off]) == 0
    assert "no drop-in is needed" in capsys.readouterr().out


def test_a_host_that_does_not_resolve_is_named_with_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(network.socket, "getaddrinfo", fake_dns({}))
    units = tmp_path / "units"
    units.mkdir()
    code = cli.main(["network", "--config", config(tmp_path, True, "http://homeassistant.local:8123"),
                     "--write", str(units)])
    err = capsys.readouterr().err
    assert code == EXIT_NOHOST
    assert "homeassistant.local" in err and "IP address in the url" in err and "avahi-daemon" in err
    assert not (units / "appliance.service.d").exists()  # nothing half-written


def test_a_bad_config_is_a_config_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["network", "--config", config(tmp_path, True, "http://:8123")]) == EXIT_CONFIG
    assert "home_assistant.url" in capsys.readouterr().err
    assert cli.main(["network", "--config", config(tmp_path, True, "http://ha.lan:99999")]) == EXIT_CONFIG
    assert "port" in capsys.readouterr().err
    bad = tmp_path / "typo.yaml"
    bad.write_text("home_assistant:\n  enabeld: true\n")
    assert cli.main(["network", "--config", str(bad)]) == EXIT_CONFIG
    assert "enabeld" in capsys.readouterr().err

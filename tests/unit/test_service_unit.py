"""systemd/appliance.service: systemd-analyze verify is clean and the sandbox scores 2.0 or lower, also with
the drop-in that lets it reach Home Assistant (appliance network)."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from appliance import EXIT_CONFIG
from appliance.setup import network
from tests.fixtures.waits import SLOW_WAIT_S

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "appliance.service"
MAX_EXPOSURE = 2.0

pytestmark = pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")


def _settings() -> dict[str, list[str]]:
    """Service settings as key -> every value given (systemd allows repeats)."""
    values: dict[str, list[str]] = {}
    section = ""
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        values.setdefault(f"{section}.{key}", []).append(value)
    return values


def _dns(host: str, port: int, **kwargs: object) -> list:
    """getaddrinfo for a Home Assistant with an IPv4 and an IPv6 address."""
    return [(0, 0, 0, "", ("192.168.1.20", port)), (0, 0, 0, "", ("fd00::20", port))]


def _unit_with_home_assistant(folder: Path, text: str) -> Path:
    """The unit in `folder` and beside it the drop-in for a Home Assistant named in DNS (as installed)."""
    folder.mkdir(exist_ok=True)
    unit = folder / "appliance.service"
    unit.write_text(text)
    resolv = folder / "resolv.conf"
    resolv.write_text("nameserver 192.168.1.1\n")
    peer = network.peer("http://homeassistant.lan:8123", resolv_conf=str(resolv), getaddrinfo=_dns)
    assert network.write(str(folder), network.dropin_text(peer, "appliance.yaml")) == "written"
    return unit


def _verify(unit: Path) -> None:
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], check=False, capture_output=True, text=True,
                            timeout=SLOW_WAIT_S)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "", result.stderr


def _exposure(unit: Path) -> tuple[float, str]:
    """systemd-analyze's overall exposure of `unit` (drop-ins beside it included) and its table."""
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager", str(unit)],
                            check=False, capture_output=True, text=True, timeout=SLOW_WAIT_S)
    match = re.search(r"Overall exposure level for \S+: ([0-9.]+)", result.stdout + result.stderr)
    assert match, result.stdout + result.stderr
    return float(match.group(1)), result.stdout


def _runnable(text: str) -> str:
    # verify checks that ExecStart exists: point it at this venv's console script, keep the rest.
    exe = Path(sys.executable).with_name("appliance")
    assert exe.exists(), "the venv has no `appliance` console script (pip install -e .)"
    assert "ExecStart=/opt/appliance/venv/bin/appliance run\n" in text  # where install.sh puts the venv
    return text.replace("/opt/appliance/venv/bin/appliance", str(exe))


def test_verify_is_clean(tmp_path: Path) -> None:
    unit = tmp_path / "appliance.service"
    unit.write_text(_runnable(UNIT.read_text()))
    _verify(unit)
    _verify(_unit_with_home_assistant(tmp_path / "with-home-assistant", _runnable(UNIT.read_text())))


def test_security_exposure_is_at_most_two() -> None:
    exposure, table = _exposure(UNIT)
    assert exposure <= MAX_EXPOSURE, table


def test_security_exposure_with_home_assistant_is_at_most_two(tmp_path: Path) -> None:
    alone, _ = _exposure(UNIT)
    exposure, table = _exposure(_unit_with_home_assistant(tmp_path, UNIT.read_text()))
    print(f"\nexposure {alone} without the Home Assistant drop-in, {exposure} with it")
    assert exposure <= MAX_EXPOSURE, table
    assert exposure > alone and "Service has access to the host's network" in table  # the drop-in was read


def test_the_settings_the_issue_names() -> None:
    s = _settings()
    assert s["Service.Type"] == ["notify"]
    assert s["Service.User"] == ["appliance"] and "audio" in s["Service.SupplementaryGroups"][0].split()
    assert s["Service.Restart"] == ["on-failure"]
    assert s["Service.RestartPreventExitStatus"] == [str(EXIT_CONFIG)]
    assert s["Service.StateDirectory"] == ["appliance"] and s["Service.ConfigurationDirectory"] == ["appliance"]
    assert int(s["Service.WatchdogSec"][0]) > 0 and s["Service.MemoryMax"] and s["Service.Nice"]
    # No network at all, but local sockets (journald, sd_notify, a PulseAudio socket) and ALSA devices.
    assert s["Service.RestrictAddressFamilies"] == ["AF_UNIX"]
    assert s["Service.IPAddressDeny"] == ["any"] and s["Service.PrivateNetwork"] == ["yes"]
    assert s["Service.DeviceAllow"] == ["char-alsa rw"] and "Service.PrivateDevices" not in s
    # Stopping within 5 s is the daemon's job; systemd waits a little longer before SIGKILL.
    assert int(s["Service.TimeoutStopSec"][0]) >= 5


def test_unit_parses_as_ini() -> None:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment]
    parser.read_string(UNIT.read_text())
    assert parser.sections() == ["Unit", "Service", "Install"]

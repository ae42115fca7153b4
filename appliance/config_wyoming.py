"""The wyoming section: where the services port listens and where the satellites are, checked for people
(config.py holds it in Config and validates with check_wyoming)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from appliance.config_validation import Validator
from appliance.config_validation import bounded as _f

WYOMING_EXAMPLE: Final = "tcp://0.0.0.0:10300"
SATELLITE_EXAMPLE: Final = "tcp://192.168.1.31:10700"


@dataclass(frozen=True)
class SatelliteConfig:
    """One wyoming-satellite in another room that the hub connects to and answers."""

    uri: str = ""
    """Where the satellite listens, e.g. tcp://192.168.1.31:10700 (its --uri)."""
    name: str = ""
    """What the journal calls its turns (SOURCE=); empty = its host."""
    area: str = ""
    """The room it stands in, e.g. 'kitchen' (logged with its turns)."""
    facts: bool = True
    """Whether people in its room may tell the hub things to remember and ask what it was told, as at the
    hub itself; false answers such a request there with "What I'm told isn't shared in this room."."""


@dataclass(frozen=True)
class WyomingConfig:
    services: str = ""
    """Where the hub offers its engines to Home Assistant over the Wyoming protocol (speech recognition,
    the voice and the language model), e.g. tcp://0.0.0.0:10300; empty = off, nothing listens."""
    peers: list[str] = _f([])  # noqa: RUF009 - a default_factory
    """Who may connect to the services port: IP addresses or networks (192.168.1.20, 192.168.1.0/24);
    empty = any address on the private networks (10/8, 172.16/12, 192.168/16, fc00::/7, link-local).
    The systemd drop-in (`appliance network`) lets only these in."""
    zeroconf: bool = False
    """Announce the services port on the local network (mDNS _wyoming._tcp) so Home Assistant finds it
    by itself; needs the zeroconf package."""
    name: str = "appliance"
    """The name Home Assistant shows for the hub's services (and the zeroconf announcement)."""
    max_connections: int = _f(8, 1, 256)
    """Connections served at once; one more is closed at once (Home Assistant opens one per request)."""
    idle_timeout_s: float = _f(60.0, 1.0, 3600)
    """Seconds a connection may stay silent (or leave an event half sent) before it is closed."""
    satellites: list[SatelliteConfig] = field(default_factory=list)
    """wyoming-satellite instances in other rooms the hub connects to and answers, each
    {uri: tcp://HOST:PORT, name, area, facts}; empty = none, nothing connects."""
    satellite_wait_s: float = _f(20.0, 0.0, 300)
    """Seconds a satellite's question may wait for the language model (another room's answer, or the
    hub's own microphone, first); after that it is told the hub is busy."""


def _tcp_address(uri: str, example: str, not_tcp: str) -> tuple[str, int]:
    """(host, port) of tcp://HOST:PORT; ValueError naming what is wrong (`not_tcp` for another scheme)."""
    parts = urlsplit(uri)
    if parts.scheme != "tcp":
        raise ValueError(not_tcp)
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"has a port that cannot be (1-65535), like {example}") from None
    if not parts.hostname or port is None:
        raise ValueError(f"must name a host and a port, like {example}")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"must be only tcp://HOST:PORT, like {example}")
    return parts.hostname, port


def wyoming_address(uri: str) -> tuple[str, int]:
    """(host, port) of a wyoming.services URI such as tcp://0.0.0.0:10300; ValueError saying what is wrong."""
    host, port = _tcp_address(uri, WYOMING_EXAMPLE,
                              f"must be a tcp:// address like {WYOMING_EXAMPLE} (or empty to turn it off)")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise ValueError("must listen on an IP address of this machine (0.0.0.0 for all, :: for all of "
                         f"IPv6), like {WYOMING_EXAMPLE}") from None
    return host, port


def satellite_address(uri: str) -> tuple[str, int]:
    """(host, port) of a satellite's URI such as tcp://kitchen.local:10700; ValueError saying what's wrong."""
    host, port = _tcp_address(uri, SATELLITE_EXAMPLE,
                              f"must be the satellite's tcp:// address, like {SATELLITE_EXAMPLE}")
    if not port:  # a satellite cannot be reached on port 0
        raise ValueError(f"must name a host and a port, like {SATELLITE_EXAMPLE}")
    return host, port


def satellite_name(sat: SatelliteConfig) -> str:
    """The satellite's name in the journal: its own, else its host."""
    return sat.name or urlsplit(sat.uri).hostname or sat.uri


def check_wyoming(wy: WyomingConfig, validator: Validator) -> None:
    """wyoming.services is a tcp:// address to listen on; wyoming.peers are addresses or networks."""
    if wy.services:
        try:
            _, port = wyoming_address(wy.services)
        except ValueError as exc:
            validator.add("wyoming.services", f"{exc}; got {wy.services!r}")
        else:
            if port == 0:
                validator.add("wyoming.services", "needs a fixed port for Home Assistant to connect to, like "
                              f"{WYOMING_EXAMPLE}; got {wy.services!r}")
    names: set[str] = set()
    for i, sat in enumerate(wy.satellites):
        key = f"wyoming.satellites[{i}]"

        def at(field: str) -> str:  # the key, reported at the entry's line when it was left out
            return f"{key}.{field}" if f"{key}.{field}" in validator.lines else key

        try:
            host, _ = satellite_address(sat.uri)
        except ValueError as exc:
            validator.add(at("uri"), f"{exc}; got {sat.uri!r}")
            continue
        name = sat.name or host
        if name in names:
            validator.add(at("name"), f"must differ from the other satellites' names; {name!r} is used twice")
        names.add(name)
    for peer in wy.peers:
        try:
            ipaddress.ip_network(peer, strict=False)
        except ValueError:
            validator.add("wyoming.peers", "must list IP addresses or networks, like 192.168.1.20 or "
                          f"192.168.1.0/24; got {peer!r}")

"""The wyoming section's addresses: where the services port listens and where the satellites are, checked
for people (config.py validates with them)."""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from appliance.config import SatelliteConfig, WyomingConfig
    from appliance.config_validation import Validator

WYOMING_EXAMPLE: Final = "tcp://0.0.0.0:10300"
SATELLITE_EXAMPLE: Final = "tcp://192.168.1.31:10700"


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

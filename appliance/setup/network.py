"""The network the service may use: none, or exactly the Home Assistant and Wyoming peers it is configured for.

systemd/appliance.service runs with PrivateNetwork=yes: nothing leaves the box. With
home_assistant enabled, a drop-in (appliance.service.d/home-assistant.conf) gives the service
the host's network back, but lets it reach only Home Assistant's addresses, localhost, and the
DNS servers it needs to look Home Assistant's name up again; every other address is refused by
systemd's IP firewall. With wyoming.services set, a second drop-in (wyoming.conf) lets the service
listen on that one port and be reached only from wyoming.peers (or the private networks).
systemd adds the two up: IPAddressAllow= and RestrictAddressFamilies= of both apply.
`appliance network` prints or writes them (commands/network.py).

A name is resolved when the drop-in is written: if Home Assistant's address changes, the drop-in
must be written again (or the url given as an IP address).

Standard library and the config module only.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from appliance.config import WyomingConfig, satellite_address, wyoming_address
from appliance.errors import BadConfig, HostUnknown, NotWritable

UNIT: Final = "appliance.service"
DROPIN: Final = f"{UNIT}.d/home-assistant.conf"  # under the unit folder, /etc/systemd/system
WYOMING_DROPIN: Final = f"{UNIT}.d/wyoming.conf"
PRIVATE_NETWORKS: Final = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7", "link-local")
"""Who may reach the Wyoming port when wyoming.peers is empty: the private (RFC 1918, ULA) and link-local networks."""
MDNS_PORT: Final = 5353
UNIT_DIR: Final = "/etc/systemd/system"
RESOLV_CONF: Final = "/etc/resolv.conf"
HOSTS: Final = "/etc/hosts"
DEFAULT_PORTS: Final = {"http": 80, "https": 443}
GLIBC_DEFAULT_RESOLVER: Final = "127.0.0.1"  # what glibc asks when resolv.conf names no nameserver

Resolver = Callable[..., list]  # socket.getaddrinfo's signature


@dataclass(frozen=True)
class Peer:
    """Home Assistant as the service will reach it, and what that takes."""

    url: str
    host: str
    addresses: tuple[str, ...]
    """The addresses `host` had when this was made (the host itself when it is an IP address)."""
    resolvers: tuple[str, ...] = ()
    """The DNS servers the service asks to look `host` up again (none for an IP or a name in /etc/hosts)."""

    @property
    def named(self) -> bool:
        """The url names Home Assistant by a host name, not an IP address."""
        try:
            ipaddress.ip_address(self.host)
        except ValueError:
            return True
        return False

    @property
    def remote_resolvers(self) -> tuple[str, ...]:
        """The resolvers not on this machine (systemd-resolved's 127.0.0.53 is localhost)."""
        return tuple(a for a in self.resolvers if not ipaddress.ip_address(a).is_loopback)

    @property
    def allowed(self) -> tuple[str, ...]:
        """IPAddressAllow=: localhost, then every other address the service may reach."""
        others = [a for a in (*self.addresses, *self.resolvers) if not ipaddress.ip_address(a).is_loopback]
        return ("localhost", *dict.fromkeys(others))

    @property
    def families(self) -> tuple[str, ...]:
        """RestrictAddressFamilies=: local sockets, and IPv4 and IPv6 only as far as an address needs them."""
        versions = {ipaddress.ip_address(a).version for a in (*self.addresses, *self.resolvers)}
        return ("AF_UNIX", *(["AF_INET"] if 4 in versions else []), *(["AF_INET6"] if 6 in versions else []))


def peer(url: str, resolv_conf: str = RESOLV_CONF, hosts: str = HOSTS,
         getaddrinfo: Resolver | None = None) -> Peer:
    """Home Assistant at `url`: its addresses and the resolvers its name needs.

    Raises BadConfig when the url names no host, HostUnknown when the name does not resolve.
    """
    parts = urlsplit(url)
    host = parts.hostname
    if parts.scheme not in DEFAULT_PORTS or not host:
        raise BadConfig(f"home_assistant.url must be Home Assistant's address, like "
                        f"http://homeassistant.local:8123; got {url!r}")
    try:
        port = parts.port or DEFAULT_PORTS[parts.scheme]
    except ValueError:
        raise BadConfig(f"home_assistant.url has a port that cannot be: {url!r}") from None
    try:
        return Peer(url, host, (str(ipaddress.ip_address(_plain(host))),))
    except ValueError:
        pass  # a name
    try:
        found = (getaddrinfo or socket.getaddrinfo)(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:  # socket.gaierror
        raise HostUnknown(
            f"home_assistant.url names {host}, which does not resolve to an address on this machine "
            f"({exc}). Check the name (ping {host}); for a .local name, avahi-daemon must be running; "
            f"or put Home Assistant's IP address in the url (like http://192.168.1.20:8123). "
            "Then run this again.") from None
    addresses = tuple(dict.fromkeys(_plain(info[4][0]) for info in found))
    if not addresses:
        raise HostUnknown(f"home_assistant.url names {host}, which resolves to no address on this machine. "
                          "Put Home Assistant's IP address in the url (like http://192.168.1.20:8123).")
    resolvers = () if _resolved_locally(host, hosts) else nameservers(resolv_conf)
    return Peer(url, host, addresses, resolvers)


def nameservers(path: str = RESOLV_CONF) -> tuple[str, ...]:
    """The nameservers in resolv.conf (glibc's own default when it names none)."""
    found = []
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        fields = line.split()
        if len(fields) >= 2 and fields[0] == "nameserver":
            try:
                found.append(str(ipaddress.ip_address(_plain(fields[1]))))
            except ValueError:
                continue
    return tuple(dict.fromkeys(found)) or (GLIBC_DEFAULT_RESOLVER,)


def dropin_text(p: Peer, source: str) -> str:
    """The drop-in that lets the service reach `p` and nothing else."""
    reach = "Home Assistant, localhost and the DNS servers below" if p.remote_resolvers else \
        "Home Assistant and localhost"
    lines = [f"# Written by `appliance network` for home_assistant.url: {p.url} ({source}).",
             f"# The service may reach {reach}; every other address is refused."]
    if p.named:
        lines.append(f"# {p.host} was {', '.join(p.addresses)} when this was written; if that changes, run")
        lines.append(f"#   sudo appliance network --write {UNIT_DIR} && sudo systemctl daemon-reload "
                     "&& sudo systemctl restart appliance")
    if p.remote_resolvers:
        servers = ", ".join(p.remote_resolvers)
        lines.append(f"# {servers}: the DNS servers of {RESOLV_CONF}, to look {p.host} up.")
    lines += ["[Service]", "PrivateNetwork=no", f"RestrictAddressFamilies={' '.join(p.families)}",
              "IPAddressDeny=any", f"IPAddressAllow={' '.join(p.allowed)}"]
    return "\n".join(lines) + "\n"


def wyoming_dropin_text(cfg: WyomingConfig, source: str, resolv_conf: str = RESOLV_CONF) -> str | None:
    """The drop-in that lets peers reach the Wyoming services port, and the service reach the satellites,
    and nothing else; None when both are off."""
    if not cfg.services and not cfg.satellites:
        return None
    families, binds, allowed, lines = ["AF_UNIX"], [], ["localhost"], []
    if cfg.services:
        try:
            host, port = wyoming_address(cfg.services)
        except ValueError as exc:
            raise BadConfig(f"wyoming.services {exc}; got {cfg.services!r}") from None
        peers = tuple(str(ipaddress.ip_network(p, strict=False)) for p in cfg.peers) or PRIVATE_NETWORKS
        families.append("AF_INET6" if ipaddress.ip_address(host).version == 6 else "AF_INET")
        binds.append(f"tcp:{port}")
        allowed += peers
        who = f"wyoming.peers ({', '.join(peers)})" if cfg.peers else "the private networks"
        lines += [f"# Written by `appliance network` for wyoming.services: {cfg.services} ({source}).",
                  f"# The service may listen on TCP port {port} only, reached from {who} and localhost."]
        if cfg.zeroconf:
            lines.append(f"# wyoming.zeroconf: mDNS on UDP port {MDNS_PORT} (multicast), and the list of "
                         "network interfaces (netlink).")
            families += ["AF_NETLINK"] if "AF_INET" in families else ["AF_INET", "AF_NETLINK"]
            binds.append(f"udp:{MDNS_PORT}")
            allowed.append("multicast")
    if cfg.satellites:
        reach, versions, named = _satellites(cfg)
        what = [", ".join(reach)] if reach else []
        if named:  # a name may stand for any address on the network, looked up by the DNS servers
            what.append(f"{', '.join(named)} (any address on the private networks)")
            servers = [a for a in nameservers(resolv_conf) if not ipaddress.ip_address(a).is_loopback]
            reach += [*PRIVATE_NETWORKS, *servers]
            versions |= {4, 6}
        families += [f for v, f in ((4, "AF_INET"), (6, "AF_INET6")) if v in versions and f not in families]
        allowed += [a for a in reach if a not in allowed]
        lines.append(f"# Written by `appliance network` for wyoming.satellites ({source}): the service may "
                     f"connect to {' and '.join(what)}.")
    lines += ["[Service]", "PrivateNetwork=no", f"RestrictAddressFamilies={' '.join(families)}",
              "IPAddressDeny=any", f"IPAddressAllow={' '.join(allowed)}",
              "SocketBindDeny=any", *(f"SocketBindAllow={rule}" for rule in binds)]  # one rule a line
    return "\n".join(lines) + "\n"


def _satellites(cfg: WyomingConfig) -> tuple[list[str], set[int], list[str]]:
    """(the satellites' IP addresses, their IP versions, the host names among them)."""
    reach: list[str] = []
    versions: set[int] = set()
    named: list[str] = []
    for sat in cfg.satellites:
        try:
            host, _ = satellite_address(sat.uri)
        except ValueError as exc:
            raise BadConfig(f"wyoming.satellites: {sat.uri!r} {exc}") from None
        try:
            address = ipaddress.ip_address(_plain(host))
        except ValueError:
            named.append(host)
            continue
        reach.append(str(address))
        versions.add(address.version)
    return reach, versions, named


def write(unit_dir: str, text: str | None, dropin: str = DROPIN) -> str:
    """Put the drop-in `dropin` in place under `unit_dir` (`text`), or remove it (None).

    Returns what was done: "written", "unchanged", "removed" or "absent". Raises NotWritable.
    """
    path = Path(unit_dir) / dropin
    try:
        if text is None:
            if not path.exists():
                return "absent"
            path.unlink()
            if not any(path.parent.iterdir()):
                path.parent.rmdir()  # a folder of the owner's own drop-ins stays
            return "removed"
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            return "unchanged"
        if not Path(unit_dir).is_dir():
            raise NotWritable(f"{unit_dir} is not a folder (systemd's units are in {UNIT_DIR})")
        path.parent.mkdir(mode=0o755, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        return "written"
    except PermissionError as exc:
        raise NotWritable(f"cannot change {path}: {exc.strerror}; run it as root (sudo)") from None


def _plain(address: str) -> str:
    """An address without its IPv6 zone ("fe80::1%eth0" -> "fe80::1"): IPAddressAllow= takes none."""
    return address.split("%", 1)[0]


def _resolved_locally(host: str, hosts: str) -> bool:
    """localhost, or a name /etc/hosts lists: looked up without asking a DNS server."""
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        lines = Path(hosts).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    return any(name in (n.lower() for n in line.split("#", 1)[0].split()[1:]) for line in lines)

"""The mDNS advertisement of the Wyoming services port (_wyoming._tcp), which Home Assistant discovers."""

from __future__ import annotations

import ipaddress
import logging
import socket
from typing import Any, Final

from appliance.config import WyomingConfig

_LOGGER = logging.getLogger(__name__)

SERVICE_TYPE: Final = "_wyoming._tcp.local."
MDNS_GROUP: Final = "224.0.0.251"  # mDNS's IPv4 multicast group


class Advertisement:
    """The port advertised on the local network until close()."""

    def __init__(self, zeroconf: Any, info: Any) -> None:
        self.zeroconf, self.info = zeroconf, info

    async def close(self) -> None:
        try:
            await self.zeroconf.async_unregister_service(self.info)
            await self.zeroconf.async_close()
        except Exception as exc:  # the port closes anyway
            _LOGGER.debug("Zeroconf: withdrawing the advertisement failed: %s", exc)


def own_address(host: str) -> str:
    """The IPv4 address peers reach this machine at: `host` itself, or for 0.0.0.0 the one mDNS goes out on."""
    if not ipaddress.ip_address(host).is_unspecified:
        return host
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect((MDNS_GROUP, 5353))  # no packet is sent: it only picks the route
        return str(probe.getsockname()[0])


async def advertise(cfg: WyomingConfig, host: str, port: int) -> Advertisement | None:
    """Advertise `port` as wyoming.name; None (after one warning) when it cannot be done."""
    try:
        from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf
    except ImportError:
        _LOGGER.warning("wyoming.zeroconf is on but the zeroconf package is not installed "
                        "(`pip install zeroconf` in the venv); add the hub in Home Assistant by address and port")
        return None
    try:
        address = own_address(host)
        info = AsyncServiceInfo(SERVICE_TYPE, f"{cfg.name}.{SERVICE_TYPE}", port=port,
                                addresses=[socket.inet_aton(address)])
        zeroconf = AsyncZeroconf()
        await zeroconf.async_register_service(info)
    except Exception as exc:
        _LOGGER.warning("Zeroconf: could not advertise the Wyoming services port (%s); add the hub in Home "
                        "Assistant by address and port", exc)
        return None
    _LOGGER.info("Zeroconf: advertised %s at %s:%d", cfg.name, address, port)
    return Advertisement(zeroconf, info)

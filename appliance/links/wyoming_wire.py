"""Wyoming events on a socket, read with bounds: a peer that breaks the framing is refused, never trusted.

An event is a JSON header line (`type`, optional `data`, `data_length`, `payload_length`), then
`data_length` bytes of JSON merged into `data`, then `payload_length` bytes of payload. The
wyoming package's own reader believes every length it is told and lets some mistakes escape as
exceptions; this one bounds the header, the data and the payload, and turns every way of breaking
the framing into BadPeer, so the caller closes that one connection.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

from wyoming.event import Event, async_write_event

MAX_HEADER_BYTES: Final = 64 * 1024  # bytes in a header line: a few hundred in practice
MAX_DATA_BYTES: Final = 256 * 1024  # bytes of JSON data: `info` and long texts to speak stay far below
MAX_PAYLOAD_BYTES: Final = 1024 * 1024  # bytes of one payload: 1 s of 48 kHz stereo int32 is 384 KiB


class BadPeer(Exception):
    """The peer broke the protocol: its connection is closed (the message says how, for the log)."""


def _length(header: dict[str, Any], key: str, limit: int) -> int:
    value = header.get(key)
    if value is None:
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadPeer(f"{key} is not a byte count: {value!r:.40}")
    if value > limit:
        raise BadPeer(f"{key} {value} is over the limit of {limit} bytes")
    return value


def _json_object(raw: bytes, what: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise BadPeer(f"the {what} is not JSON") from None
    if not isinstance(value, dict):
        raise BadPeer(f"the {what} is not a JSON object")
    return value


async def read_event(reader: asyncio.StreamReader) -> Event | None:
    """The next event, or None when the peer closed the connection between two events.

    Raises BadPeer for a header that is too long, cut off or not a JSON object with a text `type`,
    a length that is not a count or is over its limit, data that is not a JSON object, and a
    connection closed inside an event. The reader's limit must be above MAX_HEADER_BYTES.
    """
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raise BadPeer("the connection closed inside an event header") from None
    except asyncio.LimitOverrunError:
        raise BadPeer(f"an event header is longer than {MAX_HEADER_BYTES} bytes") from None
    if len(line) > MAX_HEADER_BYTES:
        raise BadPeer(f"an event header is longer than {MAX_HEADER_BYTES} bytes")
    header = _json_object(line, "event header")
    kind = header.get("type")
    if not isinstance(kind, str) or not kind:
        raise BadPeer("the event header has no type")
    data = header.get("data") or {}
    if not isinstance(data, dict):
        raise BadPeer("the event's data is not a JSON object")
    data_length = _length(header, "data_length", MAX_DATA_BYTES)
    payload_length = _length(header, "payload_length", MAX_PAYLOAD_BYTES)
    try:
        if data_length:
            data = {**data, **_json_object(await reader.readexactly(data_length), "event data")}
        payload = await reader.readexactly(payload_length) if payload_length else None
    except asyncio.IncompleteReadError:
        raise BadPeer(f"the connection closed inside a {kind!r:.40} event") from None
    return Event(type=kind, data=data, payload=payload)


async def write_event(writer: asyncio.StreamWriter, event: Event) -> None:
    """Send one event (the wyoming package's framing, which every version reads)."""
    await async_write_event(event, writer)

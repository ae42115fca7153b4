"""Which microphone and speaker to open: as configured, else the system default if it works, else found."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from appliance.audio.asound import Card, Direction, Holder

SERVER_PCMS: Final = ("pulse", "pipewire")
"""ALSA pcms of a sound server: listed by PortAudio only while that server answers."""
_HW_NAME = re.compile(r"\s*\((?:plug)?hw:(\d+),(\d+)\)\s*$")
_CHANNELS: Final = {"input": "max_input_channels", "output": "max_output_channels"}
_KIND: Final = {"input": "microphone", "output": "speaker"}
_KEY: Final = {"input": "input_device", "output": "output_device"}
_TOOL: Final = {"input": "arecord", "output": "aplay"}
_VERB: Final = {"input": "record", "output": "play"}


@dataclass(frozen=True)
class Listing:
    """PortAudio's list of devices as sounddevice gives it (query_devices, default.device, query_hostapis)."""

    devices: Sequence[dict[str, Any]]
    defaults: tuple[int | None, int | None] = (None, None)
    hostapis: Sequence[str] | None = None
    """The host APIs' names by index; None when unknown (then PortAudio's default counts as the system's)."""

    @classmethod
    def of(cls, sd: Any) -> Listing:
        """The current list from the sounddevice module (call it holding `device.portaudio()`)."""
        devices = list(sd.query_devices())
        try:
            hostapis: list[str] | None = [str(api["name"]) for api in sd.query_hostapis()]
        except (AttributeError, TypeError, KeyError):  # a test's stand-in without host APIs
            hostapis = None
        raw = tuple(sd.default.device)
        defaults = tuple(None if d is None or int(d) < 0 else int(d) for d in raw[:2])
        return cls(devices, defaults, hostapis)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Candidate:
    """A device PortAudio lists for one direction, and the ALSA card it is on (None for a named plug-in)."""

    index: int
    name: str
    channels: int
    card: Card | None = None
    device: int | None = None
    """The PCM number on the card (the M of hw:N,M)."""
    plays_on: Card | None = None
    """For `sysdefault`: ALSA's default card (the lowest-numbered), where it plays."""

    @property
    def usb(self) -> bool:
        card = self.card or self.plays_on
        return card.usb if card is not None else "usb" in self.name.lower()

    @property
    def hdmi(self) -> bool:
        card = self.card or self.plays_on
        return card.hdmi if card is not None else "hdmi" in self.name.lower()

    @property
    def hardware(self) -> bool:
        """A card's own PCM (hw:N,M), not a plug-in such as pulse or dmix."""
        return self.device is not None

    @property
    def label(self) -> str:
        if self.card is not None:
            return self.card.name
        return self.name.split(": ")[0] if _HW_NAME.search(self.name) else self.name

    @property
    def key(self) -> str:
        """What stays the same when a USB device comes back on another card number."""
        if self.card is not None:
            return f"CARD={self.card.id},DEV={self.device}"
        return _HW_NAME.sub("", self.name)

    def describe(self) -> str:
        if self.card is not None:
            return f"'{self.label}' ({self.card.facts()})"
        kind = " (USB)" if self.usb else " (HDMI)" if self.hdmi else ""
        return f"'{self.label}'{kind}"


@dataclass(frozen=True)
class DeviceChoice:
    """The device to open, and why it was chosen, in one line for doctor and the journal."""

    direction: Direction
    index: int
    name: str
    key: str
    reason: str
    label: str = ""
    card: Card | None = None
    warn: bool = False
    """Playable but doubtful: only HDMI, where nobody may be listening."""

    @property
    def kind(self) -> str:
        return _KIND[self.direction]

    def fields(self) -> dict[str, str]:
        """Journal fields: KIND, DEVICE, CARD (the ALSA card id, when on a card)."""
        out = {"kind": self.kind, "device": self.name}
        if self.card is not None:
            out["card"] = self.card.id
        return out


@dataclass
class NoDevice(LookupError):
    """Nothing to open for that direction; `message` says what to do."""

    message: str
    busy: list[tuple[Card, Holder]] = field(default_factory=list)
    """Cards that would do but another process holds."""

    def __str__(self) -> str:
        return self.message


def candidates(listing: Listing, cards: list[Card] | None, direction: Direction) -> list[Candidate]:
    """Every listed device that can record (input) or play (output), except the system default itself."""
    by_number = {c.number: c for c in cards or []}
    first = min(cards, key=lambda c: c.number) if cards else None
    out = []
    for index, info in enumerate(listing.devices):
        channels = int(info.get(_CHANNELS[direction], 0) or 0)
        name = str(info.get("name", ""))
        if channels < 1 or name == "default":
            continue
        match = _HW_NAME.search(name)
        card = by_number.get(int(match[1])) if match else None
        out.append(Candidate(index, name, channels, card, int(match[2]) if match else None,
                             first if name == "sysdefault" else None))
    return out


def system_default(listing: Listing, direction: Direction) -> int | None:
    """The index of the system default device for `direction` if it can do it, else None.

    With ALSA that is the pcm named `default` (PortAudio's own default falls back to the first device
    that works, whatever it is); without host API names, PortAudio's default.
    """
    key = _CHANNELS[direction]
    for index, info in enumerate(listing.devices):
        if info.get("name") == "default" and _on_alsa(listing, info):
            return index if int(info.get(key, 0) or 0) > 0 else None
    if listing.hostapis is not None and "ALSA" in listing.hostapis:
        return None  # ALSA's default could not be opened when PortAudio listed the devices
    index = listing.defaults[0 if direction == "input" else 1]
    if index is None or not 0 <= index < len(listing.devices):
        return None
    return index if int(listing.devices[index].get(key, 0) or 0) > 0 else None


def _on_alsa(listing: Listing, info: dict[str, Any]) -> bool:
    if listing.hostapis is None or "hostapi" not in info:
        return True
    api = int(info["hostapi"])
    return 0 <= api < len(listing.hostapis) and listing.hostapis[api] == "ALSA"


def _rank(c: Candidate, previous: str | None) -> tuple[bool, ...]:
    return (c.hdmi,  # HDMI last: on a Pi 5 nothing may be plugged in there
            c.hdmi and c.hardware,  # an HDMI card's own PCM after its plug-ins (vc4 takes only IEC958)
            not c.usb,  # USB first
            not (c.hardware or c.usb or c.name in SERVER_PCMS),  # a card or server before plug-ins
            c.key != previous,  # the same device as before among equals
            not c.hardware)


def choose(listing: Listing, cards: list[Card] | None, direction: Direction, wanted: str | int | None = None,
           previous: str | None = None, self_pid: int | None = None) -> DeviceChoice:
    """The device to open for `direction`; NoDevice (with what to do) when there is none.

    `cards` is /proc/asound (None without it); `previous` the key of the device chosen last time, kept
    among equals so a replugged USB microphone is the same one on its new card number.
    """
    found = sorted(candidates(listing, cards, direction), key=lambda c: (_rank(c, previous), c.index))
    if wanted is not None:
        return _configured(listing, direction, wanted, found)
    default = system_default(listing, direction)
    busy = _busy(cards, found, direction, self_pid)
    if default is not None:
        return _default(listing, cards, direction, default, found, busy)
    if not found:
        kind = _KIND[direction]
        if busy:
            raise NoDevice(f"no {kind} free: {busy_text(*busy[0])}", busy)
        raise NoDevice(f"no {kind} found: plug in a USB {kind}; `{_TOOL[direction]} -l` lists what ALSA sees")
    best = found[0]
    why = f"default cannot {_VERB[direction]}" + (" and only HDMI outputs exist" if best.hdmi else "")
    choice = _pick(best, why, direction, warn=best.hdmi)
    if busy and (busy[0][0].hdmi, not busy[0][0].usb) < (best.hdmi, not best.usb):  # a better one is held
        return replace(choice, reason=f"{choice.reason}; {busy_text(*busy[0])}")
    return choice


def _default(listing: Listing, cards: list[Card] | None, direction: Direction, default: int,
             found: list[Candidate], busy: list[tuple[Card, Holder]]) -> DeviceChoice:
    """The system default, unless it is a Pi's HDMI port while a speaker of another kind is there."""
    name = str(listing.devices[default].get("name", "default"))
    first = min(cards, key=lambda c: c.number) if cards else None
    servers = any(c.name in SERVER_PCMS for c in found)
    if direction == "input" or servers or first is None or not first.hdmi:
        return DeviceChoice(direction, default, name, "default", f"using the system default ('{name}')", "default")
    # Without a sound server ALSA's default is its first card's: on a Pi 5, HDMI port 0.
    others = [c for c in found if c.hardware and not c.hdmi]
    hdmi = f"card {first.number} ('{first.id}', HDMI)"
    if others:
        return _pick(others[0], f"the default plays on {hdmi}", direction)
    advice = busy_text(*busy[0]) if busy else "plug in a USB speaker to hear it in the room"
    return DeviceChoice(direction, default, name, "default", f"only HDMI outputs: using the system default "
                        f"(card {first.number} '{first.id}', HDMI); {advice}", "default", first, warn=True)


def _pick(c: Candidate, why: str, direction: Direction, warn: bool = False) -> DeviceChoice:
    return DeviceChoice(direction, c.index, c.name, c.key, f"{why}: using {c.describe()}", c.label, c.card, warn)


def _configured(listing: Listing, direction: Direction, wanted: str | int, found: list[Candidate]) -> DeviceChoice:
    kind, key = _KIND[direction], _KEY[direction]
    default = system_default(listing, direction)
    if isinstance(wanted, int):
        picked = [c for c in found if c.index == wanted]
        means_default = default == wanted
    else:
        picked = [c for c in found if matches(wanted, c)]
        means_default = default is not None and wanted.strip().lower() == "default"
    if picked:
        return _pick(picked[0], f"configured {wanted!r}", direction)
    if means_default and default is not None:
        return DeviceChoice(direction, default, "default", "default",
                            f"configured {wanted!r}: the system default", "default")
    present = ", ".join(f"'{c.name}'" for c in sorted(found, key=lambda c: c.index)) or "none"
    if default is not None:
        present += ", 'default'"
    raise NoDevice(f"audio.{key} {wanted!r} matches no {kind}; {kind}s here: {present}")


def matches(wanted: str, c: Candidate) -> bool:
    """Whether a configured name means this device: part of its name, its card's id or CARD=<id>[,DEV=<n>]."""
    text = wanted.strip().lower()
    card_id = re.search(r"card=([^,\s]+)", text)
    if card_id:  # plughw:CARD=Device,DEV=0, as `arecord -L` prints it
        if c.card is None or c.card.id.lower() != card_id[1]:
            return False
        dev = re.search(r"dev=(\d+)", text)
        return dev is None or c.device == int(dev[1])
    if c.card is not None and text in (c.card.id.lower(), c.card.name.lower()):
        return True
    return bool(text) and text in c.name.lower()


def _busy(cards: list[Card] | None, found: list[Candidate], direction: Direction,
          self_pid: int | None) -> list[tuple[Card, Holder]]:
    """Cards that could do it but that PortAudio could not list, because another process holds them."""
    listed = {c.card.number for c in found if c.card is not None}
    me = os.getpid() if self_pid is None else self_pid
    out = []
    for card in cards or []:
        if card.number in listed:
            continue
        holders = [h for h in card.holders(direction) if h.pid != me]
        if holders:
            out.append((card, holders[0]))
    return sorted(out, key=lambda pair: (pair[0].hdmi, not pair[0].usb, pair[0].number))


def busy_text(card: Card, holder: Holder) -> str:
    """One line: who holds the card, and what to do about it."""
    what = f"'{card.name}' ({card.facts()})"
    if holder.appliance:
        return f"{what} is in use by the appliance service (pid {holder.pid})"
    if holder.sound_server:
        return (f"{what} is held by {holder.describe()}, a login session's sound server; stop it from using "
                f"that card, or run the hub in that session (docs/audio.md)")
    return f"{what} is held by {holder.describe()}; close that program or choose another device"


def unlisted(listing: Listing, cards: list[Card] | None, direction: Direction) -> list[int]:
    """Free non-HDMI cards that can do `direction` but are missing from PortAudio's list (it is stale)."""
    if cards is None:
        return []
    listed = {c.card.number for c in candidates(listing, cards, direction) if c.card is not None}
    return [card.number for card in cards
            if not card.hdmi and card.number not in listed
            and any(p.direction == direction and p.holder is None for p in card.pcms)]


def busy_advice(error: str, choice: DeviceChoice | None, cards: list[Card] | None,
                self_pid: int | None = None) -> str | None:
    """What to do when opening failed because the device is busy (PortAudio -9985, ALSA EBUSY), else None."""
    lowered = error.lower()
    if "-9985" not in error and "busy" not in lowered and "device unavailable" not in lowered:
        return None
    me = os.getpid() if self_pid is None else self_pid
    if choice is not None and choice.card is not None:
        for card in cards or []:
            if card.id == choice.card.id:
                holders = [h for h in card.holders(choice.direction) if h.pid != me]
                if holders:
                    return busy_text(card, holders[0])
    what = f"'{choice.label}'" if choice is not None else "the device"
    return f"{what} is busy: another program has it open (`fuser -v /dev/snd/*` shows which)"

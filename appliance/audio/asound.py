"""What /proc/asound says: the ALSA cards (number, id, driver, USB or HDMI) and who holds a PCM open."""

from __future__ import annotations

import pwd
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

PROC: Final = Path("/proc")
SOUND_SERVERS: Final = ("pipewire", "wireplumber", "pipewire-pulse", "pulseaudio", "jackd", "jackdbus")
"""Commands of the sound servers that keep a card open for a login session."""

Direction = Literal["input", "output"]

_CARD_LINE = re.compile(r"^\s*(\d+)\s+\[(\S+)\s*\]:\s*(\S.*?)\s+-\s+(.*)$")
_PCM_DIR = re.compile(r"^pcm(\d+)([cp])$")


@dataclass(frozen=True)
class Holder:
    """A process that has a PCM open."""

    pid: int
    command: str
    """Its /proc/PID/comm, e.g. pipewire; "?" when it cannot be read."""
    user: str
    cmdline: str = ""

    @property
    def sound_server(self) -> bool:
        return self.command in SOUND_SERVERS

    @property
    def appliance(self) -> bool:
        """The hub's own service (appliance run), e.g. while doctor looks."""
        return self.command == "appliance" or ("appliance" in self.cmdline and " run" in self.cmdline)

    def describe(self) -> str:
        return f"{self.command} (pid {self.pid}, user {self.user})"


@dataclass(frozen=True)
class Pcm:
    """One PCM device of a card in one direction, and who has its first substream open (None: free)."""

    device: int
    direction: Direction
    holder: Holder | None = None


@dataclass(frozen=True)
class Card:
    """An ALSA sound card as /proc/asound/cards lists it."""

    number: int
    id: str
    """The card's name for ALSA (`plughw:CARD=<id>`): stable when the card comes back on another number."""
    driver: str
    name: str
    long_name: str = ""
    pcms: tuple[Pcm, ...] = ()

    @property
    def usb(self) -> bool:
        return self.driver == "USB-Audio" or " at usb-" in self.long_name

    @property
    def hdmi(self) -> bool:
        return any("hdmi" in text.lower() for text in (self.id, self.driver, self.name))

    def can(self, direction: Direction) -> bool:
        """Whether the card has a PCM for that direction (capture for input, playback for output)."""
        return any(p.direction == direction for p in self.pcms) if self.pcms else True

    def holders(self, direction: Direction) -> list[Holder]:
        return [p.holder for p in self.pcms if p.direction == direction and p.holder is not None]

    def facts(self) -> str:
        """`card 2, USB` and the like, for messages."""
        kind = ", USB" if self.usb else ", HDMI" if self.hdmi else ""
        return f"card {self.number}{kind}"


def parse_cards(text: str) -> list[Card]:
    """The cards of a /proc/asound/cards text, without their PCMs."""
    cards: list[Card] = []
    for line in text.splitlines():
        match = _CARD_LINE.match(line)
        if match:
            number, card_id, driver, name = match.groups()
            cards.append(Card(int(number), card_id, driver.strip(), name.strip()))
        elif cards and line.strip() and not cards[-1].long_name:
            last = cards[-1]
            cards[-1] = Card(last.number, last.id, last.driver, last.name, line.strip())
    return cards


def parse_status(text: str) -> tuple[bool, int | None]:
    """(open, owner pid) from a PCM substream's status file ("closed" when nobody has it)."""
    stripped = text.strip()
    if not stripped or stripped == "closed":
        return False, None
    match = re.search(r"^owner_pid\s*:\s*(\d+)", text, re.M)
    return True, int(match[1]) if match else None


def holder(pid: int | None, proc: Path = PROC) -> Holder:
    """Who process `pid` is: its command and user, as far as /proc shows them."""
    if pid is None:
        return Holder(0, "?", "?")
    try:
        command = (proc / str(pid) / "comm").read_text().strip() or "?"
    except OSError:
        command = "?"
    try:
        raw = (proc / str(pid) / "cmdline").read_bytes()
        cmdline = raw.replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        cmdline = ""
    user = "?"
    try:
        uid_line = re.search(r"^Uid:\s*(\d+)", (proc / str(pid) / "status").read_text(), re.M)
        if uid_line:
            user = _user_name(int(uid_line[1]))
    except OSError:
        pass
    return Holder(pid, command, user, cmdline)


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def read_cards(proc: Path = PROC) -> list[Card] | None:
    """The cards with their PCMs and who holds them; None where there is no /proc/asound (no ALSA driver)."""
    root = proc / "asound"
    try:
        cards = parse_cards((root / "cards").read_text(errors="replace"))
    except OSError:
        return None
    out = []
    for card in cards:
        pcms = []
        try:
            entries = sorted((root / f"card{card.number}").iterdir())
        except OSError:
            entries = []
        for entry in entries:
            match = _PCM_DIR.match(entry.name)
            if not match:
                continue
            try:
                is_open, pid = parse_status((entry / "sub0" / "status").read_text(errors="replace"))
            except OSError:
                is_open, pid = False, None
            pcms.append(Pcm(int(match[1]), "input" if match[2] == "c" else "output",
                            holder(pid, proc) if is_open else None))
        out.append(Card(card.number, card.id, card.driver, card.name, card.long_name, tuple(pcms)))
    return out


def signature(cards: list[Card] | None) -> tuple[tuple[int, str, tuple[tuple[int, str], ...]], ...] | None:
    """What PortAudio's list of devices depends on: which card is on which number, with which PCMs."""
    if cards is None:
        return None
    return tuple((c.number, c.id, tuple((p.device, p.direction) for p in c.pcms)) for c in cards)

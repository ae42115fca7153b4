"""Text made for speaking: markdown, emoji and URLs removed, symbols Piper reads badly spelled out."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

# Symbol-like characters a voice should still say (espeak-ng reads them well, or they are
# spelled out below before emoji are dropped).
_KEEP_SYMBOLS: Final = frozenset("©®™°℃℉")
_INVISIBLE: Final = frozenset("\u200b\u200c\u200d\u2060\ufeff\u20e3")  # zero-width joiners, keycap

_NUMBER: Final = r"\d+(?:[.,]\d+)*"
_SCALE: Final = r"(?:\s+(?:thousand|million|billion|trillion))?"

# Units after a number that espeak-ng spells letter by letter ("5 km" -> "five K M").
_UNITS: Final = {
    "km/h": "kilometres per hour", "m/s": "metres per second", "kWh": "kilowatt hours",
    "kW": "kilowatts", "km": "kilometres", "kg": "kilograms", "cm": "centimetres",
    "mm": "millimetres", "ml": "millilitres", "mg": "milligrams", "lbs": "pounds",
    "lb": "pounds", "oz": "ounces", "ft": "feet", "hrs": "hours", "mins": "minutes",
}
_FRACTIONS: Final = {"1/2": "a half", "1/3": "a third", "2/3": "two thirds",
                     "1/4": "a quarter", "3/4": "three quarters"}
_CURRENCIES: Final = {"$": ("dollar", "dollars"), "€": ("euro", "euros"), "£": ("pound", "pounds")}

# Plain replacements, applied after the markdown is gone (order matters little: no overlaps).
_SPELLED: Final = [
    (re.compile(r"\s*(?:→|->|⟶|=>)\s*"), " to "),
    (re.compile(r"\s*(?:←|<-)\s*"), " from "),
    (re.compile(r"\s*[℃]"), " degrees Celsius"),
    (re.compile(r"\s*[℉]"), " degrees Fahrenheit"),
    (re.compile(r"\s*[°º]\s*C\b"), " degrees Celsius"),
    (re.compile(r"\s*[°º]\s*F\b"), " degrees Fahrenheit"),
    (re.compile(r"(?<=\d)\s*[°º]"), " degrees"),
    (re.compile(r"[°º]"), " degrees "),
    (re.compile(r"\s*%"), " percent"),
    (re.compile(r"\s*&\s*"), " and "),
    (re.compile(r"\s*\+\s*"), " plus "),
    (re.compile(r"\s*±\s*"), " plus or minus "),
    (re.compile(r"\s*(?:≈|~=)\s*"), " about "),
    (re.compile(r"\s*[≠]\s*"), " is not "),
    (re.compile(r"\s*[≤]\s*|\s*<=\s*"), " at most "),
    (re.compile(r"\s*[≥]\s*|\s*>=\s*"), " at least "),
    (re.compile(r"\s*=+\s*"), " equals "),
    (re.compile(r"\s*×\s*"), " times "),
    (re.compile(r"\s*÷\s*"), " divided by "),
    (re.compile(r"(?<=\d)\s*<\s*(?=\d)"), " is less than "),
    (re.compile(r"(?<=\d)\s*>\s*(?=\d)"), " is more than "),
    (re.compile(r"~\s*(?=\d)"), "about "),
    (re.compile(r"~"), " "),
    (re.compile(r"(?<=\w)@(?=\w)"), " at "),
    (re.compile(r"#\s*(?=\d)"), "number "),
    (re.compile(r"#"), " "),
    (re.compile(r"\bi\.e\.", re.IGNORECASE), "that is"),
    (re.compile(r"\be\.g\.", re.IGNORECASE), "for example"),
    (re.compile(r"\bvs\.?(?=\s)", re.IGNORECASE), "versus"),
]

_FENCE: Final = re.compile(r"(?:`{3,}|~{3,})[\w+#.-]*")
_INLINE_CODE: Final = re.compile(r"`+([^`\n]*?)`+")
_IMAGE: Final = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_LINK: Final = re.compile(r"\[([^\]\n]+)\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_AUTOLINK: Final = re.compile(r"<(?:https?|ftp|mailto):[^>\s]*>", re.IGNORECASE)
_URL: Final = re.compile(r"(?<![A-Za-z0-9])(?:(?:https?|ftp)://|www\.)[^\s<>()\[\]\"']*[^\s<>()\[\]\"'.,;:!?]",
                         re.IGNORECASE)
_ESCAPE: Final = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~>])")
_BOLD: Final = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_ITALIC_STAR: Final = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]*?)(?<=[^\s*])\*(?![\w*])")
_ITALIC_UNDER: Final = re.compile(r"(?<![\w])_(?=\S)([^_\n]*?)(?<=\S)_(?![\w])")
_STRIKE: Final = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HEADING: Final = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET: Final = re.compile(r"^\s*(?:[-*+•‣◦▪]\s+|\d{1,3}[.)]\s+(?=[A-Z*_`\[\"']))(.*)$")
_QUOTE: Final = re.compile(r"^\s*(?:>\s?)+")
_RULE: Final = re.compile(r"^\s*(?:[-*_=]\s*){3,}$")
_TABLE_RULE: Final = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_RANGE: Final = re.compile(rf"(?<![\d\-/.])({_NUMBER})\s*[-–]\s*({_NUMBER})(?![\d\-/])")
_CURRENCY: Final = re.compile(rf"([$€£])[$€£\s]*({_NUMBER})({_SCALE})")
_SLASH_NUMBERS: Final = re.compile(r"(?<![\d/])(\d+)/(\d+)(?![\d/])")
_SLASH_WORDS: Final = re.compile(r"(?<=[A-Za-z])\s*/\s*(?=[A-Za-z])")
_END_PUNCT: Final = ".!?:;,"


def for_speech(text: str) -> str:
    """Plain, speakable text: markdown, emoji and URLs gone, awkward symbols spelled out.

    Works on whole answers and on single streamed sentences alike; an empty result means
    there is nothing to say (an emoji alone, a bare link).
    """
    text = unicodedata.normalize("NFC", text)
    text = _ESCAPE.sub(lambda m: _escaped(m.group(1)), text)
    text = _FENCE.sub("\n", text)
    text = _INLINE_CODE.sub(r"\1", text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _AUTOLINK.sub("", text)
    text = _URL.sub("", text)
    text = _lines(text)
    text = _BOLD.sub(r"\2", text)
    text = _STRIKE.sub(r"\1", text)
    text = _ITALIC_STAR.sub(r"\1", text)
    text = _ITALIC_UNDER.sub(r"\1", text)
    text = re.sub(r"(?<=\d)\s*[×x*]\s*(?=\d)", " times ", text)
    text = re.sub(r"[*_`|\[\]{}\\^]", " ", text)  # markdown left over
    text = _drop_emoji(text)
    text = _numbers(text)
    for pattern, spoken in _SPELLED:
        text = pattern.sub(spoken, text)
    text = re.sub(r"[<>]", " ", text)
    text = re.sub(r"\s*[()]\s*", ", ", text)  # a parenthesis is a pause, not a word
    text = re.sub(r"(?:^|\s+)[-–—]+(?=[\s,.;:!?]|$)|—", ", ", text)  # a dash between words is a pause
    text = _SLASH_WORDS.sub(" or ", text)
    return _tidy(text)


def _escaped(char: str) -> str:
    """A backslash-escaped markdown character, kept as the plain character it stands for."""
    return {"*": " ", "_": " ", "`": " ", "\\": " ", "|": ","}.get(char, char)


def _lines(text: str) -> str:
    """Line-level markdown: headings, bullets, quotes, rules and tables become sentences."""
    out: list[str] = []
    for raw in text.splitlines():
        line = _QUOTE.sub("", raw)
        if _RULE.match(line) or _TABLE_RULE.match(line):
            continue
        item = _HEADING.match(line) or _BULLET.match(line)
        if item:
            line = item.group(1)
        if line.strip().startswith("|") or line.strip().endswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            line = ", ".join(c for c in cells if c)
            item = item or True
        line = line.strip()
        if not line:
            continue
        if item and line[-1] not in _END_PUNCT:
            line += "."  # a pause after each list item, heading or table row
        out.append(line)
    return " ".join(out)


def _drop_emoji(text: str) -> str:
    """Remove emoji, pictographs, dingbats and their joiners; keep letters, digits and © ® ™ °."""
    kept = []
    for char in text:
        if char in _KEEP_SYMBOLS:
            kept.append(char)
            continue
        if char in _INVISIBLE or 0xFE00 <= ord(char) <= 0xFE0F or 0xE0020 <= ord(char) <= 0xE007F:
            continue
        category = unicodedata.category(char)
        if category in ("So", "Sk", "Cs", "Co", "Cn") and char != "^":
            kept.append(" ")
            continue
        kept.append(char)
    return "".join(kept)


def _numbers(text: str) -> str:
    """Currencies, units, ranges, fractions and slashes around numbers and words."""
    def money(m: re.Match[str]) -> str:
        one, many = _CURRENCIES[m.group(1)]
        amount, scale = m.group(2), m.group(3)
        return f"{amount}{scale} {one if amount == '1' and not scale else many}"

    text = _CURRENCY.sub(money, text)
    for unit, spoken in _UNITS.items():
        text = re.sub(rf"(?<=\d)\s*{re.escape(unit)}\b", f" {spoken}", text)
    text = _RANGE.sub(r"\1 to \2", text)
    text = _SLASH_NUMBERS.sub(_fraction, text)
    return text


def _fraction(m: re.Match[str]) -> str:
    whole = f"{m.group(1)}/{m.group(2)}"
    if whole in _FRACTIONS:
        return _FRACTIONS[whole]
    return f"{m.group(1)} out of {m.group(2)}"


def _strongest(m: re.Match[str]) -> str:
    """One mark for a run of punctuation left by removed pieces: the sentence end wins."""
    marks = m.group(0).replace(" ", "")
    for mark in "?!.":
        if mark in marks:
            return mark
    return marks[0]


def _tidy(text: str) -> str:
    """Collapse whitespace and the punctuation left behind by removed pieces."""
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    text = re.sub(r"[.,;:!?](?:\s*[.,;:!?])+", _strongest, text)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"^[.,;:!?\s-]+", "", text)
    return re.sub(r"[\s,;:]+$", "", text)

"""Text made for speaking: markdown, emoji and URLs removed, symbols Piper reads badly spelled out."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final

from appliance.language import SpeechWords, pack

# Symbol-like characters a voice should still say (espeak-ng reads them well, or the language
# pack spells them out once emoji are dropped).
_KEEP_SYMBOLS: Final = frozenset("©®™°℃℉")
_INVISIBLE: Final = frozenset("\u200b\u200c\u200d\u2060\ufeff\u20e3")  # zero-width joiners, keycap

_NUMBER: Final = r"\d+(?:[.,]\d+)*"

_FENCE: Final = re.compile(r"(?:`{3,}|~{3,})[\w+#.-]*")
_INLINE_CODE: Final = re.compile(r"`+([^`\n]*?)`+")
_IMAGE: Final = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_LINK: Final = re.compile(r"\[([^\]\n]+)\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_AUTOLINK: Final = re.compile(r"<(?:https?|ftp|mailto):[^>\s]*>", re.IGNORECASE)
_URL: Final = re.compile(r"(?<![A-Za-z0-9])(?:(?:https?|ftp)://|www\.)(?:[^\s<>()\[\]\"']*[^\s<>()\[\]\"'.,;:!?])?",
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
_RANGE: Final = re.compile(rf"(?<![\d\-/.])({_NUMBER})((?:\s*[-–]\s*{_NUMBER})+)(?![\d\-/])")
"""Numbers joined by dashes; only two of them are a range ("3-4 days"): a longer chain is a code or a
date, left as it is (and so the same however often the text is cleaned)."""
_DASH: Final = re.compile(r"\s*[-–]\s*")
_SLASH_NUMBERS: Final = re.compile(r"(?<![\d/])(\d+)/(\d+)(?![\d/])")
_SLASH_WORDS: Final = re.compile(r"(?<=[A-Za-z])\s*/\s*(?=[A-Za-z])")
_END_PUNCT: Final = ".!?:;,"


def for_speech(text: str, words: SpeechWords | None = None) -> str:
    """Plain, speakable text: markdown, emoji and URLs gone, awkward symbols spelled out in `words`
    (the default pack's unless given).

    Works on whole answers and on single streamed sentences alike; an empty result means
    there is nothing to say (an emoji alone, a bare link).
    """
    words = words or pack().speech
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
    text = re.sub(r"(?<=\d)\s*[×x*]\s*(?=\d)", words.times, text)
    text = re.sub(r"[*_`|\[\]{}\\^]", " ", text)  # markdown left over
    text = _drop_emoji(text)
    text = _numbers(text, words)
    for pattern, spoken in words.spelled:
        text = pattern.sub(spoken, text)
    text = re.sub(r"[<>]", " ", text)
    text = re.sub(r"\s*[()]\s*", ", ", text)  # a parenthesis is a pause, not a word
    text = re.sub(r"(?:^|\s+)[-–—]+(?=[\s,.;:!?]|$)|—", ", ", text)  # a dash between words is a pause
    text = _SLASH_WORDS.sub(words.or_, text)
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


@dataclass(frozen=True)
class _NumberPatterns:
    """A pack's currency and unit patterns, compiled once: for_speech runs on every sentence spoken."""

    currency: re.Pattern[str]
    units: tuple[tuple[re.Pattern[str], str], ...]


_COMPILED: dict[int, tuple[SpeechWords, _NumberPatterns]] = {}
"""By pack: a pack is built once and kept (language.pack), so it is compiled once."""


def _patterns(words: SpeechWords) -> _NumberPatterns:
    kept = _COMPILED.get(id(words))
    if kept is None or kept[0] is not words:
        symbols = re.escape("".join(words.currencies))
        scale = rf"(?:\s+(?:{'|'.join(words.scales)}))?"
        patterns = _NumberPatterns(
            re.compile(rf"([{symbols}])[{symbols}\s]*({_NUMBER})({scale})"),
            tuple((re.compile(rf"(?<=\d)\s*{re.escape(unit)}\b"), f" {spoken}")
                  for unit, spoken in words.units.items()))
        kept = _COMPILED[id(words)] = (words, patterns)
    return kept[1]


def _numbers(text: str, words: SpeechWords) -> str:
    """Currencies, units, ranges, fractions and slashes around numbers and words."""
    def money(m: re.Match[str]) -> str:
        one, many = words.currencies[m.group(1)]
        amount, scale = m.group(2), m.group(3)
        return f"{amount}{scale} {one if amount == '1' and not scale else many}"

    def number_range(m: re.Match[str]) -> str:
        rest = _DASH.split(m.group(2))[1:]
        return f"{m.group(1)}{words.range_to}{rest[0]}" if len(rest) == 1 else m.group(0)

    def fraction(m: re.Match[str]) -> str:
        whole = f"{m.group(1)}/{m.group(2)}"
        if whole in words.fractions:
            return words.fractions[whole]
        return words.out_of.format(a=m.group(1), b=m.group(2))

    patterns = _patterns(words)
    text = patterns.currency.sub(money, text)
    for unit, spoken in patterns.units:
        text = unit.sub(spoken, text)
    text = _RANGE.sub(number_range, text)
    return _SLASH_NUMBERS.sub(fraction, text)


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

"""Checking YAML text against frozen dataclasses: every problem found at once, each with its key and line.

A dataclass field may carry metadata (`bounded`): "lo" and "hi" bound its numbers, "exists" says
a path must exist (a relative one is taken from the config file's folder).
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml

_T = TypeVar("_T")


def bounded(default: Any, lo: float | None = None, hi: float | None = None, *, exists: bool = False) -> Any:
    """A dataclass field with an allowed range and, for paths, a must-exist rule (Validator checks them)."""
    meta = {"lo": lo, "hi": hi, "exists": exists}
    if isinstance(default, (list, dict)):
        return dataclasses.field(default_factory=lambda: type(default)(default), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a config file, by dotted key and, when known, line and column."""

    key: str
    message: str
    line: int | None = None
    column: int | None = None

    def render(self, source: str) -> str:
        where = source
        if self.line is not None:
            where += f" line {self.line}"
            if self.column is not None:
                where += f" column {self.column}"
        prefix = f"{self.key}: " if self.key else ""
        return f"{prefix}{self.message} ({where})"


class Validator:
    """Walks the YAML data beside the schema, collecting every problem with its line."""

    def __init__(self, base_dir: Path | None) -> None:
        self.base_dir = base_dir
        self.problems: list[Problem] = []
        self.lines: dict[str, int] = {}

    def load(self, text: str, schema: type[_T]) -> _T | None:
        """The schema dataclass built from YAML text; None when the text is not a YAML mapping.

        Problems are in self.problems; when the text cannot be read as YAML, there is exactly one.
        """
        try:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark else None
            col = mark.column + 1 if mark else None
            what = exc.problem or exc.context or "invalid YAML"
            self.problems.append(Problem("", f"YAML syntax error: {what}", line, col))
            return None
        except yaml.YAMLError as exc:
            self.problems.append(Problem("", f"YAML error: {exc}"))
            return None
        if node is None:
            self.problems.append(
                Problem("", "the file is empty; it must be a mapping of sections such as 'llm:'"))
            return None
        if not isinstance(node, yaml.MappingNode):
            self.problems.append(
                Problem("", "the file must be a mapping of sections (like 'llm:'), not a " + _node_kind(node),
                        node.start_mark.line + 1, node.start_mark.column + 1))
            return None
        try:
            data = yaml.load(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:  # a tag SafeLoader refuses, for example
            mark = getattr(exc, "problem_mark", None)
            self.problems.append(Problem("", f"YAML error: {getattr(exc, 'problem', exc)}",
                                         mark.line + 1 if mark else None))
            return None
        self.index(node, "")
        return self.build(schema, data, "")

    def index(self, node: yaml.Node, prefix: str) -> None:
        """Record the line of every key; report duplicated keys (YAML would keep only the last)."""
        if isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                self.lines.setdefault(f"{prefix}[{i}]", item.start_mark.line + 1)
                self.index(item, f"{prefix}[{i}]")
            return
        if not isinstance(node, yaml.MappingNode):
            return
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            dotted = f"{prefix}.{key}" if prefix else key
            if key in seen:
                self.problems.append(Problem(dotted, "appears twice; keep one", key_node.start_mark.line + 1))
            seen.add(key)
            self.lines.setdefault(dotted, key_node.start_mark.line + 1)
            self.index(value_node, dotted)

    def add(self, key: str, message: str) -> None:
        """A problem with `key`, at the line the key was written on."""
        self.problems.append(Problem(key, message, self.lines.get(key)))

    def build(self, cls: type, data: Any, prefix: str) -> Any:
        """An instance of the dataclass `cls` from the mapping `data`, leaving out every wrong value."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            self.add(prefix, f"must be a mapping of settings, got {_describe(data)}")
            return cls()
        hints = typing.get_type_hints(cls)
        fields = {f.name: f for f in dataclasses.fields(cls) if f.name != "source"}
        values: dict[str, Any] = {}
        for raw_key, value in data.items():
            key = str(raw_key)
            dotted = f"{prefix}.{key}" if prefix else key
            if key not in fields:
                hint = difflib.get_close_matches(key, list(fields), n=1, cutoff=0.6)
                where = f"section '{prefix}'" if prefix else "the top level"
                msg = f"unknown key in {where}"
                msg += f"; did you mean '{hint[0]}'?" if hint else f"; known keys: {', '.join(fields)}"
                self.add(dotted, msg)
                continue
            typ = hints[key]
            if dataclasses.is_dataclass(typ):
                values[key] = self.build(typ, value, dotted)
                continue
            item = typing.get_args(typ)[0] if typing.get_origin(typ) is list else None
            if item is not None and dataclasses.is_dataclass(item):
                values[key] = self.build_list(item, value, dotted)
                continue
            ok, converted = self.check(typ, value, dotted, fields[key].metadata)
            if ok:
                values[key] = converted
        return cls(**values)

    def build_list(self, cls: type, data: Any, prefix: str) -> list[Any]:
        """A list of `cls` instances from a YAML list of mappings (each reported as prefix[i])."""
        if data is None:
            return []
        if not isinstance(data, list):
            self.add(prefix, f"must be a list of mappings of settings, got {_describe(data)}")
            return []
        built = []
        for i, item in enumerate(data):
            if isinstance(item, dict):
                built.append(self.build(cls, item, f"{prefix}[{i}]"))
            else:
                self.add(f"{prefix}[{i}]", f"must be a mapping of settings, got {_describe(item)}")
        return built

    def check(self, typ: Any, value: Any, key: str, meta: Any) -> tuple[bool, Any]:
        """(ok, value converted to `typ`), checked against the field's range and must-exist rule."""
        ok, converted, expected = _convert(typ, value)
        if not ok:
            self.add(key, f"must be {expected}, got {_describe(value)}")
            return False, None
        if converted is None:
            return True, None
        lo, hi = meta.get("lo"), meta.get("hi")
        numbers = converted if isinstance(converted, list) else [converted]
        for number in numbers:
            if not isinstance(number, (int, float)) or isinstance(number, bool):
                continue
            if (lo is not None and number < lo) or (hi is not None and number > hi):
                self.add(key, f"must be between {format_number(lo)} and {format_number(hi)}, "
                              f"got {format_number(number)}")
                return False, None
        if meta.get("exists") and isinstance(converted, str):
            try:
                path = Path(converted).expanduser()
            except RuntimeError:  # "~name" where no user of that name has a home here
                self.add(key, f"{converted!r} starts with a home directory ('~') that this machine does not "
                              f"have; write the whole path")
                return False, None
            if not path.is_absolute() and self.base_dir is not None:
                path = self.base_dir / path
            if not path.exists():
                self.add(key, f"path does not exist: {path}")
                return False, None
            converted = str(path)
        return True, converted


def format_number(x: Any) -> str:
    """A bound or value as people write it: 3 rather than 3.0, and "any" for no bound."""
    if x is None:
        return "any"
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return str(x)


def _node_kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.SequenceNode):
        return "list"
    if isinstance(node, yaml.ScalarNode):
        return f"single value ({node.value!r})"
    return "mapping"


def _describe(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def _convert(typ: Any, value: Any) -> tuple[bool, Any, str]:
    """(ok, converted value, what was expected) for a value against a type annotation."""
    origin = typing.get_origin(typ)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(typ)
        if value is None:
            return (type(None) in args), None, _expect(typ)
        for arg in args:
            if arg is type(None):
                continue
            ok, conv, _ = _convert(arg, value)
            if ok:
                return True, conv, ""
        return False, None, _expect(typ)
    if origin is Literal:
        choices = typing.get_args(typ)
        for choice in choices:
            if value == choice and type(value) is type(choice):
                return True, value, ""
        return False, None, "one of " + ", ".join(repr(c) for c in choices)
    if origin is list:
        (item,) = typing.get_args(typ)
        if not isinstance(value, list):
            return False, None, _expect(typ)
        out = []
        for v in value:
            ok, conv, _ = _convert(item, v)
            if not ok:
                return False, None, _expect(typ)
            out.append(conv)
        return True, out, ""
    if typ is bool:
        return isinstance(value, bool), value, "true or false"
    if typ is int:
        return (isinstance(value, int) and not isinstance(value, bool)), value, "a whole number"
    if typ is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if isinstance(value, float) and not math.isfinite(value):
                return False, None, "a finite number"
            return True, float(value), ""
        return False, None, "a number"
    if typ is str:
        return isinstance(value, str), value, "text"
    return False, None, str(typ)


def _expect(typ: Any) -> str:
    origin = typing.get_origin(typ)
    if origin in (typing.Union, types.UnionType):
        parts = [_expect(a) for a in typing.get_args(typ) if a is not type(None)]
        text = " or ".join(parts)
        if type(None) in typing.get_args(typ):
            text += " or null"
        return text
    if origin is list:
        return f"a list of {_expect(typing.get_args(typ)[0]).removeprefix('a ')}s"
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text"}.get(typ, str(typ))

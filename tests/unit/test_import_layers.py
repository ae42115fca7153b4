"""The import graph of appliance/: no circles, and every import goes down the parts (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

PACKAGE: Final = Path(__file__).resolve().parents[2] / "appliance"

# The parts, highest first. A module may import its own part and the parts below it. The stages and
# the links are one rank of separate parts: none of them imports another (what two of them share
# lives in Ground). "appliance" is the package's __init__ only; every other name is a module or a
# folder with everything in it.
LAYERS: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    ("Face", ("appliance.cli", "appliance.commands")),
    ("Assembly", ("appliance.assembly",)),
    ("Service", ("appliance.service",)),
    ("Turn", ("appliance.conversation",)),
    ("Stages/Links", ("appliance.hearing", "appliance.thinking", "appliance.speaking", "appliance.links")),
    ("Audio", ("appliance.audio",)),
    ("Ground", ("appliance", "appliance.chunk", "appliance.config", "appliance.config_validation",
                "appliance.config_wyoming", "appliance.contracts", "appliance.errors", "appliance.language",
                "appliance.log",
                "appliance.state_file", "appliance.wake_name", "appliance.setup")),
)
SEPARATE_PARTS: Final = frozenset({"Stages/Links"})
"""Ranks whose parts do not import each other."""

EXCEPTIONS: Final[dict[tuple[str, str], str]] = {
    ("appliance.links.wyoming_services", "appliance.speaking.textclean"):
        "the services port reads Home Assistant's text aloud as the hub's own answers are read: "
        "cleaned for speech by the one cleaner (a function of text alone, no engine)",
}
"""Imports allowed against the parts, each with its reason (the same as in docs/architecture.md)."""


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES: Final = _modules()


def _known(name: str) -> str:
    """The module an imported name runs: itself, else the nearest package or module holding it."""
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def _targets(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The appliance modules one import statement (or a constant importlib.import_module) names."""
    if isinstance(node, ast.Import):
        return [_known(a.name) for a in node.names if a.name.split(".")[0] == "appliance"]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[:len(base) - node.level + 1]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        if source.split(".")[0] != "appliance":
            return []
        named = [f"{source}.{a.name}" for a in node.names]
        return [name if name in MODULES else _known(source) for name in named]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module" and node.args):
        arg = node.args[0]
        if isinstance(arg, ast.JoinedStr) and arg.values:  # f"appliance.commands.{name}": its package
            arg = arg.values[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                return [_known(arg.value.rstrip("."))] if arg.value.startswith("appliance.") else []
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("appliance"):
            return [_known(arg.value)]
    return []


def _imports() -> dict[str, dict[str, int]]:
    """module -> {imported module: first line}: imports at the top, in functions and under TYPE_CHECKING."""
    graph: dict[str, dict[str, int]] = {}
    for module, path in MODULES.items():
        edges: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            for target in _targets(node, module, path.name == "__init__.py"):
                if target != module:
                    edges.setdefault(target, node.lineno)  # type: ignore[attr-defined]
        graph[module] = edges
    return graph


def _place(module: str) -> tuple[int, str, str]:
    """(rank, layer, part) of a module; rank 0 is the top."""
    best: tuple[int, str, str] | None = None
    for rank, (layer, parts) in enumerate(LAYERS):
        for part in parts:
            if module == part or (part != "appliance" and module.startswith(part + ".")):
                if best is None or len(part) > len(best[2]):
                    best = (rank, layer, part)
    assert best is not None, f"{module} is in no part: add it to LAYERS here and to docs/architecture.md"
    return best


def _cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One circle of imports as [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_every_module_is_in_one_part() -> None:
    for module in MODULES:
        _place(module)


def test_no_import_circles() -> None:
    graph = _imports()
    cycle = _cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(
        f"{a} (line {graph[a][b]})" for a, b in zip(cycle, cycle[1:])) + f" -> {cycle[-1]}"


def test_imports_go_down_the_parts() -> None:
    wrong, used = [], set()
    for module, edges in sorted(_imports().items()):
        rank, layer, part = _place(module)
        for target, line in sorted(edges.items()):
            to_rank, to_layer, to_part = _place(target)
            upward = to_rank < rank
            sideways = to_rank == rank and layer in SEPARATE_PARTS and to_part != part
            if not (upward or sideways):
                continue
            if (module, target) in EXCEPTIONS:
                used.add((module, target))
                continue
            how = "up to" if upward else "sideways to"
            where = MODULES[module].relative_to(PACKAGE.parent)
            wrong.append(f"{where}:{line}: {module} ({layer}) imports {how} {target} ({to_layer})")
    assert not wrong, "imports against the parts:\n" + "\n".join(wrong)
    assert used == set(EXCEPTIONS), f"exceptions no longer needed: {sorted(set(EXCEPTIONS) - used)}"


def test_the_checker_sees_deferred_and_type_only_imports() -> None:
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from appliance.config import Config\n"
              "def f():\n    from appliance.setup import models\n    import appliance.errors\n")
    found = [t for node in ast.walk(ast.parse(source)) for t in _targets(node, "appliance.x", False)]
    assert sorted(found) == ["appliance.config", "appliance.errors", "appliance.setup.models"]
    assert _cycle({"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}}) == ["a", "b", "c", "a"]

"""Every arrow points one way: no import cycle between any two modules of ours (imports inside functions
count), and no import of ours hidden inside a function unless a comment beside it says why.

import-linter (`make lint`, contracts in pyproject.toml) checks the layers; this checks what it does not.
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
OURS = ("htrbrowser", "campaigns", "results", "core", "devstack")


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, round and round (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in edges.get(module, ()):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                group.append(other)
                if other == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return groups


def test_strongly_connected_finds_a_cycle_and_nothing_else():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_no_module_of_ours_imports_itself_round_a_cycle(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    graph = grimp.build_graph(*OURS, cache_dir=None)
    edges = {
        module: {other for other in graph.find_modules_directly_imported_by(module) if other.split(".")[0] in OURS}
        for module in graph.modules
    }
    assert strongly_connected(edges) == []


def hidden_imports(source: str) -> list[int]:
    """Lines of imports of our packages inside a function, with no comment on that line or the one above."""
    lines = source.splitlines()
    found = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            if not any(name.split(".")[0] in OURS for name in names):
                continue
            here, above = lines[node.lineno - 1], lines[node.lineno - 2] if node.lineno > 1 else ""
            if "#" not in here and not above.strip().startswith("#"):
                found.append(node.lineno)
    return sorted(set(found))


def test_hidden_imports_are_found_and_commented_ones_are_not():
    assert hidden_imports("def f():\n    from campaigns import kube\n") == [2]
    assert hidden_imports("def f():\n    # why: loaded late\n    from campaigns import kube\n") == []
    assert hidden_imports("def f():\n    import json\n") == []


def test_no_import_of_ours_hides_in_a_function_without_saying_why():
    hidden = {}
    for package in OURS:
        for path in sorted((ROOT / package).rglob("*.py")):
            lines = hidden_imports(path.read_text())
            if lines:
                hidden[str(path.relative_to(ROOT))] = lines
    assert hidden == {}


def test_product_modules_are_read_in_one_sitting():
    """No product module over 600 lines and no product function over 60 (the devstack, tests and
    benchmarks may read straight through a scene)."""
    too_long = []
    for package in ("htrbrowser", "campaigns", "results", "core"):
        for path in sorted((ROOT / package).rglob("*.py")):
            source = path.read_text()
            name = str(path.relative_to(ROOT))
            if len(source.splitlines()) > 600:
                too_long.append((name, len(source.splitlines())))
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = node.end_lineno - node.lineno + 1
                    if length > 60:
                        too_long.append((f"{name}:{node.name}", length))
    assert too_long == []

"""The models sit below the volume list's parts, the wording and everything that reads them:
nothing ``campaigns.models`` imports imports it back, and no import among the models, the volume
list and the wording hides in a function (the import cycle they once formed cannot come back
unseen)."""

from __future__ import annotations

import ast
from pathlib import Path

import campaigns

CAMPAIGNS = Path(campaigns.__file__).parent
PROJECT = ("campaigns", "results", "htrbrowser", "core", "devstack")


def _module_file(name: str) -> Path | None:
    base = CAMPAIGNS.parent.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(module, at the top level) of each project import in a file."""
    tree = ast.parse(path.read_text())
    top = set(tree.body)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] in PROJECT and _module_file(name) is not None:
                found.append((name, node in top))
    return found


def test_no_import_among_the_models_the_volume_list_and_the_wording_hides_in_a_function():
    paths = [
        CAMPAIGNS / "models.py",
        CAMPAIGNS / "volume_list.py",
        CAMPAIGNS / "projection" / "volume_parts.py",
        *sorted((CAMPAIGNS / "wording").glob("*.py")),
    ]
    for path in paths:
        hidden = [name for name, at_top in _imports(path) if not at_top]
        assert hidden == [], path.name


def test_nothing_the_models_import_imports_the_models_back():
    seen: set[str] = set()
    waiting = [name for name, _ in _imports(CAMPAIGNS / "models.py")]
    while waiting:
        name = waiting.pop()
        path = _module_file(name)
        if name in seen or path is None:
            continue
        seen.add(name)
        waiting.extend(each for each, _ in _imports(path))
    assert "campaigns.models" not in seen, sorted(seen)

"""The wording sits between the domain and the presentation: it imports only the models, the contract,
the kubectl lines and the times said to a reader (core/, below both apps), Django's own translation and
locale formats, and the standard library."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import campaigns

CAMPAIGNS = Path(campaigns.__file__).parent
PROJECT = ("campaigns", "results", "htrbrowser", "core", "devstack")
ALLOWED = ("campaigns.models", "core", "core.contract", "core.kubectl", "core.quality", "core.times")
# What of Django the words may use: the active language and zone, and locale formats; nothing that reads.
DJANGO = ("django.utils.translation", "django.utils.formats", "django.utils.functional", "django.utils.timezone")


def _module_file(name: str) -> Path | None:
    parts = name.split(".")
    base = CAMPAIGNS.parent.joinpath(*parts)
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


def _wording_files() -> list[Path]:
    return sorted((CAMPAIGNS / "wording").glob("*.py"))


def test_wording_imports_only_the_models_core_and_the_standard_library():
    for path in _wording_files():
        for name, _ in _imports(path):
            allowed = name in ALLOWED or name.startswith(("campaigns.wording", "campaigns.models."))
            assert allowed, (path.name, name)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules = [node.module]
                if node.module == "django.utils":  # from django.utils import timezone
                    modules = [f"django.utils.{alias.name}" for alias in node.names]
            else:
                continue
            for module in modules:
                root = module.split(".")[0]
                known = root in ("campaigns", "core") or root in sys.stdlib_module_names or module in DJANGO
                assert known, (path.name, module)


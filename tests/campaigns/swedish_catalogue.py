"""The project's Swedish catalogue, compiled for one test from locale/sv's .po (what the translators wrote).

The compiled .mo is not in git (``make messages`` writes it), so a copy of the tree made from git's files, such
as ``make mutation``'s, has none; compiling the .po into the test's own folder lets a test read the Swedish
sentences in either tree, and always as the .po says them now.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.test import override_settings
from django.utils import translation

PO = Path(__file__).resolve().parents[2] / "locale" / "sv" / "LC_MESSAGES" / "django.po"


@contextmanager
def swedish(folder: Path) -> Iterator[None]:
    """Swedish from the project's catalogue, compiled into ``folder``, active inside the block."""
    msgfmt = shutil.which("msgfmt")
    assert msgfmt, "msgfmt (GNU gettext) is missing: `make gettext` installs it"
    compiled = folder / "sv" / "LC_MESSAGES"
    compiled.mkdir(parents=True, exist_ok=True)
    subprocess.run([msgfmt, "-o", str(compiled / "django.mo"), str(PO)], check=True, timeout=30)
    with override_settings(LOCALE_PATHS=[folder]), translation.override("sv"):
        yield

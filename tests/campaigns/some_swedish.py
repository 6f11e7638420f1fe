"""A few Swedish words for a test, as if the catalogue (locale/sv, written after the marking) had them.

``pretend_swedish(monkeypatch, {"Created": "Skapad"})`` puts each msgid into the Swedish translation Django has
loaded, for this test only, so a test can tell whose language a page or a memory of words is in before the
catalogue exists (and whatever it says once it does). A msgid with a context is ``"context\\x04msgid"``
(``in_context``).
"""

from __future__ import annotations

from django.utils.translation import trans_real


def in_context(context: str, msgid: str) -> str:
    """The catalogue's key of a pgettext message."""
    return f"{context}\x04{msgid}"


def pretend_swedish(monkeypatch, words: dict[str, str]) -> None:
    catalog = trans_real.translation("sv")._catalog._catalogs[0]
    for msgid, msgstr in words.items():
        monkeypatch.setitem(catalog, msgid, msgstr)

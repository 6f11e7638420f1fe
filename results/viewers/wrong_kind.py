"""What the viewers say of a file that is not what they show (issue 39): one true sentence, from what its bytes
are (``results.formats.kinds``), for a run log or an image opened as ALTO, an image opened as a run log, an
empty ALTO file and one cut off while it was written. No other cause is said beside it."""

from __future__ import annotations

from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _

from results.formats import kinds


def wrong_kind_sentence(name: str, data: bytes, whole: bool = True) -> str:
    """One sentence for a file that is not ALTO XML, by what its bytes are; '' for XML (the parser says what
    is wrong with it, or that it was cut off)."""
    kind = kinds.kind_of(data, whole)
    if kind == kinds.EMPTY:
        return _("{name} is empty: it holds no bytes, so there is no page to show.").format(name=name)
    if kind == kinds.IMAGE:
        # Translators: {name} is a file's name; {format} an image format, such as JPEG or PNG.
        return _("{name} is an image ({format}), not an ALTO file, so there is no text to show.").format(
            name=name, format=kinds.image_format(data)
        )
    sentences = {
        kinds.PDF: _("{name} is a PDF document, not an ALTO file, so there is no text to show."),
        kinds.RUN_LOG: _("{name} is a run log, not an ALTO file: open it in the run log viewer."),
        kinds.JSON: _("{name} is a JSON file, not an ALTO file, so there is no text to show."),
        kinds.TEXT: _("{name} is plain text, not an ALTO file, so there is no text to show."),
        kinds.BINARY: _("{name} is not text, so it is not an ALTO file and there is no text to show."),
    }
    return sentences[kind].format(name=name) if kind in sentences else ""


def cut_off_sentence(name: str, size: int) -> str:
    return _(
        # Translators: {name} is a file's name; {size} a size such as "12.0 KB".
        "{name} stops in the middle of its XML, after {size}: the file is incomplete, so the page cannot be shown."
    ).format(name=name, size=filesizeformat(size))


NOT_A_LOG = (kinds.IMAGE, kinds.PDF, kinds.BINARY)


def kind_of_read(blob) -> str:
    """The kind of file a read of the log shows it is not (an image, a PDF, bytes that are not text), else ''.
    A read from the start is known by its first bytes; a later part only as text or not."""
    if blob.start == 0:
        kind = kinds.kind_of(blob.body)
        return kind if kind in NOT_A_LOG else ""
    return kinds.BINARY if kinds.binary_text(blob.body) else ""


def not_a_log_sentence(name: str, kind: str, data: bytes = b"") -> str:
    """One sentence for a file that is not a run log, by what its bytes are."""
    if kind == kinds.IMAGE:
        # Translators: {name} is a file's name; {format} an image format, such as JPEG or PNG.
        return _("{name} is an image ({format}), not a run log, so there are no lines to show.").format(
            name=name, format=kinds.image_format(data) or "?"
        )
    if kind == kinds.PDF:
        return _("{name} is a PDF document, not a run log, so there are no lines to show.").format(name=name)
    return _("{name} is not text, so it is not a run log and there are no lines to show.").format(name=name)

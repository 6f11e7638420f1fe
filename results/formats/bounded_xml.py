"""XML read as a stream of events, with the work and memory a file can cost bounded. Pure: bytes in,
calls to a target out.

Building a whole element tree costs far more than the file: a 15 MB file of tiny or deeply nested
elements, or of many distinct element and attribute names, made a tree of 300 to 600 MiB, and a
document type's attribute defaults (``<!ATTLIST String X CDATA "…100 KB…">``) gave every element a
copy of a long value, tens of GiB from one file. So nothing is built here: the file goes to expat in
``FEED_BYTES`` pieces, each element reaches the target as ``start(name, attributes, depth, namespace)``
and ``end(name, depth)`` (local names), its text as ``text(piece)``, and the target keeps what it
needs. What expat itself holds is bounded too, before it can grow:

- no document type at all (``<!DOCTYPE …>``), so no entity, attribute default or external reference
  can be declared, expanded or loaded (what defusedxml refuses, and a DTD besides);
- at most ``MAX_DEPTH`` elements open at once, ``MAX_NAMES`` distinct element and attribute names (expat
  keeps every name it meets until the end), and ``MAX_MARKUP_BYTES`` in any one tag or comment (checked
  after each piece: expat holds an unfinished tag whole, and reads it again with every piece);
- at most ``max_elements`` elements: past them reading stops, and ``read`` says so.

A file beyond the first three is refused with ``XmlRefused`` and a sentence; so is one the target
refuses (it raises ``XmlRefused`` too).
"""

from __future__ import annotations

from xml.parsers import expat

from django.utils.formats import number_format
from django.utils.translation import gettext as _

FEED_BYTES = 64 * 1024
MAX_DEPTH = 100  # ALTO nests about ten deep
MAX_NAMES = 1_000  # distinct element and attribute names; ALTO has about a hundred
MAX_MARKUP_BYTES = 256 * 1024  # one tag with its attributes (an outline of 20,000 points fits), or one comment


class XmlRefused(ValueError):
    """The bytes are not XML this reader reads; ``sentence`` says why in words."""

    def __init__(self, sentence: str):
        super().__init__(sentence)
        self.sentence = sentence


class _Enough(Exception):  # noqa: N818 - a signal to stop, not an error
    """The element limit is reached: what was read stands."""


def _refuse_doctype(*_args):
    raise XmlRefused(
        _(
            "The file declares a document type (DTD); this viewer reads no DTD, entities or external "
            "references, for safety."
        )
    )


def _refuse_entity(*_args):
    raise XmlRefused(_("The file declares XML entities, which this viewer refuses to expand for safety."))


def _refuse_external(*_args):
    raise XmlRefused(_("The file refers to external resources, which this viewer refuses to load."))


class _Reader:
    """Turns expat's events into the target's, counting as it goes."""

    def __init__(self, target, max_elements: int):
        self.target = target
        self.max_elements = max_elements
        self.parser = expat.ParserCreate(namespace_separator="}", intern=None)
        self.parser.buffer_text = True  # long text comes in pieces of at most 8 KiB, never all at once
        self.locals: dict[str, tuple] = {}  # each name as expat gives it -> (local name, namespace)
        self.names: set[str] = set()  # distinct attribute names met
        self.depth = 0
        self.elements = 0
        self.last_event = 0  # where in the file the latest event was
        parser = self.parser
        parser.StartElementHandler = self.start
        parser.EndElementHandler = self.end
        parser.CharacterDataHandler = self.text
        parser.StartDoctypeDeclHandler = _refuse_doctype
        parser.EntityDeclHandler = _refuse_entity
        parser.UnparsedEntityDeclHandler = _refuse_entity
        parser.ExternalEntityRefHandler = _refuse_external

    def split(self, name: str) -> tuple[str, str]:
        """(local name, namespace) of an element's name, remembered: at most MAX_NAMES of them."""
        found = self.locals.get(name)
        if found is None:
            if len(self.locals) + len(self.names) >= MAX_NAMES:
                raise XmlRefused(_too_many_names())
            namespace, _brace, local = name.rpartition("}")
            found = self.locals[name] = (local, namespace)
        return found

    def start(self, name: str, attributes: dict):
        self.last_event = self.parser.CurrentByteIndex
        self.elements += 1
        if self.elements > self.max_elements:
            raise _Enough()
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise XmlRefused(
                _(
                    # Translators: {most} is a count of levels of nesting.
                    "The file nests elements more than {most} deep; ALTO nests about ten, so this viewer "
                    "does not read it."
                ).format(most=MAX_DEPTH)
            )
        if attributes:
            self.names.update(attributes)
            if len(self.locals) + len(self.names) > MAX_NAMES:
                raise XmlRefused(_too_many_names())
        local, namespace = self.split(name)
        self.target.start(local, attributes, self.depth, namespace)

    def end(self, name: str):
        self.last_event = self.parser.CurrentByteIndex
        self.target.end(self.split(name)[0], self.depth)
        self.depth -= 1

    def text(self, piece: str):
        self.last_event = self.parser.CurrentByteIndex
        self.target.text(piece)

    def feed(self, data: bytes) -> None:
        view = memoryview(data)
        for offset in range(0, len(data), FEED_BYTES):
            self.parser.Parse(view[offset : offset + FEED_BYTES], False)
            fed = min(len(data), offset + FEED_BYTES)
            if fed - max(self.last_event, 0) > MAX_MARKUP_BYTES + FEED_BYTES:
                raise XmlRefused(
                    _(
                        # Translators: {most} is a size in KiB.
                        "The file holds one tag or comment over {most} KiB long; ALTO needs "
                        "far less, so this viewer does not read it."
                    ).format(most=MAX_MARKUP_BYTES // 1024)
                )
        self.parser.Parse(b"", True)


def _too_many_names() -> str:
    return _(
        # Translators: {most} is a count of names.
        "The file uses more than {most} different element and attribute names; ALTO uses about a "
        "hundred, so this viewer does not read it."
    ).format(most=number_format(MAX_NAMES, force_grouping=True))


def read(data: bytes, target, *, max_elements: int) -> bool:
    """Send the elements of ``data`` to ``target``; True when reading stopped early, at ``max_elements``
    elements. Raises ``XmlRefused`` for bytes that are not XML, or not XML within the bounds above."""
    reader = _Reader(target, max_elements)
    try:
        reader.feed(data)
    except _Enough:
        return True
    except XmlRefused:
        raise
    except expat.ExpatError as error:
        # Translators: {line} and {column} say where in the file the reading failed.
        sentence = _("The file is not well-formed XML (line {line}, column {column}).")
        raise XmlRefused(sentence.format(line=error.lineno, column=error.offset)) from None
    except (ValueError, UnicodeError, LookupError):
        # LookupError: the XML declaration names an encoding Python does not know.
        raise XmlRefused(_("The file is not well-formed XML.")) from None
    finally:
        # The parser's handlers are the reader's methods: a cycle that would keep each page's parse (its
        # target) until the cyclic collector ran. Cut, a page is freed at once, so a volume read page after
        # page stays within the memory of a few pages.
        reader.parser = None
    return False

"""What kind of file some bytes are, from the bytes themselves: for the viewers, which say so in one true
sentence when a file is not what they show (a run log opened as ALTO, an image as a log, an empty or cut-off
file). Pure: no words here, only kinds; each check is one the bytes answer."""

from __future__ import annotations

import re
from xml.parsers import expat

EMPTY, IMAGE, PDF, XML, JSON = "empty", "image", "pdf", "xml", "json"
RUN_LOG, TEXT, BINARY = "run_log", "text", "binary"
# Leading bytes of the images an archive's image server or a pipeline may hold, by format name.
_IMAGES = (
    (b"\xff\xd8\xff", "JPEG"),
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"\x00\x00\x00\x0cjP  ", "JPEG 2000"),
    (b"\xffO\xffQ", "JPEG 2000"),
)
SNIFFED = 4096  # bytes looked at


def image_format(data: bytes) -> str:
    """The image format the bytes start with (JPEG, PNG …), or ''. WebP is a RIFF file naming WEBP."""
    for magic, name in _IMAGES:
        if data.startswith(magic):
            return name
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP"
    return ""


_LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\[[^\]\s]{1,80}\] ")


def _looks_like_run_log(text: str) -> bool:
    """Python logging's lines (``2026-09-24 08:00:01 INFO …``) or the wrapper's ``[volume]`` lines."""
    lines = [line for line in text.splitlines()[:20] if line.strip()]
    if not lines:
        return False
    logged = sum(1 for line in lines if _LOG_LINE.match(line))
    return logged * 2 >= len(lines)


def kind_of(data: bytes, whole: bool = True) -> str:
    """The kind of file ``data`` (its start; ``whole``: the whole file) is, by its bytes."""
    if not data:
        return EMPTY if whole else TEXT
    head = data[:SNIFFED]
    if image_format(head):
        return IMAGE
    if head.startswith(b"%PDF-"):
        return PDF
    if _mostly_not_text(head):
        return BINARY
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(head) - 4:  # not only a character cut at the end of what was looked at
            return BINARY
        text = head[: error.start].decode("utf-8")
    start = text.lstrip("\ufeff \t\r\n")
    if start.startswith("<"):
        return XML
    if start[:1] in ("{", "["):
        if start[:1] == "[" and _looks_like_run_log(start):
            return RUN_LOG
        return JSON
    return RUN_LOG if _looks_like_run_log(text) else TEXT


def binary_text(data: bytes) -> bool:
    """Whether a stretch of a file (not its start) is not text: NUL bytes, or bytes that are not UTF-8."""
    head = data[:SNIFFED]
    if _mostly_not_text(head):
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return 4 <= error.start < len(head) - 4
    return False


def _mostly_not_text(head: bytes) -> bool:
    """NUL bytes in more than one byte of 20: a stray NUL in a log line leaves it text."""
    return head.count(b"\x00") * 20 > len(head)


class _Refused(Exception):
    pass


def _refuse(*_args):
    raise _Refused()


def cut_off_xml(data: bytes) -> bool:
    """Whether ``data`` is the start of well-formed XML that ends too soon (a file cut off while written): all of
    it reads as XML, and only the end of input is wrong. Entity declarations are refused, as the viewer does."""
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.EntityDeclHandler = _refuse
    parser.ExternalEntityRefHandler = _refuse
    try:
        parser.Parse(data, False)
    except (expat.ExpatError, _Refused, ValueError, LookupError):  # LookupError: an encoding Python lacks
        return False
    try:
        parser.Parse(b"", True)
    except expat.ExpatError:
        return True
    except (_Refused, ValueError, LookupError):
        return False
    return False

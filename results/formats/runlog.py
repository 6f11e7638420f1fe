"""Reading a volume's run log for the viewer. Pure: bytes in, plain values out.

A run log is plain text written by the wrapper: Python logging lines (a time and a level), very
frequent ``HTTP Request:`` lines, tracebacks, and a few lines the wrapper writes itself that say
how the run ended (contracts §4). This module cleans lines (no control characters or ANSI codes
survive), classifies them, groups them for display and tells whether the log has ended.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from django.utils.translation import gettext, ngettext

from core.text import INVISIBLE, reveal_invisible

# ANSI/VT escape sequences: CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), and two-byte ESC codes.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Invisible formatting characters (bidirectional overrides, zero-width ones) are shown as ⟨U+XXXX⟩ by
# core.text.reveal_invisible, the one rule for every page.
_NEEDS_CLEANING = re.compile(f"[\x1b\r\x9b{INVISIBLE}]")  # what ``clean`` removes or turns into visible symbols
_TIME = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?"
_LEVEL = r"DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL"
_LOGGING_LINE = re.compile(
    rf"^\[?(?P<time>{_TIME})\]?[ \t]*(?:[-|][ \t]*)?"
    rf"(?:\[?(?P<level>{_LEVEL})\]?(?:[ \t]*[-|:][ \t]*|[ \t]+))?(?P<rest>.*)$"
)
_LEVEL_FIRST = re.compile(rf"^(?P<level>{_LEVEL}):(?P<rest>.*)$")
# The wrapper's own lines (contracts §4). The bracketed volume id excludes "[" as well as "]" and is bounded, so a
# line of many "[" costs one pass instead of one scan to the line's end per "[" (which was quadratic).
_VOLUME = r"\[[^\[\]\n]{1,200}\]"
_FINISHED = re.compile(
    _VOLUME + r" COMPLETE \d{1,12} pages \(\d{1,12} processed, \d{1,12} failed\) in [\d.]{1,30}s, viewer: "
)
_FAILED_FOR_GOOD = re.compile(
    r"\bpermanent failure in [a-z]{1,60}: |\btransient failure in [a-z]{1,60} on the last attempt: "
)
_RETRY = re.compile(r"\btransient failure in [a-z]{1,60}: ")
_RESUME = re.compile(_VOLUME + r" resume: \d{1,12} done, \d{1,12} to process")
_HTTP = re.compile(r"HTTP Request: ")
_MODEL = re.compile(
    r"\bload(?:ing|ed|s)?\b[^:]{0,60}\b(?:models?|weights|checkpoint|processor|tokenizer)\b|"
    r"\bmodels? (?:ready|loaded)\b|from_pretrained|safetensors|\bwarm-?up\b|^(?:ultralytics|transformers[\w.]*|"
    r"htrflow\.models|torch[\w.]*):",
    re.IGNORECASE,
)
_TRACEBACK_START = re.compile(
    r"^Traceback \(most recent call last\):|^During handling of the above exception|"
    r"^The above exception was the direct cause"
)
_TRACEBACK_BODY = re.compile(r"^(?:[ \t]+\S|\s*\^+\s*$|[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b)")

TAIL_BYTES = 128 * 1024
# Only this many characters at the start of a line are classified: a line's time, level and the wrapper's
# phrases sit near its start, and a hostile megabyte-long line must cost no more to classify than a normal one.
# The whole line is still shown.
CLASSIFY_CHARS = 4096
SEARCH_LIMIT = 500
MARKS_PER_LINE = 100  # matches marked in one line; the rest are counted but not marked


@dataclass
class LogLine:
    """One cleaned line. ``number`` is the line number in the whole log when known, else None."""

    offset: int
    number: int | None
    text: str
    time: str | None = None
    level: str | None = None
    message: str = ""
    kind: str = "plain"

    @property
    def anchor(self) -> str:
        return f"L{self.number}" if self.number is not None else f"at{self.offset}"

    @property
    def is_error(self) -> bool:
        return self.kind in ("error", "failed")


@dataclass
class LogGroup:
    """Consecutive lines shown together: ``kind`` is http, error, or the kind of a single line."""

    kind: str
    lines: list[LogLine] = field(default_factory=list)

    @property
    def first(self) -> LogLine:
        return self.lines[0]

    @property
    def last(self) -> LogLine:
        return self.lines[-1]


def clean(text: str) -> str:
    """Drop ANSI codes; keep what a carriage return left visible; show other controls as symbols."""
    text = _ANSI.sub("", text)
    if "\r" in text:
        pieces = [p for p in text.split("\r") if p]
        text = pieces[-1] if pieces else ""
    text = _CONTROL.sub(lambda m: chr(0x2400 + ord(m.group())) if ord(m.group()) < 32 else "\ufffd", text)
    return reveal_invisible(text)


def classify(text: str) -> tuple[str | None, str | None, str, str]:
    """(time, level, message, kind) of one cleaned line, judged by its first ``CLASSIFY_CHARS`` characters."""
    head = text[:CLASSIFY_CHARS]
    time = level = None
    message = text
    match = _LOGGING_LINE.match(head)
    if match:
        time, level, message = match.group("time"), match.group("level"), text[match.start("rest") :]
    else:
        match = _LEVEL_FIRST.match(head)
        if match:
            level, message = match.group("level"), text[match.start("rest") :]
    if level == "WARN":
        level = "WARNING"
    return time, level, message, _kind(head, level)


def _kind(text: str, level: str | None) -> str:
    """The kind of a line's head. Plain substring tests go first: most lines skip the regexes entirely."""
    wrapper_kind = _wrapper_kind(text)
    if wrapper_kind:
        return wrapper_kind
    if _TRACEBACK_START.match(text):
        return "traceback"
    if level in ("ERROR", "CRITICAL", "FATAL"):
        return "error"
    if _HTTP.search(text):
        return "http"
    if level == "WARNING":
        return "warning"
    if _MODEL.search(text) or _MODEL.search(_message_of(text)):
        return "model"
    return "plain"


def _wrapper_kind(text: str) -> str | None:
    """finished, failed, retry or resume for the wrapper's own lines (contracts §4), else None."""
    if " COMPLETE " in text and _FINISHED.search(text):
        return "finished"
    if "failure in " in text:
        if _FAILED_FOR_GOOD.search(text):
            return "failed"
        if _RETRY.search(text):
            return "retry"
    if "] resume: " in text and _RESUME.search(text):
        return "resume"
    return None


def _message_of(text: str) -> str:
    match = _LOGGING_LINE.match(text) or _LEVEL_FIRST.match(text)
    return match.group("rest") if match else text


def end_of_run(text: str) -> str | None:
    """'finished' or 'failed' when a line says the run is over for good, else None."""
    kind = _wrapper_kind(text[:CLASSIFY_CHARS])
    return kind if kind in ("finished", "failed") else None


def log_end_state(lines: list[LogLine]) -> str | None:
    """How the log ended: the last end-of-run line wins (a retried run can log more after a failure)."""
    for line in reversed(lines):
        if line.kind in ("finished", "failed"):
            return line.kind
    return None


def cut_at_line_start(data: bytes, start: int) -> tuple[bytes, int]:
    """Drop a partial first line from a ranged read starting at byte ``start`` (unless at 0)."""
    if start == 0:
        return data, 0
    newline = data.find(b"\n")
    if newline < 0:
        return b"", start + len(data)
    return data[newline + 1 :], start + newline + 1


def complete_lines(data: bytes) -> bytes:
    """The part of freshly appended bytes that ends at a line end (the rest arrives later)."""
    newline = data.rfind(b"\n")
    tail = data[newline + 1 :]
    if tail and end_of_run(tail.decode("utf-8", "replace")):
        return data  # the last words of a run, written without a trailing newline
    return data[: newline + 1]


def split_lines(data: bytes, offset: int, first_number: int | None) -> list[LogLine]:
    """Lines of ``data`` (which starts at byte ``offset`` of the log, on a line start)."""
    lines = []
    number = first_number
    position = offset
    raw_lines = data.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    for raw in raw_lines:
        text = clean(raw.decode("utf-8", "replace"))
        time, level, message, kind = classify(text)
        lines.append(LogLine(position, number, text, time, level, message, kind))
        position += len(raw) + 1
        if number is not None:
            number += 1
    _mark_tracebacks(lines)
    return lines


def _mark_tracebacks(lines: list[LogLine]) -> None:
    """A traceback's body and its final exception line belong to the error above them."""
    inside = False
    for line in lines:
        if line.kind == "traceback":
            inside = True
            continue
        body = line.text[:CLASSIFY_CHARS]
        if inside and line.time is None and line.level is None and _TRACEBACK_BODY.match(body):
            line.kind = "traceback"
            continue
        inside = False


def group_lines(lines: list[LogLine]) -> list[LogGroup]:
    """Runs of HTTP request lines, and of model loading lines, become one group each; an error keeps its
    traceback with it."""
    groups: list[LogGroup] = []
    for line in lines:
        last = groups[-1] if groups else None
        if line.kind in ("http", "model") and last is not None and last.kind == line.kind:
            last.lines.append(line)
        elif line.kind == "traceback" and last is not None and last.kind in ("error", "failed", "retry"):
            last.lines.append(line)
        elif line.kind == "traceback":
            groups.append(LogGroup("error", [line]))
        else:
            groups.append(LogGroup(line.kind, [line]))
    return groups


# Lines that are routine progress. A stretch of them shows its HTTP request lines as one "N HTTP requests" row;
# any other line (a warning, an error and its traceback, the wrapper's retry or end-of-run line) ends the stretch,
# so nothing is ever folded across it.
QUIET_KINDS = frozenset({"plain", "http", "model", "resume"})
HTTP_FOLD_MIN = 2  # a stretch with a single HTTP request line shows it: one row would hide nothing


@dataclass
class LogStretch:
    """Groups shown together: a stretch of quiet lines (``quiet``), or one group of any other kind.

    A quiet stretch with at least ``HTTP_FOLD_MIN`` HTTP request lines hides them behind one row, placed
    before the group at ``fold_at`` (where the first of them was); the lines keep their places, numbers and
    anchors, and show in place when the row is opened.

    ``http_lines``, ``fold_at`` and ``fold_label`` are worked out once, when the stretch is made (its groups
    do not change after): the page asks for ``fold_at`` at every group it shows, and a walk over the
    stretch at each ask made a log of short lines cost the square of its lines (issue 34)."""

    groups: list[LogGroup]
    quiet: bool
    http_lines: list[LogLine] = field(init=False, repr=False)
    fold_at: int | None = field(init=False)
    fold_label: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.http_lines, first_http = [], None
        for index, group in enumerate(self.groups):
            if group.kind == "http":
                first_http = index if first_http is None else first_http
                self.http_lines.extend(group.lines)
        folds = self.quiet and len(self.http_lines) >= HTTP_FOLD_MIN
        self.fold_at = first_http if folds else None
        http = self.http_lines
        self.fold_label = fold_label(len(http), http[0].number, http[-1].number) if folds else ""

    @property
    def folds(self) -> bool:
        return self.fold_at is not None


def fold_label(count: int, first: int | None, last: int | None) -> str:
    """The row that hides a stretch's HTTP request lines: ``12 HTTP requests · lines 40–51`` (the numbers
    when the lines have them). It hides only those lines, so it names a range only when they are all of it:
    with other lines between them (shown, not folded) it says ``lines 6 and 8``, or ``between lines 6 and 30``."""
    if first is not None and last is not None and last - first + 1 != count:
        if count == 2:
            # Translators: the row hiding two HTTP request lines of a log, with other lines between them.
            return gettext("2 HTTP requests · lines {first} and {last}").format(first=first, last=last)
        return ngettext(
            # Translators: the row hiding HTTP request lines of a log that have other lines between them (never 1).
            "{count} HTTP request between lines {first} and {last}",
            "{count} HTTP requests between lines {first} and {last}",
            count,
        ).format(count=count, first=first, last=last)
    if first is not None and last is not None:
        return ngettext(
            # Translators: the row hiding a stretch of a log's HTTP request lines; {first} and {last} are line numbers.
            "{count} HTTP request · lines {first}–{last}", "{count} HTTP requests · lines {first}–{last}", count
        ).format(count=count, first=first, last=last)
    # Translators: the row hiding a stretch of a log's HTTP request lines.
    return ngettext("{count} HTTP request", "{count} HTTP requests", count).format(count=count)


def stretches(groups: list[LogGroup]) -> list[LogStretch]:
    """``groups`` cut into stretches of quiet groups and single other groups, in order; each group is
    looked at a fixed number of times, however many there are."""
    runs: list[tuple[list[LogGroup], bool]] = []
    for group in groups:
        quiet = group.kind in QUIET_KINDS
        if quiet and runs and runs[-1][1]:
            runs[-1][0].append(group)
        else:
            runs.append(([group], quiet))
    return [LogStretch(run, quiet) for run, quiet in runs]


def count_lines(data: bytes) -> int:
    return data.count(b"\n")


# --- finding line starts in bytes, so that only the lines shown are cleaned and classified ----------
# Lines here are what ``split_lines`` makes of the bytes: each ends at a newline, and a last one may lack it.
# Each function costs one search per line it steps over (or per chunk it counts), whatever else the bytes hold.

_COUNT_CHUNK = 4096  # bytes counted at once when stepping to a line far into the data


def lines_in(data: bytes) -> int:
    """How many lines ``data`` holds."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def last_lines_start(data: bytes, count: int, end: int | None = None) -> int:
    """Where the last ``count`` lines of ``data[:end]`` (which ends at a line end) start: 0 when it holds
    no more than ``count`` lines."""
    end = len(data) if end is None else end
    if count <= 0:
        return end
    position = end - 1 if end and data[end - 1 : end] == b"\n" else end
    for _ in range(count):
        newline = data.rfind(b"\n", 0, position)
        if newline < 0:
            return 0
        position = newline
    return position + 1


def first_lines_end(data: bytes, count: int, start: int = 0) -> int:
    """Where the first ``count`` lines of ``data`` from byte ``start`` (a line start) end: just after the
    last of them, or the end of ``data`` when it holds no more."""
    position = start
    for _ in range(count):
        newline = data.find(b"\n", position)
        if newline < 0:
            return len(data)
        position = newline + 1
    return position


def line_start(data: bytes, index: int) -> int:
    """Where line ``index`` (from 0) of ``data`` starts, or ``len(data)`` past its last line. Newlines are
    counted a chunk at a time, so a line far into a log of short lines costs few steps."""
    position = 0
    while index > 0 and position < len(data):
        chunk_end = position + _COUNT_CHUNK
        found = data.count(b"\n", position, chunk_end)
        if found >= index:
            return first_lines_end(data, index, position)
        index -= found
        position = chunk_end
    return min(position, len(data))


@dataclass
class SearchResult:
    query: str
    count: int
    lines: list[tuple[LogLine, list[tuple[str, bool]]]]
    truncated: bool


def search(data: bytes, query: str, limit: int = SEARCH_LIMIT) -> SearchResult:
    """Case-insensitive search through the whole log; each hit split into (text, is_match) pieces."""
    needle = query.strip()
    found: list[tuple[LogLine, list[tuple[str, bool]]]] = []
    count = 0
    left_out = False  # a matching line past ``limit``: exactly ``limit`` of them leave none out
    if not needle:
        return SearchResult(query, 0, [], False)
    pattern = re.compile(re.escape(needle), re.IGNORECASE)
    offset = 0
    for number, raw in enumerate(data.split(b"\n"), start=1):
        line_offset, offset = offset, offset + len(raw) + 1
        text = raw.decode("utf-8", "replace")
        if not pattern.search(text) and not _NEEDS_CLEANING.search(text):
            continue  # most lines: no match before cleaning, and cleaning could not make one
        text = clean(text)
        hits, hit_count = first_hits(pattern, text)
        if not hits:
            continue
        count += hit_count
        if len(found) < limit:
            time, level, message, kind = classify(text)
            found.append((LogLine(line_offset, number, text, time, level, message, kind), highlight(text, hits)))
        else:
            left_out = True
    return SearchResult(query, count, found, left_out)


def first_hits(pattern: re.Pattern, text: str, keep: int = MARKS_PER_LINE) -> tuple[list[re.Match], int]:
    """The first ``keep`` matches of ``pattern`` in ``text`` and how many there are in all.

    A hostile line can hold millions of matches; only the first few become marked pieces of the page."""
    found = pattern.finditer(text)
    kept = list(itertools.islice(found, keep))
    return kept, len(kept) + sum(1 for _ in found)


def highlight(text: str, hits) -> list[tuple[str, bool]]:
    pieces, position = [], 0
    for hit in hits:
        if hit.start() > position:
            pieces.append((text[position : hit.start()], False))
        pieces.append((hit.group(), True))
        position = hit.end()
    if position < len(text):
        pieces.append((text[position:], False))
    return pieces


# --- pages a log names, and finding text in it ----------------------------------------------------

_FAILED_PAGE = re.compile(r"\bpage (?P<page>\d{4,9}) failed\b")
_PAGE_LIST = re.compile(r"\b(?:missing|failed)=\[(?P<pages>[\d,\s]{0,4000})\]")
_PAGE_ID = re.compile(r"(?<!\d)\d{4,9}(?!\d)")  # a longer run of digits is no page id, nor part of one
FAILED_PAGES_LISTED = 200


def page_mentions(text: str) -> list[tuple[int, int, str]]:
    """(start, end, page id) of every failed or missing page a line names: "page 0012 failed" and the
    lists of a verify error, "missing=[0012, 0044] failed=[0101]"."""
    found = [(m.start("page"), m.end("page"), m.group("page")) for m in _FAILED_PAGE.finditer(text)]
    for listing in _PAGE_LIST.finditer(text):
        base = listing.start("pages")
        found.extend((base + m.start(), base + m.end(), m.group()) for m in _PAGE_ID.finditer(listing.group("pages")))
    return sorted(found)


def failed_page_ids(lines: list[LogLine], limit: int = FAILED_PAGES_LISTED) -> list[str]:
    """The failed or missing pages the error lines name, in page order, each once."""
    pages: set[str] = set()
    for line in lines:
        if line.is_error:
            pages.update(page for _start, _end, page in page_mentions(line.text))
    return sorted(pages, key=lambda p: (len(p), p))[:limit]


FIND_LINES_LIMIT = 5000


@dataclass
class FindResult:
    count: int  # matches in all
    lines: list[tuple[int, int, int]]  # (line number, byte offset, matches in the line)
    truncated: bool


def find(data: bytes, query: str, limit: int = FIND_LINES_LIMIT) -> FindResult:
    """Where ``query`` occurs (case-insensitive) in the whole log: the lines and how often in each,
    counted on the cleaned text the page shows, as ``search`` does."""
    needle = query.strip()
    if not needle:
        return FindResult(0, [], False)
    pattern = re.compile(re.escape(needle), re.IGNORECASE)
    count, lines, offset, left_out = 0, [], 0, False
    for number, raw in enumerate(data.split(b"\n"), start=1):
        line_offset, offset = offset, offset + len(raw) + 1
        text = raw.decode("utf-8", "replace")
        if not pattern.search(text) and not _NEEDS_CLEANING.search(text):
            continue
        hits = sum(1 for _ in pattern.finditer(clean(text)))
        if not hits:
            continue
        count += hits
        if len(lines) < limit:
            lines.append((number, line_offset, hits))
        else:
            left_out = True
    return FindResult(count, lines, left_out)

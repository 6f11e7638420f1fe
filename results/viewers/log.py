"""The run log viewer (/log): the log's tail, followed while the run is live, a part around a linked line
or byte position, earlier parts, search and find over the whole log; with the volume's summary.

The lines are cleaned, classified and grouped by ``results.formats.runlog``; lines read after the page opened
join the stretch at its top or bottom on the server (``log_edges``: the page keeps both edges in
``#log-edges``, which every poll and "show earlier" sends). A live page polls ``/log/more`` with htmx
(paused while its tab is hidden, like every poll of the site); the server says how long to wait, backs
off when the store fails, and answers 286 to stop.

Every answer shows at most ``ROWS_PER_VIEW`` lines, and only those are cleaned, classified and drawn; the
work of a view grows with the lines it shows (the groups of a stretch are walked once, when it is made).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext, pgettext_lazy
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HTMX_STOP_POLLING

from core import times
from results.formats import kinds, runlog
from results.store.addresses import ResultsBase
from results.store.reader import Outcome, StoreError
from results.templatetags import log_text
from results.viewers.log_edges import Edge, appended, edges_of, prepended, same_stretch
from results.viewers.manifest import PAGE_ID, manifest_summary
from results.viewers.reading import (
    LOG_SENTENCES,
    Target,
    operator_fix,
    positive_int,
    problem_page,
    reads,
    sentence_for,
    viewer_link,
)
from results.viewers.volume_place import find_place, place_of_key
from results.viewers.wrong_kind import kind_of_read, not_a_log_sentence

TAIL_BYTES = runlog.TAIL_BYTES
EARLIER_BYTES = 128 * 1024
AROUND_BYTES = 16 * 1024  # read above a byte position that a link names
NUMBERING_LIMIT = 1024 * 1024  # logs up to this size are counted so every line has its number
WHOLE_LOG_LIMIT = 8 * 1024 * 1024
DEEP_LINK_CONTEXT = 100  # lines shown above a deep-linked line
# The most lines one answer shows: the page, a part around a linked line or byte position, "show earlier",
# a live poll. A 128 KiB tail of realistic lines is about 1 300 of them, so this cuts only logs of short
# lines (the tail of one-character lines is 64 000); the lines beyond it are the next "show earlier" (or,
# for a poll, the next poll), so none is lost. Only the lines kept are cleaned, classified and drawn. The
# functions read it when called, so a benchmark may raise it to measure growth without the cap hiding it.
ROWS_PER_VIEW = 2000
POLL_SECONDS = 3
POLL_MAX_FAILURES = 5
WAIT_MAX_SECONDS = 30  # the slowest check for a log that has not appeared yet
SEARCH_END_BYTES = 64 * 1024  # the end of a searched log read again to tell whether the run has ended
WAITING_LABEL = pgettext_lazy("run log state", "waiting for the run log to appear")
TITLE = gettext_lazy("Run log")
# How a run ended, as the page's status says it (runlog.log_end_state's codes).
ENDED_LABELS = {
    "finished": pgettext_lazy("run log state", "finished"),
    "failed": pgettext_lazy("run log state", "failed"),
}


# --- reading parts of the log ------------------------------------------------------------------


@dataclass
class LogWindow:
    """The lines read for one view: bytes ``start``..``end`` (exclusive) of a log of ``size`` bytes."""

    lines: list[runlog.LogLine]
    start: int
    end: int
    size: int
    last_modified: datetime | None
    note: str = ""
    kind: str = ""  # what the bytes read are when they are not a log's text (results.formats.kinds), else ""

    @property
    def shown(self) -> int:
        return self.end - self.start

    @property
    def numbered(self) -> bool:
        return not self.lines or self.lines[0].number is not None

    @property
    def next_number(self) -> int | None:
        """The number the line after this window will have, when known."""
        if not self.lines:
            return 1 if self.start == 0 else None
        last = self.lines[-1].number
        return last + 1 if last is not None else None

    def first_number(self, context: int = 0) -> int | None:
        """The first line's number, less ``context`` lines (never below 1), when known."""
        if self.lines and self.lines[0].number is not None:
            return max(1, self.lines[0].number - context)
        return None


def _whole_lines(blob) -> tuple[bytes, int]:
    """The whole lines of a ranged read, and the byte where they start: a partial first line is dropped
    (unless the read starts the log), and so is a last line still being written."""
    data, start = runlog.cut_at_line_start(blob.body, blob.start)
    return runlog.complete_lines(data), start


def _newest(data: bytes, start: int) -> tuple[bytes, int]:
    """The last ``ROWS_PER_VIEW`` lines of ``data`` (which starts at byte ``start``), and where they start."""
    cut = runlog.last_lines_start(data, ROWS_PER_VIEW)
    return data[cut:], start + cut


def _window(blob, data: bytes, start: int, first_number: int | None, note: str = "") -> LogWindow:
    """Lines numbered from 1 at the start of the log, else from ``first_number`` when it is known."""
    lines = runlog.split_lines(data, start, 1 if start == 0 else first_number)
    return LogWindow(lines, start, start + len(data), blob.size, blob.last_modified, note, kind_of_read(blob))


def _read_tail(reader, key: str) -> LogWindow:
    """The last part of the log. A log small enough is counted from its start so every line has a number."""
    try:
        blob = reader.get(key, suffix=TAIL_BYTES)
    except StoreError as error:
        if error.outcome is not Outcome.UNSATISFIABLE:
            raise
        empty = reader.head(key)  # an empty log has no last bytes to ask for
        return LogWindow([], 0, 0, empty.size, empty.last_modified)
    data, start = _newest(*_whole_lines(blob))
    first_number = None
    if start > 0 and blob.start == 0:  # the read holds the log's start (its first rows were cut): count there
        first_number = runlog.count_lines(blob.body[:start]) + 1
    elif start > 0 and blob.size <= NUMBERING_LIMIT:
        first_number = runlog.count_lines(reader.get(key, start=0, end=start - 1).body) + 1
    return _window(blob, data, start, first_number)


def _read_before(reader, key: str, before: int, length: int, next_number: int | None = None, note="") -> LogWindow:
    """The whole lines in the ``length`` bytes before byte ``before``; numbered back from ``next_number``
    (the number of the line at ``before``) when it is known."""
    blob = reader.get(key, start=max(0, before - length), end=before - 1)
    data, start = _newest(*_whole_lines(blob))
    first_number = next_number - runlog.count_lines(data) if next_number else None
    return _window(blob, data, start, first_number if first_number and first_number > 0 else None, note)


def _read_at(reader, key: str, offset: int) -> LogWindow:
    """The lines around byte ``offset`` (a link to a line of a log too large to number when it opens).
    When the read holds more than ``ROWS_PER_VIEW`` lines, the line holding ``offset`` stays with at least
    ``DEEP_LINK_CONTEXT`` lines above it; the lines cut above are "show earlier"'s."""
    blob = reader.get(key, start=max(0, offset - AROUND_BYTES), end=offset + TAIL_BYTES - 1)
    data, start = _whole_lines(blob)
    holding = data.rfind(b"\n", 0, max(0, offset - start)) + 1
    above, below = data.count(b"\n", 0, holding), runlog.lines_in(data[holding:])
    kept_above = min(above, max(_context(), ROWS_PER_VIEW - below))
    first = runlog.last_lines_start(data, kept_above, holding)
    stop = runlog.first_lines_end(data, ROWS_PER_VIEW, first)
    reaches_end = stop == len(data) and blob.start + len(blob.body) >= blob.size
    note = "" if reaches_end else _("This is a part of the log around a linked line.")
    first_number = data.count(b"\n", 0, first) + 1 if start == 0 else None  # a read from the log's start
    return _window(blob, data[first:stop], start + first, first_number, note)


def _context() -> int:
    """Lines shown above a linked line: ``DEEP_LINK_CONTEXT``, less when the row cap is smaller."""
    return max(0, min(DEEP_LINK_CONTEXT, ROWS_PER_VIEW - 1))


def _read_around_line(reader, key: str, line_number: int) -> LogWindow:
    """The lines around line ``line_number``: the log is read from its start to count to it, and only
    the lines shown are cleaned and classified."""
    blob = reader.get(key, max_bytes=WHOLE_LOG_LIMIT)
    data = runlog.complete_lines(blob.body)
    total = runlog.lines_in(data)
    first = max(0, min(line_number, total) - 1 - _context())
    after = min(total, first + ROWS_PER_VIEW)
    note = ""
    if line_number > total:
        note = ngettext(
            # Translators: {total} is how many lines the log has; {line} the line number a link asked for.
            "The log has {total} line, so line {line} does not exist; showing its end.",
            "The log has {total} lines, so line {line} does not exist; showing its end.",
            total,
        ).format(total=total, line=line_number)
    if after < total or not blob.complete:
        note = _("Only part of the log after this line is shown; open the end of the log to follow it.")
    start = runlog.line_start(data, first)
    end = runlog.first_lines_end(data, after - first, start)
    lines = runlog.split_lines(data[start:end], start, first + 1)
    return LogWindow(lines, start, end, blob.size, blob.last_modified, note)


@dataclass(frozen=True)
class Part:
    """The part of the log a request asks for: a line by number, a byte position, or the part before a
    byte; none of them for the end of the log."""

    line: int | None
    at: int | None
    before: int | None

    @classmethod
    def of(cls, request) -> Part:
        line = positive_int(request.GET.get("line"))
        at = None if line else positive_int(request.GET.get("at"))
        before = None if (line or at) else positive_int(request.GET.get("before"))
        return cls(line, at, before)

    @property
    def asked(self) -> int | None:
        return self.line or self.at or self.before

    def read(self, reader, key: str) -> LogWindow:
        if self.line:
            return _read_around_line(reader, key, self.line)
        if self.at:
            return _read_at(reader, key, self.at)
        if self.before:
            return _read_before(reader, key, self.before, TAIL_BYTES, note=_("This is an earlier part of the log."))
        return _read_tail(reader, key)


# --- the page ------------------------------------------------------------------------------------


def _log_state(window: LogWindow, live: bool) -> dict:
    """How the run stands, from the server's clock: finished, failed, or live and how fresh."""
    ended = runlog.log_end_state(window.lines)
    age = None
    if window.last_modified is not None:
        modified = window.last_modified
        if modified.tzinfo is None:
            modified = modified.replace(tzinfo=UTC)
        age = max(0, int((datetime.now(UTC) - modified).total_seconds()))
    if ended:
        label = str(ENDED_LABELS.get(ended, ended))
    elif live and age is not None:  # the log's own age (its Last-Modified), named so: a card's are the progress file's
        # Translators: the status of a run log being followed; {age} is a number of seconds.
        label = pgettext("run log state", "live · log written {age} s ago").format(age=age)
    elif live:
        label = pgettext("run log state", "live")
    else:
        # Translators: the status of a run log; {age} is a number of seconds.
        label = pgettext("run log state", "log written {age} s ago").format(age=age) if age is not None else ""
    return {"ended": ended, "label": label, "age": age}


def _opening_anchor(lines: list[runlog.LogLine], ended: str | None, at: int | None, place) -> str:
    """Where the page opens: the line holding byte ``at`` when a link names one (its anchor may be a
    number); none for another part asked for (the link's own #L anchor decides); else the failure of
    a failed run, else the end."""
    if at:
        holding = [line for line in lines if line.offset <= at]
        return holding[-1].anchor if holding else ""
    if place:
        return ""
    if ended == "failed":
        failures = [line for line in lines if line.kind == "failed"]
        if failures:
            return failures[-1].anchor
    return lines[-1].anchor if lines else ""


def _lines_context(lines: list[runlog.LogLine]) -> dict:
    """The lines of a whole page, cut into stretches, and the errors among them."""
    stretches = runlog.stretches(runlog.group_lines(lines))
    return {
        "stretches": stretches,
        "errors": [line for line in lines if line.is_error],
        "edges": {"top": Edge.of(stretches[0]), "bottom": Edge.of(stretches[-1])} if stretches else {},
    }


@vary_on_headers("HX-Request")
@reads("log", TITLE)
def log_view(request, target: Target):
    """The run log page: its tail (following it when ``live=1``), a part around a linked line or
    byte position, an earlier part, or search results; with the volume's summary when given."""
    live = request.GET.get("live") == "1"
    query = request.GET.get("q", "")[:200]
    manifest_address = request.GET.get("manifest", "")
    part = Part.of(request)
    summary = manifest_summary(request, target.reader, target.base, manifest_address) if manifest_address else None
    base_context = {**_log_context(request, target, manifest_address, summary, query), "live": live}
    try:
        if query.strip():
            return _log_search_page(request, target, base_context)
        window = part.read(target.reader, target.key)
    except StoreError as error:
        return _log_unread(request, target, error, base_context, part)
    if window.kind:
        name = target.key.rsplit("/", 1)[-1]
        head = target.reader.get(target.key, start=0, end=kinds.SNIFFED - 1).body if window.kind == kinds.IMAGE else b""
        # Translators: the heading of a file opened in the run log viewer; {name} is the file's name.
        heading = _("Run log · {name}").format(name=name)
        return problem_page(request, heading, not_a_log_sentence(name, window.kind, head), status=422,
                            address=target.address)
    state = _log_state(window, live)
    # A tail read always reaches the end of the log (less a line still being written), so it can follow.
    following = live and not state["ended"] and not part.asked
    lines = _lines_context(window.lines)
    address = target.address
    context = {
        **base_context,
        **lines,
        "window": window,
        "state": state,
        "following": following,
        "poll_url": _poll_url(address, window.end, window.next_number) if following else "",
        "poll_seconds": POLL_SECONDS,
        "earlier_url": _earlier_url(address, window) if window.start > 0 else "",
        "earlier_page_url": _earlier_page_url(address, window),
        "focus": _opening_anchor(window.lines, state["ended"], part.at, part.asked),
        "deep_line": part.asked,
        "failed_pages": _failed_pages(window.lines, summary, base_context["alto_base"]),
    }
    return render(request, "viewers/log.html", context)


def _log_unread(request, target: Target, error: StoreError, base_context: dict, part: Part):
    """The log could not be read: a place past its end opens the end, a live log not written yet is
    waited for, anything else is a sentence."""
    if error.outcome is Outcome.UNSATISFIABLE and part.asked:
        return HttpResponseRedirect(base_context["line_url"])  # a place past the end: open the end
    if error.outcome is Outcome.NOT_FOUND and base_context["live"]:
        return _waiting_page(request, base_context)
    sentence = sentence_for(error, LOG_SENTENCES)
    return problem_page(
        request,
        TITLE,
        sentence,
        operator_fix(error, target.key),
        status=error.status,
        address=target.address,
        follow_url=base_context["tail_url"] if error.outcome is Outcome.NOT_FOUND else "",
    )


def _failed_pages(lines, summary, alto_base: str) -> list[dict]:
    """The failed pages the lines shown (and the volume's manifest) name, each with its ALTO viewer link."""
    if not alto_base:
        return []
    pages = set(runlog.failed_page_ids(lines))
    pages.update(p["id"] for p in (summary or {}).get("failed_pages", []) if PAGE_ID.match(p["id"]))
    ordered = sorted(pages, key=lambda p: (len(p), p))[: runlog.FAILED_PAGES_LISTED]
    return [{"id": page, "url": log_text.alto_link(alto_base, page)} for page in ordered]


def _waiting_page(request, base_context: dict):
    """Live mode for a log that does not exist yet (a volume that has just started): poll until it does."""
    window = LogWindow([], 0, 0, 0, None)
    context = {
        **base_context,
        **_lines_context([]),
        "window": window,
        "waiting": True,
        "state": {"ended": None, "label": WAITING_LABEL},
        "following": True,
        "poll_url": _poll_url(base_context["address"], 0, 1),
        "poll_seconds": POLL_SECONDS,
        "wait_sentence": _wait_sentence(POLL_SECONDS),
        "focus": "",
    }
    return render(request, "viewers/log.html", context)


def _alto_base(base: ResultsBase, key: str) -> str:
    """The results URL under which the volume of a log or ALTO key keeps its ALTO pages, or ''."""
    place = place_of_key(key)
    return base.url_for_key(f"{place.prefix}/alto/") if place else ""


def _log_context(request, target: Target, manifest_address: str, summary, query: str) -> dict:
    volume = (summary or {}).get("volume") or target.key.rsplit("/", 1)[-1].removesuffix(".txt")
    address = target.address
    return {
        "place": find_place(target.key, request),
        "alto_base": _alto_base(target.base, target.key),
        "find_url": viewer_link("/log/find", log=address),
        "address": address,
        "manifest_address": manifest_address,
        "raw_url": target.base.url_for_key(target.key),
        "volume": volume,
        "summary": summary,
        "query": query,
        "key": target.key,
        "tail_url": viewer_link("/log", log=address, manifest=manifest_address, live="1"),
        "line_url": viewer_link("/log", log=address, manifest=manifest_address),
        "numbering_limit": NUMBERING_LIMIT,
        "log_zone_note": log_zone_note(),
    }


def log_zone_note() -> str:
    """Which zone the log's own times are in: UTC, as the run's pod writes them (Python logging's clock in a
    container without a TZ), while the page says its other times in the reader's zone."""
    # Translators: {zone} is a time zone's name, such as Europe/Stockholm.
    sentence = _("The times on the log's lines are UTC, as the run wrote them; this page's other times are in {zone}.")
    return sentence.format(zone=times.zone_label())


def _poll_url(address: str, offset: int, number: int | None, failures: int = 0, waits: int = 0) -> str:
    return viewer_link("/log/more", log=address, after=offset, line=number, fails=failures, waits=waits)


def _earlier_page_url(address: str, window: LogWindow) -> str:
    """The same "show earlier" as a whole page, for browsers without JavaScript: a numbered log opens at
    the line whose view (its context above it, ``ROWS_PER_VIEW`` lines in all) ends just above this one."""
    number = window.first_number(context=ROWS_PER_VIEW - _context())
    if number:
        return viewer_link("/log", log=address, line=number)
    return viewer_link("/log", log=address, before=window.start)


def _earlier_url(address: str, window: LogWindow) -> str:
    return viewer_link("/log/earlier", log=address, before=window.start, first=window.first_number())


# --- live polling --------------------------------------------------------------------------------


@reads("log", TITLE)
def log_more(request, target: Target):
    """New lines after ``after`` (a live poll), joined to the page's bottom stretch. Answers 286
    once the run has ended or polling gives up; while the log does not exist yet it keeps waiting,
    checking less often as time goes on."""
    address = target.address
    after = positive_int(request.GET.get("after")) or 0
    number = positive_int(request.GET.get("line"))
    try:
        head = target.reader.head(target.key)
        data = b""
        if head.size > after:
            data = runlog.complete_lines(target.reader.get(target.key, start=after, end=head.size - 1).body)
            data = data[: runlog.first_lines_end(data, ROWS_PER_VIEW)]  # the rest is the next poll's
    except StoreError as error:
        if error.outcome is Outcome.NOT_FOUND and after == 0:
            return _poll_waiting(request, address, (positive_int(request.GET.get("waits")) or 0) + 1)
        failures = (positive_int(request.GET.get("fails")) or 0) + 1
        retry = _poll_url(address, after, number, failures)
        return _poll_failed(request, retry, failures, sentence_for(error, LOG_SENTENCES))
    if head.size < after:
        context = {"stopped": _("The log was rewritten from the start; reload the page to read it again.")}
        return _poll_response(request, context, stop=True)
    window = LogWindow(runlog.split_lines(data, after, number), after, after + len(data), head.size, head.last_modified)
    state = _log_state(window, live=True)
    top, bottom = edges_of(request)
    join, stretches, bottom = appended(bottom, runlog.stretches(runlog.group_lines(window.lines)))
    context = {
        "join": join,
        "stretches": stretches,
        "edges": {"top": same_stretch(top, join), "bottom": bottom},
        "state": state,
        "appeared": after == 0 and bool(window.lines),
        "alto_base": _alto_base(target.base, target.key),
        "poll_url": _poll_url(address, window.end, window.next_number if window.lines else number),
        "poll_seconds": POLL_SECONDS,
    }
    return _poll_response(request, context, stop=bool(state["ended"]))


def _wait_sentence(delay: int) -> str:
    return _(
        # Translators: {delay} is a number of seconds.
        "Waiting for the run log to appear: a volume's log is first written about 15 s after it starts. "
        "Checking again in {delay} s."
    ).format(delay=delay)


def _poll_waiting(request, address: str, waits: int):
    delay = min(POLL_SECONDS * (waits + 1), WAIT_MAX_SECONDS)
    context = {
        "stretches": [],
        "wait_sentence": _wait_sentence(delay),
        "state": {"label": WAITING_LABEL},
        "poll_url": _poll_url(address, 0, 1, waits=waits),
        "poll_seconds": delay,
    }
    return _poll_response(request, context, stop=False)


def _poll_failed(request, retry_url: str, failures: int, sentence: str):
    if failures >= POLL_MAX_FAILURES:
        # Translators: {failures} is a count of failed reads (five or more); {sentence} says why the last failed.
        stopped = _("Stopped following the log after {failures} failed reads: {sentence} Reload the page to try again.")
        stopped = stopped.format(failures=failures, sentence=sentence)
        state = {"label": pgettext("run log state", "stopped")}
        return _poll_response(request, {"stopped": stopped, "state": state}, stop=True)
    delay = min(POLL_SECONDS * 2**failures, 60)
    context = {
        "stretches": [],
        # Translators: {sentence} says why reading the log failed; {delay} is a number of seconds.
        "retry_sentence": _("{sentence} Trying again in {delay} s.").format(sentence=sentence, delay=delay),
        "state": {"label": pgettext("run log state", "live · reading failed")},
        "poll_url": retry_url,
        "poll_seconds": delay,
    }
    return _poll_response(request, context, stop=False)


def _poll_response(request, context: dict, stop: bool):
    context = {"stop": stop, **context}
    response = render(request, "viewers/log.html#more", context)
    if stop:
        response.status_code = HTMX_STOP_POLLING
    response["Cache-Control"] = "no-store"
    return response


# --- earlier parts, search and find ----------------------------------------------------------------


@reads("log", TITLE)
def log_earlier(request, target: Target):
    """The part of the log just before ``before``, cut at a line start, for "show earlier"; its last
    lines join the page's top stretch."""
    before = positive_int(request.GET.get("before"))
    if not before:
        return HttpResponse("", content_type="text/html")
    first = positive_int(request.GET.get("first"))
    try:
        window = _read_before(target.reader, target.key, before, EARLIER_BYTES, first)
    except StoreError as error:
        context = {"sentence": sentence_for(error, LOG_SENTENCES), "retry_url": request.get_full_path()}
        return render(request, "viewers/log.html#earlier", context)
    top, bottom = edges_of(request)
    join, stretches, top = prepended(top, runlog.stretches(runlog.group_lines(window.lines)))
    context = {
        "join": join,
        "stretches": stretches,
        "edges": {"top": top, "bottom": same_stretch(bottom, join)},
        "alto_base": _alto_base(target.base, target.key),
        "earlier_url": _earlier_url(target.address, window) if window.start > 0 else "",
        "earlier_page_url": _earlier_page_url(target.address, window),
    }
    return render(request, "viewers/log.html#earlier", context)


def _log_search_page(request, target: Target, base_context: dict):
    """Search results for the whole log, with the run's status as on the log page: a live log keeps
    growing, so the page says the search covers it as of now."""
    blob = target.reader.get(target.key, max_bytes=WHOLE_LOG_LIMIT)
    end, start = runlog.cut_at_line_start(blob.body[-SEARCH_END_BYTES:], max(0, len(blob.body) - SEARCH_END_BYTES))
    window = LogWindow(runlog.split_lines(end, start, None), start, len(blob.body), blob.size, blob.last_modified)
    state = _log_state(window, base_context["live"])
    searched = datetime.now(UTC)
    context = {
        **base_context,
        "result": runlog.search(blob.body, base_context["query"]),
        "partial": not blob.complete,
        "state": state,
        "searched_at": "" if state["ended"] else times.moment_seconds(searched, now=searched),
    }
    return render(request, "viewers/log_search.html", context)


@reads("log", TITLE)
def log_find(request, target: Target):
    """Where a word occurs in the whole log, as JSON for the page's find bar: the lines the page has not
    loaded are opened around their line number."""
    query = request.GET.get("q", "")[:200]
    try:
        blob = target.reader.get(target.key, max_bytes=WHOLE_LOG_LIMIT)
    except StoreError as error:
        return JsonResponse({"detail": sentence_for(error, LOG_SENTENCES)}, status=error.status)
    result = runlog.find(blob.body, query)
    answer = {
        "query": query,
        "count": result.count,
        "lines": [{"n": number, "at": offset, "hits": hits} for number, offset, hits in result.lines],
        "truncated": result.truncated,
        "partial": not blob.complete,
    }
    response = JsonResponse(answer)
    response["Cache-Control"] = "private, no-store"
    return response

"""The run log viewer (/log) and the ALTO page viewer (/alto).

Both read results files in-process with the person's own store session (``reader_for``), and only
addresses under the results base (``results.addresses``). Every failure is a sentence on the page.
"""

from __future__ import annotations

import functools
import math
import re
import statistics
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote, urlencode, urlsplit

from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HTMX_STOP_POLLING

from campaigns.quality import band, target_words, volume_quality
from results import alto as alto_parser
from results import runlog
from results.addresses import AddressRefused, ResultsBase, key_for_address, results_base
from results.middleware import login_url
from results.reader import Outcome, StoreError, reader_for
from results.templatetags import log_text
from results.volume_place import find_place, place_of_key

TAIL_BYTES = runlog.TAIL_BYTES
EARLIER_BYTES = 128 * 1024
AROUND_BYTES = 16 * 1024  # read above a byte position that a link names
NUMBERING_LIMIT = 1024 * 1024  # logs up to this size are counted so every line has its number
WHOLE_LOG_LIMIT = 8 * 1024 * 1024
DEEP_LINK_CONTEXT = 100  # lines shown above a deep-linked line
DEEP_LINK_MAX_LINES = 5000
DRAWN_LINES_MAX = 5000  # ALTO lines drawn and listed on one page: more make the page slow to build and to show
POLL_SECONDS = 3
POLL_MAX_FAILURES = 5
WAIT_MAX_SECONDS = 30  # the slowest check for a log that has not appeared yet
RAW_XML_LIMIT = 512 * 1024
IIIF_LIMIT = 8 * 1024 * 1024
IMAGE_WIDTH = 2000
_ALTO_KEY = re.compile(r"^(?P<prefix>.+)/alto/(?P<page>\d{4,})\.xml$")
_PAGE_ID = re.compile(r"^\d{1,6}$")

LOG_SENTENCES = {
    Outcome.FORBIDDEN: "Your store account may not read this volume's results, so its run log cannot be shown.",
    Outcome.NOT_FOUND: (
        "There is no run log at this address yet. The volume may not have started, or its log was "
        "written under another address."
    ),
    Outcome.UNREACHABLE: "The results store could not be reached, so the log cannot be shown. Try again in a minute.",
    Outcome.TIMEOUT: "The results store did not answer in time, so the log cannot be shown. Try again in a minute.",
}
ALTO_SENTENCES = {
    Outcome.FORBIDDEN: "Your store account may not read this volume's results, so this page cannot be shown.",
    Outcome.NOT_FOUND: "There is no ALTO file at this address: the page may have failed or not been processed yet.",
    Outcome.UNREACHABLE: "The results store could not be reached, so the page cannot be shown. Try again in a minute.",
    Outcome.TIMEOUT: "The results store did not answer in time, so the page cannot be shown. Try again in a minute.",
}
WAITING_LABEL = "waiting for the run log to appear"


def _operator_fix(error: StoreError, key: str) -> str:
    """What an operator can check for a refused read: the account may read other volumes, not this one."""
    if error.outcome is not Outcome.FORBIDDEN:
        return ""
    return (
        f"the store's policy for this account denies reading {key}. If this person should see this "
        "volume, let the account read its prefix."
    )


class _LoginAgain(Exception):
    """The store no longer accepts the session: send the person to log in and come back."""


def _sentence(error: StoreError, sentences: dict) -> str:
    """The sentence for a failed read; an ended session instead leaves the view for the login page."""
    if error.outcome in (Outcome.SESSION_ENDED, Outcome.NO_SESSION):
        raise _LoginAgain()
    return sentences.get(error.outcome, error.sentence)


def _login_response(request):
    """To the login page and back: for a poll, back to the page it polls for, not the fragment."""
    if getattr(request, "htmx", False):
        response = HttpResponse(status=401)
        page = urlsplit(request.htmx.current_url or "")
        back = (page.path or "/") + (f"?{page.query}" if page.query else "")
        response["HX-Redirect"] = "/login?next=" + quote(back if _is_local_path(back) else "/", safe="/")
        return response
    return HttpResponseRedirect(login_url(request))


def _is_local_path(path: str) -> bool:
    return path.startswith("/") and not path.startswith("//") and "\\" not in path


def _problem_page(request, title: str, sentence: str, fix: str = "", status: int = 400, address: str = "", **extra):
    context = {"title": title, "sentence": sentence, "fix": fix, "address": address, **extra}
    return render(request, "viewers/problem.html", context, status=status)


@dataclass(frozen=True)
class Target:
    """The results file a viewer request names: read with ``reader`` at ``key``; ``address`` as given."""

    reader: object
    base: ResultsBase
    key: str
    address: str


def _reads(param: str, title: str):
    """Decorate a viewer that reads the results address in ``request.GET[param]``.

    The view is called as ``view(request, target)`` only for a logged-in person and an address under
    the results base; a refused address gets its sentence, and an ended session anywhere inside the
    view (``_LoginAgain``) sends the person to log in and back.
    """

    def decorate(view):
        @require_GET
        @functools.wraps(view)
        def wrapped(request):
            address = request.GET.get(param, "")
            reader = reader_for(request)
            if reader is None:
                return _login_response(request)
            base = results_base(request)
            try:
                key = key_for_address(address, request, base)
            except AddressRefused as refused:
                return _problem_page(request, title, refused.sentence, refused.fix, 400, address)
            try:
                return view(request, Target(reader, base, key, address))
            except _LoginAgain:
                return _login_response(request)

        return wrapped

    return decorate


def _viewer_link(path: str, **params) -> str:
    return path + "?" + urlencode({k: v for k, v in params.items() if v not in (None, "", False)})


def _positive_int(value) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number < 10**9 else None


# --- run log: reading parts of it --------------------------------------------------------------


@dataclass
class LogWindow:
    """The lines read for one view: bytes ``start``..``end`` (exclusive) of a log of ``size`` bytes."""

    lines: list[runlog.LogLine]
    start: int
    end: int
    size: int
    last_modified: datetime | None
    note: str = ""

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


def _window(blob, data: bytes, start: int, first_number: int | None, note: str = "") -> LogWindow:
    """Lines numbered from 1 at the start of the log, else from ``first_number`` when it is known."""
    lines = runlog.split_lines(data, start, 1 if start == 0 else first_number)
    return LogWindow(lines, start, start + len(data), blob.size, blob.last_modified, note)


def _read_tail(reader, key: str) -> LogWindow:
    """The last part of the log. A log small enough is counted from its start so every line has a number."""
    try:
        blob = reader.get(key, suffix=TAIL_BYTES)
    except StoreError as error:
        if error.outcome is not Outcome.UNSATISFIABLE:
            raise
        empty = reader.head(key)  # an empty log has no last bytes to ask for
        return LogWindow([], 0, 0, empty.size, empty.last_modified)
    data, start = _whole_lines(blob)
    first_number = None
    if start > 0 and blob.size <= NUMBERING_LIMIT:
        first_number = runlog.count_lines(reader.get(key, start=0, end=start - 1).body) + 1
    return _window(blob, data, start, first_number)


def _read_before(reader, key: str, before: int, length: int, next_number: int | None = None, note="") -> LogWindow:
    """The whole lines in the ``length`` bytes before byte ``before``; numbered back from ``next_number``
    (the number of the line at ``before``) when it is known."""
    blob = reader.get(key, start=max(0, before - length), end=before - 1)
    data, start = _whole_lines(blob)
    first_number = next_number - runlog.count_lines(data) if next_number else None
    return _window(blob, data, start, first_number if first_number and first_number > 0 else None, note)


def _read_at(reader, key: str, offset: int) -> LogWindow:
    """The lines around byte ``offset`` (a link to a line of a log too large to number when it opens)."""
    blob = reader.get(key, start=max(0, offset - AROUND_BYTES), end=offset + TAIL_BYTES - 1)
    data, start = _whole_lines(blob)
    reaches_end = blob.start + len(blob.body) >= blob.size
    return _window(blob, data, start, None, "" if reaches_end else "This is a part of the log around a linked line.")


def _read_around_line(reader, key: str, line_number: int) -> LogWindow:
    """The lines around line ``line_number``: the log is read from its start to count to it, and only
    the lines shown are cleaned and classified."""
    blob = reader.get(key, max_bytes=WHOLE_LOG_LIMIT)
    data = runlog.complete_lines(blob.body)
    starts = [0, *(newline.end() for newline in re.finditer(b"\n", data))]
    if starts[-1] == len(data):
        starts.pop()  # the log ends with a newline: no line starts after it
    total = len(starts) if data else 0
    first = max(0, min(line_number, total) - 1 - DEEP_LINK_CONTEXT)
    after = min(total, first + DEEP_LINK_MAX_LINES)
    note = ""
    if line_number > total:
        note = f"The log has {total} lines, so line {line_number} does not exist; showing its end."
    if after < total or not blob.complete:
        note = "Only part of the log after this line is shown; open the end of the log to follow it."
    start = starts[first] if total else 0
    end = starts[after] if after < total else len(data)
    lines = runlog.split_lines(data[start:end], start, first + 1)
    return LogWindow(lines, start, end, blob.size, blob.last_modified, note)


# --- run log: the page ---------------------------------------------------------------------------


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
        label = ended
    elif live:
        label = f"live · updated {age} s ago" if age is not None else "live"
    else:
        label = f"updated {age} s ago" if age is not None else ""
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
    return {
        "stretches": runlog.stretches(runlog.group_lines(lines)),
        "errors": [line for line in lines if line.is_error],
    }


@vary_on_headers("HX-Request")
@_reads("log", "Run log")
def log_view(request, target: Target):
    """The run log page: its tail (following it when ``live=1``), a part around a linked line or
    byte position, an earlier part, or search results; with the volume's summary when given."""
    reader, key, address = target.reader, target.key, target.address
    live = request.GET.get("live") == "1"
    query = request.GET.get("q", "")[:200]
    manifest_address = request.GET.get("manifest", "")
    line = _positive_int(request.GET.get("line"))
    at = None if line else _positive_int(request.GET.get("at"))
    before = None if (line or at) else _positive_int(request.GET.get("before"))
    place = line or at or before  # a part of the log was asked for rather than its end
    summary = _manifest_summary(request, reader, target.base, manifest_address) if manifest_address else None
    base_context = {**_log_context(target, manifest_address, summary, query), "live": live}
    try:
        if query.strip():
            return _log_search_page(request, target, base_context)
        if line:
            window = _read_around_line(reader, key, line)
        elif at:
            window = _read_at(reader, key, at)
        elif before:
            window = _read_before(reader, key, before, TAIL_BYTES, note="This is an earlier part of the log.")
        else:
            window = _read_tail(reader, key)
    except StoreError as error:
        if error.outcome is Outcome.UNSATISFIABLE and place:
            return HttpResponseRedirect(base_context["line_url"])  # a place past the end: open the end
        if error.outcome is Outcome.NOT_FOUND and live:
            return _waiting_page(request, base_context)
        sentence = _sentence(error, LOG_SENTENCES)
        follow = base_context["tail_url"] if error.outcome is Outcome.NOT_FOUND else ""
        return _problem_page(
            request,
            "Run log",
            sentence,
            _operator_fix(error, key),
            status=error.status,
            address=address,
            follow_url=follow,
        )
    state = _log_state(window, live)
    # A tail read always reaches the end of the log (less a line still being written), so it can follow.
    following = live and not state["ended"] and not place
    context = {
        **base_context,
        **_lines_context(window.lines),
        "window": window,
        "state": state,
        "following": following,
        "poll_url": _poll_url(address, window.end, window.next_number) if following else "",
        "poll_seconds": POLL_SECONDS,
        "earlier_url": _earlier_url(address, window) if window.start > 0 else "",
        "earlier_page_url": _earlier_page_url(address, window),
        "focus": _opening_anchor(window.lines, state["ended"], at, place),
        "deep_line": place,
        "failed_pages": _failed_pages(window.lines, summary, base_context["alto_base"]),
    }
    return render(request, "viewers/log.html", context)


def _failed_pages(lines, summary, alto_base: str) -> list[dict]:
    """The failed pages the lines shown (and the volume's manifest) name, each with its ALTO viewer link."""
    if not alto_base:
        return []
    pages = set(runlog.failed_page_ids(lines))
    pages.update(p["id"] for p in (summary or {}).get("failed_pages", []) if _PAGE_ID.match(p["id"]))
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


def _log_context(target: Target, manifest_address: str, summary, query: str) -> dict:
    volume = (summary or {}).get("volume") or target.key.rsplit("/", 1)[-1].removesuffix(".txt")
    address = target.address
    place = find_place(target.key)
    return {
        "place": place,
        "alto_base": _alto_base(target.base, target.key),
        "find_url": _viewer_link("/log/find", log=address),
        "address": address,
        "manifest_address": manifest_address,
        "raw_url": target.base.url_for_key(target.key),
        "volume": volume,
        "summary": summary,
        "query": query,
        "key": target.key,
        "tail_url": _viewer_link("/log", log=address, manifest=manifest_address, live="1"),
        "line_url": _viewer_link("/log", log=address, manifest=manifest_address),
        "numbering_limit": NUMBERING_LIMIT,
    }


def _poll_url(address: str, offset: int, number: int | None, failures: int = 0, waits: int = 0) -> str:
    return _viewer_link("/log/more", log=address, after=offset, line=number, fails=failures, waits=waits)


def _earlier_page_url(address: str, window: LogWindow) -> str:
    """The same "show earlier" as a whole page, for browsers without JavaScript."""
    number = window.first_number(context=DEEP_LINK_CONTEXT)
    if number:
        return _viewer_link("/log", log=address, line=number)
    return _viewer_link("/log", log=address, before=window.start)


def _earlier_url(address: str, window: LogWindow) -> str:
    return _viewer_link("/log/earlier", log=address, before=window.start, first=window.first_number())


# --- run log: live polling -----------------------------------------------------------------------


@_reads("log", "Run log")
def log_more(request, target: Target):
    """New lines after ``after`` (a live poll). Answers 286 once the run has ended or polling gives up;
    while the log does not exist yet it keeps waiting, checking less often as time goes on."""
    address = target.address
    after = _positive_int(request.GET.get("after")) or 0
    number = _positive_int(request.GET.get("line"))
    failures = _positive_int(request.GET.get("fails")) or 0
    waits = _positive_int(request.GET.get("waits")) or 0
    try:
        head = target.reader.head(target.key)
        data = b""
        if head.size > after:
            data = runlog.complete_lines(target.reader.get(target.key, start=after, end=head.size - 1).body)
    except StoreError as error:
        if error.outcome is Outcome.NOT_FOUND and after == 0:
            return _poll_waiting(request, address, waits + 1)
        return _poll_failed(request, address, after, number, failures + 1, _sentence(error, LOG_SENTENCES))
    if head.size < after:
        context = {"stopped": "The log was rewritten from the start; reload the page to read it again."}
        return _poll_response(request, context, stop=True)
    window = LogWindow(runlog.split_lines(data, after, number), after, after + len(data), head.size, head.last_modified)
    state = _log_state(window, live=True)
    context = {
        **_lines_context(window.lines),
        "state": state,
        "appeared": after == 0 and bool(window.lines),
        "alto_base": _alto_base(target.base, target.key),
        "poll_url": _poll_url(address, window.end, window.next_number if window.lines else number),
        "poll_seconds": POLL_SECONDS,
    }
    return _poll_response(request, context, stop=bool(state["ended"]))


def _wait_sentence(delay: int) -> str:
    return (
        "Waiting for the run log to appear: a volume's log is first written about 15 s after it starts. "
        f"Checking again in {delay} s."
    )


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


def _poll_failed(request, address, after, number, failures, sentence):
    if failures >= POLL_MAX_FAILURES:
        stopped = f"Stopped following the log after {failures} failed reads: {sentence} Reload the page to try again."
        return _poll_response(request, {"stopped": stopped, "state": {"label": "stopped"}}, stop=True)
    delay = min(POLL_SECONDS * 2**failures, 60)
    context = {
        "stretches": [],
        "retry_sentence": f"{sentence} Trying again in {delay} s.",
        "state": {"label": "live · reading failed"},
        "poll_url": _poll_url(address, after, number, failures),
        "poll_seconds": delay,
    }
    return _poll_response(request, context, stop=False)


def _poll_response(request, context: dict, stop: bool):
    context = {"stop": stop, **context}
    response = render(request, "viewers/log_more.html", context)
    if stop:
        response.status_code = HTMX_STOP_POLLING
    response["Cache-Control"] = "no-store"
    return response


# --- run log: earlier parts and search -----------------------------------------------------------


@_reads("log", "Run log")
def log_earlier(request, target: Target):
    """The part of the log just before ``before``, cut at a line start, for "show earlier"."""
    before = _positive_int(request.GET.get("before"))
    if not before:
        return HttpResponse("", content_type="text/html")
    try:
        window = _read_before(target.reader, target.key, before, EARLIER_BYTES, _positive_int(request.GET.get("first")))
    except StoreError as error:
        context = {"sentence": _sentence(error, LOG_SENTENCES), "retry_url": request.get_full_path()}
        return render(request, "viewers/log_earlier.html", context)
    context = {
        **_lines_context(window.lines),
        "alto_base": _alto_base(target.base, target.key),
        "earlier_url": _earlier_url(target.address, window) if window.start > 0 else "",
        "earlier_page_url": _earlier_page_url(target.address, window),
    }
    return render(request, "viewers/log_earlier.html", context)


SEARCH_END_BYTES = 64 * 1024  # the end of a searched log read again to tell whether the run has ended


def _log_search_page(request, target: Target, base_context: dict):
    """Search results for the whole log, with the run's status as on the log page: a live log keeps
    growing, so the page says the search covers it as of now."""
    blob = target.reader.get(target.key, max_bytes=WHOLE_LOG_LIMIT)
    end, start = runlog.cut_at_line_start(blob.body[-SEARCH_END_BYTES:], max(0, len(blob.body) - SEARCH_END_BYTES))
    window = LogWindow(runlog.split_lines(end, start, None), start, len(blob.body), blob.size, blob.last_modified)
    state = _log_state(window, base_context["live"])
    context = {
        **base_context,
        "result": runlog.search(blob.body, base_context["query"]),
        "partial": not blob.complete,
        "state": state,
        "searched_at": datetime.now(UTC).strftime("%H:%M:%S UTC") if not state["ended"] else "",
    }
    return render(request, "viewers/log_search.html", context)


@_reads("log", "Run log")
def log_find(request, target: Target):
    """Where a word occurs in the whole log, as JSON for the page's find bar: the lines the page has not
    loaded are opened around their line number."""
    query = request.GET.get("q", "")[:200]
    try:
        blob = target.reader.get(target.key, max_bytes=WHOLE_LOG_LIMIT)
    except StoreError as error:
        return JsonResponse({"detail": _sentence(error, LOG_SENTENCES)}, status=error.status)
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


# --- manifest summary ------------------------------------------------------------------------


def _manifest_summary(request, reader, base: ResultsBase, address: str) -> dict:
    try:
        key = key_for_address(address, request, base)
    except AddressRefused as refused:
        return {"problem": f"The summary is not shown: {refused.sentence}"}
    try:
        record = reader.get_json(key, max_bytes=4 * 1024 * 1024)
    except StoreError as error:
        if error.outcome is Outcome.NOT_FOUND:
            return {"problem": "There is no manifest.json yet: the volume has not finished, so there is no summary."}
        return {"problem": f"The summary is not shown: {_sentence(error, LOG_SENTENCES)}"}
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {"problem": "The summary is not shown: manifest.json is not readable JSON."}
    if not isinstance(record, dict):
        return {"problem": "The summary is not shown: manifest.json is not a JSON object."}
    return summarise_manifest(record, key, base)


def _text(value, limit: int = 500) -> str:
    return str(value)[:limit] if value is not None else ""


def _seconds(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def summarise_manifest(record: dict, key: str, base: ResultsBase) -> dict:
    """What the log page shows from a volume's manifest.json (pure)."""
    prefix = key.rsplit("/", 1)[0]
    results = record.get("results") if isinstance(record.get("results"), dict) else {}
    pages = []
    for page_id in sorted(results, key=lambda p: (len(str(p)), str(p)))[:10_000]:
        entry = results[page_id] if isinstance(results[page_id], dict) else {}
        status = entry.get("status") if entry.get("status") in ("ok", "failed", "skipped") else "unknown"
        quality = _seconds(entry.get("quality"))
        alto_url = ""
        if _PAGE_ID.match(str(page_id)):
            alto_url = _viewer_link("/alto", src=base.url_for_key(f"{prefix}/alto/{page_id}.xml"))
        pages.append(
            {
                "id": _text(page_id, 12),
                "status": status,
                "seconds": _seconds(entry.get("seconds")),
                "error": _text(entry.get("error"), 3500),
                "quality": quality,
                "alto_url": alto_url if status in ("ok", "failed") else "",
            }
        )
    timed = [p for p in pages if p["status"] == "ok" and p["seconds"] is not None]
    scores = volume_quality(record.get("quality"))
    lowest = []
    for scored in scores.lowest[:5] if scores else ():
        src = base.url_for_key(f"{prefix}/alto/{scored.page}.xml")
        link = _viewer_link("/alto", src=src)
        lowest.append({"id": scored.page, "quality": scored.quality, "band": band(scored.quality), "alto_url": link})
    counts = {status: sum(1 for p in pages if p["status"] == status) for status in ("ok", "failed", "skipped")}
    slowest = sorted(timed, key=lambda p: p["seconds"], reverse=True)[:3]
    return {
        "volume": _text(record.get("volume"), 80),
        "pipeline": _text(record.get("pipeline_id"), 80),
        "htrflow_version": _text(record.get("htrflow_version"), 40),
        "pages_total": record.get("pages") if isinstance(record.get("pages"), int) else len(pages),
        "ok": record.get("pages_ok") if isinstance(record.get("pages_ok"), int) else counts["ok"],
        "failed": record.get("pages_failed") if isinstance(record.get("pages_failed"), int) else counts["failed"],
        "skipped": counts["skipped"],
        "wall_seconds": _seconds(record.get("wall_seconds")),
        "median_seconds": statistics.median([p["seconds"] for p in timed]) if timed else None,
        "slowest": slowest,
        "failed_pages": [p for p in pages if p["status"] == "failed"],
        "pages": pages,
        "quality": scores,  # predicted quality of the volume's pages, with the model that scored them
        "quality_meaning": target_words(scores.target) if scores else "",
        "quality_lowest": lowest,
        "any_page_scored": any(p["quality"] is not None for p in pages),
    }


# --- ALTO --------------------------------------------------------------------------------------


def _read_alto(reader, key: str):
    """(blob, page, problem): the ALTO file and its parsed page, or None and the sentence saying why not.
    Raises StoreError when the file cannot be read at all."""
    blob = reader.get(key, max_bytes=alto_parser.MAX_ALTO_BYTES + 1)
    if blob.size > alto_parser.MAX_ALTO_BYTES:
        problem = (
            f"The ALTO file is {blob.size / 1048576:.1f} MiB, over the "
            f"{alto_parser.MAX_ALTO_BYTES // 1048576} MiB this viewer reads; download it instead."
        )
        return blob, None, problem
    try:
        return blob, alto_parser.parse_alto(blob.body), ""
    except alto_parser.AltoError as refused:
        return blob, None, refused.sentence


@_reads("src", "ALTO page")
def alto_view(request, target: Target):
    """The page image with its text lines drawn over it, and the text beside it; a page without an ALTO
    file (a failed page) still shows its image and the way to the volume's other pages."""
    reader, base, key, address = target.reader, target.base, target.key, target.address
    location = _ALTO_KEY.match(key)
    if location and "goto" in request.GET:
        return _go_to_page(request, target, location)
    try:
        blob, page, parse_problem = _read_alto(reader, key)
    except StoreError as error:
        sentence = _sentence(error, ALTO_SENTENCES)
        if error.outcome is not Outcome.NOT_FOUND or location is None:
            return _problem_page(
                request, "ALTO page", sentence, _operator_fix(error, key), status=error.status, address=address
            )
        blob, page, parse_problem = None, None, _missing_page_sentence(location)
    image = _page_image(reader, base, key, location) if location else {"problem": ""}
    query = request.GET.get("q", "")[:200]
    place = find_place(key)
    context = {
        "address": address,
        "key": key,
        "raw_url": base.url_for_key(key) if blob else "",
        "text_url": _viewer_link("/alto/text", src=address),
        "page": page,
        "missing": blob is None,
        "parse_problem": parse_problem,
        "problems": page.problems if page else [],
        "image": image,
        "query": query,
        "raw_xml": blob.body[:RAW_XML_LIMIT].decode("utf-8", "replace") if blob else "",
        "raw_cut": bool(blob) and len(blob.body) > RAW_XML_LIMIT,
        "place": place,
        "volume_links": _volume_links(base, place),
        "goto_problem": request.GET.get("goto_problem", "")[:200],
        **_alto_drawing(page, query, image),
        **_neighbours(base, location, image),
    }
    return render(request, "viewers/alto.html", context, status=404 if blob is None else 200)


def _missing_page_sentence(location) -> str:
    return (
        f"Page {int(location.group('page'))} has no ALTO file: it failed or has not been processed yet, so there is "
        "no text to show. Its run log says why; the page image and the volume's other pages are below."
    )


def _volume_links(base: ResultsBase, place) -> dict:
    """The volume's run log, IIIF manifest and completion record, as viewer or results links."""
    if place is None:
        return {}
    prefix = place.prefix
    manifest = base.url_for_key(f"{prefix}/manifest.json")
    return {
        "log": _viewer_link("/log", log=base.url_for_key(place.log_key), manifest=manifest),
        "iiif": base.url_for_key(f"{prefix}/iiif.json"),
        "manifest": manifest,
    }


def _go_to_page(request, target: Target, location):
    """``goto=N``: to page N of the volume, or back to this page with a sentence when N is no page."""
    wanted = _positive_int(request.GET.get("goto", "").strip())
    image = _page_image(target.reader, target.base, target.key, location)
    total = image.get("pages")
    width = len(location.group("page"))
    if wanted is None or (total and wanted > total):
        limit = f" 1 to {total}" if total else " 1 or more"
        problem = f"There is no page “{request.GET.get('goto', '')[:20]}”: give a page number,{limit}."
        return HttpResponseRedirect(_viewer_link("/alto", src=target.address, goto_problem=problem))
    key = f"{location.group('prefix')}/alto/{wanted:0{width}d}.xml"
    return HttpResponseRedirect(_viewer_link("/alto", src=target.base.url_for_key(key)))


def _alto_drawing(page, query: str, image: dict) -> dict:
    if page is None:
        return {"blocks": [], "viewbox": "", "match_count": 0, "line_count": 0, "drawing_note": ""}
    left, top, width, height = page.extent()
    if not (page.width and page.height) and image.get("width") and image.get("height"):
        width, height = max(width, image["width"]), max(height, image["height"])
    needle = query.strip().lower()
    needle_pattern = re.compile(re.escape(needle), re.IGNORECASE)
    match_count = 0
    blocks = []
    drawn = 0
    for block in page.blocks:
        rows = []
        for line in block.lines:
            if drawn >= DRAWN_LINES_MAX:
                break
            drawn += 1
            pieces = [(line.text, False)]
            if needle and needle in line.text.lower():
                hits, hit_count = runlog.first_hits(needle_pattern, line.text)
                match_count += hit_count
                pieces = runlog.highlight(line.text, hits)
            rows.append(
                {
                    "line": line,
                    "points": alto_parser.svg_points(line.points),
                    "band": line.confidence_band(),
                    "percent": round(line.confidence * 100) if line.confidence is not None else None,
                    "pieces": pieces,
                    "matched": bool(needle) and len(pieces) > 1,
                    "whole_words": ", ".join(
                        w.subs_content for w in line.words if w.subs_content and w.subs_type == "HypPart1"
                    ),
                }
            )
        blocks.append({"id": block.id, "rows": rows})
    fmt = alto_parser.format_number
    return {
        "blocks": blocks,
        "viewbox": f"{fmt(left)} {fmt(top)} {fmt(width)} {fmt(height)}",
        "page_width": fmt(page.width or width),
        "page_height": fmt(page.height or height),
        "match_count": match_count,
        "line_count": drawn,
        "drawing_note": _drawing_note(page, drawn),
        "mean_percent": round(page.mean_confidence() * 100) if page.mean_confidence() is not None else None,
    }


def _drawing_note(page, drawn: int) -> str:
    """A sentence when the file has more lines than are drawn, else ''."""
    total = max(page.total_lines, len(page.lines))
    if total <= drawn:
        return ""
    note = (
        f"This page has {total:,} text lines; only the first {drawn:,} are drawn and listed here, "
        f"{total - drawn:,} more are not."
    )
    if len(page.lines) > drawn:
        note += f" The plain text holds the first {len(page.lines):,}."
    return note


def _page_image(reader, base: ResultsBase, key: str, location) -> dict:
    """The page image from the volume's iiif.json canvas: {"url", "width", "height"} or {"problem"}."""
    prefix, page_id = location.group("prefix"), location.group("page")
    try:
        manifest = reader.get_json(f"{prefix}/iiif.json", max_bytes=IIIF_LIMIT)
    except StoreError as error:
        missing = error.outcome is Outcome.NOT_FOUND
        reason = "there is no iiif.json for this volume yet" if missing else _sentence(error, {})
        return {"problem": f"The page image cannot be shown: {reason}"}
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {"problem": "The page image cannot be shown: the volume's iiif.json is not readable JSON."}
    canvases = manifest.get("items") if isinstance(manifest, dict) else None
    if not isinstance(canvases, list) or not canvases:
        return {"problem": "The page image cannot be shown: the volume's iiif.json lists no pages."}
    canvas = _canvas_for(canvases, base, key, int(page_id))
    strip = _thumbnails(canvases, base, prefix, len(page_id))
    if canvas is None:
        return {
            "problem": "The page image cannot be shown: the volume's iiif.json has no canvas for this page.",
            "pages": len(canvases),
            "thumbnails": strip,
        }
    url, width, height = _image_of(canvas)
    if not url:
        return {
            "problem": "The page image cannot be shown: its canvas names no usable http(s) image.",
            "pages": len(canvases),
            "thumbnails": strip,
        }
    return {"url": url, "width": width, "height": height, "pages": len(canvases), "problem": "", "thumbnails": strip}


THUMBNAIL_HEIGHT = 96
THUMBNAILS_MAX = 2000


def _thumbnails(canvases: list, base: ResultsBase, prefix: str, digits: int) -> list[dict]:
    """One small picture per canvas for the page strip: from the image service when there is one, else the
    canvas's own thumbnail, else the image itself (the browser loads them lazily)."""
    strip = []
    for number, canvas in enumerate(canvases[:THUMBNAILS_MAX], start=1):
        picture = ""
        if isinstance(canvas, dict):
            service = _image_service(canvas)
            if service:
                picture = f"{service}/full/,{THUMBNAIL_HEIGHT}/0/default.jpg"
            else:
                picture = _canvas_thumbnail(canvas) or _image_of(canvas)[0]
        key = f"{prefix}/alto/{number:0{digits}d}.xml"
        strip.append({"number": number, "picture": picture, "url": _viewer_link("/alto", src=base.url_for_key(key))})
    return strip


def _canvas_thumbnail(canvas: dict) -> str:
    thumbnails = canvas.get("thumbnail")
    for item in thumbnails if isinstance(thumbnails, list) else [thumbnails]:
        if isinstance(item, dict) and _is_web_url(item.get("id")):
            return item["id"]
    return ""


def _canvas_for(canvases: list, base: ResultsBase, key: str, page_no: int):
    for canvas in canvases:
        if not isinstance(canvas, dict):
            continue
        see_also = canvas.get("seeAlso")
        for item in see_also if isinstance(see_also, list) else [see_also]:
            target = item.get("id") if isinstance(item, dict) else None
            if isinstance(target, str):
                try:
                    if key_for_address(target, base=base) == key:
                        return canvas
                except AddressRefused:
                    continue
    if 0 < page_no <= len(canvases) and isinstance(canvases[page_no - 1], dict):
        return canvases[page_no - 1]
    return None


def _image_of(canvas: dict) -> tuple[str, float | None, float | None]:
    width, height = _seconds(canvas.get("width")), _seconds(canvas.get("height"))
    body = _image_body(canvas)
    if body is None:
        return "", width, height
    service_id = _service_of(body)
    if service_id:
        size = min(IMAGE_WIDTH, int(width)) if width else IMAGE_WIDTH
        return f"{service_id}/full/{size},/0/default.jpg", width, height
    image_id = body.get("id") or body.get("@id")
    return (image_id if _is_web_url(image_id) else ""), width, height


def _image_body(canvas: dict):
    try:
        body = canvas["items"][0]["items"][0]["body"]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(body, dict) and body.get("type") == "Choice" and isinstance(body.get("items"), list):
        body = body["items"][0] if body["items"] else {}
    return body if isinstance(body, dict) else None


def _service_of(body: dict) -> str:
    services = body.get("service")
    for service in services if isinstance(services, list) else [services]:
        if isinstance(service, dict):
            service_id = service.get("id") or service.get("@id")
            if _is_web_url(service_id):
                return service_id.rstrip("/")
    return ""


def _image_service(canvas: dict) -> str:
    body = _image_body(canvas)
    return _service_of(body) if body else ""


def _is_web_url(value) -> bool:
    return isinstance(value, str) and re.match(r"^https?://[^\s\"'<>\\]+$", value) is not None


def _neighbours(base: ResultsBase, location, image: dict) -> dict:
    if location is None:
        return {"previous_url": "", "next_url": "", "page_label": "", "page_number": None, "page_total": None}
    prefix, page_id = location.group("prefix"), location.group("page")
    number = int(page_id)
    width = len(page_id)
    total = image.get("pages")

    def link(n):
        return _viewer_link("/alto", src=base.url_for_key(f"{prefix}/alto/{n:0{width}d}.xml"))

    return {
        "previous_url": link(number - 1) if number > 1 else "",
        "next_url": link(number + 1) if total is None or number < total else "",
        "page_label": f"page {number}" + (f" of {total}" if total else ""),
        "page_number": number,
        "page_total": total,
        "volume": prefix.rsplit("/", 1)[-1],
    }


@_reads("src", "ALTO page")
def alto_text(request, target: Target):
    """The page's plain text as a download."""
    try:
        _blob, page, problem = _read_alto(target.reader, target.key)
    except StoreError as error:
        sentence = _sentence(error, ALTO_SENTENCES)
        return _problem_page(request, "ALTO page", sentence, status=error.status, address=target.address)
    if page is None:
        return _problem_page(request, "ALTO page", problem, status=422, address=target.address)
    key = target.key
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", key.replace("/alto/", "-").rsplit("/", 1)[-1]).removesuffix(".xml")
    response = HttpResponse(page.text(), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.txt"'
    response["Cache-Control"] = "private, no-store"
    return response

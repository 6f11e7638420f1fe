"""The run log viewer (/log) and the ALTO page viewer (/alto).

Both read results files in-process with the person's own store session (``reader_for``), and only
addresses under the results base (``results.addresses``). Every failure is a sentence on the page.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote, urlencode, urlsplit

from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HTMX_STOP_POLLING

from results import alto as alto_parser
from results import runlog
from results.addresses import AddressRefused, ResultsBase, key_for_address, results_base
from results.middleware import login_url
from results.reader import Outcome, StoreError, reader_for

TAIL_BYTES = runlog.TAIL_BYTES
EARLIER_BYTES = 128 * 1024
NUMBERING_LIMIT = 1024 * 1024  # logs up to this size are counted so every line has its number
WHOLE_LOG_LIMIT = 8 * 1024 * 1024
DEEP_LINK_CONTEXT = 100  # lines shown above a deep-linked line
DEEP_LINK_MAX_LINES = 5000
POLL_SECONDS = 3
POLL_MAX_FAILURES = 5
RAW_XML_LIMIT = 512 * 1024
IIIF_LIMIT = 8 * 1024 * 1024
IMAGE_WIDTH = 2000
_ALTO_KEY = re.compile(r"^(?P<prefix>.+)/alto/(?P<page>\d{4,})\.xml$")
_PAGE_ID = re.compile(r"^\d{1,6}$")

LOG_SENTENCES = {
    Outcome.FORBIDDEN: "Your store account may not read this run log. Ask for an account that can read this namespace.",
    Outcome.NOT_FOUND: (
        "There is no run log at this address yet. The volume may not have started, or its log was "
        "written under another address."
    ),
    Outcome.UNREACHABLE: "The results store could not be reached, so the log cannot be shown. Try again in a minute.",
    Outcome.TIMEOUT: "The results store did not answer in time, so the log cannot be shown. Try again in a minute.",
}
ALTO_SENTENCES = {
    Outcome.FORBIDDEN: "Your store account may not read this page's ALTO file.",
    Outcome.NOT_FOUND: "There is no ALTO file at this address: the page may have failed or not been processed yet.",
    Outcome.UNREACHABLE: "The results store could not be reached, so the page cannot be shown. Try again in a minute.",
    Outcome.TIMEOUT: "The results store did not answer in time, so the page cannot be shown. Try again in a minute.",
}


class _LoginAgain(Exception):
    """The store no longer accepts the session: send the person to log in and come back."""


def _sentence(error: StoreError, sentences: dict) -> str:
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


def _problem_page(request, title: str, sentence: str, fix: str = "", status: int = 400, address: str = ""):
    context = {"title": title, "sentence": sentence, "fix": fix, "address": address}
    return render(request, "viewers/problem.html", context, status=status)


def _resolve(request, address: str, title: str):
    """(reader, base, key) or a response to return instead."""
    reader = reader_for(request)
    if reader is None:
        return _login_response(request)
    base = results_base(request)
    try:
        key = key_for_address(address, request, base)
    except AddressRefused as refused:
        return _problem_page(request, title, refused.sentence, refused.fix, 400, address)
    return reader, base, key


def _viewer_link(path: str, **params) -> str:
    return path + "?" + urlencode({k: v for k, v in params.items() if v not in (None, "", False)})


# --- run log ---------------------------------------------------------------------------------


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


def _read_tail(reader, key: str) -> LogWindow:
    try:
        blob = reader.get(key, suffix=TAIL_BYTES)
    except StoreError as error:
        if error.outcome is not Outcome.UNSATISFIABLE:
            raise
        empty = reader.head(key)  # an empty log has no last bytes to ask for
        return LogWindow([], 0, 0, empty.size, empty.last_modified)
    data, start = runlog.cut_at_line_start(blob.body, blob.start)
    first_number = 1 if start == 0 else None
    if start and blob.size <= NUMBERING_LIMIT:
        prefix = reader.get(key, start=0, end=start - 1)
        first_number = runlog.count_lines(prefix.body) + 1
    data = runlog.complete_lines(data)
    return LogWindow(
        runlog.split_lines(data, start, first_number), start, start + len(data), blob.size, blob.last_modified
    )


def _read_before(reader, key: str, before: int) -> LogWindow:
    """The part of the log that ends at byte ``before`` (for "show earlier" without JavaScript)."""
    start = max(0, before - TAIL_BYTES)
    blob = reader.get(key, start=start, end=before - 1)
    data, start = runlog.cut_at_line_start(blob.body, blob.start)
    data = runlog.complete_lines(data)
    first_number = 1 if start == 0 else None
    note = "This is an earlier part of the log."
    return LogWindow(
        runlog.split_lines(data, start, first_number), start, start + len(data), blob.size, blob.last_modified, note
    )


def _read_around_line(reader, key: str, line_number: int) -> LogWindow:
    blob = reader.get(key, max_bytes=WHOLE_LOG_LIMIT)
    data = runlog.complete_lines(blob.body)
    every = runlog.split_lines(data, 0, 1)
    first = max(0, min(line_number, len(every)) - 1 - DEEP_LINK_CONTEXT)
    shown = every[first : first + DEEP_LINK_MAX_LINES]
    note = ""
    if line_number > len(every):
        note = f"The log has {len(every)} lines, so line {line_number} does not exist; showing its end."
    if first + DEEP_LINK_MAX_LINES < len(every) or not blob.complete:
        note = "Only part of the log after this line is shown; open the end of the log to follow it."
    start = shown[0].offset if shown else 0
    end = (shown[-1].offset + len(shown[-1].text.encode()) + 1) if shown else 0
    if shown and shown[-1] is every[-1]:
        end = len(data)
    return LogWindow(shown, start, end, blob.size, blob.last_modified, note)


def _log_state(lines: list[runlog.LogLine], window: LogWindow, live: bool) -> dict:
    ended = runlog.log_end_state(lines)
    now = datetime.now(UTC)
    age = None
    if window.last_modified is not None:
        modified = window.last_modified
        if modified.tzinfo is None:
            modified = modified.replace(tzinfo=UTC)
        age = max(0, int((now - modified).total_seconds()))
    if ended == "finished":
        label = "finished"
    elif ended == "failed":
        label = "failed"
    elif live:
        label = f"live · updated {age} s ago" if age is not None else "live"
    else:
        label = f"updated {age} s ago" if age is not None else ""
    return {"ended": ended, "label": label, "age": age}


def _focus_anchor(lines: list[runlog.LogLine], ended: str | None) -> str:
    """Where the page opens: the failure for a failed run, else the last error, else the end."""
    if ended == "failed":
        failures = [line for line in lines if line.kind == "failed"]
        if failures:
            return failures[-1].anchor
    return lines[-1].anchor if lines else ""


@require_GET
@vary_on_headers("HX-Request")
def log_view(request):
    address = request.GET.get("log", "")
    resolved = _resolve(request, address, "Run log")
    if isinstance(resolved, HttpResponse):
        return resolved
    reader, base, key = resolved
    live = request.GET.get("live") == "1"
    query = request.GET.get("q", "")[:200]
    manifest_address = request.GET.get("manifest", "")
    line = _positive_int(request.GET.get("line"))
    before = None if line else _positive_int(request.GET.get("before"))
    try:
        summary = _manifest_summary(request, reader, base, manifest_address) if manifest_address else None
        if query.strip():
            return _log_search_page(request, reader, base, key, address, query, summary)
        if line:
            window = _read_around_line(reader, key, line)
        elif before:
            window = _read_before(reader, key, before)
        else:
            window = _read_tail(reader, key)
    except _LoginAgain:
        return _login_response(request)
    except StoreError as error:
        try:
            sentence = _sentence(error, LOG_SENTENCES)
        except _LoginAgain:
            return _login_response(request)
        return _problem_page(request, "Run log", sentence, status=error.status, address=address)
    state = _log_state(window.lines, window, live)
    # A tail read always reaches the end of the log (less a line still being written), so it can follow.
    following = live and not state["ended"] and not line and not before
    context = {
        **_log_context(request, base, key, address, manifest_address, summary, query),
        "window": window,
        "groups": runlog.group_lines(window.lines),
        "state": state,
        "following": following,
        "poll_url": _poll_url(address, window.end, _next_number(window), 0) if following else "",
        "poll_seconds": POLL_SECONDS,
        "earlier_url": _earlier_url(address, window) if window.start > 0 else "",
        "earlier_page_url": _earlier_page_url(address, window),
        "focus": "" if (line or before) else _focus_anchor(window.lines, state["ended"]),
        "deep_line": line or before,
        "errors": [ln for ln in window.lines if ln.is_error],
        "http_count": sum(1 for ln in window.lines if ln.kind == "http"),
    }
    return render(request, "viewers/log.html", context)


def _log_context(request, base: ResultsBase, key: str, address: str, manifest_address: str, summary, query: str):
    volume = (summary or {}).get("volume") or key.rsplit("/", 1)[-1].removesuffix(".txt")
    return {
        "address": address,
        "manifest_address": manifest_address,
        "raw_url": base.url_for_key(key),
        "volume": volume,
        "summary": summary,
        "query": query,
        "key": key,
        "tail_url": _viewer_link("/log", log=address, manifest=manifest_address, live="1"),
        "line_url": _viewer_link("/log", log=address, manifest=manifest_address),
    }


def _positive_int(value) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number < 10**9 else None


def _next_number(window: LogWindow) -> int | None:
    if not window.lines or window.lines[-1].number is None:
        return 1 if (not window.lines and window.start == 0) else None
    return window.lines[-1].number + 1


def _first_number(window: LogWindow, back: bool = False) -> int | None:
    if window.lines and window.lines[0].number is not None:
        return max(1, window.lines[0].number - (DEEP_LINK_CONTEXT if back else 0))
    return None


def _poll_url(address: str, offset: int, number: int | None, failures: int) -> str:
    return _viewer_link("/log/more", log=address, after=offset, line=number, fails=failures or None)


def _earlier_page_url(address: str, window: LogWindow) -> str:
    """The same "show earlier" as a whole page, for browsers without JavaScript."""
    number = _first_number(window, back=True)
    if number:
        return _viewer_link("/log", log=address, line=number)
    return _viewer_link("/log", log=address, before=window.start)


def _earlier_url(address: str, window: LogWindow) -> str:
    return _viewer_link("/log/earlier", log=address, before=window.start, first=_first_number(window))


@require_GET
def log_more(request):
    """New lines after ``after`` (a live poll). Answers 286 once the run has ended or polling gives up."""
    address = request.GET.get("log", "")
    resolved = _resolve(request, address, "Run log")
    if isinstance(resolved, HttpResponse):
        return resolved
    reader, _base, key = resolved
    after = _positive_int(request.GET.get("after")) or 0
    number = _positive_int(request.GET.get("line"))
    failures = _positive_int(request.GET.get("fails")) or 0
    try:
        head = reader.head(key)
        data = b""
        if head.size > after:
            data = runlog.complete_lines(reader.get(key, start=after, end=head.size - 1).body)
    except StoreError as error:
        try:
            sentence = _sentence(error, LOG_SENTENCES)
        except _LoginAgain:
            return _login_response(request)
        return _poll_failed(request, address, after, number, failures + 1, sentence)
    if head.size < after:
        context = {"stopped": "The log was rewritten from the start; reload the page to read it again."}
        return _poll_response(request, context, stop=True)
    lines = runlog.split_lines(data, after, number)
    window = LogWindow(lines, after, after + len(data), head.size, head.last_modified)
    state = _log_state(lines, window, live=True)
    next_number = lines[-1].number + 1 if lines and lines[-1].number is not None else number
    context = {
        "groups": runlog.group_lines(lines),
        "state": state,
        "poll_url": _poll_url(address, after + len(data), next_number, 0),
        "poll_seconds": POLL_SECONDS,
        "errors": [ln for ln in lines if ln.is_error],
    }
    return _poll_response(request, context, stop=bool(state["ended"]))


def _poll_failed(request, address, after, number, failures, sentence):
    if failures >= POLL_MAX_FAILURES:
        stopped = f"Stopped following the log after {failures} failed reads: {sentence} Reload the page to try again."
        return _poll_response(request, {"stopped": stopped, "state": {"label": "stopped"}}, stop=True)
    delay = min(POLL_SECONDS * 2**failures, 60)
    context = {
        "groups": [],
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


@require_GET
def log_earlier(request):
    """The part of the log just before ``before``, cut at a line start, for "show earlier"."""
    address = request.GET.get("log", "")
    resolved = _resolve(request, address, "Run log")
    if isinstance(resolved, HttpResponse):
        return resolved
    reader, _base, key = resolved
    before = _positive_int(request.GET.get("before"))
    first = _positive_int(request.GET.get("first"))
    if not before:
        return HttpResponse("", content_type="text/html")
    start = max(0, before - EARLIER_BYTES)
    try:
        blob = reader.get(key, start=start, end=before - 1)
    except StoreError as error:
        try:
            sentence = _sentence(error, LOG_SENTENCES)
        except _LoginAgain:
            return _login_response(request)
        return render(request, "viewers/log_earlier.html", {"sentence": sentence, "retry_url": request.get_full_path()})
    data, start = runlog.cut_at_line_start(blob.body, blob.start)
    count = runlog.count_lines(data)
    first_number = (first - count) if first else (1 if start == 0 else None)
    if first_number is not None and first_number < 1:
        first_number = None
    lines = runlog.split_lines(data, start, first_number)
    window = LogWindow(lines, start, before, blob.size, blob.last_modified)
    context = {
        "groups": runlog.group_lines(lines),
        "earlier_url": _earlier_url(address, window) if start > 0 else "",
        "earlier_page_url": _earlier_page_url(address, window),
        "errors": [ln for ln in lines if ln.is_error],
    }
    return render(request, "viewers/log_earlier.html", context)


def _log_search_page(request, reader, base, key, address, query, summary):
    blob = reader.get(key, max_bytes=WHOLE_LOG_LIMIT)
    result = runlog.search(blob.body, query)
    context = {
        **_log_context(request, base, key, address, request.GET.get("manifest", ""), summary, query),
        "result": result,
        "partial": not blob.complete,
        "state": {"label": ""},
    }
    return render(request, "viewers/log_search.html", context)


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
    except (ValueError, UnicodeDecodeError):
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
                "alto_url": alto_url if status == "ok" else "",
            }
        )
    timed = [p for p in pages if p["status"] == "ok" and p["seconds"] is not None]
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
    }


# --- ALTO --------------------------------------------------------------------------------------


@require_GET
def alto_view(request):
    address = request.GET.get("src", "")
    resolved = _resolve(request, address, "ALTO page")
    if isinstance(resolved, HttpResponse):
        return resolved
    reader, base, key = resolved
    try:
        return _alto_page(request, reader, base, key, address)
    except _LoginAgain:
        return _login_response(request)


def _alto_page(request, reader, base, key, address):
    try:
        blob = reader.get(key, max_bytes=alto_parser.MAX_ALTO_BYTES + 1)
    except StoreError as error:
        return _problem_page(
            request, "ALTO page", _sentence(error, ALTO_SENTENCES), status=error.status, address=address
        )
    page, parse_problem = None, ""
    try:
        if blob.size > alto_parser.MAX_ALTO_BYTES:
            raise alto_parser.AltoError(
                f"The ALTO file is {blob.size / 1048576:.1f} MiB, over the "
                f"{alto_parser.MAX_ALTO_BYTES // 1048576} MiB this viewer reads; download it instead."
            )
        page = alto_parser.parse_alto(blob.body)
    except alto_parser.AltoError as refused:
        parse_problem = refused.sentence
    location = _ALTO_KEY.match(key)
    image = _page_image(reader, base, key, location) if location else {"problem": ""}
    query = request.GET.get("q", "")[:200]
    context = {
        "address": address,
        "key": key,
        "raw_url": base.url_for_key(key),
        "text_url": _viewer_link("/alto/text", src=address),
        "page": page,
        "parse_problem": parse_problem,
        "problems": page.problems if page else [],
        "image": image,
        "query": query,
        "raw_xml": blob.body[:RAW_XML_LIMIT].decode("utf-8", "replace"),
        "raw_cut": len(blob.body) > RAW_XML_LIMIT,
        **_alto_drawing(page, query, image),
        **_neighbours(base, location, image),
    }
    return render(request, "viewers/alto.html", context)


def _alto_drawing(page, query: str, image: dict) -> dict:
    if page is None:
        return {"blocks": [], "viewbox": "", "match_count": 0, "line_count": 0}
    left, top, width, height = page.extent()
    if not (page.width and page.height) and image.get("width") and image.get("height"):
        width, height = max(width, image["width"]), max(height, image["height"])
    needle = query.strip().lower()
    match_count = 0
    blocks = []
    for block in page.blocks:
        rows = []
        for line in block.lines:
            pieces = [(line.text, False)]
            if needle and needle in line.text.lower():
                hits = list(re.finditer(re.escape(needle), line.text, re.IGNORECASE))
                match_count += len(hits)
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
        "line_count": len(page.lines),
        "mean_percent": round(page.mean_confidence() * 100) if page.mean_confidence() is not None else None,
    }


def _page_image(reader, base: ResultsBase, key: str, location) -> dict:
    """The page image from the volume's iiif.json canvas: {"url", "width", "height"} or {"problem"}."""
    prefix, page_id = location.group("prefix"), location.group("page")
    try:
        manifest = reader.get_json(f"{prefix}/iiif.json", max_bytes=IIIF_LIMIT)
    except StoreError as error:
        if error.outcome in (Outcome.SESSION_ENDED, Outcome.NO_SESSION):
            raise _LoginAgain() from None
        reason = "there is no iiif.json for this volume yet" if error.outcome is Outcome.NOT_FOUND else error.sentence
        return {"problem": f"The page image cannot be shown: {reason}"}
    except (ValueError, UnicodeDecodeError):
        return {"problem": "The page image cannot be shown: the volume's iiif.json is not readable JSON."}
    canvases = manifest.get("items") if isinstance(manifest, dict) else None
    if not isinstance(canvases, list) or not canvases:
        return {"problem": "The page image cannot be shown: the volume's iiif.json lists no pages."}
    canvas = _canvas_for(canvases, base, key, int(page_id))
    if canvas is None:
        return {
            "problem": "The page image cannot be shown: the volume's iiif.json has no canvas for this page.",
            "pages": len(canvases),
        }
    url, width, height = _image_of(canvas)
    if not url:
        return {
            "problem": "The page image cannot be shown: its canvas names no usable http(s) image.",
            "pages": len(canvases),
        }
    return {"url": url, "width": width, "height": height, "pages": len(canvases), "problem": ""}


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
    try:
        body = canvas["items"][0]["items"][0]["body"]
    except (KeyError, IndexError, TypeError):
        return "", width, height
    if isinstance(body, dict) and body.get("type") == "Choice" and isinstance(body.get("items"), list):
        body = body["items"][0] if body["items"] else {}
    if not isinstance(body, dict):
        return "", width, height
    services = body.get("service")
    for service in services if isinstance(services, list) else [services]:
        if not isinstance(service, dict):
            continue
        service_id = service.get("id") or service.get("@id")
        if _is_web_url(service_id):
            size = min(IMAGE_WIDTH, int(width)) if width else IMAGE_WIDTH
            return f"{service_id.rstrip('/')}/full/{size},/0/default.jpg", width, height
    image_id = body.get("id") or body.get("@id")
    return (image_id if _is_web_url(image_id) else ""), width, height


def _is_web_url(value) -> bool:
    return isinstance(value, str) and re.match(r"^https?://[^\s\"'<>\\]+$", value) is not None


def _neighbours(base: ResultsBase, location, image: dict) -> dict:
    if location is None:
        return {"previous_url": "", "next_url": "", "page_label": ""}
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
        "volume": prefix.rsplit("/", 1)[-1],
    }


@require_GET
def alto_text(request):
    """The page's plain text as a download."""
    address = request.GET.get("src", "")
    resolved = _resolve(request, address, "ALTO page")
    if isinstance(resolved, HttpResponse):
        return resolved
    reader, _base, key = resolved
    try:
        blob = reader.get(key, max_bytes=alto_parser.MAX_ALTO_BYTES + 1)
        page = alto_parser.parse_alto(blob.body)
    except StoreError as error:
        try:
            sentence = _sentence(error, ALTO_SENTENCES)
        except _LoginAgain:
            return _login_response(request)
        return _problem_page(request, "ALTO page", sentence, status=error.status, address=address)
    except alto_parser.AltoError as refused:
        return _problem_page(request, "ALTO page", refused.sentence, status=422, address=address)
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", key.replace("/alto/", "-").rsplit("/", 1)[-1]).removesuffix(".xml")
    response = HttpResponse(page.text(), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.txt"'
    response["Cache-Control"] = "private, no-store"
    return response

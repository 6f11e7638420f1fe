"""Raw result files, served from the store with the person's own session.

Every answer of the file route, errors included, carries ``Cache-Control: private,
no-cache``, ``X-Content-Type-Options: nosniff`` and a CSP that forbids everything.
"""

import contextlib
import logging
import re
import socket
from datetime import UTC, datetime
from urllib.parse import quote

from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils.http import content_disposition_header, http_date, parse_http_date_safe
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from results.accounts import session
from results.store import budget, downloads, keys, splice
from results.store.outcomes import STORE_RETRY_AFTER_SECONDS, NotModified, Outcome, StoreError
from results.store.reader import reader_for

logger = logging.getLogger(__name__)


# Read from the store and handed to gunicorn 1 MiB at a time: 64 KiB chunks spent a third of the
# proxy's time in per-chunk work (benchmarks/bench_proxy_speed.py); memory stays a few chunks per download.
CHUNK_BYTES = 1024 * 1024
# The first read is short: the first bytes go on as soon as the store's first packets are in, not once a
# whole chunk has come (1 MiB is about 8 ms behind the store's first byte on a 1 Gbit/s link, 80 ms on 100).
FIRST_CHUNK_BYTES = 64 * 1024
FILE_HEADERS = {
    "Cache-Control": "private, no-cache",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
}
# Only these are served as themselves; everything else is a download.
SERVED_TYPES = {
    "application/json": "application/json",
    "application/xml": "application/xml; charset=utf-8",
    "text/xml": "application/xml; charset=utf-8",
    "text/plain": "text/plain; charset=utf-8",
}
TYPES_BY_SUFFIX = {".json": "application/json", ".xml": "application/xml", ".txt": "text/plain"}
_RANGE = re.compile(r"bytes=(\d*)-(\d*)")
# No store holds an object of 10^19 bytes; a longer position is hostile, and Python's int()
# would refuse it outright past 4 300 digits.
MAX_RANGE_DIGITS = 19


def _file_answer(response):
    for name, value in FILE_HEADERS.items():
        response[name] = value
    return response


def _file_error(request, error):
    status, sentence = error.status, error.sentence
    if request.method == "HEAD":
        response = HttpResponse(status=status)
    elif "json" in request.META.get("HTTP_ACCEPT", ""):
        response = JsonResponse({"error": sentence, "reason": error.outcome.value}, status=status)
    else:
        response = HttpResponse(sentence + "\n", status=status, content_type="text/plain; charset=utf-8")
    if error.outcome is Outcome.TOO_MANY_DOWNLOADS:
        response["Retry-After"] = str(downloads.RETRY_AFTER_SECONDS)
    if error.outcome in (Outcome.UNREACHABLE, Outcome.TIMEOUT):
        response["Retry-After"] = str(STORE_RETRY_AFTER_SECONDS)
    if error.outcome in (Outcome.NO_SESSION, Outcome.SESSION_ENDED):
        if session.cookie_name(request) in request.COOKIES or error.outcome is Outcome.SESSION_ENDED:
            session.end(response, request)
    return _file_answer(response)


def raw_key_path(request):
    """The still-encoded part of the request path after ``/results/``.

    Gunicorn passes the raw request target (RAW_URI / REQUEST_URI). Without it, PATH_INFO has been
    decoded once already; re-encoding each segment lets the key rules decode it exactly once.
    """
    raw = request.META.get("RAW_URI") or request.META.get("REQUEST_URI") or ""
    raw = raw.split("?", 1)[0].split("#", 1)[0]
    if raw.startswith(("http://", "https://")):
        raw = "/" + raw.split("/", 3)[-1] if raw.count("/") >= 3 else ""
    script = request.META.get("SCRIPT_NAME", "").rstrip("/")
    if script and raw.startswith(script + "/"):
        raw = raw[len(script) :]
    if raw.startswith("/results/"):
        return raw[len("/results/") :]
    decoded = request.path_info[len("/results/") :]
    return "/".join(quote(segment, safe="") for segment in decoded.split("/"))


def _requested_range(request):
    """A single ``bytes=`` range as an S3 Range header, or None to send the whole file."""
    value = request.META.get("HTTP_RANGE", "").strip()
    if not value or request.META.get("HTTP_IF_RANGE"):
        return None
    match = _RANGE.fullmatch(value.replace(" ", ""))
    if not match or match.groups() == ("", ""):
        return None
    first, last = match.groups()
    if len(first) > MAX_RANGE_DIGITS or len(last) > MAX_RANGE_DIGITS:
        return "unsatisfiable"
    if first and last and int(last) < int(first):
        return None
    if not first and int(last) == 0:
        return "unsatisfiable"
    return f"bytes={first}-{last}"


def _conditionals(request):
    if_none_match = request.META.get("HTTP_IF_NONE_MATCH") or None
    since = parse_http_date_safe(request.META.get("HTTP_IF_MODIFIED_SINCE", ""))
    return if_none_match, None if since is None else datetime.fromtimestamp(since, UTC)


def _is_current(request, etag, last_modified):
    """True when the client's conditional headers show its copy is current (checked here too)."""
    if_none_match, since = _conditionals(request)
    if if_none_match:
        tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
        return "*" in tags or (etag is not None and etag in tags)
    if since is not None and last_modified is not None:
        return last_modified.replace(microsecond=0) <= since
    return False


def _content_type(key, stored_type):
    base = (stored_type or "").split(";", 1)[0].strip().lower()
    if base in SERVED_TYPES:
        return SERVED_TYPES[base], False
    if base in ("", "binary/octet-stream", "application/octet-stream"):
        for suffix, guessed in TYPES_BY_SUFFIX.items():
            if key.lower().endswith(suffix):
                return SERVED_TYPES[guessed], False
    return "application/octet-stream", True


def _metadata_headers(response, key, answer):
    content_type, download = _content_type(key, answer.get("ContentType"))
    response["Content-Type"] = content_type
    if download:
        response["Content-Disposition"] = content_disposition_header(True, key.rsplit("/", 1)[-1])
    if answer.get("ETag"):
        response["ETag"] = answer["ETag"]
    if answer.get("LastModified"):
        response["Last-Modified"] = http_date(answer["LastModified"].timestamp())
    response["Accept-Ranges"] = "bytes"


def _not_modified(etag, last_modified):
    response = HttpResponse(status=304)
    if etag:
        response["ETag"] = etag
    if last_modified is not None:
        response["Last-Modified"] = http_date(last_modified.timestamp())
    return _file_answer(response)


def _chunks_of(body, client=None, declared=None, may_splice=False):
    """A store object's body in chunks: a small first one, so the first bytes leave before a whole chunk
    arrives, then CHUNK_BYTES at a time.

    With the client's socket at hand (``client``) and splicing allowed, the rest goes from the store's socket
    to the client's inside the kernel (results.store.splice), when what is left of the store's answer is
    exactly what the answer declared (``declared``, its Content-Length) less what was yielded. The first
    chunk, and what the store client had buffered, are yielded first, so the server has sent the answer's
    head and those bytes before the rest follows them. A failure once the answer has started shuts the
    client's side for writing, so the client learns at once that the body ends short rather than wait on a
    kept connection for bytes that will not come."""
    try:
        chunk = body.read(FIRST_CHUNK_BYTES)
        if chunk and may_splice and client is not None and splice.source_of(body) is not None:
            yield chunk
            sent = len(chunk)
            held = splice.buffered_bytes(body)
            if held:
                yield held
                sent += len(held)
            source = splice.source_of(body)
            if source is not None and declared == sent + source.remaining:
                try:
                    splice.forward(source, client)
                    return
                except splice.Unsupported:
                    logger.info("The kernel would not splice a download; downloads are read and written in Python.")
            chunk = body.read(CHUNK_BYTES)
        while chunk:
            yield chunk
            chunk = body.read(CHUNK_BYTES)
    except Exception:
        if client is not None:
            with contextlib.suppress(OSError):  # a client already gone has nothing left to shut
                client.shutdown(socket.SHUT_WR)
        raise


def _download(request, body, key, person, declared=None) -> downloads.SlotStream:
    """A file's bytes as the response streams them; closing closes the store's stream and gives the slot back."""
    chunks = _chunks_of(body, splice.client_socket(request.META), declared, splice.available())
    return downloads.SlotStream(chunks, body.close, person, key)


@csrf_exempt
def result_file(request, key=None):
    """GET|HEAD /results/<key>: the file, read with the logged-in person's own store account."""
    if request.method not in ("GET", "HEAD"):
        response = HttpResponse(
            _("Only GET and HEAD are allowed here.") + "\n", status=405, content_type="text/plain; charset=utf-8"
        )
        response["Allow"] = "GET, HEAD"
        return _file_answer(response)
    try:
        store_key = keys.key_from_raw_path(raw_key_path(request))
    except keys.KeyRefused as refusal:
        logger.info("Results key refused: %s.", refusal)
        return _file_error(request, StoreError(Outcome.BAD_KEY))
    reader = reader_for(request)
    if reader is None:
        return _file_error(request, StoreError(Outcome.NO_SESSION))
    try:
        if request.method == "HEAD":
            return _head(request, reader, store_key)
        return _get(request, reader, store_key)
    except NotModified as current:
        return _not_modified(current.etag, _parse_date(current.last_modified))
    except StoreError as error:
        if error.outcome is Outcome.UNSATISFIABLE:
            return _unsatisfiable(request, reader, store_key, error)
        return _file_error(request, error)


def _parse_date(value):
    seconds = parse_http_date_safe(value or "")
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


def _head(request, reader, key):
    answer = reader.open_head(key)
    if _is_current(request, answer.get("ETag"), answer.get("LastModified")):
        return _not_modified(answer.get("ETag"), answer.get("LastModified"))
    response = HttpResponse(status=200)
    _metadata_headers(response, key, answer)
    response["Content-Length"] = str(answer.get("ContentLength") or 0)
    return _file_answer(response)


def _get(request, reader, key):
    range_header = _requested_range(request)
    if range_header == "unsatisfiable":
        raise StoreError(Outcome.UNSATISFIABLE)
    if_none_match, since = _conditionals(request)
    person = budget.person_of(request)
    if not downloads.take(person):
        raise StoreError(Outcome.TOO_MANY_DOWNLOADS)
    try:
        answer = reader.open_stream(
            key, range_header=range_header, if_none_match=if_none_match, if_modified_since=since
        )
    except BaseException:
        downloads.give_back(person)
        raise
    if _is_current(request, answer.get("ETag"), answer.get("LastModified")):
        answer["Body"].close()
        downloads.give_back(person)
        return _not_modified(answer.get("ETag"), answer.get("LastModified"))
    partial = bool(range_header and answer.get("ContentRange"))
    declared = answer.get("ContentLength") or 0
    response = StreamingHttpResponse(
        _download(request, answer["Body"], key, person, declared), status=206 if partial else 200
    )
    _metadata_headers(response, key, answer)
    response["Content-Length"] = str(declared)
    if partial:
        response["Content-Range"] = answer["ContentRange"]
    return _file_answer(response)


def _unsatisfiable(request, reader, key, error):
    response = _file_error(request, error)
    try:
        size = reader.open_head(key).get("ContentLength")
    except StoreError:
        size = None
    if size is not None:
        response["Content-Range"] = f"bytes */{size}"
    return response

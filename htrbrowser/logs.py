"""Logs an operator can act on: a request id on every line, one line per request, JSON on request.

- `RequestLogMiddleware` (first in the chain) takes the request id from `X-Request-ID` when it is a
  short plain token, else makes one, sends it back in the response header, and logs one line per
  request: method, path (never the query, which may hold what people typed), status, duration.
- `RequestIdFilter` puts the current request id on every log record; `JsonFormatter` writes one
  JSON object per line (`HTRFLOW_LOG_FORMAT=json`); `PlainFormatter` the same facts as text.
- A line is one line whatever it holds: a path is logged decoded, so `/x%0aINFO ...` holds a line
  break. Both formatters write control characters, U+2028/U+2029 and invisible formatting characters
  as escapes (`\\n`, `\\x85`, `\\u202E`; in JSON `\\u0085`), by the rules of `core.text`.
- 502 and 504 answers are expected during an outage of the store or the cluster: Django's own ERROR
  line for each is dropped (`QuietExpectedOutages`) and one WARNING per change of state is logged
  instead, with the sentence the page showed.
"""

from __future__ import annotations

import html
import json
import logging
import re
import time
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime

from core.outages import Outage
from core.text import escape_unsafe, escape_unsafe_json

_request_id: ContextVar[str] = ContextVar("request_id", default="")
REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+=/-]{0,127}")
MAX_PATH = 300
EXPECTED_OUTAGE_STATUSES = (502, 504)
requests_log = logging.getLogger("htrbrowser.requests")

# What every LogRecord has; anything else on a record is an extra field worth writing out.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "request_id"}
_NOT_WRITTEN = {"request", "server_time"}  # Django's extras: the request object, a duplicate time


def current_request_id() -> str:
    return _request_id.get()


class RequestIdFilter(logging.Filter):
    def filter(self, record):
        if not getattr(record, "request_id", ""):
            record.request_id = _request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id and the record's extra fields."""

    def format(self, record):
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "") or _request_id.get(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in _NOT_WRITTEN and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return escape_unsafe_json(json.dumps(entry, default=str, ensure_ascii=False))


class PlainFormatter(logging.Formatter):
    """Time, level, logger, request id and message on one line; a traceback follows on its own lines."""

    def __init__(self):
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s")

    def format(self, record):
        if not getattr(record, "request_id", ""):
            record.request_id = _request_id.get() or "-"
        return super().format(record)

    def formatMessage(self, record):  # the line itself; a traceback after it keeps its lines
        return escape_unsafe(super().formatMessage(record))


class QuietExpectedOutages(logging.Filter):
    """On `django.request`: drop the line Django writes for each 4xx, 502 and 504 answer.

    The request line already says it; a 502/504 is an expected outage (logged once per change of
    state), a 4xx is the client's. Unhandled errors (with their traceback) and other 5xx stay.
    """

    def filter(self, record):
        if record.exc_info is not None:
            return True
        status = getattr(record, "status_code", None)
        return not isinstance(status, int) or not (status < 500 or status in EXPECTED_OUTAGE_STATUSES)


def incoming_request_id(value: str | None) -> str:
    """The caller's id when it is a plain token of at most 128 characters, else a new one."""
    if value and REQUEST_ID.fullmatch(value):
        return value
    return uuid.uuid4().hex


# --- 502/504 answers, one warning per change of state per part of the site ----------------------

_answers: dict[str, Outage] = {}


def _area(path: str) -> str:
    first = path.strip("/").split("/", 1)[0]
    return "results" if first in ("results", "alto", "log", "login") else "campaigns"


def answers_outage(area: str) -> Outage:
    if area not in _answers:
        _answers[area] = Outage(f"{area} answers", logging.getLogger("htrbrowser.answers"))
    return _answers[area]


_ALERT = re.compile(r'role="alert"[^>]*>(.*?)</(?:p|div)>', re.S)
_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.S)
_TAG = re.compile(r"<[^>]+>")


def shown_sentence(response) -> str:
    """The sentence a 502/504 answer showed: its JSON `error`, its text, or the page's alert."""
    if getattr(response, "streaming", False):
        return response.reason_phrase
    content_type = response.get("Content-Type", "")
    body = bytes(response.content[:20_000]).decode("utf-8", "replace")
    if "json" in content_type:
        try:
            return str(json.loads(body).get("error") or response.reason_phrase)
        except (ValueError, AttributeError):
            return response.reason_phrase
    if "html" in content_type:
        found = _ALERT.search(body) or _H1.search(body)
        text = html.unescape(_TAG.sub(" ", found.group(1))) if found else ""
        return " ".join(text.split()) or response.reason_phrase
    return " ".join(body.split()) or response.reason_phrase


class RequestLogMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = incoming_request_id(request.META.get("HTTP_X_REQUEST_ID"))
        token = _request_id.set(request_id)
        request.request_id = request_id
        started = time.monotonic()
        try:
            response = self.get_response(request)
            response["X-Request-ID"] = request_id
            self._log(request, response, (time.monotonic() - started) * 1000)
            return response
        finally:
            _request_id.reset(token)

    def _log(self, request, response, milliseconds):
        path = request.path[:MAX_PATH]
        status = response.status_code
        fields = {
            "method": request.method,
            "path": path,
            "status": status,
            "duration_ms": round(milliseconds, 1),
        }
        level = logging.DEBUG if path == "/healthz" else logging.INFO
        requests_log.log(level, "%s %s %s %.0f ms", request.method, path, status, milliseconds, extra=fields)
        if path.startswith("/static/") or path == "/healthz":
            return
        outage = answers_outage(_area(path))
        if status in EXPECTED_OUTAGE_STATUSES:
            outage.failing(shown_sentence(response), status=status, path=path)
        elif 200 <= status < 400:
            outage.working()

"""The in-process results reader: campaign cards and viewers read the store with the
current person's account, with the same outcomes as the file route (no HTTP hop).

    reader = reader_for(request)
    if reader is None: ...                       # nobody logged in
    try:
        progress = reader.get_json(key)
    except StoreError as error:
        error.outcome, error.status, error.sentence
"""

import re

from botocore.exceptions import BotoCoreError, ClientError

from core import bounded_json
from results.store import keys
from results.store import s3 as store
from results.store.outcomes import Blob, NotModified, Outcome, StoreError, outcome_of

__all__ = ["Blob", "NotModified", "Outcome", "ResultsReader", "StoreError", "reader_for"]

DEFAULT_MAX_BYTES = 8 * 1024 * 1024
# Values a JSON file may build unless its reader says otherwise: what parsing costs grows with the count
# (about 60 bytes each, up to 140 MiB for 6 MB of ``[{},{},…]``), so it is counted before parsing.
DEFAULT_MAX_JSON_VALUES = 100_000
READ_CHUNK_BYTES = 1024 * 1024
_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")


class ResultsReader:
    """Reads results keys as one person. Raises StoreError; never returns partial nonsense silently."""

    def __init__(self, session, request=None):
        self.user = session.user
        self._session = session
        self._request = request

    def __repr__(self):
        return f"ResultsReader(user={self.user!r})"

    def get(self, key, *, start=None, end=None, suffix=None, max_bytes=DEFAULT_MAX_BYTES):
        """Read at most ``max_bytes`` of an object.

        Without a range, the body is the object's first ``max_bytes`` bytes (``Blob.complete`` says
        whether that was all of it). ``start``/``end`` (inclusive) or ``suffix`` (last n bytes)
        ask for a slice; the slice is clipped to ``max_bytes``.
        """
        self._check_key(key)
        range_header = _range_header(start, end, suffix, max_bytes)
        answer = self._call(store.get_object, key, range_header=range_header)
        body = answer["Body"]
        try:
            data = _read_at_most(body, max_bytes)
        except (BotoCoreError, ClientError) as error:
            raise self._noted(outcome_of(error)) from None
        finally:
            body.close()
        first, total = _first_and_total(answer, len(data))
        return Blob(
            key=key,
            body=data,
            size=total,
            start=first,
            end=first + len(data) - 1,
            etag=answer.get("ETag"),
            last_modified=answer.get("LastModified"),
            content_type=answer.get("ContentType"),
        )

    def head(self, key):
        """The object's size and metadata, with an empty body."""
        self._check_key(key)
        answer = self._call(store.head_object, key)
        size = int(answer.get("ContentLength") or 0)
        return Blob(
            key=key,
            body=b"",
            size=size,
            start=0,
            end=size - 1,
            etag=answer.get("ETag"),
            last_modified=answer.get("LastModified"),
            content_type=answer.get("ContentType"),
        )

    def open_stream(self, key, *, range_header=None, if_none_match=None, if_modified_since=None):
        """GetObject for streaming: boto3's answer, whose ``Body`` the caller must close.

        For the file route; raises StoreError or NotModified.
        """
        self._check_key(key)
        return self._call(
            store.get_object,
            key,
            range_header=range_header,
            if_none_match=if_none_match,
            if_modified_since=if_modified_since,
        )

    def open_head(self, key):
        """HeadObject: boto3's answer. Raises StoreError."""
        self._check_key(key)
        return self._call(store.head_object, key)

    def get_json(self, key, *, max_bytes=1024 * 1024, max_values=DEFAULT_MAX_JSON_VALUES):
        """Read and parse a JSON object of at most ``max_bytes`` bytes, ``max_values`` values and
        ``bounded_json.DEFAULT_MAX_DEPTH`` levels, all checked before parsing. Raises StoreError, or
        ValueError when it is not (all) JSON or not within those (``bounded_json.JsonTooMany``,
        ``JsonTooDeep``)."""
        blob = self.get(key, max_bytes=max_bytes)
        if not blob.complete:
            raise bounded_json.JsonTooLarge(blob.size, max_bytes)
        return bounded_json.loads(blob.body.decode("utf-8"), max_bytes=max_bytes, max_values=max_values)

    # --- helpers ---------------------------------------------------------------------------

    def _check_key(self, key):
        if not isinstance(key, str) or not keys.is_valid_key(key):
            raise StoreError(Outcome.BAD_KEY)

    def _call(self, function, key, **params):
        try:
            return function(self._session.access_key, self._session.secret_key, key, **params)
        except StoreError as error:
            raise self._noted(error) from None

    def _noted(self, error):
        """Remember a session the store stopped accepting, so the response clears the cookie."""
        if error.outcome is Outcome.SESSION_ENDED and self._request is not None:
            self._request.results_session_ended = True
        return error


def _range_header(start, end, suffix, max_bytes):
    if suffix is not None:
        if suffix <= 0:
            raise StoreError(Outcome.UNSATISFIABLE)
        return f"bytes=-{min(suffix, max_bytes)}"
    if start is None:
        return None
    if start < 0 or (end is not None and end < start):
        raise StoreError(Outcome.UNSATISFIABLE)
    last = start + max_bytes - 1 if end is None else min(end, start + max_bytes - 1)
    return f"bytes={start}-{last}"


def _read_at_most(body, limit):
    """At most ``limit`` bytes, read 1 MiB at a time; the bytes are copied once, when joined."""
    chunks, size = [], 0
    while size < limit:
        chunk = body.read(min(READ_CHUNK_BYTES, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _first_and_total(answer, length):
    match = _CONTENT_RANGE.fullmatch(str(answer.get("ContentRange") or ""))
    if match and match.group(3) != "*":
        return int(match.group(1)), int(match.group(3))
    if match:
        return int(match.group(1)), int(match.group(1)) + length
    return 0, int(answer.get("ContentLength") or length)


def reader_for(request):
    """The reader for the person logged in on this request, or None when nobody is."""
    session = getattr(request, "results_session", None)
    if session is None:
        return None
    reader = getattr(request, "_results_reader", None)
    if reader is None:
        reader = ResultsReader(session, request)
        request._results_reader = reader
    return reader

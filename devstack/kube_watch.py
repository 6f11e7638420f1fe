"""Watches for the Kubernetes API double, as a real API server serves them.

Every change the double stores is kept in a bounded history with its resourceVersion (as etcd keeps
revisions until it compacts them). A watch request (`?watch=true` on a list path) is answered with
HTTP 200 and a chunked stream of newline-delimited JSON events:

- without a `resourceVersion` (or "0"): an ADDED event for each object that matches now, then changes;
- with one: every change after it, in order; one older than the history gets an ERROR event whose
  object is a `Status` with code 410 ("Expired") and the stream ends, so the client lists again;
- label and field selectors apply to each change as a real server applies them: an object that stops
  matching (a pod whose phase becomes Succeeded under `status.phase!=Succeeded`) is sent as DELETED,
  one that starts matching as ADDED;
- with `allowWatchBookmarks=true`, a BOOKMARK every `bookmark_seconds` carries the current version;
- `timeoutSeconds` ends the stream cleanly; `drop_watches()` ends every stream abruptly, as a server
  restart would, and `compact()` forgets the history so older versions get 410.

Misbehaviour a test can switch on (`KubeDouble.misbehave_watches`), as real servers and the proxies in
front of them misbehave:

- `END_AT_ONCE`: every watch is answered 200 and its stream ends before any event (a proxy with an
  idle limit of zero, an overloaded server shedding streams);
- `PLAIN_LIST`: every watch is answered with the list itself, as JSON on one line (a proxy or cache
  that drops `watch=true` from the query);
- `EXPIRE`: every watch from a version is answered with the 410 ERROR event (a server whose history
  is always behind, compacting as fast as it is written); a watch without a version still works.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections import deque
from dataclasses import dataclass

from devstack.kube_errors import ApiError
from devstack.kube_selectors import SelectorError, parse_field_selector, parse_label_selector

HISTORY_SIZE = 100_000
END_AT_ONCE, PLAIN_LIST, EXPIRE = "end-at-once", "plain-list", "expire"
MISBEHAVIOURS = (END_AT_ONCE, PLAIN_LIST, EXPIRE)
TRUE_WORDS = ("1", "t", "T", "TRUE", "true", "True")  # what Go's strconv.ParseBool reads as true


def is_true(value) -> bool:
    return value in TRUE_WORDS
MAX_TIMEOUT_SECONDS = 1800


@dataclass(frozen=True)
class Change:
    revision: int
    resource: tuple[str, str]  # (group, plural)
    namespace: str
    new: dict | None  # the stored object after the change; None when deleted
    old: dict | None  # the stored object before it; None when created


class ChangeLog:
    """The double's history of changes, shared by every watch. Use with the double's lock held."""

    def __init__(self, lock: threading.RLock, revision: int):
        self.changed = threading.Condition(lock)
        self.changes: deque[Change] = deque(maxlen=HISTORY_SIZE)
        self.floor = revision  # versions below this are no longer held
        self.generation = 0  # moves on when every stream must end (drop_watches, stop)
        self.open = 0

    def record(self, change: Change) -> None:
        if len(self.changes) == self.changes.maxlen:
            self.floor = self.changes[0].revision
        self.changes.append(change)
        self.changed.notify_all()

    def compact(self, revision: int) -> None:
        self.changes.clear()
        self.floor = revision
        self.changed.notify_all()

    def end_streams(self) -> None:
        self.generation += 1
        self.changed.notify_all()

    def after(self, revision: int, resource: tuple[str, str]) -> list[Change]:
        found = []
        for change in reversed(self.changes):
            if change.revision <= revision:
                break
            if change.resource == resource:
                found.append(change)
        found.reverse()
        return found


class WatchRequest(Exception):
    """Raised by the double's request handling: the handler streams this watch instead of answering."""

    def __init__(self, route, query: dict):
        super().__init__("watch")
        self.route = route
        self.query = query


class Stream:
    """One watch, written to one HTTP response as chunks. `ApiError`s are raised before anything is sent."""

    def __init__(self, double, route, query: dict):
        self.double, self.route = double, route
        self.resource = route.resource
        try:
            self.labels = parse_label_selector(query.get("labelSelector"))
            self.fields = parse_field_selector(query.get("fieldSelector"))
            timeout = float(query.get("timeoutSeconds") or MAX_TIMEOUT_SECONDS)
        except (SelectorError, ValueError) as error:
            raise ApiError(400, str(error)) from None
        self.deadline = time.monotonic() + max(0.0, min(timeout, MAX_TIMEOUT_SECONDS))
        self.bookmarks = is_true(query.get("allowWatchBookmarks"))
        raw_version = query.get("resourceVersion") or ""
        try:
            self.since = int(raw_version) if raw_version not in ("", "0") else None
        except ValueError:
            raise ApiError(400, f"resourceVersion must be a number, not {raw_version!r}") from None

    def _matches(self, obj: dict | None) -> bool:
        if obj is None:
            return False
        meta = obj.get("metadata") or {}
        if self.route.namespace is not None and meta.get("namespace") != self.route.namespace:
            return False
        return self.labels.matches(meta.get("labels")) and self.fields.matches(self.resource.field_values(obj))

    def _event(self, kind: str, obj: dict, revision: int | None = None) -> bytes:
        shown = self.double._present(self.resource, obj, self.route.version)
        if revision is not None:
            shown.setdefault("metadata", {})["resourceVersion"] = str(revision)
        return json.dumps({"type": kind, "object": shown}).encode() + b"\n"

    def _expired(self) -> bytes:
        status = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": f"too old resource version: {self.since} ({self.double._changes.floor})",
            "reason": "Expired",
            "code": 410,
        }
        return json.dumps({"type": "ERROR", "object": status}).encode() + b"\n"

    def _bookmark(self, revision: int) -> bytes:
        obj = {
            "kind": self.resource.kind,
            "apiVersion": self.resource.api_version(self.route.version),
            "metadata": {"resourceVersion": str(revision)},
        }
        return json.dumps({"type": "BOOKMARK", "object": obj}).encode() + b"\n"

    def _translate(self, change: Change) -> bytes | None:
        was, now = self._matches(change.old), self._matches(change.new)
        if now:
            return self._event("MODIFIED" if was else "ADDED", change.new)
        if was:
            return self._event("DELETED", copy.deepcopy(change.old), change.revision)
        return None

    def serve(self, write) -> bool:
        """Write events until the stream ends; True when it ended cleanly (False: dropped)."""
        double = self.double
        log = double._changes
        key = (self.resource.group, self.resource.plural)
        with log.changed:
            generation = log.generation
            log.open += 1
            misbehaviour = double.watch_misbehaviour
            if misbehaviour == END_AT_ONCE:
                chunks, last = [], None
            elif misbehaviour == EXPIRE and self.since is not None:
                chunks, last = [self._expired()], None
            elif self.since is None:
                last = double._revision
                initial = [obj for obj in double._sorted(self.resource, self.route.namespace) if self._matches(obj)]
                chunks = [self._event("ADDED", obj) for obj in initial]
            elif self.since < log.floor:
                chunks, last = [self._expired()], None
            else:
                chunks, last = [], self.since
        try:
            for chunk in chunks:
                write(chunk)
            if last is None:
                return True
            next_bookmark = time.monotonic() + double.bookmark_seconds
            while True:
                with log.changed:
                    while True:
                        if log.generation != generation:
                            return False
                        if last < log.floor:
                            self.since = last
                            write(self._expired())
                            return True
                        pending = log.after(last, key)
                        now = time.monotonic()
                        if pending or now >= self.deadline or (self.bookmarks and now >= next_bookmark):
                            break
                        until = min(self.deadline, next_bookmark if self.bookmarks else self.deadline)
                        log.changed.wait(max(0.01, until - now))
                    out = [chunk for chunk in (self._translate(c) for c in pending) if chunk]
                    if pending:
                        last = pending[-1].revision
                    revision = double._revision
                for chunk in out:
                    write(chunk)
                now = time.monotonic()
                if self.bookmarks and now >= next_bookmark:
                    last = max(last, revision)  # every change of this kind up to it has been sent
                    write(self._bookmark(last))
                    next_bookmark = now + double.bookmark_seconds
                if now >= self.deadline:
                    return True
        finally:
            with log.changed:
                log.open -= 1

"""One list of the cluster kept current by what changed: LIST once, then WATCH from its version.

An `Informer` holds the objects of one `kube.Source` in memory, as client-go's informers and the
dashboards people use do:

- the first LIST is paged and gives a resourceVersion; a WATCH from there brings every change after
  it, with bookmarks so a quiet list stays current at almost no cost; the server ends each watch
  after `WATCH_SECONDS` and the informer opens the next one from the last version it saw;
- a version too old for the server (410) means listing again;
- a failure is remembered (its `kube.ClusterUnavailable`, since when) and retried after a pause that
  grows to `RETRY_MAX_SECONDS`; the objects last read are kept meanwhile;
- an optional list the account may not read is "not known" (`known` is False) and asked again
  rarely.

Objects are slimmed on arrival (`managedFields` and kubectl's last-applied copy dropped): the
projection never reads them and they are a third of a pod. One thread per informer, started by
`start()`, ended by `stop()`; readers call `items()` from any thread.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime

from campaigns.cluster import kube

log = logging.getLogger(__name__)

WATCH_SECONDS = 240
RETRY_MIN_SECONDS = 0.5
RETRY_MAX_SECONDS = 30.0
NOT_KNOWN_RETRY_SECONDS = 60.0
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def slim(obj: dict, unread: tuple[str, ...] = ()) -> dict:
    """The object without the parts no page reads (kept small: a pod's managedFields are a third of it),
    and without the top-level parts `unread` names."""
    if unread and any(part in obj for part in unread):
        obj = {k: v for k, v in obj.items() if k not in unread}
    meta = obj.get("metadata")
    if isinstance(meta, dict) and ("managedFields" in meta or LAST_APPLIED in (meta.get("annotations") or {})):
        meta = dict(meta)
        meta.pop("managedFields", None)
        annotations = meta.get("annotations")
        if isinstance(annotations, dict) and LAST_APPLIED in annotations:
            meta["annotations"] = {k: v for k, v in annotations.items() if k != LAST_APPLIED}
        obj = {**obj, "metadata": meta}
    return obj


def _key(obj: dict) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return (str(meta.get("namespace") or ""), str(meta.get("name") or ""))


class Informer:
    """The objects of one source, kept current in a thread of their own."""

    def __init__(self, source: kube.Source, on_change=None):
        self.source = source
        self._on_change = on_change or (lambda: None)
        self._objects: dict[tuple[str, str], dict] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self.synced = threading.Event()  # set once the first attempt to list has ended, well or not
        self.known = False  # the list was read at least once (False: not yet, or refused)
        self.version = 0  # counts changes, so readers can tell whether anything moved
        self.resource_version = ""
        self.path = ""
        self.failure: kube.ClusterUnavailable | None = None
        self.failing_since: datetime | None = None
        self.lists = 0  # LISTs made (a relist after 410 counts), for tests and metrics
        self.bytes_read = 0  # what the API sent for this list: LIST pages and watch events
        self._streams: list = []

    def _slim(self, obj: dict) -> dict:
        return slim(obj, self.source.unread)

    # --- reading ---------------------------------------------------------------------------------

    def items(self) -> list[dict] | None:
        """The objects as last known; None when the list is not known (refused, or never read)."""
        with self._lock:
            return list(self._objects.values()) if self.known else None

    # --- running ---------------------------------------------------------------------------------

    def start(self) -> Informer:
        self._thread = threading.Thread(target=self._run, name=f"informer {self.source.field}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        kube.end_stream(self._streams)

    def join(self, seconds: float) -> None:
        if self._thread is not None:
            self._thread.join(seconds)

    def _run(self) -> None:
        pause = RETRY_MIN_SECONDS
        while not self._stopped.is_set():
            try:
                if not self.resource_version:
                    self._list()
                if self.resource_version:
                    self._watch()
                elif self._stopped.wait(NOT_KNOWN_RETRY_SECONDS):
                    return
                pause = RETRY_MIN_SECONDS
            except kube.Expired:
                self.resource_version = ""
            except kube.ClusterUnavailable as trouble:
                if self._stopped.is_set():
                    return
                self._failed(trouble)
                self.synced.set()
                if self._stopped.wait(pause):
                    return
                pause = min(pause * 2, RETRY_MAX_SECONDS)
            except kube.NotReadable as refused:
                # A watch refused after its list was read: list again, which says what is refused.
                log.debug("watch of %s refused (%s)", self.source.field, refused.status)
                self.resource_version = ""
                if self._stopped.wait(pause):
                    return
                pause = min(pause * 2, RETRY_MAX_SECONDS)
            except Exception:  # noqa: BLE001 - a bug must not end the watch for the life of the process
                log.exception("reading %s failed unexpectedly", self.source.field)
                self.resource_version = ""
                if self._stopped.wait(RETRY_MAX_SECONDS):
                    return

    def _list(self) -> None:
        self.lists += 1
        answered = kube.list_source(self.source, self._slim)
        if answered is None:  # optional and refused: not known
            with self._lock:
                changed = self.known
                self._objects = {}
                self.known = False
        else:
            self.path, listed = answered
            self.bytes_read += listed.size
            objects = {_key(obj): obj for obj in listed.items}
            with self._lock:
                changed = not self.known or objects != self._objects
                self._objects = objects
                self.known = True
            self.resource_version = listed.resource_version or "0"
        self._recovered()
        self.synced.set()
        if changed:
            self._changed()

    def _watch(self) -> None:
        events = kube.watch(
            self.path,
            self.resource_version,
            self.source.label_selector,
            self.source.field_selector,
            seconds=WATCH_SECONDS,
            streams=self._streams,
        )
        for event in events:
            if self._stopped.is_set():
                events.close()
                return
            self.bytes_read += event.pop("_size", 0)
            kind, obj = event.get("type"), event.get("object")
            if not isinstance(obj, dict):
                continue
            version = str((obj.get("metadata") or {}).get("resourceVersion") or "")
            if kind in ("ADDED", "MODIFIED"):
                with self._lock:
                    self._objects[_key(obj)] = self._slim(obj)
                self._changed()
            elif kind == "DELETED":
                with self._lock:
                    gone = self._objects.pop(_key(obj), None)
                if gone is not None:
                    self._changed()
            if version:
                self.resource_version = version
            self._recovered()

    def _changed(self) -> None:
        self.version += 1
        self._on_change()

    def _failed(self, trouble: kube.ClusterUnavailable) -> None:
        first = self.failure is None or self.failure.sentence != trouble.sentence
        self.failure = trouble
        if self.failing_since is None:
            self.failing_since = datetime.now(UTC)
        if first:
            log.warning("cannot read %s: %s", self.source.field, trouble.sentence)
        self._on_change()

    def _recovered(self) -> None:
        if self.failure is not None:
            log.warning("reading %s again", self.source.field)
            self.failure = None
            self.failing_since = None
            self._on_change()


def wait_synced(informers: list[Informer], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    for informer in informers:
        if not informer.synced.wait(max(0.0, deadline - time.monotonic())):
            return False
    return True

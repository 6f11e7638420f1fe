"""One list of the cluster kept current by what changed: LIST once, then WATCH from its version.

An `Informer` holds the objects of one `sources.Source` in memory, as client-go's informers and the
dashboards people use do:

- the first LIST is paged and gives a resourceVersion; a WATCH from there brings every change after
  it, with bookmarks so a quiet list stays current at almost no cost; the server ends each watch
  after `WATCH_SECONDS` and the informer opens the next one from the last version it saw;
- a watch that ends early (within `SHORT_WATCH_SECONDS`, with at most `FEW_EVENTS` events), one
  answered with something that is not a stream of changes (a plain list, from a proxy that drops
  `watch=true`), and one that cannot start are each followed by a pause (`Backoff`: from
  `BACKOFF_INITIAL_SECONDS`, doubling, at most `BACKOFF_MAX_SECONDS`, drawn at random from the upper
  half so informers that failed together do not come back together); a healthy watch resets it.
  A watch that stays quiet to its end without a single bookmark is a server that sends none, not a
  broken watch: it is opened again at once;
- a version too old for the server (410) means listing again, after the back-off pause and a
  random part of `RELIST_SPREAD_SECONDS`, so the lists of a compacted server do not all come back
  in the same instant; the relist keeps every object that did not change as it was (`_listed`), so
  no second copy of the list is held and nothing unchanged is projected again;
- a failure is remembered (its `kube.ClusterUnavailable`, since when) and retried after the same
  back-off; the objects last read are kept meanwhile;
- watches that keep ending early (or keep not being streams) for `WATCHES_FAILING_SECONDS` are a
  failure too (the banner's "answering with errors"), since changes are no longer followed; a watch
  that proves itself (it lasts `SHORT_WATCH_SECONDS` or brings more than `FEW_EVENTS` events) ends it;
- an optional list the account may not read is "not known" (`known` is False) and asked again
  rarely.

The cap is 4 s rather than client-go's 30 s: a server that behaves again is read again within 10 s
of it, the pause, a projection and the next change included (with 6 s the soak once saw 10.7 s); it
still keeps a list to one try every 2 to 4 s. The relist's spread is 1 s for the same reason: while
every watch is answered 410, a list is read again at most 5 s after its last relist, and the soak saw
10.1 s with a 2 s spread; 1 s still parts the lists of a namespace by a second or so.
Watch starts, how each watch ended, relists and back-off seconds are counted in `core.metrics`
per source (the list's name, sixteen values at most).

Objects are slimmed on arrival (`managedFields` and kubectl's last-applied copy dropped): the
projection never reads them and they are a third of a pod. Each is then cut to what its source keeps
(`Source.keep`, campaigns.cluster.kept: a pod keeps no spec but its node, nor the parts of its status
no page reads, such as addresses, images, container ids and mounts), and every object is kept `compact`:
its keys and short strings shared with the other objects through `sys.intern` (a watch event is
decoded on its own, so without it each changed pod held its own copy of every key). At 14 400 pods
a pod costs about a third of what it did. One thread per informer, started by
`start()`, ended by `stop()`; readers call `items()` from any thread.
"""

from __future__ import annotations

import logging
import random
import sys
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from django.utils.translation import gettext_lazy

from campaigns.cluster import gc_tuning, kube, sources, watches
from core import metrics

log = logging.getLogger(__name__)

WATCH_SECONDS = 240
SHORT_WATCH_SECONDS = 1.0  # a watch that ends sooner than this...
FEW_EVENTS = 3  # ...having brought no more events than this ended early
BACKOFF_INITIAL_SECONDS = 1.0
BACKOFF_MAX_SECONDS = 4.0
RELIST_SPREAD_SECONDS = 1.0
WATCHES_FAILING_SECONDS = 30.0  # watches ending early this long: changes are not followed, say so
NOT_KNOWN_RETRY_SECONDS = 60.0
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
SHARED_STRING_LENGTH = 120  # strings up to this long are shared (ids, names, times, labels)
WATCH_EVENTS = frozenset({"ADDED", "MODIFIED", "DELETED", "BOOKMARK"})

# How a watch ended (the `how` of core.metrics.watch_ended).
HEALTHY, QUIET, SHORT, NOT_A_STREAM, EXPIRED, FAILED = "healthy", "quiet", "short", "not_a_stream", "expired", "failed"


class Backoff:
    """The pause before the next try: `initial` seconds, doubling up to `cap`, each drawn at random
    from the upper half of its step (client-go's jittered back-off); `reset()` after a healthy watch."""

    def __init__(self, initial: float, cap: float, draw=random.random):
        self.initial, self.cap = initial, cap
        self.steps = 0
        self._draw = draw

    def next(self) -> float:
        ceiling = min(self.cap, self.initial * 2**self.steps)
        if ceiling < self.cap:
            self.steps += 1
        return ceiling * (0.5 + 0.5 * self._draw())

    def reset(self) -> None:
        self.steps = 0


@dataclass
class WatchEnd:
    """What one watch brought before it ended, and how long it lasted."""

    seconds: float = 0.0
    changes: int = 0
    bookmarks: int = 0
    not_a_stream: bool = False

    @property
    def how(self) -> str:
        if self.not_a_stream:
            return NOT_A_STREAM
        if self.seconds < SHORT_WATCH_SECONDS and self.changes + self.bookmarks <= FEW_EVENTS:
            return SHORT
        if self.changes + self.bookmarks == 0:
            return QUIET  # open to its end without a word: a server that sends no bookmarks
        return HEALTHY


def slim(obj: dict) -> dict:
    """The object without the parts no page reads of any kind (kept small: a pod's managedFields are a
    third of it): managedFields and kubectl's last-applied copy."""
    meta = obj.get("metadata")
    if isinstance(meta, dict) and ("managedFields" in meta or LAST_APPLIED in (meta.get("annotations") or {})):
        meta = dict(meta)
        meta.pop("managedFields", None)
        annotations = meta.get("annotations")
        if isinstance(annotations, dict) and LAST_APPLIED in annotations:
            meta["annotations"] = {k: v for k, v in annotations.items() if k != LAST_APPLIED}
        obj = {**obj, "metadata": meta}
    return obj


def compact(value):
    """The same value, its dict keys and short strings interned, so equal ones are one object."""
    if isinstance(value, dict):
        return {sys.intern(k) if type(k) is str else k: compact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [compact(item) for item in value]
    if type(value) is str and len(value) <= SHARED_STRING_LENGTH:
        return sys.intern(value)
    return value


def _key(obj: dict) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return (str(meta.get("namespace") or ""), str(meta.get("name") or ""))


class Informer:
    """The objects of one source, kept current in a thread of their own."""

    def __init__(self, source: sources.Source, on_change=None):
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
        self.failed_at = 0.0  # when the latest failure was met (monotonic): the board words the newest
        self.lists = 0  # LISTs made (a relist after 410 counts), for tests and metrics
        self.watch_starts = 0  # watch requests made, for tests and metrics
        self.bytes_read = 0  # what the API sent for this list: LIST pages and watch events
        self.server_bookmarks: bool | None = None  # whether the server sends bookmarks (None: not known yet)
        self._streams: list = []
        self._backoff = Backoff(BACKOFF_INITIAL_SECONDS, BACKOFF_MAX_SECONDS)
        self._told_not_a_stream = False
        self._watch_began = 0.0
        self._early_since: float | None = None  # when watches began ending early, if they do
        self._watch_trouble = False  # the failure is watches ending early, not a call that failed

    def _slim(self, obj: dict) -> dict:
        obj = slim(obj)
        if self.source.keep is not None:
            obj = self.source.keep(obj)
        return compact(obj)

    def _listed(self, obj: dict) -> dict:
        """A listed object as kept: the one already held when it is equal. A relist (after a 410) then
        keeps every object that did not change, so the process never holds a second copy of the list
        (the projection still refers to the objects it was made from) and sees nothing to project
        again. Only this thread writes `_objects`, so it is read here without the lock."""
        obj = self._slim(obj)
        held = self._objects.get(_key(obj)) if self.known else None
        return held if held is not None and held == obj else obj

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
        watches.end_stream(self._streams)

    def join(self, seconds: float) -> None:
        if self._thread is not None:
            self._thread.join(seconds)

    def _run(self) -> None:
        while not self._stopped.is_set():
            pause = self._step()
            if pause > 0 and self._stopped.wait(pause):
                return

    def _step(self) -> float:
        """List if needed, then watch once; the seconds to wait before the next step (0: at once)."""
        watching = False
        try:
            if not self.resource_version:
                self._list()
                if not self.resource_version:  # optional and refused: ask again rarely
                    return NOT_KNOWN_RETRY_SECONDS
            watching = True
            return self._watched(self._watch())
        except watches.Expired:
            self.resource_version = ""
            metrics.watch_ended(self.source.field, EXPIRED)
            if time.monotonic() - self._watch_began >= SHORT_WATCH_SECONDS:
                self._backoff.reset()  # a healthy watch that met a compaction: one relist, soon
            return self._back_off(RELIST_SPREAD_SECONDS * random.random())
        except kube.ClusterUnavailable as trouble:
            if self._stopped.is_set():
                return 0.0
            if watching:
                metrics.watch_ended(self.source.field, FAILED)
            self._failed(trouble)
            self.synced.set()
            return self._back_off()
        except kube.NotReadable as refused:
            # A watch refused after its list was read: list again, which says what is refused.
            log.debug("watch of %s refused (%s)", self.source.field, refused.status)
            if watching:
                metrics.watch_ended(self.source.field, FAILED)
            self.resource_version = ""
            return self._back_off()
        except Exception:  # noqa: BLE001 - a bug must not end the watch for the life of the process
            log.exception("reading %s failed unexpectedly", self.source.field)
            self.resource_version = ""
            return BACKOFF_MAX_SECONDS

    def _back_off(self, more: float = 0.0) -> float:
        pause = self._backoff.next() + more
        metrics.watch_backoff(self.source.field, pause)
        return pause

    def _watched(self, ended: WatchEnd) -> float:
        """How long to wait after a watch that ended (not stopped): at once after a healthy one."""
        if self._stopped.is_set():
            return 0.0
        how = ended.how
        metrics.watch_ended(self.source.field, how)
        if how in (HEALTHY, QUIET):
            if how == QUIET and self.server_bookmarks is None:
                log.info("the API server sends no bookmarks for %s: quiet watches are left to run", self.source.field)
                self.server_bookmarks = False
            self._backoff.reset()
            self._watch_proved()
            return 0.0
        if how == NOT_A_STREAM and not self._told_not_a_stream:
            log.warning("the API answered a watch of %s with something other than changes", self.source.field)
            self._told_not_a_stream = True
        self._ended_early(how)
        return self._back_off()

    def _ended_early(self, how: str) -> None:
        """Another watch ended early: past `WATCHES_FAILING_SECONDS` of them, changes are not followed."""
        now = time.monotonic()
        if self._early_since is None:
            self._early_since = now
        elif now - self._early_since >= WATCHES_FAILING_SECONDS and self.failure is None:
            if how == NOT_A_STREAM:
                said = gettext_lazy(
                    "The cluster's API (or a proxy before it) answers watches with something other than changes, "
                    "so changes are not followed."
                )
            else:
                said = gettext_lazy(
                    "The cluster's API (or a proxy before it) ends every watch, so changes are not followed."
                )
            self._watch_trouble = True
            self._failed(kube.ClusterUnavailable(said, kube.BROKEN))

    def _watch_proved(self) -> None:
        """A watch lasted or brought enough: watches work (again)."""
        self._early_since = None
        if self._watch_trouble:
            self._watch_trouble = False
            self._recovered()

    def _list(self) -> None:
        self.lists += 1
        if self.lists > 1:
            metrics.relisted(self.source.field)
        answered = sources.list_source(self.source, self._listed)
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
                held = self._objects
                changed = not self.known or len(objects) != len(held) or any(
                    obj is not held.get(key) for key, obj in objects.items()
                )
                self._objects = objects
                self.known = True
            self.resource_version = listed.resource_version or "0"
        if not self._watch_trouble:  # a list read well says nothing of the watches after it
            self._recovered()
        self.synced.set()
        if changed:
            self._changed()
        if self.lists > 1:
            gc_tuning.give_back()  # what the pages of a list read whole again held, back to the system

    def _watch(self) -> WatchEnd:
        self.watch_starts += 1
        metrics.watch_started(self.source.field)
        started = self._watch_began = time.monotonic()
        ended = WatchEnd()
        events = watches.watch(
            self.path,
            self.resource_version,
            self.source.label_selector,
            self.source.field_selector,
            seconds=WATCH_SECONDS,
            streams=self._streams,
        )
        proof = None
        if self._watch_trouble:  # a healthy watch may stay quiet: its lasting is the proof
            proof = threading.Timer(SHORT_WATCH_SECONDS, self._lasted, (self.watch_starts,))
            proof.daemon = True
            proof.start()
        try:
            for event in events:
                if self._stopped.is_set():
                    break
                self.bytes_read += event.pop("_size", 0)
                kind = event.get("type")
                if kind not in WATCH_EVENTS:  # a plain list, or anything else that is not a change
                    ended.not_a_stream = True
                    break
                if kind == "BOOKMARK":
                    ended.bookmarks += 1
                    self.server_bookmarks = True
                else:
                    ended.changes += 1
                self._apply(kind, event.get("object"))
                if ended.changes + ended.bookmarks > FEW_EVENTS:
                    self._watch_proved()
        except watches.NotAStream:  # a whole body, left unread
            ended.not_a_stream = True
        finally:
            if proof is not None:
                proof.cancel()
            events.close()
            ended.seconds = time.monotonic() - started
        return ended

    def _lasted(self, watch: int) -> None:
        if self.watch_starts == watch and self._streams:  # the same watch, still open
            self._watch_proved()

    def _apply(self, kind: str, obj) -> None:
        if not isinstance(obj, dict):
            return
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
        if not self._watch_trouble:  # a few events on watches that end at once prove nothing
            self._recovered()

    def _changed(self) -> None:
        self.version += 1
        self._on_change()

    def _failed(self, trouble: kube.ClusterUnavailable) -> None:
        first = self.failure is None or self.failure.sentence != trouble.sentence
        self.failure = trouble
        self.failed_at = time.monotonic()
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

"""The board: each namespace's campaigns, projected once per change and shared by every request.

Per namespace (and cluster configuration) one `Board` keeps an `informer.Informer` per list of a
snapshot (`sources.sources`), so the API server is read by what changed, once per process, however
many pages, polls and tabs are open. A publisher thread turns the informers' objects into a
`Reading` at most once per `HTRFLOW_SNAPSHOT_SECONDS` when something changed (and every
`REPROJECT_SECONDS` anyway, for sentences that count time): the snapshot, its projection, and an
edition number that grows with every new reading. Requests only look the current reading up.

Each reading is projected from the last one (`projection.project_again`): only the campaigns whose
objects changed since are projected anew, the others are the same objects as before, so the cost
of a reading follows what changed, not how many volumes the namespace holds.

While a needed list cannot be read, the reading keeps the last state with `unreachable_since` and
the cause of the failure met last (what the server does now), for the banner. Before anything was
read, `reading()` raises `kube.ClusterUnavailable` with the sentence of what went wrong.

After each reading what it holds is set aside from Python's cyclic collector (`collector`), whose
full passes over a large archive's reading held every thread for about 300 ms.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.conf import settings
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy

from campaigns.cluster import gc_tuning, informer, kube, sources, status_records
from campaigns.domain.projection import Projection, project_again
from campaigns.domain.projection.findings import findings_count
from campaigns.domain.timelines import Timelines
from campaigns.models import Campaign, Snapshot
from campaigns.wording.banners import stale_banner
from core import metrics

log = logging.getLogger(__name__)

REPROJECT_SECONDS = 30.0
MIN_PERIOD_SECONDS = 0.02
OUTAGE_CHECK_SECONDS = 0.25  # how often a reading that shows an outage looks whether it ended
# A first request waits this many call timeouts for the first reading of a namespace.
FIRST_READ_TIMEOUTS = 12


@dataclass(frozen=True)
class Reading:
    """One namespace as served to requests: a snapshot, its campaigns, and how current it is."""

    namespace: str
    snapshot: Snapshot
    campaigns: list[Campaign] = field(default_factory=list)
    edition: int = 0
    unreachable_since: datetime | None = None
    cause: str = ""
    problem: str = ""  # the sentence of what cannot be read now (lazy: worded in each reader's language)

    @property
    def read_at(self) -> datetime:
        return self.snapshot.read_at

    def banner(self, now: datetime | None = None) -> str | None:
        if self.unreachable_since is None:
            return None
        return stale_banner(self.unreachable_since, now, self.cause)

    def find(self, name: str) -> Campaign | None:
        """The campaign called `name`: its own name, or the Job name of one of its parts."""
        for campaign in self.campaigns:
            if campaign.name == name:
                return campaign
        return next((c for c in self.campaigns if name in c.parts), None)

    def age_seconds(self, now: datetime | None = None) -> float:
        """How old the state shown is: 0 while the cluster is read, else since the trouble began."""
        if self.unreachable_since is None:
            return 0.0
        return max(0.0, ((now or datetime.now(UTC)) - self.unreachable_since).total_seconds())


class Board:
    """The informers of one namespace and the reading made from them."""

    def __init__(self, namespace: str):
        self.namespace = namespace
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._published = threading.Condition()
        self.current: Reading | None = None
        self.published_versions: tuple = ()  # the informers' change counts the current reading includes
        self.first_problem: kube.ClusterUnavailable | None = None
        self.projection: Projection | None = None  # the current reading's, what the next is projected from
        self.timelines = Timelines()  # each campaign's finished volumes over time: its pace, forecast and stall
        self.informers = [informer.Informer(source, self._wake.set) for source in sources.sources(namespace)]
        self._thread = threading.Thread(target=self._publish_loop, name=f"board {namespace}", daemon=True)

    def start(self) -> Board:
        for each in self.informers:
            each.start()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        self._wake.set()
        for each in self.informers:
            each.stop()

    # --- publishing --------------------------------------------------------------------------------

    def _bytes_read(self) -> int:
        """Bytes the API sent for this namespace's lists and watches since the board started."""
        return sum(each.bytes_read for each in self.informers)

    def _versions(self) -> tuple:
        return tuple(each.version for each in self.informers)

    def _required(self) -> list[informer.Informer]:
        return [each for each in self.informers if each.source.required]

    def _publish_loop(self) -> None:
        informer.wait_synced(self.informers, _first_read_seconds())
        seen: tuple = ()
        last = 0.0
        while not self._stopped.is_set():
            # Why a list fails is part of the state: the banner follows the cause of the failure met
            # last as it changes (a watch cut as the server goes away, then its next call refused: "not
            # taking connections"; then answers with errors as it comes back, met first by one list).
            newest = _newest(self._required())
            state = (
                tuple((each.version, each.failure.cause if each.failure else None) for each in self.informers),
                (newest.cause, newest.sentence) if newest else None,
            )
            due = time.monotonic() - last >= REPROJECT_SECONDS
            if state != seen or due or self.current is None:
                try:
                    self._publish()
                except Exception:  # noqa: BLE001 - a projection bug must not end the board
                    log.exception("projecting namespace %s failed", self.namespace)
                gc_tuning.after_reading()  # the collector's passes stay off what this reading holds
                seen, last = state, time.monotonic()
            period = max(float(settings.HTRFLOW_SNAPSHOT_SECONDS), MIN_PERIOD_SECONDS)
            if self._rest(period):
                return
            self._wake.wait(REPROJECT_SECONDS)
            self._wake.clear()

    def _rest(self, period: float) -> bool:
        """Wait out the period between readings; True when stopped. A reading that shows an outage is
        replaced as soon as every needed list is read again, not up to a period later."""
        deadline = time.monotonic() + period
        while (left := deadline - time.monotonic()) > 0:
            if self._stopped.wait(min(left, OUTAGE_CHECK_SECONDS)):
                return True
            current = self.current
            if current is not None and current.unreachable_since is not None and all(
                each.failure is None and each.known for each in self._required()
            ):
                return False
        return False

    def _publish(self) -> None:
        failing = [each for each in self._required() if each.failure is not None or not each.known]
        if failing and self.current is None and all(each.synced.is_set() for each in self.informers):
            trouble = _newest(failing)
            self.first_problem = trouble or kube.ClusterUnavailable(gettext_lazy("The cluster has not been read yet."))
            self._notify()
            return
        if self.current is None and not all(each.synced.is_set() for each in self.informers):
            return  # the first reading waits for every list's first answer, optional ones too
        if failing:
            trouble = _newest(failing)
            since = min((each.failing_since for each in failing if each.failing_since), default=datetime.now(UTC))
            self.current = _replace(self.current, since, trouble)
            self._notify()
            return
        versions = self._versions()
        started = time.monotonic()
        reading = self._read()
        metrics.snapshot_refreshed(self.namespace, seconds=time.monotonic() - started, size=self._bytes_read())
        _keep_status_records(reading)  # before publishing: a page that shows the reading finds them written
        self.current = reading
        self.published_versions = versions
        self.first_problem = None
        self._notify()

    def _read(self) -> Reading:
        snapshot = sources.snapshot_of(self.namespace, {each.source.field: each.items() for each in self.informers})
        now = timezone.now()
        self.projection = project_again(snapshot, now, self.projection)
        self.timelines.hang_on(self.projection.campaigns, snapshot.status_records, now, settings.HTRFLOW_STALL_MINUTES)
        metrics.campaign_findings(self.namespace, findings_count(self.projection.campaigns))
        edition = (self.current.edition if self.current else 0) + 1
        return Reading(self.namespace, snapshot, self.projection.campaigns, edition)

    def _notify(self) -> None:
        with self._published:
            self._published.notify_all()

    # --- reading -----------------------------------------------------------------------------------

    def reading(self) -> Reading:
        if self.current is None:
            deadline = time.monotonic() + _first_read_seconds()
            with self._published:
                while self.current is None and self.first_problem is None and time.monotonic() < deadline:
                    self._published.wait(max(0.0, deadline - time.monotonic()))
        if self.current is not None:
            return self.current
        if self.first_problem is not None:
            raise self.first_problem
        # Translators: {seconds} is how long the first page waited for the cluster's first reading (18).
        said = gettext_lazy("The cluster did not answer within {seconds} seconds.")
        raise kube.ClusterUnavailable(format_lazy(said, seconds=kube.seconds_said(_first_read_seconds())), kube.SLOW)

    def settle(self, seconds: float = 10.0) -> Reading:
        """Wait until the reading holds every change the API server had when this was called (tests)."""
        self.reading()
        wanted = _server_version(self.namespace)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            behind = [each for each in self.informers if each.known and _older(each.resource_version, wanted)]
            if not behind and self.published_versions == self._versions() and self.current is not None:
                return self.current
            self._wake.set()
            time.sleep(0.01)
        return self.reading()


def _newest(informers: list[informer.Informer]) -> kube.ClusterUnavailable | None:
    """The failure met last among these lists: what the server does now (one list may still hold the
    cause it met before its back-off, while the others already meet the next one)."""
    failed = [each for each in informers if each.failure is not None]
    return max(failed, key=lambda each: each.failed_at).failure if failed else None


def _older(version: str, wanted: int) -> bool:
    if not version:
        return True  # listing again (after a 410): behind whatever the server has
    try:
        return int(version) < wanted
    except ValueError:
        return False


def _server_version(namespace: str) -> int:
    """The API server's current resourceVersion, from the smallest list it can answer."""
    answer = kube.call("GET", f"/api/v1/namespaces/{namespace}/configmaps", [("limit", "1")])
    try:
        return int((answer.get("metadata") or {}).get("resourceVersion") or 0)
    except ValueError:
        return 0


def _replace(reading: Reading, since: datetime, trouble: kube.ClusterUnavailable | None) -> Reading:
    return Reading(
        reading.namespace,
        reading.snapshot,
        reading.campaigns,
        reading.edition if reading.unreachable_since else reading.edition + 1,
        unreachable_since=reading.unreachable_since or since,
        cause=trouble.cause if trouble else kube.UNREACHABLE,
        problem=trouble.said if trouble else "",
    )


def _keep_status_records(reading: Reading) -> None:
    try:
        status_records.keep_current(reading, reading.campaigns)
    except Exception:  # noqa: BLE001 - writing records must never cost the reading
        log.exception("keeping the status records of %s current failed", reading.namespace)


def _first_read_seconds() -> float:
    return float(settings.HTRFLOW_KUBE_TIMEOUT) * FIRST_READ_TIMEOUTS


# --- the boards of this process ----------------------------------------------------------------------

_boards: dict[tuple, Board] = {}
_boards_lock = threading.Lock()


def board(namespace: str) -> Board:
    """The board of a namespace on the cluster configured now (re-pointing settings starts afresh)."""
    key = (kube._config_key(), namespace)
    with _boards_lock:
        existing = _boards.get(key)
        if existing is None:
            existing = _boards[key] = Board(namespace).start()
        return existing


def reading(namespace: str) -> Reading:
    return board(namespace).reading()


def settle(namespace: str, seconds: float = 10.0) -> Reading:
    return board(namespace).settle(seconds)


def stop_all() -> None:
    with _boards_lock:
        boards = list(_boards.values())
        _boards.clear()
    for each in boards:
        each.stop()

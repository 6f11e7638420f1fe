"""What an operator can count: every metric of the site, and the small calls the code makes to them.

The metric objects live here only; the rest of the code calls the functions below
(`kube_call`, `snapshot_refreshed`, `store_call`, `login`, `login_refused`, `status_write`, `poll`,
and the informers' `watch_started`, `watch_ended`, `relisted`, `watch_backoff`).
They always count, in memory, at the cost of a dictionary update; whether anyone may read them is
decided elsewhere: with `HTRFLOW_METRICS` on, the gunicorn configuration (htrbrowser/gunicorn_conf.py)
serves them on a port of their own (`HTRFLOW_METRICS_PORT`), away from the site's public address.

With several gunicorn workers every process writes its figures to files in
`PROMETHEUS_MULTIPROC_DIR` (the gunicorn configuration sets it before any worker starts) and the
port adds them up (`prometheus_client`'s multiprocess mode), so a scrape sees the whole pod
whichever worker it would have reached.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import OrderedDict
from functools import wraps

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import REGISTRY

PREFIX = "htrbrowser"
OK = "ok"
NO_CAUSE = "none"

SNAPSHOT_READ_AT = Gauge(
    f"{PREFIX}_snapshot_read_timestamp_seconds",
    "When the newest cluster snapshot of a namespace was read (Unix time).",
    ["namespace"],
    multiprocess_mode="max",
)
SNAPSHOT_REFRESH = Histogram(
    f"{PREFIX}_snapshot_refresh_seconds",
    "Seconds one read of a namespace's snapshot took.",
    ["namespace"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
)
SNAPSHOT_BYTES = Gauge(
    f"{PREFIX}_snapshot_bytes",
    "Bytes the API sent for the newest snapshot of a namespace.",
    ["namespace"],
    multiprocess_mode="mostrecent",
)
KUBE_CALLS = Counter(
    f"{PREFIX}_kube_calls",
    "Kubernetes API calls, by outcome and by cause: why one failed, as the banner words it (down, slow, "
    "unreachable, broken, throttled, refused; expired and not-served for a 410 and a 404), none when it did not.",
    ["outcome", "cause"],
)
KUBE_BYTES = Counter(f"{PREFIX}_kube_read_bytes", "Bytes read from the Kubernetes API.")
STORE_CALLS = Counter(f"{PREFIX}_store_calls", "Results store (S3) calls, by outcome.", ["outcome"])
LOGINS = Counter(f"{PREFIX}_logins", "Login attempts, by outcome.", ["outcome"])
LOGIN_REFUSALS = Counter(
    f"{PREFIX}_login_rate_limit_refusals", "Logins refused by a rate limit before the store was asked.", ["limit"]
)
CAMPAIGN_FINDINGS = Gauge(
    f"{PREFIX}_campaign_findings",
    "Campaigns with each finding of the diagnosis, by its stable code (docs/troubleshooting.md), all namespaces.",
    ["code"],
    multiprocess_mode="mostrecent",
)
STATUS_WRITES = Counter(f"{PREFIX}_status_writes", "Campaign status record writes, by outcome.", ["outcome"])
POLLS = Counter(
    f"{PREFIX}_polls", "Polls served to open pages, by what polled and whether anything changed.", ["kind", "changed"]
)

# The informers (campaigns.cluster.informer), by source: the list's name (jobs, pods, events...), a dozen values.
WATCH_STARTS = Counter(f"{PREFIX}_watch_starts", "Watch requests the informers made, by list.", ["source"])
WATCH_ENDS = Counter(
    f"{PREFIX}_watch_ends",
    "Watches ended, by list and how: healthy, quiet (no bookmarks), short, not_a_stream, expired (410), failed.",
    ["source", "how"],
)
RELISTS = Counter(
    f"{PREFIX}_relists", "LISTs after a list's first (after a 410, a refused watch or a failure).", ["source"]
)
WATCH_BACKOFF = Counter(
    f"{PREFIX}_watch_backoff_seconds", "Seconds the informers paused before watching or listing again.", ["source"]
)

# --- the calls the code makes -------------------------------------------------------------------


def kube_call(outcome: str, size: int = 0, cause: str = NO_CAUSE) -> None:
    """One Kubernetes API call ended: `ok`, `http_<status>`, `timeout`, `unreachable`, `not_json`; and
    why, when it failed (`kube.ClusterUnavailable.cause`: a refused connection is `down`, whatever
    urllib3 calls it)."""
    KUBE_CALLS.labels(outcome, cause).inc()
    if size:
        KUBE_BYTES.inc(size)
        _tally_bytes(size)


def snapshot_refreshed(namespace: str, seconds: float | None = None, size: int | None = None) -> None:
    """A namespace's snapshot was read anew. Without `seconds`/`size`: what this thread's calls since
    its previous refresh took and sent (see `kube_bytes`), which is what kube.py's one reader does."""
    started, counted = _take_tally()
    seconds = seconds if seconds is not None else (time.monotonic() - started if started else 0.0)
    SNAPSHOT_READ_AT.labels(namespace).set(time.time())
    SNAPSHOT_REFRESH.labels(namespace).observe(max(0.0, seconds))
    SNAPSHOT_BYTES.labels(namespace).set(size if size is not None else counted)


def kube_bytes(size: int) -> None:
    """Bytes of one answer the API sent (counted, and added to this thread's current refresh)."""
    if size:
        KUBE_BYTES.inc(size)
        _tally_bytes(size)


def watch_started(source: str) -> None:
    """An informer opened a watch of the list `source` (a Source's field, e.g. `pods`)."""
    WATCH_STARTS.labels(source).inc()


def watch_ended(source: str, how: str) -> None:
    """A watch of `source` ended: `healthy`, `quiet`, `short`, `not_a_stream`, `expired` or `failed`."""
    WATCH_ENDS.labels(source, how).inc()


def relisted(source: str) -> None:
    """An informer listed `source` again (not its first LIST)."""
    RELISTS.labels(source).inc()


def watch_backoff(source: str, seconds: float) -> None:
    """An informer of `source` pauses `seconds` before its next try."""
    WATCH_BACKOFF.labels(source).inc(max(0.0, seconds))


def store_call(outcome: str) -> None:
    """One results store call ended: `ok`, `not_modified`, or a `results.store.outcomes.Outcome` value."""
    STORE_CALLS.labels(outcome).inc()


def login(outcome: str) -> None:
    """A login attempt ended: `accepted`, or the reason it was refused (`wrong`, `rate_limited`, ...)."""
    LOGINS.labels(outcome).inc()


def login_refused(limit: str) -> None:
    """A rate limit (`address`, `user`, `user_everywhere`, ...) refused a login."""
    LOGIN_REFUSALS.labels(limit).inc()


def status_write(outcome: str) -> None:
    """A status record write: `created`, `updated`, `conflict`, `foreign`, `failed`."""
    STATUS_WRITES.labels(outcome).inc()


_findings_by_namespace: dict[str, dict[str, int]] = {}
_findings_lock = threading.Lock()


def campaign_findings(namespace: str, counts: dict[str, int]) -> None:
    """The number of campaigns of ``namespace`` with each finding code (every known code, 0 included, so an
    alert sees a cause go away); the gauge is their sum over the namespaces this process reads."""
    with _findings_lock:
        _findings_by_namespace[namespace] = dict(counts)
        codes = {code for each in _findings_by_namespace.values() for code in each}
        for code in codes:
            CAMPAIGN_FINDINGS.labels(code).set(sum(each.get(code, 0) for each in _findings_by_namespace.values()))


def poll(kind: str, changed: bool) -> None:
    """A poll from an open page was answered; `changed` is False when it brought nothing new."""
    POLLS.labels(kind, "true" if changed else "false").inc()


_last_answers: OrderedDict[str, str] = OrderedDict()
_last_answers_lock = threading.Lock()
LAST_ANSWERS_KEPT = 4096


def poll_answered(kind: str, who: str, content: bytes) -> None:
    """`poll`, where "changed" means this poller got different content than last time (per process)."""
    digest = hashlib.sha256(content).hexdigest()
    key = hashlib.sha256(f"{kind}\0{who}".encode()).hexdigest()
    with _last_answers_lock:
        previous = _last_answers.pop(key, None)
        _last_answers[key] = digest
        while len(_last_answers) > LAST_ANSWERS_KEPT:
            _last_answers.popitem(last=False)
    poll(kind, previous != digest)


# --- outcomes of a Kubernetes call, worked out from what it raised ---------------------------------


def counts_kube_calls(call):
    """Decorator for the one function that calls the Kubernetes API: counts each call by outcome.

    The outcome comes from what the call raised: an error with a `status` (the API's refusal),
    else the low-level error it was raised from (`__context__`: an `ApiException`, a timeout,
    a connection error, or JSON that did not parse).
    """

    @wraps(call)
    def counted(*args, **kwargs):
        try:
            answer = call(*args, **kwargs)
        except Exception as error:
            kube_call(kube_outcome(error), cause=kube_cause(error))
            raise
        kube_call(OK)
        return answer

    return counted


def kube_cause(error: BaseException) -> str:
    """Why a call failed, as the error raised says (its `cause`); `unknown` for anything else."""
    cause = getattr(error, "cause", None)
    return cause if isinstance(cause, str) and cause else "unknown"


def kube_outcome(error: BaseException) -> str:
    status = getattr(error, "status", None)
    if isinstance(status, int):
        return f"http_{status}"
    cause = error.__cause__ or error.__context__
    status = getattr(cause, "status", None)
    if isinstance(status, int) and status:
        return f"http_{status}"
    names = {type(cause).__name__} | {getattr(type(getattr(cause, "reason", None)), "__name__", "")}
    if any("Timeout" in name for name in names):
        return "timeout"
    if isinstance(cause, ValueError):
        return "not_json"
    return "unreachable"


# --- the refresh this thread is doing -----------------------------------------------------------

_tally = threading.local()


def _tally_bytes(size: int) -> None:
    if not getattr(_tally, "started", None):
        _tally.started = time.monotonic()
        _tally.size = 0
    _tally.size += size


def _take_tally() -> tuple[float | None, int]:
    started, size = getattr(_tally, "started", None), getattr(_tally, "size", 0)
    _tally.started, _tally.size = None, 0
    return started, size


# --- exposition ---------------------------------------------------------------------------------


class _WithAges:
    """Everything `source` collects, plus each snapshot's age worked out at scrape time."""

    def __init__(self, source):
        self.source = source

    def collect(self):
        now = time.time()
        ages = GaugeMetricFamily(
            f"{PREFIX}_snapshot_age_seconds",
            "Seconds since the newest snapshot of a namespace was read.",
            labels=["namespace"],
        )
        for family in self.source.collect():
            yield family
            if family.name == SNAPSHOT_READ_AT._name:
                for sample in family.samples:
                    ages.add_metric([sample.labels.get("namespace", "")], max(0.0, now - sample.value))
        yield ages


def multiprocess_dir() -> str:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")


def registry() -> CollectorRegistry:
    """What a scrape reads: every process's files in multiprocess mode, else this process's figures."""
    scraped = CollectorRegistry()
    if multiprocess_dir():
        from prometheus_client import multiprocess

        source = CollectorRegistry()
        multiprocess.MultiProcessCollector(source)
    else:
        source = REGISTRY
    scraped.register(_WithAges(source))
    return scraped


def exposition() -> tuple[bytes, str]:
    """The Prometheus text format of every figure, and its content type."""
    return generate_latest(registry()), CONTENT_TYPE_LATEST

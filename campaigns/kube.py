"""Reading the cluster: the only module that calls the Kubernetes API.

Per namespace one snapshot is read with a fixed handful of list calls (by label selector, paged),
whatever the number of campaigns, and shared by every request in the process for
`settings.HTRFLOW_SNAPSHOT_SECONDS`. Every call has a connect and a read timeout
(`settings.HTRFLOW_KUBE_TIMEOUT`). Objects come back as the plain camelCase dicts the API server
sends. When the API cannot be read, the last good snapshot is served with the time the trouble
started; with no snapshot yet, `ClusterUnavailable` carries a sentence for the page.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

import urllib3
from django.conf import settings
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException

from htrbrowser import metrics

log = logging.getLogger(__name__)

H = "htrflow.riksarkivet.se/"
CAMPAIGN_JOBS = f"app=htrflow-batch,{H}managed-by=converter"
WARMUP_JOBS = "app=htrflow-warmup"
CAMPAIGN_RECORDS = f"{H}campaign,{H}kind!=status"
STATUS_RECORDS = f"{H}kind=status"
PIPELINE_CONFIGMAPS = f"{H}pipeline,!{H}campaign"
JOB_PODS = "batch.kubernetes.io/job-name,app in (htrflow-batch,htrflow-warmup)"
UNFINISHED_PODS = "status.phase!=Succeeded"
KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_VERSIONS = ("v1beta2", "v1beta1")
PAGE_SIZE = 500
# A refresh waits this long for another thread's refresh when it has nothing to serve meanwhile.
WAIT_FACTOR = 12


class ClusterUnavailable(Exception):
    """The Kubernetes API could not be read; `sentence` says so in words fit for a page."""

    def __init__(self, sentence: str):
        super().__init__(sentence)
        self.sentence = sentence


class _NotReadable(Exception):
    """A list the account may not read (403) or the cluster does not serve (404)."""

    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


@dataclass(frozen=True)
class Reading:
    """One namespace's snapshot as served to a request.

    `unreachable_since` is set when the snapshot is an older good one because the API could not be
    read since then; `fresh` is true for the request whose call read it from the API.
    """

    namespace: str
    snapshot: object
    unreachable_since: datetime | None = None
    fresh: bool = False

    def banner(self, now: datetime | None = None) -> str | None:
        return stale_banner(self.unreachable_since, now) if self.unreachable_since else None


def stale_banner(since: datetime, now: datetime | None = None) -> str:
    """'Could not reach the cluster since 14:02 (3 min ago)…' for a page showing an older snapshot."""
    now = now or datetime.now(UTC)
    minutes = max(0, int((now - since).total_seconds() // 60))
    ago = "less than a minute ago" if minutes < 1 else f"{minutes} min ago"
    return (
        f"Could not reach the cluster since {since.astimezone(UTC):%H:%M} UTC ({ago}). "
        "What you see is the last state read before then; it will update by itself once the cluster answers."
    )


# --- the API client ------------------------------------------------------------------------------

_clients: dict[tuple, k8s_client.ApiClient] = {}
_clients_lock = threading.Lock()


def _config_key() -> tuple:
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        return ("in-cluster",)
    path = settings.KUBECONFIG
    if not path:
        raise ClusterUnavailable(
            "This site is not connected to a cluster: it runs outside Kubernetes and no kubeconfig is set (KUBECONFIG)."
        )
    try:
        stat = os.stat(path)
    except OSError:
        raise ClusterUnavailable(
            f"The kubeconfig file {path} cannot be read, so the cluster cannot be asked."
        ) from None
    return ("kubeconfig", path, stat.st_mtime_ns, stat.st_size)


def _load_configuration(key: tuple) -> k8s_client.Configuration:
    configuration = k8s_client.Configuration()
    try:
        if key[0] == "in-cluster":
            k8s_config.load_incluster_config(client_configuration=configuration)
        else:
            k8s_config.load_kube_config(config_file=key[1], client_configuration=configuration, persist_config=False)
    except (ConfigException, OSError, ValueError, TypeError) as error:
        log.warning("cannot load the Kubernetes configuration: %s", error)
        raise ClusterUnavailable(
            "The cluster configuration could not be loaded, so the cluster cannot be asked."
        ) from None
    # One try per call: a slow or down API must cost one timeout, not urllib3's default of four.
    configuration.retries = 0
    return configuration


def api_client() -> k8s_client.ApiClient:
    """One ApiClient per configuration, created on first use and reused (its connection pool too)."""
    key = _config_key()
    with _clients_lock:
        existing = _clients.get(key)
        if existing is None:
            existing = k8s_client.ApiClient(_load_configuration(key))
            _clients[key] = existing
        return existing


def _timeout() -> tuple[float, float]:
    seconds = float(settings.HTRFLOW_KUBE_TIMEOUT)
    return (seconds, seconds)


@metrics.counts_kube_calls
def _call(method: str, path: str, query: list[tuple[str, str]] | None = None, body=None, content_type=None) -> dict:
    """One API request with timeouts; the answer as a plain dict. Raises `_NotReadable` for 403/404."""
    headers = {"Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
    try:
        response = api_client().call_api(
            path,
            method,
            query_params=query or [],
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],
            _preload_content=False,
            _return_http_data_only=True,
            _request_timeout=_timeout(),
        )
        metrics.kube_bytes(len(response.data or b""))
        return json.loads(response.data or b"{}")
    except ApiException as error:
        if error.status in (403, 404, 410):
            raise _NotReadable(error.status) from None
        log.warning("Kubernetes API answered %s to %s %s", error.status, method, path)
        raise ClusterUnavailable(
            f"The cluster's API answered {error.status} ({error.reason or 'no reason given'}) instead of the campaigns."
        ) from None
    except urllib3.exceptions.TimeoutError:
        log.warning("Kubernetes API did not answer %s %s in time", method, path)
        raise ClusterUnavailable(
            f"The cluster's API did not answer within {settings.HTRFLOW_KUBE_TIMEOUT:g} seconds."
        ) from None
    except (urllib3.exceptions.HTTPError, OSError) as error:
        log.warning("Kubernetes API unreachable for %s %s: %s", method, path, type(error).__name__)
        if isinstance(getattr(error, "reason", None), urllib3.exceptions.TimeoutError):
            raise ClusterUnavailable(
                f"The cluster's API did not answer within {settings.HTRFLOW_KUBE_TIMEOUT:g} seconds."
            ) from None
        raise ClusterUnavailable("The cluster's API could not be reached.") from None
    except ValueError:
        log.warning("Kubernetes API sent something other than JSON for %s %s", method, path)
        raise ClusterUnavailable("The cluster's API sent an answer that is not JSON.") from None


def list_all(path: str, label_selector: str | None = None, field_selector: str | None = None) -> list[dict]:
    """Every item of a list, following `continue` tokens page by page.

    A token that expired mid-list (410) starts the list over once, as kubectl does.
    """
    try:
        return _list_pages(path, label_selector, field_selector)
    except _NotReadable as refused:
        if refused.status != 410:
            raise
        return _list_pages(path, label_selector, field_selector)


def _list_pages(path: str, label_selector: str | None, field_selector: str | None) -> list[dict]:
    items: list[dict] = []
    token = None
    while True:
        query = [("limit", str(PAGE_SIZE))]
        if label_selector:
            query.append(("labelSelector", label_selector))
        if field_selector:
            query.append(("fieldSelector", field_selector))
        if token:
            query.append(("continue", token))
        answer = _call("GET", path, query)
        items.extend(item for item in answer.get("items") or [] if isinstance(item, dict))
        token = (answer.get("metadata") or {}).get("continue")
        if not token:
            return items


def _optional(read) -> list[dict] | None:
    """A list the account may not be allowed to read: None means "not known"."""
    try:
        return read()
    except _NotReadable:
        return None


def _required(read) -> list[dict]:
    try:
        return read()
    except _NotReadable as refused:
        if refused.status == 403:
            raise ClusterUnavailable(
                "This site's service account may not list what the campaign browser needs (the API answered 403)."
            ) from None
        raise ClusterUnavailable("The cluster's API does not serve the objects the campaign browser needs.") from None


# --- one snapshot --------------------------------------------------------------------------------


def _kueue_lists(namespace: str) -> tuple[list[dict] | None, str | None]:
    """Workloads at v1beta2, else v1beta1; the version that answered, to read the other Kueue kinds."""
    for version in KUEUE_VERSIONS:
        try:
            return list_all(f"/apis/{KUEUE_GROUP}/{version}/namespaces/{namespace}/workloads"), version
        except _NotReadable as refused:
            if refused.status == 403:
                return None, version
    return None, None


def fetch_snapshot(namespace: str):
    """Read one namespace from the API now (no cache). Raises ClusterUnavailable."""
    from campaigns.models import Snapshot

    ns = f"/namespaces/{namespace}"
    jobs = _required(lambda: list_all(f"/apis/batch/v1{ns}/jobs", CAMPAIGN_JOBS))
    warmup_jobs = _required(lambda: list_all(f"/apis/batch/v1{ns}/jobs", WARMUP_JOBS))
    records = _required(lambda: list_all(f"/api/v1{ns}/configmaps", CAMPAIGN_RECORDS))
    status_records = _required(lambda: list_all(f"/api/v1{ns}/configmaps", STATUS_RECORDS))
    pipelines = _required(lambda: list_all(f"/api/v1{ns}/configmaps", PIPELINE_CONFIGMAPS))
    pods = _required(lambda: list_all(f"/api/v1{ns}/pods", JOB_PODS, UNFINISHED_PODS))
    workloads, version = _kueue_lists(namespace)  # None: Kueue not installed or not readable
    local_queues = cluster_queues = priority_classes = None
    if version:
        kueue = f"/apis/{KUEUE_GROUP}/{version}"
        local_queues = _optional(lambda: list_all(f"{kueue}{ns}/localqueues"))
        cluster_queues = _optional(lambda: list_all(f"{kueue}/clusterqueues"))
        classes = _optional(lambda: list_all(f"{kueue}/workloadpriorityclasses"))
        if classes is not None:
            priority_classes = [(item.get("metadata") or {}).get("name", "") for item in classes]
    events = _optional(lambda: _call("GET", f"/api/v1{ns}/events", [("limit", str(PAGE_SIZE))]).get("items") or [])
    return Snapshot(
        namespace=namespace,
        jobs=jobs,
        warmup_jobs=warmup_jobs,
        records=records,
        status_records=status_records,
        pipelines=pipelines,
        workloads=workloads,
        pods=pods,
        local_queues=local_queues,
        cluster_queues=cluster_queues,
        priority_classes=priority_classes,
        events=events or [],
        read_at=datetime.now(UTC),
    )


# --- the shared snapshot cache ---------------------------------------------------------------------


@dataclass
class _Entry:
    lock: threading.Lock = field(default_factory=threading.Lock)
    snapshot: object = None
    read_monotonic: float = 0.0
    failed_monotonic: float | None = None
    unreachable_since: datetime | None = None
    failure_sentence: str = ""


_entries: dict[tuple, _Entry] = {}  # (cluster configuration, namespace) -> its shared snapshot
_entries_lock = threading.Lock()


def clear_cache() -> None:
    """Forget every snapshot and client (tests re-point the settings between cases)."""
    with _entries_lock:
        _entries.clear()
    with _clients_lock:
        for existing in _clients.values():
            try:
                existing.close()
            except Exception:  # noqa: BLE001, S110 - closing a pool must never break a reset
                pass
        _clients.clear()


def _entry(namespace: str) -> _Entry:
    """The cache entry of a namespace on the cluster configured now (re-pointing settings starts afresh)."""
    key = (_config_key(), namespace)
    with _entries_lock:
        return _entries.setdefault(key, _Entry())


def _served(namespace: str, entry: _Entry, fresh: bool = False) -> Reading:
    if entry.snapshot is None:
        raise ClusterUnavailable(entry.failure_sentence or "The cluster has not been read yet.")
    return Reading(namespace, entry.snapshot, entry.unreachable_since, fresh)


def read_namespace(namespace: str) -> Reading:
    """The shared snapshot of one namespace, refreshed when older than HTRFLOW_SNAPSHOT_SECONDS.

    One refresh at a time per namespace: while one runs, other requests get the previous snapshot,
    or wait for it when there is none. After a failed read the API is not asked again until the
    snapshot period has passed, so a down cluster costs one timeout per period, not one per request.
    """
    entry = _entry(namespace)
    period = float(settings.HTRFLOW_SNAPSHOT_SECONDS)
    now = time.monotonic()
    if entry.snapshot is not None and now - entry.read_monotonic < period:
        return _served(namespace, entry)
    if entry.failed_monotonic is not None and now - entry.failed_monotonic < period:
        return _served(namespace, entry)
    if not entry.lock.acquire(blocking=False):
        if entry.snapshot is not None:
            return _served(namespace, entry)
        waited = entry.lock.acquire(timeout=float(settings.HTRFLOW_KUBE_TIMEOUT) * WAIT_FACTOR)
        if waited:
            entry.lock.release()
        return _served(namespace, entry)
    try:
        return _refresh(namespace, entry)
    finally:
        entry.lock.release()


def _refresh(namespace: str, entry: _Entry) -> Reading:
    try:
        snapshot = fetch_snapshot(namespace)
    except ClusterUnavailable as trouble:
        entry.failed_monotonic = time.monotonic()
        entry.failure_sentence = trouble.sentence
        if entry.unreachable_since is None:
            entry.unreachable_since = datetime.now(UTC)
        return _served(namespace, entry)
    entry.snapshot = snapshot
    entry.read_monotonic = time.monotonic()
    entry.failed_monotonic = None
    entry.unreachable_since = None
    entry.failure_sentence = ""
    metrics.snapshot_refreshed(namespace)
    return _served(namespace, entry, fresh=True)


def served_namespaces() -> list[str]:
    return list(settings.HTRFLOW_NAMESPACES)


# --- writing status records (used by campaigns.status_records only) ---------------------------------


def create_config_map(namespace: str, body: dict) -> None:
    try:
        _call("POST", f"/api/v1/namespaces/{namespace}/configmaps", body=body, content_type="application/json")
    except _NotReadable as refused:
        raise ClusterUnavailable(f"creating a ConfigMap was refused ({refused.status})") from None


def patch_config_map(namespace: str, name: str, patch: dict) -> None:
    try:
        _call(
            "PATCH",
            f"/api/v1/namespaces/{namespace}/configmaps/{name}",
            body=patch,
            content_type="application/merge-patch+json",
        )
    except _NotReadable as refused:
        raise ClusterUnavailable(f"patching ConfigMap {name} was refused ({refused.status})") from None


# --- conditional writes and the status writer's Lease (used by campaigns.status_records only) -------

LEASES = "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"


class Conflict(Exception):
    """409: the object changed since it was read, or one by that name already exists."""


def _answered(trouble: ClusterUnavailable) -> int | None:
    """The HTTP status behind a ClusterUnavailable raised by `_call`, when the API did answer."""
    status = getattr(trouble.__context__, "status", None)
    return status if isinstance(status, int) else None


def _write(method: str, path: str, body: dict, content_type: str, what: str) -> dict:
    try:
        return _call(method, path, body=body, content_type=content_type)
    except _NotReadable as refused:
        raise ClusterUnavailable(f"{what} was refused ({refused.status})") from None
    except ClusterUnavailable as trouble:
        if _answered(trouble) == 409:
            raise Conflict(what) from None
        raise


def _get_or_none(path: str) -> dict | None:
    try:
        return _call("GET", path)
    except _NotReadable as refused:
        if refused.status == 404:
            return None
        raise ClusterUnavailable(f"reading {path} was refused ({refused.status})") from None


def get_config_map(namespace: str, name: str) -> dict | None:
    return _get_or_none(f"/api/v1/namespaces/{namespace}/configmaps/{name}")


def create_config_map_once(namespace: str, body: dict) -> dict:
    """Create; `Conflict` when one by that name exists already (never replaced)."""
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    return _write("POST", path, body, "application/json", f"creating ConfigMap {body['metadata']['name']}")


def patch_config_map_at(namespace: str, name: str, patch: dict, resource_version: str) -> dict:
    """A merge patch applied only to the version it was computed from; `Conflict` when it changed since."""
    patch = {**patch, "metadata": {**(patch.get("metadata") or {}), "resourceVersion": resource_version}}
    path = f"/api/v1/namespaces/{namespace}/configmaps/{name}"
    return _write("PATCH", path, patch, "application/merge-patch+json", f"patching ConfigMap {name}")


def get_lease(namespace: str, name: str) -> dict | None:
    return _get_or_none(LEASES.format(namespace=namespace) + f"/{name}")


def create_lease(namespace: str, body: dict) -> dict:
    return _write("POST", LEASES.format(namespace=namespace), body, "application/json", "creating the Lease")


def update_lease(namespace: str, name: str, body: dict) -> dict:
    """PUT carrying the `resourceVersion` it was read at; `Conflict` when someone else wrote first."""
    path = LEASES.format(namespace=namespace) + f"/{name}"
    return _write("PUT", path, body, "application/json", f"updating Lease {name}")

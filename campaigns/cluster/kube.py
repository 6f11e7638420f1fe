"""Talking to the Kubernetes API: the only module that calls it.

Every call has a connect and a read timeout (`settings.HTRFLOW_KUBE_TIMEOUT`); objects come back as
the plain camelCase dicts the API server sends. Lists are paged (`PAGE_SIZE`) and give the list's
`resourceVersion`; `watch` follows a list's changes from a version on, as a stream of events.
`campaigns.cluster.informer` and `campaigns.cluster.board` build on these to keep each namespace current by what
changed. A failure is `ClusterUnavailable`, with a sentence for the page and a `cause`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import urllib3
from django.conf import settings
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException

from campaigns.cluster import pages
from campaigns.models import Snapshot
from core import metrics
from core.contract import LABEL_CAMPAIGN, LABEL_JOB_NAME, LABEL_KIND, LABEL_MANAGED_BY, LABEL_PIPELINE

log = logging.getLogger(__name__)

CAMPAIGN_JOBS = f"app=htrflow-batch,{LABEL_MANAGED_BY}=converter"
WARMUP_JOBS = "app=htrflow-warmup"
CAMPAIGN_RECORDS = f"{LABEL_CAMPAIGN},{LABEL_KIND}!=status"
STATUS_RECORDS = f"{LABEL_KIND}=status"
PIPELINE_CONFIGMAPS = f"{LABEL_PIPELINE},!{LABEL_CAMPAIGN}"
JOB_PODS = f"{LABEL_JOB_NAME},app in (htrflow-batch,htrflow-warmup)"
UNFINISHED_PODS = "status.phase!=Succeeded"
KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_VERSIONS = ("v1beta2", "v1beta1")
PAGE_SIZE = 500

# Why the cluster could not be read (campaigns.wording.banners words each for the banner). REFUSED is
# the API answering 401/403 (this site's reads refused); DOWN is nothing taking the connection at all
# (connection refused); SLOW a server that took the connection and then did not answer in time.
REFUSED, THROTTLED, UNREACHABLE, SLOW, BROKEN, NOT_CONNECTED, DOWN = (
    "refused",
    "throttled",
    "unreachable",
    "slow",
    "broken",
    "not-connected",
    "down",
)


class ClusterUnavailable(Exception):
    """The Kubernetes API could not be read; `sentence` says so in words fit for a page."""

    def __init__(self, sentence: str, cause: str = UNREACHABLE, status: int | None = None):
        super().__init__(sentence)
        self.sentence = sentence
        self.cause = cause
        self.status = status  # the HTTP status when the API answered


class NotReadable(Exception):
    """A list the account may not read (403), the cluster does not serve (404), or expired (410)."""

    def __init__(self, status: int):
        super().__init__(status)
        self.status = status
        self.cause = {403: REFUSED, 410: "expired"}.get(status, "not-served")  # for core.metrics


@dataclass(frozen=True)
class ListAnswer:
    items: list[dict]
    resource_version: str
    size: int = 0  # bytes the API sent for it


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
    # One connection per watched list (a dozen per namespace) plus the calls made meanwhile.
    configuration.connection_pool_maxsize = 64
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


def _timeout(read_seconds: float | None = None) -> tuple[float, float]:
    seconds = float(settings.HTRFLOW_KUBE_TIMEOUT)
    return (seconds, seconds if read_seconds is None else read_seconds)


@metrics.counts_kube_calls
def _request(method, path, query=None, body=None, content_type=None, read_seconds=None):
    """One API request with timeouts; the raw urllib3 response. Raises NotReadable or ClusterUnavailable."""
    headers = {"Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
    for attempt in (1, 2):
        try:
            return api_client().call_api(
                path,
                method,
                query_params=query or [],
                header_params=headers,
                body=body,
                auth_settings=["BearerToken"],
                _preload_content=False,
                _return_http_data_only=True,
                _request_timeout=_timeout(read_seconds),
            )
        except ApiException as error:
            if error.status in (403, 404, 410):
                raise NotReadable(error.status) from None
            raise _answered(error.status, error.reason) from None
        except (urllib3.exceptions.HTTPError, OSError) as error:
            # A read whose connection broke before any answer (a server going away mid-request) is
            # tried once more at once, on a new connection, as Go's transport does for client-go: what
            # that meets (refused, silent) is what the trouble really is.
            if attempt == 1 and method == "GET" and _broke_before_answer(_chain(error)):
                continue
            raise _connection_trouble(error) from None
    raise AssertionError("unreachable: the second attempt returns or raises")


def _answered(status: int, reason: str | None) -> ClusterUnavailable:
    log.debug("Kubernetes API answered %s", status)
    if status == 429:
        return ClusterUnavailable(
            "The cluster's API is turning this site's reads away as too many for now (429).", THROTTLED, status
        )
    if status == 401:
        return ClusterUnavailable("The cluster's API does not accept this site's credentials (401).", REFUSED, status)
    return ClusterUnavailable(
        f"The cluster's API answered {status} ({reason or 'no reason given'}) instead of the campaigns.", BROKEN, status
    )


# What went wrong on the way to the API, by what the exception chain holds; the first match words it.
# Read from the chain, not the class: urllib3 2 makes NewConnectionError (a refused connection, a failed
# name lookup) a ConnectTimeoutError, so the class alone words a server that is down as a slow one.
_BROKE = (BaseException, UNREACHABLE, "The cluster could not be reached. The connection to its API server "
          "broke before an answer came.")
_ON_THE_WAY = (
    (ConnectionRefusedError, DOWN, "The cluster is not taking connections. Its API server refused the "
     "connection (nothing listens at its address): it may be down or restarting."),
    (urllib3.exceptions.NameResolutionError, UNREACHABLE, "The cluster could not be reached. The name of its "
     "API server's address could not be looked up."),
    (urllib3.exceptions.NewConnectionError, UNREACHABLE, "The cluster could not be reached. The connection to "
     "its API server could not be made (no route to it, or the network refused)."),
    (urllib3.exceptions.ConnectTimeoutError, UNREACHABLE, "The cluster could not be reached. Nothing took the "
     "connection to its API server within {seconds} seconds (a network or firewall problem, or it is off)."),
    ((urllib3.exceptions.ReadTimeoutError, TimeoutError), SLOW, "The cluster is too slow to answer. Its API "
     "server took the connection but did not answer within {seconds} seconds."),
    (urllib3.exceptions.SSLError, UNREACHABLE, "The cluster could not be reached safely. Its API server's "
     "certificate was not accepted."),
    _BROKE,
)


def _trouble_row(chain: list[BaseException]) -> tuple:
    return next(row for row in _ON_THE_WAY if any(isinstance(each, row[0]) for each in chain))


def _broke_before_answer(chain: list[BaseException]) -> bool:
    return _trouble_row(chain) is _BROKE and any(
        isinstance(each, (urllib3.exceptions.ProtocolError, ConnectionError)) for each in chain
    )


def _connection_trouble(error: Exception) -> ClusterUnavailable:
    chain = _chain(error)
    log.debug("Kubernetes API unreachable: %s", " <- ".join(type(each).__name__ for each in chain))
    _kinds, cause, sentence = _trouble_row(chain)
    return ClusterUnavailable(sentence.format(seconds=f"{settings.HTRFLOW_KUBE_TIMEOUT:g}"), cause)


def _chain(error: BaseException) -> list[BaseException]:
    """The error and every exception behind it: urllib3's `reason`, the exception's arguments (a
    `ProtocolError` carries the socket error there), `__cause__` and `__context__`."""
    found: list[BaseException] = []
    pending: list[object] = [error]
    while pending and len(found) < 16:
        each = pending.pop(0)
        if not isinstance(each, BaseException) or any(each is known for known in found):
            continue
        found.append(each)
        pending.extend([getattr(each, "reason", None), *each.args, each.__cause__, each.__context__])
    return found


def _call(method: str, path: str, query: list[tuple[str, str]] | None = None, body=None, content_type=None) -> dict:
    """One API request with timeouts; the answer as a plain dict. Raises `NotReadable` for 403/404/410."""
    return _call_sized(method, path, query, body, content_type)[0]


def _call_sized(method, path, query=None, body=None, content_type=None, decode=json.loads):
    """`_call`, and how many bytes the answer was; `decode` reads the answer's bytes."""
    response = _request(method, path, query, body, content_type)
    try:
        data = response.data or b"{}"
        metrics.kube_bytes(len(data))
        return decode(data), len(data)
    except (urllib3.exceptions.HTTPError, OSError) as error:
        raise _connection_trouble(error) from None
    except ValueError:
        log.warning("Kubernetes API sent something other than JSON for %s %s", method, path)
        raise ClusterUnavailable("The cluster's API sent an answer that is not JSON.", BROKEN) from None


def list_all(path: str, label_selector: str | None = None, field_selector: str | None = None) -> list[dict]:
    """Every item of a list, following `continue` tokens page by page (see `list_with_version`)."""
    return list_with_version(path, label_selector, field_selector).items


def list_with_version(
    path: str, label_selector: str | None = None, field_selector: str | None = None, transform=None
) -> ListAnswer:
    """Every item of a list and the list's resourceVersion, following `continue` tokens page by page.

    A token that expired mid-list (410) starts the list over once, as kubectl does.
    """
    try:
        return _list_pages(path, label_selector, field_selector, transform)
    except NotReadable as refused:
        if refused.status != 410:
            raise
        return _list_pages(path, label_selector, field_selector, transform)


def _selectors(label_selector: str | None, field_selector: str | None) -> list[tuple[str, str]]:
    query = []
    if label_selector:
        query.append(("labelSelector", label_selector))
    if field_selector:
        query.append(("fieldSelector", field_selector))
    return query


def _list_pages(path: str, label_selector: str | None, field_selector: str | None, transform=None) -> ListAnswer:
    items: list[dict] = []
    token = None
    version = ""
    size = 0

    def one_item_at_a_time(data: bytes) -> tuple[dict, list]:
        return pages.decode(data.decode(), transform)

    while True:
        query = [("limit", str(PAGE_SIZE)), *_selectors(label_selector, field_selector)]
        if token:
            query.append(("continue", token))
        (fields, page), answer_size = _call_sized("GET", path, query, decode=one_item_at_a_time)
        size += answer_size
        items.extend(page)
        meta = fields.get("metadata") or {}
        version = version or str(meta.get("resourceVersion") or "")
        token = meta.get("continue")
        if not token:
            return ListAnswer(items, version, size)


class Expired(Exception):
    """The resourceVersion a watch started from is too old (410): list again."""


class NotAStream(Exception):
    """A watch answered with one whole body (a `Content-Length`, not chunked): a plain list from a
    proxy that dropped `watch=true`, or anything else that is not a stream of changes."""


def watch(
    path: str,
    resource_version: str,
    label_selector: str | None = None,
    field_selector: str | None = None,
    seconds: int = 60,
    streams: list | None = None,
) -> Iterator[dict]:
    """The changes of a list after `resource_version`, as the API server's watch events (dicts with
    `type` and `object`), bookmarks included, until the server ends the stream after `seconds`.

    Raises `Expired` when the version is too old, `NotReadable`/`ClusterUnavailable` as other calls do
    when the watch cannot start, and `NotAStream` (before reading its body, which may be a whole list)
    when the answer is not streamed: an API server streams a watch in chunks. A stream that breaks, or
    stays quiet for longer than `seconds` plus the call timeout, just ends. The open response is put in
    `streams` (if given), so another thread can end a blocked read with `end_stream`.
    """
    query = [
        ("watch", "true"),
        ("resourceVersion", resource_version),
        ("allowWatchBookmarks", "true"),
        ("timeoutSeconds", str(int(seconds))),
        *_selectors(label_selector, field_selector),
    ]
    try:
        # The answer's head must come within the call timeout, as for any call; the stream after it
        # may then stay quiet up to `seconds` (bookmarks keep a healthy one talking).
        response = _request("GET", path, query)
    except NotReadable as refused:
        if refused.status == 410:
            raise Expired() from None
        raise
    _quiet_for(response, seconds + float(settings.HTRFLOW_KUBE_TIMEOUT))
    if streams is not None:
        streams[:] = [response]
    try:
        if not _streamed(response):
            log.debug("watch of %s answered with a whole body, not a stream", path)
            response.close()  # its connection goes too: the unread body must not meet the next call
            raise NotAStream()
        yield from _events(response)
    except (urllib3.exceptions.HTTPError, OSError) as error:
        # The stream broke after it started (a restart, a proxy's idle limit): the caller watches
        # again from the last version it saw, and only a failure to reconnect counts as trouble.
        log.debug("watch of %s ended early: %s", path, type(error).__name__)
    finally:
        if streams is not None:
            streams.clear()
        response.release_conn()


def _events(response) -> Iterator[dict]:
    """The events of a streamed watch answer, one JSON object a line; an ERROR event is raised."""
    for line in response:
        if not line.strip():
            continue
        metrics.kube_bytes(len(line))
        try:
            event = json.loads(line)
        except ValueError:
            raise ClusterUnavailable("The cluster's API sent a change that is not JSON.", BROKEN) from None
        if not isinstance(event, dict):
            continue
        if event.get("type") == "ERROR":
            status = event.get("object") or {}
            if status.get("code") == 410:
                raise Expired()
            raise _answered(int(status.get("code") or 500), status.get("reason"))
        event["_size"] = len(line)
        yield event


def _streamed(response) -> bool:
    """Whether an answer comes as a stream: chunked, or read to the connection's end (no length given)."""
    return bool(getattr(response, "chunked", False)) or response.headers.get("Content-Length") is None


def _quiet_for(response, seconds: float) -> None:
    """Let a streamed answer's socket wait `seconds` for each read from now on."""
    sock = getattr(getattr(response, "connection", None), "sock", None)
    if sock is not None:
        sock.settimeout(seconds)


def end_stream(streams: list) -> None:
    """End a watch stream another thread is reading (its read returns at once)."""
    for response in list(streams):
        try:
            response.shutdown()
        except Exception:  # noqa: BLE001, S110 - ending a stream that already ended is fine
            pass


# --- what a namespace's snapshot is made of -----------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """One list of a snapshot: the Snapshot field it fills, where it is read, and whether it is needed.

    `paths` are tried in order while the cluster answers 404 (Kueue at v1beta2, else v1beta1). A
    needed list that is refused makes the namespace unreadable; another one is "not known" (None).
    """

    field: str
    paths: tuple[str, ...]
    label_selector: str | None = None
    field_selector: str | None = None
    required: bool = True
    unread: tuple[str, ...] = ()  # top-level parts of each object no page reads (dropped on arrival)


def sources(namespace: str) -> list[Source]:
    ns = f"/namespaces/{namespace}"

    def kueue(tail: str) -> tuple[str, ...]:
        return tuple(f"/apis/{KUEUE_GROUP}/{version}{tail}" for version in KUEUE_VERSIONS)

    return [
        Source("jobs", (f"/apis/batch/v1{ns}/jobs",), CAMPAIGN_JOBS),
        Source("warmup_jobs", (f"/apis/batch/v1{ns}/jobs",), WARMUP_JOBS),
        Source("records", (f"/api/v1{ns}/configmaps",), CAMPAIGN_RECORDS),
        Source("status_records", (f"/api/v1{ns}/configmaps",), STATUS_RECORDS),
        Source("pipelines", (f"/api/v1{ns}/configmaps",), PIPELINE_CONFIGMAPS),
        # A pod's spec is never read (only its metadata and status): at 800 running pods it is most of them.
        Source("pods", (f"/api/v1{ns}/pods",), JOB_PODS, UNFINISHED_PODS, unread=("spec",)),
        Source("workloads", kueue(f"{ns}/workloads"), required=False),
        Source("local_queues", kueue(f"{ns}/localqueues"), required=False),
        Source("cluster_queues", kueue("/clusterqueues"), required=False),
        Source("priority_classes", kueue("/workloadpriorityclasses"), required=False),
        Source("events", (f"/api/v1{ns}/events",), required=False),
    ]


def refused_sentence(source: Source, status: int) -> ClusterUnavailable:
    if status == 403:
        return ClusterUnavailable(
            "This site's service account may not list what the campaign browser needs (the API answered 403).",
            REFUSED,
        )
    return ClusterUnavailable("The cluster's API does not serve the objects the campaign browser needs.", BROKEN)


def list_source(source: Source, transform=None) -> tuple[str, ListAnswer] | None:
    """The first path of a source the cluster serves, and its list; None when an optional list is refused.

    `transform` is applied to each item as its page arrives, so a large list never holds every
    item whole at once.
    """
    last = 404
    for path in source.paths:
        try:
            return path, list_with_version(path, source.label_selector, source.field_selector, transform)
        except NotReadable as refused:
            last = refused.status
            if refused.status != 404:
                break
    if source.required:
        raise refused_sentence(source, last)
    return None


def priority_class_names(items: list[dict] | None) -> list[str] | None:
    if items is None:
        return None
    return [(item.get("metadata") or {}).get("name", "") for item in items]


def fetch_snapshot(namespace: str):
    """Read one namespace from the API now with one list per source (no watch). Raises ClusterUnavailable."""
    lists = {}
    for source in sources(namespace):
        answered = list_source(source)
        lists[source.field] = answered[1].items if answered else None
    lists["priority_classes"] = priority_class_names(lists["priority_classes"])
    lists["events"] = lists["events"] or []
    return Snapshot(namespace=namespace, read_at=datetime.now(UTC), **lists)


# --- the cluster as read now: campaigns.cluster.board keeps every namespace current by watching, and
# campaigns.cluster.reading reads it for the views. --------------------------------------------------------


def close_clients() -> None:
    """Close and forget every API client (tests re-point the settings between cases)."""
    with _clients_lock:
        for existing in _clients.values():
            try:
                existing.close()
            except Exception:  # noqa: BLE001, S110 - closing a pool must never break a reset
                pass
        _clients.clear()


def served_namespaces() -> list[str]:
    return list(settings.HTRFLOW_NAMESPACES)


# --- writing status records (used by campaigns.cluster.status_records only) ---------------------------------


def create_config_map(namespace: str, body: dict) -> None:
    try:
        _call("POST", f"/api/v1/namespaces/{namespace}/configmaps", body=body, content_type="application/json")
    except NotReadable as refused:
        raise ClusterUnavailable(f"creating a ConfigMap was refused ({refused.status})") from None


def patch_config_map(namespace: str, name: str, patch: dict) -> None:
    try:
        _call(
            "PATCH",
            f"/api/v1/namespaces/{namespace}/configmaps/{name}",
            body=patch,
            content_type="application/merge-patch+json",
        )
    except NotReadable as refused:
        raise ClusterUnavailable(f"patching ConfigMap {name} was refused ({refused.status})") from None


# --- conditional writes and the status writer's Lease (used by campaigns.cluster.status_records only) -------

LEASES = "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"


class Conflict(Exception):
    """409: the object changed since it was read, or one by that name already exists."""


def _write(method: str, path: str, body: dict, content_type: str, what: str) -> dict:
    try:
        return _call(method, path, body=body, content_type=content_type)
    except NotReadable as refused:
        raise ClusterUnavailable(f"{what} was refused ({refused.status})") from None
    except ClusterUnavailable as trouble:
        if trouble.status == 409:
            raise Conflict(what) from None
        raise


def _get_or_none(path: str) -> dict | None:
    try:
        return _call("GET", path)
    except NotReadable as refused:
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

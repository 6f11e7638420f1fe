"""Talking to the Kubernetes API: the one module that sends requests to it.

Every call has a connect and a read timeout (`settings.HTRFLOW_KUBE_TIMEOUT`); objects come back as
the plain camelCase dicts the API server sends. Lists are paged (`PAGE_SIZE`) and give the list's
`resourceVersion`. A failure is `ClusterUnavailable`, with a sentence for the page and a `cause`. A failure
is met by a board's thread and shown to every reader, so its sentence is kept lazy (`gettext_lazy`,
`format_lazy`) and worded in each reader's language when a page asks for it.

Built on this: `campaigns.cluster.watches` follows a list's changes from a version on,
`campaigns.cluster.sources` says which lists make a namespace's snapshot, `campaigns.cluster.writes`
writes the status records and the status writer's Lease; `campaigns.cluster.informer` and
`campaigns.cluster.board` keep each namespace current by what changed.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from decimal import Decimal

import urllib3
from django.conf import settings
from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException

from campaigns.cluster import pages
from core import metrics

log = logging.getLogger(__name__)

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
    """The Kubernetes API could not be read; `sentence` says so in words fit for a page.

    Made where the trouble is met (often a board's thread, for every reader at once), it keeps its words
    lazy: `sentence` words them in the language active where it is read.
    """

    def __init__(self, sentence, cause: str = UNREACHABLE, status: int | None = None):
        super().__init__(sentence)
        self.said = sentence  # a str, or a lazy sentence (gettext_lazy, format_lazy)
        self.cause = cause
        self.status = status  # the HTTP status when the API answered

    @property
    def sentence(self) -> str:
        """The words, in the language active now."""
        return str(self.said)


class NotReadable(Exception):
    """A list the account may not read (403), the cluster does not serve (404), or expired (410)."""

    def __init__(self, status: int):
        super().__init__(status)
        self.status = status
        self.cause = {403: REFUSED, 410: "expired"}.get(status, "not-served")  # for core.metrics


def seconds_said(seconds: float):
    """A number of seconds as a sentence says it, in the reader's locale when it is read (``0.5``, Swedish
    ``0,5``; ``12`` rather than ``12.0``): lazy, for a sentence kept lazy."""
    return lazy(number_format, str)(Decimal(f"{float(seconds):g}"))


@dataclass(frozen=True)
class ListAnswer:
    items: list[dict]
    resource_version: str
    size: int = 0  # bytes the API sent for it


# --- the API client ------------------------------------------------------------------------------

_clients: dict[tuple, k8s_client.ApiClient] = {}
_clients_lock = threading.Lock()


def _config_key() -> tuple:
    if settings.KUBERNETES_SERVICE_HOST:  # set by Kubernetes in every pod
        return ("in-cluster",)
    path = settings.KUBECONFIG
    if not path:
        raise ClusterUnavailable(
            gettext_lazy(
                "This site is not connected to a cluster: it runs outside Kubernetes and no kubeconfig is set "
                "(KUBECONFIG)."
            )
        )
    try:
        stat = os.stat(path)
    except OSError:
        # Translators: {path} is the kubeconfig file's path on the site's machine.
        said = gettext_lazy("The kubeconfig file {path} cannot be read, so the cluster cannot be asked.")
        raise ClusterUnavailable(format_lazy(said, path=path)) from None
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
            gettext_lazy("The cluster configuration could not be loaded, so the cluster cannot be asked.")
        ) from None
    # One try per call: a slow or down API must cost one timeout, not urllib3's default of four.
    configuration.retries = 0
    # One connection per watched list (up to sixteen per namespace) plus the calls made meanwhile.
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
def request(method, path, query=None, body=None, content_type=None, read_seconds=None):
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
            raise answered(error.status, error.reason) from None
        except (urllib3.exceptions.HTTPError, OSError) as error:
            # A read whose connection broke before any answer (a server going away mid-request) is
            # tried once more at once, on a new connection, as Go's transport does for client-go: what
            # that meets (refused, silent) is what the trouble really is.
            if attempt == 1 and method == "GET" and _broke_before_answer(_chain(error)):
                continue
            raise _connection_trouble(error) from None
    raise AssertionError("unreachable: the second attempt returns or raises")


def answered(status: int, reason: str | None) -> ClusterUnavailable:
    log.debug("Kubernetes API answered %s", status)
    if status == 429:
        return ClusterUnavailable(
            gettext_lazy("The cluster's API is turning this site's reads away as too many for now (429)."),
            THROTTLED,
            status,
        )
    if status == 401:
        return ClusterUnavailable(
            gettext_lazy("The cluster's API does not accept this site's credentials (401)."), REFUSED, status
        )
    if not reason:
        # Translators: {status} is the HTTP status the Kubernetes API answered with (500).
        said = gettext_lazy("The cluster's API answered {status} (no reason given) instead of the campaigns.")
        return ClusterUnavailable(format_lazy(said, status=status), BROKEN, status)
    # Translators: {status} is the HTTP status the Kubernetes API answered with (500), {reason} its own words
    # for it (Internal Server Error), as the API sent them.
    said = gettext_lazy("The cluster's API answered {status} ({reason}) instead of the campaigns.")
    return ClusterUnavailable(format_lazy(said, status=status, reason=reason), BROKEN, status)


# Translators: {seconds} is the site's timeout for the cluster's API (1.5).
_NOT_TAKEN = gettext_lazy("The cluster could not be reached. Nothing took the connection to its API server "
                          "within {seconds} seconds (a network or firewall problem, or it is off).")
# Translators: {seconds} is the site's timeout for the cluster's API (1.5).
_TOO_SLOW = gettext_lazy("The cluster is too slow to answer. Its API server took the connection but did not "
                         "answer within {seconds} seconds.")
# What went wrong on the way to the API, by what the exception chain holds; the first match words it.
# Read from the chain, not the class: urllib3 2 makes NewConnectionError (a refused connection, a failed
# name lookup) a ConnectTimeoutError, so the class alone words a server that is down as a slow one.
_BROKE = (BaseException, UNREACHABLE, gettext_lazy(
    "The cluster could not be reached. The connection to its API server broke before an answer came."))
_ON_THE_WAY = (
    (ConnectionRefusedError, DOWN, gettext_lazy(
        "The cluster is not taking connections. Its API server refused the connection (nothing listens at its "
        "address): it may be down or restarting.")),
    (urllib3.exceptions.NameResolutionError, UNREACHABLE, gettext_lazy(
        "The cluster could not be reached. The name of its API server's address could not be looked up.")),
    (urllib3.exceptions.NewConnectionError, UNREACHABLE, gettext_lazy(
        "The cluster could not be reached. The connection to its API server could not be made (no route to it, "
        "or the network refused).")),
    (urllib3.exceptions.ConnectTimeoutError, UNREACHABLE, _NOT_TAKEN),
    ((urllib3.exceptions.ReadTimeoutError, TimeoutError), SLOW, _TOO_SLOW),
    (urllib3.exceptions.SSLError, UNREACHABLE, gettext_lazy(
        "The cluster could not be reached safely. Its API server's certificate was not accepted.")),
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
    return ClusterUnavailable(format_lazy(sentence, seconds=seconds_said(settings.HTRFLOW_KUBE_TIMEOUT)), cause)


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


def call(method: str, path: str, query: list[tuple[str, str]] | None = None, body=None, content_type=None) -> dict:
    """One API request with timeouts; the answer as a plain dict. Raises `NotReadable` for 403/404/410."""
    return _call_sized(method, path, query, body, content_type)[0]


def _call_sized(method, path, query=None, body=None, content_type=None, decode=json.loads):
    """`call`, and how many bytes the answer was; `decode` reads the answer's bytes."""
    response = request(method, path, query, body, content_type)
    try:
        data = response.data or b"{}"
        metrics.kube_bytes(len(data))
        return decode(data), len(data)
    except (urllib3.exceptions.HTTPError, OSError) as error:
        raise _connection_trouble(error) from None
    except ValueError:
        log.warning("Kubernetes API sent something other than JSON for %s %s", method, path)
        raise ClusterUnavailable(gettext_lazy("The cluster's API sent an answer that is not JSON."), BROKEN) from None


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


def selector_query(label_selector: str | None, field_selector: str | None) -> list[tuple[str, str]]:
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
        query = [("limit", str(PAGE_SIZE)), *selector_query(label_selector, field_selector)]
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


def close_clients() -> None:
    """Close and forget every API client (tests re-point the settings between cases)."""
    with _clients_lock:
        for existing in _clients.values():
            try:
                existing.close()
            except Exception:  # noqa: BLE001, S110 - closing a pool must never break a reset
                pass
        _clients.clear()

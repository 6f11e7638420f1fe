"""A Kubernetes API double: a small HTTP server the official `kubernetes` client talks to unchanged.

It serves the kinds htrbrowser reads (pods and their logs, configmaps, events, PersistentVolumeClaims,
batch Jobs, apps Deployments, and Kueue Workloads, LocalQueues, ClusterQueues, WorkloadPriorityClasses
and ResourceFlavors under both `v1beta2` and `v1beta1`),
with list semantics like a real API server: label and field selectors, `limit` / `continue` paging
over a consistent snapshot, resource versions, and `Status` error bodies. ConfigMaps can be written
(create, replace, merge patch, delete) because the product keeps a status ConfigMap current, and so
can Leases (`coordination.k8s.io/v1`), which elect the one writer; a write carrying an outdated
`metadata.resourceVersion` answers 409 Conflict, as a real API server does.

Tests and the demo use it in three ways:

- through HTTP with the real client: `double.write_kubeconfig(path)` or `double.api_client()`;
- in process: `put`, `patch`, `delete`, `get`, `list`, `add_pod_log`, `append_pod_log`, `reset`;
- to break things on purpose: `inject_fault(path_regex, delay=..., status=..., drop=..., times=...)`,
  `kueue_v1beta2_enabled = False` (an older cluster), `expire_continue_tokens()`, and for watches
  `drop_watches()`, `compact()` and `misbehave_watches(mode)` (end at once, a plain list, 410 always;
  see devstack.kube_watch); `watch_starts()` counts the watch requests a client made.

Every request is recorded in `calls` as `(method, path, query_dict)`.

Run `python -m devstack.kubeapi [objects.yaml ...]` to serve a double on a laptop; it prints the
kubeconfig path to use as `KUBECONFIG`.
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import re
import secrets
import socket
import sys
import tempfile
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

import yaml

from devstack.kube_errors import ApiError
from devstack.kube_selectors import (
    SelectorError,
    json_patch,
    merge_patch,
    parse_field_selector,
    parse_label_selector,
)
from devstack.kube_watch import MISBEHAVIOURS, PLAIN_LIST, Change, ChangeLog, Stream, WatchRequest, is_true

KUEUE_GROUP = "kueue.x-k8s.io"
SERVER_VERSION = {"major": "1", "minor": "31", "gitVersion": "v1.31.4"}
SERVICE_ACCOUNT = "system:serviceaccount:htr-batch:htrflow-web"
CONTINUE_TOKENS_KEPT = 512



# ---------------------------------------------------------------------------------------------
# The kinds served


def _pod_fields(obj: dict) -> dict[str, str]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return {
        "status.phase": status.get("phase") or "",
        "spec.nodeName": spec.get("nodeName") or "",
        "spec.restartPolicy": spec.get("restartPolicy") or "",
        "spec.serviceAccountName": spec.get("serviceAccountName") or "",
        "status.podIP": status.get("podIP") or "",
    }


def _event_fields(obj: dict) -> dict[str, str]:
    involved = obj.get("involvedObject") or {}
    values = {f"involvedObject.{key}": str(involved.get(key) or "") for key in ("kind", "name", "namespace", "uid")}
    values.update(
        {
            "involvedObject.apiVersion": involved.get("apiVersion") or "",
            "involvedObject.resourceVersion": involved.get("resourceVersion") or "",
            "involvedObject.fieldPath": involved.get("fieldPath") or "",
            "reason": obj.get("reason") or "",
            "type": obj.get("type") or "",
            "source": (obj.get("source") or {}).get("component") or "",
            "reportingComponent": obj.get("reportingComponent") or "",
        }
    )
    return values


def _job_fields(obj: dict) -> dict[str, str]:
    return {"status.successful": str((obj.get("status") or {}).get("successful") or 0)}


def _namespace_fields(obj: dict) -> dict[str, str]:
    return {"status.phase": (obj.get("status") or {}).get("phase") or ""}


@dataclass(frozen=True)
class Resource:
    """One served resource type. Objects are stored once per (group, plural), whatever the version."""

    group: str
    versions: tuple[str, ...]
    plural: str
    kind: str
    namespaced: bool
    writable: bool = False
    extra_fields: object = None  # callable(obj) -> {field: value} beyond metadata.name/namespace

    def api_version(self, version: str | None = None) -> str:
        version = version or self.versions[0]
        return f"{self.group}/{version}" if self.group else version

    @property
    def builtin(self) -> bool:
        return self.group in ("", "apps", "batch", "coordination.k8s.io")

    @property
    def qualified(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def field_values(self, obj: dict) -> dict[str, str]:
        metadata = obj.get("metadata") or {}
        values = {"metadata.name": metadata.get("name") or "", "metadata.namespace": metadata.get("namespace") or ""}
        if self.extra_fields:
            values.update(self.extra_fields(obj))
        return values


RESOURCES = (
    Resource("", ("v1",), "pods", "Pod", True, extra_fields=_pod_fields),
    Resource("", ("v1",), "configmaps", "ConfigMap", True, writable=True),
    Resource("", ("v1",), "events", "Event", True, extra_fields=_event_fields),
    Resource("", ("v1",), "namespaces", "Namespace", False, extra_fields=_namespace_fields),
    Resource("batch", ("v1",), "jobs", "Job", True, extra_fields=_job_fields),
    Resource("coordination.k8s.io", ("v1",), "leases", "Lease", True, writable=True),
    Resource(KUEUE_GROUP, ("v1beta2", "v1beta1"), "workloads", "Workload", True),
    Resource(KUEUE_GROUP, ("v1beta2", "v1beta1"), "localqueues", "LocalQueue", True),
    Resource(KUEUE_GROUP, ("v1beta2", "v1beta1"), "clusterqueues", "ClusterQueue", False),
    Resource(KUEUE_GROUP, ("v1beta2", "v1beta1"), "workloadpriorityclasses", "WorkloadPriorityClass", False),
    Resource(KUEUE_GROUP, ("v1beta2", "v1beta1"), "resourceflavors", "ResourceFlavor", False),
    Resource("", ("v1",), "persistentvolumeclaims", "PersistentVolumeClaim", True),
    Resource("apps", ("v1",), "deployments", "Deployment", True),
)
_BY_PLURAL = {(r.group, r.plural): r for r in RESOURCES}
_BY_KIND = {(r.group, r.kind): r for r in RESOURCES}


def resource_for(api_version: str, kind: str) -> Resource:
    """The served resource for an object's `apiVersion` and `kind`; `ValueError` when not served."""
    group, _, version = api_version.rpartition("/")
    resource = _BY_KIND.get((group, kind))
    if resource is None or version not in resource.versions:
        raise ValueError(f"the Kubernetes double does not serve {kind} in {api_version!r}")
    return resource


# ---------------------------------------------------------------------------------------------
# Errors and faults


def _not_found(resource: Resource, name: str) -> ApiError:
    details = {"name": name, "kind": resource.plural}
    if resource.group:
        details["group"] = resource.group
    return ApiError(404, f'{resource.qualified} "{name}" not found', details=details)


_PAGE_NOT_FOUND = "the server could not find the requested resource"


@dataclass(eq=False)
class Fault:
    """A misbehaviour for requests whose path matches `pattern`. Remove it with `remove()`."""

    pattern: re.Pattern
    method: str | None = None
    delay: float | None = None
    status: int | None = None
    drop: bool = False
    times: int | None = None
    retry_after: int | None = None
    hits: int = 0
    _owner: KubeDouble | None = field(default=None, repr=False)

    def remove(self) -> None:
        if self._owner is not None:
            self._owner._remove_fault(self)


# ---------------------------------------------------------------------------------------------
# Parsed request paths


@dataclass(frozen=True)
class Route:
    resource: Resource
    version: str
    namespace: str | None
    name: str | None
    subresource: str | None

    def describe(self) -> str:
        if self.namespace:
            return f'in API group "{self.resource.group}" in the namespace "{self.namespace}"'
        return f'in API group "{self.resource.group}" at the cluster scope'


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _object_key(obj: dict) -> tuple[str, str]:
    metadata = obj.get("metadata") or {}
    return (metadata.get("namespace") or "", metadata.get("name") or "")


def _verb(method: str, route: Route) -> str:
    if method == "GET":
        return "get" if route.name else "list"
    return {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}.get(method, method.lower())


# ---------------------------------------------------------------------------------------------
# The double


class KubeDouble:
    """A threaded HTTP Kubernetes API double with an in-process store. See the module docstring."""

    def __init__(self):
        self._lock = threading.RLock()
        self._objects: dict[tuple[str, str], dict[tuple[str, str], dict]] = {}
        self._logs: dict[tuple[str, str, str], str] = {}
        self._faults: list[Fault] = []
        self._calls: list[tuple[str, str, dict]] = []
        self._snapshots: OrderedDict[str, tuple[int, list[dict]]] = OrderedDict()
        self._revision = 1000
        self._wake = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()
        self.token = secrets.token_urlsafe(24)
        self.kubeconfig_path: Path | None = None
        self.kueue_v1beta2_enabled = True
        self._changes = ChangeLog(self._lock, self._revision)
        self.bookmark_seconds = 1.0
        self.watch_misbehaviour: str | None = None
        self._bytes: dict[str, int] = {}

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self, host: str = "127.0.0.1", port: int = 0) -> KubeDouble:
        """Start serving in a background thread; `port=0` picks a free port. Returns self."""
        if self._server is not None:
            return self
        self._wake = threading.Event()
        server = _Server((host, port), _Handler)
        server.daemon_threads = True
        server.double = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="kube-double", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close open connections. The store is kept."""
        server, self._server = self._server, None
        if server is None:
            return
        self._wake.set()
        with self._lock:
            self._changes.end_streams()
        server.shutdown()
        server.server_close()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread:
            self._thread.join(timeout=5)

    def __enter__(self) -> KubeDouble:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the Kubernetes double is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def write_kubeconfig(self, path, namespace: str = "htr-batch") -> Path:
        """Write a kubeconfig (server = this double, bearer token user, current context) and return its path."""
        path = Path(path)
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "kube-double", "cluster": {"server": self.url}}],
            "users": [{"name": "kube-double-reader", "user": {"token": self.token}}],
            "contexts": [
                {
                    "name": "kube-double",
                    "context": {"cluster": "kube-double", "user": "kube-double-reader", "namespace": namespace},
                }
            ],
            "current-context": "kube-double",
            "preferences": {},
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        self.kubeconfig_path = path
        return path

    def api_client(self, retries=None):
        """A `kubernetes.client.ApiClient` for this double.

        `retries` goes to the client's Configuration (urllib3 retries; `False` or `0` turns them off,
        `None` keeps urllib3's default of 3 retries, which also waits out a 429's Retry-After).
        """
        from kubernetes import client

        configuration = client.Configuration()
        configuration.host = self.url
        configuration.api_key = {"BearerToken": self.token}
        configuration.api_key_prefix = {"BearerToken": "Bearer"}
        configuration.retries = retries
        return client.ApiClient(configuration)

    # -- request log and faults -----------------------------------------------------------------

    @property
    def calls(self) -> list[tuple[str, str, dict]]:
        """Every request so far, oldest first, as `(method, path, query_dict)`."""
        with self._lock:
            return list(self._calls)

    def reset_calls(self) -> None:
        with self._lock:
            self._calls.clear()

    def inject_fault(
        self, path_regex: str, *, delay=None, status=None, drop=False, times=None, retry_after=None, method=None
    ) -> Fault:
        """Misbehave for requests whose path (without query) matches `path_regex` (`re.search`).

        `delay` seconds pass before answering; then `drop` closes the connection without an answer,
        `status` answers a Status error of that code (429 carries `Retry-After`, 1 s unless
        `retry_after` says otherwise), or else the normal answer follows. `times` limits how many
        requests are affected; `method` (e.g. "PATCH") limits the fault to one HTTP method. The first
        matching fault wins. Returns a `Fault` (`.hits` counts the requests it took); call `.remove()`.
        """
        if status is not None and not 400 <= int(status) <= 599:
            raise ValueError("status must be an HTTP error code (400-599)")
        fault = Fault(
            re.compile(path_regex),
            method.upper() if method else None,
            delay,
            status,
            drop,
            times,
            retry_after,
            _owner=self,
        )
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()
            self._wake.set()
            self._wake = threading.Event()

    def _remove_fault(self, fault: Fault) -> None:
        with self._lock:
            if fault in self._faults:
                self._faults.remove(fault)

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.method in (None, method) and fault.pattern.search(path):
                    fault.hits += 1
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self._faults.remove(fault)
                    return fault
        return None

    # -- watches and load --------------------------------------------------------------------------

    def drop_watches(self) -> None:
        """End every open watch stream abruptly, as an API server restart would; clients watch again."""
        with self._lock:
            self._changes.end_streams()

    def compact(self) -> None:
        """Forget the change history, as etcd compaction does: watches from older versions get 410."""
        with self._lock:
            self._changes.compact(self._revision)

    def misbehave_watches(self, mode: str | None) -> None:
        """Answer every watch from now on as `mode` says (`kube_watch.END_AT_ONCE`, `PLAIN_LIST`,
        `EXPIRE`), or as a healthy server again (None). Open streams end, as when a proxy restarts."""
        if mode is not None and mode not in MISBEHAVIOURS:
            raise ValueError(f"misbehaviour must be one of {MISBEHAVIOURS}, not {mode!r}")
        with self._lock:
            self.watch_misbehaviour = mode
            self._changes.end_streams()

    def watch_starts(self, path_regex: str = "") -> int:
        """Watch requests received so far (since `reset_calls`), for paths matching `path_regex`."""
        pattern = re.compile(path_regex)
        with self._lock:
            return sum(1 for m, p, q in self._calls if m == "GET" and is_true(q.get("watch")) and pattern.search(p))

    def open_watches(self) -> int:
        with self._lock:
            return self._changes.open

    def bytes_served(self) -> int:
        """Response body bytes sent since the last `reset_bytes` (watch streams included)."""
        with self._lock:
            return sum(self._bytes.values())

    def bytes_by_resource(self) -> dict[str, int]:
        with self._lock:
            return dict(self._bytes)

    def reset_bytes(self) -> None:
        with self._lock:
            self._bytes.clear()

    def _count_bytes(self, path: str, size: int) -> None:
        plurals = {plural for _group, plural in _BY_PLURAL}
        plural = next((s for s in reversed(path.split("/")) if s in plurals), "other")
        with self._lock:
            self._bytes[plural] = self._bytes.get(plural, 0) + size

    def expire_continue_tokens(self) -> None:
        """Forget every paging snapshot, as a real server does after compaction: old tokens get 410."""
        with self._lock:
            self._snapshots.clear()

    # -- in-process store -----------------------------------------------------------------------

    def reset(self) -> None:
        """Remove all objects, logs, faults, paging tokens and recorded calls; serve v1beta2 again."""
        with self._lock:
            self._objects.clear()
            self._logs.clear()
            self._snapshots.clear()
            self._calls.clear()
            self.kueue_v1beta2_enabled = True
            self.watch_misbehaviour = None
            # Watchers of the old objects must list again: their versions are gone.
            self._changes.compact(self._revision)
            self._changes.end_streams()
        self.clear_faults()

    def put(self, obj: dict) -> dict:
        """Create or replace an object (resource from `apiVersion` + `kind`); returns the stored copy.

        A `v1` `List` stores each item. Missing `uid` and `creationTimestamp` are kept from the
        object it replaces or assigned; `resourceVersion` always moves on.
        """
        if obj.get("kind") == "List":
            return {"kind": "List", "apiVersion": "v1", "items": [self.put(item) for item in obj.get("items") or []]}
        resource = resource_for(obj.get("apiVersion") or "", obj.get("kind") or "")
        with self._lock:
            stored = self._store(resource, copy.deepcopy(obj), existing=self._find(resource, obj))
            return self._present(resource, stored, obj["apiVersion"].rpartition("/")[2])

    def put_many(self, objects: list[dict]) -> None:
        """Store many objects that the caller gives away: no copies are made, nothing is returned.

        For scenes at archive scale, where copying every object twice (as `put` does) would take
        longer than the benchmark that reads them. Server-owned metadata is filled in as by `put`.
        """
        with self._lock:
            for obj in objects:
                resource = resource_for(obj.get("apiVersion") or "", obj.get("kind") or "")
                self._store(resource, obj, existing=self._find(resource, obj))

    def put_yaml(self, text: str) -> list[dict]:
        """Store every object of a (multi-document) YAML text; `v1 List` documents are expanded."""
        stored = []
        for document in yaml.safe_load_all(text):
            if not document:
                continue
            result = self.put(document)
            stored.extend(result["items"] if result.get("kind") == "List" else [result])
        return stored

    def patch(self, api_version: str, kind: str, namespace: str | None, name: str, changes: dict) -> dict:
        """Apply a JSON merge patch to a stored object and return it; `KeyError` when it does not exist."""
        resource = resource_for(api_version, kind)
        with self._lock:
            existing = self._bucket(resource).get(self._key(resource, namespace, name))
            if existing is None:
                raise KeyError(f"{kind} {namespace}/{name} does not exist")
            patched = merge_patch(existing, changes)
            patched.setdefault("metadata", {}).update(name=name)
            stored = self._store(resource, patched, existing=existing)
            return self._present(resource, stored, api_version.rpartition("/")[2])

    def delete(self, api_version: str, kind: str, namespace: str | None, name: str) -> bool:
        """Delete an object; True when it existed. A deleted pod's logs go with it."""
        resource = resource_for(api_version, kind)
        with self._lock:
            removed = self._bucket(resource).pop(self._key(resource, namespace, name), None)
            if removed is not None:
                self._revision += 1
                self._changes.record(
                    Change(self._revision, (resource.group, resource.plural), namespace or "", None, removed)
                )
                if resource.plural == "pods":
                    for log_key in [k for k in self._logs if k[:2] == (namespace, name)]:
                        del self._logs[log_key]
            return removed is not None

    def get(self, api_version: str, kind: str, namespace: str | None, name: str) -> dict | None:
        resource = resource_for(api_version, kind)
        with self._lock:
            stored = self._bucket(resource).get(self._key(resource, namespace, name))
            return None if stored is None else self._present(resource, stored, api_version.rpartition("/")[2])

    def list(self, api_version: str, kind: str, namespace: str | None = None) -> list[dict]:
        """Objects of a kind (in one namespace, or all), ordered by namespace then name."""
        resource = resource_for(api_version, kind)
        version = api_version.rpartition("/")[2]
        with self._lock:
            return [self._present(resource, obj, version) for obj in self._sorted(resource, namespace)]

    def add_pod_log(self, namespace: str, pod: str, container: str, text: str) -> None:
        """Set the log text of a pod's container (the pod object itself is stored with `put`)."""
        with self._lock:
            self._logs[(namespace, pod, container)] = text

    def append_pod_log(self, namespace: str, pod: str, container: str, text: str) -> None:
        with self._lock:
            key = (namespace, pod, container)
            self._logs[key] = self._logs.get(key, "") + text

    # -- store internals (call with the lock held) ----------------------------------------------

    def _bucket(self, resource: Resource) -> dict[tuple[str, str], dict]:
        return self._objects.setdefault((resource.group, resource.plural), {})

    @staticmethod
    def _key(resource: Resource, namespace: str | None, name: str) -> tuple[str, str]:
        return ((namespace or "") if resource.namespaced else "", name)

    def _find(self, resource: Resource, obj: dict) -> dict | None:
        metadata = obj.get("metadata") or {}
        return self._bucket(resource).get(self._key(resource, metadata.get("namespace"), metadata.get("name") or ""))

    def _sorted(self, resource: Resource, namespace: str | None) -> list[dict]:
        bucket = self._bucket(resource)
        keys = sorted(k for k in bucket if namespace is None or k[0] == namespace)
        return [bucket[k] for k in keys]

    def _store(self, resource: Resource, obj: dict, existing: dict | None) -> dict:
        """Fill in server-owned metadata and store `obj` (which the caller gives away)."""
        metadata = obj.setdefault("metadata", {})
        if not metadata.get("name"):
            if not metadata.get("generateName"):
                raise ValueError(f"a {resource.kind} needs metadata.name or metadata.generateName")
            metadata["name"] = metadata["generateName"] + secrets.token_hex(3)[:5]
        if resource.namespaced:
            if not metadata.get("namespace"):
                raise ValueError(f"a {resource.kind} needs metadata.namespace")
        else:
            metadata.pop("namespace", None)
        previous = (existing or {}).get("metadata") or {}
        metadata["uid"] = metadata.get("uid") or previous.get("uid") or str(uuid.uuid4())
        metadata["creationTimestamp"] = metadata.get("creationTimestamp") or previous.get("creationTimestamp") or _now()
        self._revision += 1
        metadata["resourceVersion"] = str(self._revision)
        obj["apiVersion"], obj["kind"] = resource.api_version(), resource.kind
        self._bucket(resource)[_object_key(obj)] = obj
        self._changes.record(
            Change(self._revision, (resource.group, resource.plural), metadata.get("namespace") or "", obj, existing)
        )
        return obj

    @staticmethod
    def _present(resource: Resource, obj: dict, version: str | None = None) -> dict:
        shown = copy.deepcopy(obj)
        shown["apiVersion"] = resource.api_version(version)
        return shown

    # -- HTTP request handling ------------------------------------------------------------------

    def _served_versions(self, resource: Resource) -> tuple[str, ...]:
        if resource.group == KUEUE_GROUP and not self.kueue_v1beta2_enabled:
            return tuple(v for v in resource.versions if v != "v1beta2")
        return resource.versions

    def _route(self, path: str) -> Route:
        segments = [s for s in path.split("/") if s]  # the handler has decoded the path once
        if segments[:2] == ["api", "v1"]:
            group, version, rest = "", "v1", segments[2:]
        elif len(segments) >= 3 and segments[0] == "apis":
            group, version, rest = segments[1], segments[2], segments[3:]
        else:
            raise ApiError(404, _PAGE_NOT_FOUND)
        namespace = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            namespace, rest = rest[1], rest[2:]
        resource = _BY_PLURAL.get((group, rest[0] if rest else ""))
        if (
            resource is None
            or len(rest) > 3
            or version not in self._served_versions(resource)
            or (namespace is not None and not resource.namespaced)
        ):
            raise ApiError(404, _PAGE_NOT_FOUND)
        name = rest[1] if len(rest) > 1 else None
        subresource = rest[2] if len(rest) > 2 else None
        if resource.namespaced and name and namespace is None:
            raise ApiError(404, _PAGE_NOT_FOUND)
        if subresource and (subresource, resource.plural) not in (("log", "pods"), ("status", resource.plural)):
            raise ApiError(404, _PAGE_NOT_FOUND)
        return Route(resource, version, namespace, name, subresource)

    def handle(self, method: str, path: str, query: dict, headers, body: bytes) -> tuple[int, dict, bytes]:
        """Answer one request: (status code, headers, body). Faults are applied by the handler."""
        special = self._special(path) if method == "GET" else None
        if special is not None:
            return _json(200, special)
        if headers.get("Authorization") != f"Bearer {self.token}":
            raise ApiError(401, "Unauthorized: send the bearer token from the double's kubeconfig")
        route = self._route(path)
        if is_true(query.get("watch")):
            if method != "GET" or route.name or route.subresource:
                raise ApiError(405, "watch is served on list paths only", reason="MethodNotAllowed")
            raise WatchRequest(route, query)
        if method == "GET":
            if route.subresource == "log":
                return self._pod_log(route, query)
            if route.name:
                return _json(200, self._get_one(route))
            return _json(200, self._list_page(route, query))
        if not route.resource.writable or route.subresource:
            raise ApiError(
                405,
                f"the Kubernetes double does not allow {method} on {route.resource.qualified}",
                reason="MethodNotAllowed",
            )
        return self._write(method, route, query, headers, body)

    def _special(self, path: str) -> dict | None:
        path = path.rstrip("/") or "/"
        if path == "/version":
            return {
                **SERVER_VERSION,
                "gitCommit": "0" * 40,
                "gitTreeState": "clean",
                "buildDate": "2026-01-01T00:00:00Z",
                "goVersion": "go1.22.0",
                "compiler": "gc",
                "platform": "linux/amd64",
            }
        if path == "/api":
            return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        if path == "/apis":
            return {"kind": "APIGroupList", "apiVersion": "v1", "groups": self._groups()}
        if path == "/api/v1":
            return self._resource_list("", "v1")
        match = re.fullmatch(r"/apis/([^/]+)/([^/]+)", path)
        if match and any(r.group == match[1] and match[2] in self._served_versions(r) for r in RESOURCES if r.group):
            return self._resource_list(match[1], match[2])
        return None

    def _groups(self) -> list[dict]:
        groups = []
        for group in dict.fromkeys(r.group for r in RESOURCES if r.group):
            versions = self._served_versions(next(r for r in RESOURCES if r.group == group))
            entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
            groups.append({"name": group, "versions": entries, "preferredVersion": entries[0]})
        return groups

    def _resource_list(self, group: str, version: str) -> dict:
        resources = []
        for resource in RESOURCES:
            if resource.group != group or version not in self._served_versions(resource):
                continue
            verbs = ["get", "list"] + (["create", "update", "patch", "delete"] if resource.writable else [])
            resources.append(
                {
                    "name": resource.plural,
                    "singularName": resource.kind.lower(),
                    "namespaced": resource.namespaced,
                    "kind": resource.kind,
                    "verbs": verbs,
                }
            )
            if resource.plural == "pods":
                resources.append(
                    {"name": "pods/log", "singularName": "", "namespaced": True, "kind": "Pod", "verbs": ["get"]}
                )
        group_version = f"{group}/{version}" if group else version
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources}

    def _get_one(self, route: Route) -> dict:
        with self._lock:
            stored = self._bucket(route.resource).get(self._key(route.resource, route.namespace, route.name))
            if stored is None:
                raise _not_found(route.resource, route.name)
            return self._present(route.resource, stored, route.version)

    def _list_page(self, route: Route, query: dict) -> dict:
        resource = route.resource
        try:
            limit = int(query.get("limit") or 0)
        except ValueError:
            raise ApiError(400, f"limit must be a whole number, not {query.get('limit')!r}") from None
        token = query.get("continue")
        if token:
            revision, items, start = self._resume(token)
        else:
            (revision, items), start = self._snapshot(route, query), 0
        end = len(items) if limit <= 0 else min(len(items), start + limit)
        metadata: dict = {"resourceVersion": str(revision)}
        if end < len(items):
            metadata["continue"] = self._continue_token(revision, items, end)
            metadata["remainingItemCount"] = len(items) - end
        # Stored objects are replaced, never changed in place, so a page can share their insides:
        # only the top level differs (apiVersion, and no kind in lists of built-in kinds).
        page = [{**item, "apiVersion": resource.api_version(route.version)} for item in items[start:end]]
        if resource.builtin:
            for item in page:
                item.pop("apiVersion", None)
                item.pop("kind", None)
        return {
            "kind": f"{resource.kind}List",
            "apiVersion": resource.api_version(route.version),
            "metadata": metadata,
            "items": page,
        }

    def _snapshot(self, route: Route, query: dict) -> tuple[int, list[dict]]:
        resource = route.resource
        try:
            labels = parse_label_selector(query.get("labelSelector"))
            fields = parse_field_selector(query.get("fieldSelector"))
        except SelectorError as error:
            raise ApiError(400, str(error)) from None
        with self._lock:
            candidates = self._sorted(resource, route.namespace)
            supported = set(resource.field_values(candidates[0] if candidates else {"metadata": {}}))
            unsupported = sorted(fields.fields - supported)
            if unsupported:
                raise ApiError(400, f'field label not supported: "{unsupported[0]}" for {resource.qualified}')
            matched = [
                obj
                for obj in candidates
                if labels.matches((obj.get("metadata") or {}).get("labels"))
                and fields.matches(resource.field_values(obj))
            ]
            return self._revision, matched

    def _continue_token(self, revision: int, items: list[dict], start: int) -> str:
        with self._lock:
            snapshot_id = next((k for k, v in self._snapshots.items() if v[1] is items), None)
            if snapshot_id is None:
                snapshot_id = secrets.token_hex(8)
                self._snapshots[snapshot_id] = (revision, items)
                while len(self._snapshots) > CONTINUE_TOKENS_KEPT:
                    self._snapshots.popitem(last=False)
        raw = json.dumps({"snapshot": snapshot_id, "rv": revision, "start": start}).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def _resume(self, token: str) -> tuple[int, list[dict], int]:
        expired = ApiError(
            410,
            "The provided continue parameter is too old to display a consistent list result. "
            "You can start a new list without the continue parameter.",
            reason="Expired",
        )
        try:
            decoded = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
            snapshot_id, start = decoded["snapshot"], int(decoded["start"])
        except (ValueError, KeyError, TypeError):
            raise expired from None
        with self._lock:
            snapshot = self._snapshots.get(snapshot_id)
        if snapshot is None:
            raise expired
        return snapshot[0], snapshot[1], start

    def _pod_log(self, route: Route, query: dict) -> tuple[int, dict, bytes]:
        with self._lock:
            pod = self._bucket(route.resource).get(self._key(route.resource, route.namespace, route.name))
            if pod is None:
                raise _not_found(route.resource, route.name)
            container = self._log_container(pod, query.get("container"))
            text = self._logs.get((route.namespace, route.name, container), "")
        text = _tail(text, query.get("tailLines"))
        limit_bytes = query.get("limitBytes")
        data = text.encode("utf-8")
        if limit_bytes:
            try:
                data = data[: max(0, int(limit_bytes))]
            except ValueError:
                raise ApiError(400, "limitBytes must be a whole number") from None
        return 200, {"Content-Type": "text/plain"}, data

    def _log_container(self, pod: dict, wanted: str | None) -> str:
        name = pod["metadata"]["name"]
        spec = pod.get("spec") or {}
        containers = [c.get("name") for c in spec.get("containers") or []]
        init_containers = [c.get("name") for c in spec.get("initContainers") or []]
        if wanted:
            if containers and wanted not in containers + init_containers:
                raise ApiError(400, f"container {wanted} is not valid for pod {name}")
            return wanted
        if len(containers) == 1:
            return containers[0]
        if not containers:
            containers = sorted(c for ns, pod_name, c in self._logs if (ns, pod_name) == _object_key(pod))
            if len(containers) == 1:
                return containers[0]
        choices = " ".join(containers)
        raise ApiError(400, f"a container name must be specified for pod {name}, choose one of: [{choices}]")

    def _write(self, method: str, route: Route, query: dict, headers, body: bytes) -> tuple[int, dict, bytes]:
        resource = route.resource
        if route.namespace is None:
            raise ApiError(405, f"{method} needs a namespace for {resource.qualified}")
        dry_run = query.get("dryRun") == "All"
        if method == "POST":
            if route.name:
                raise ApiError(405, "POST goes to the collection, not to a named object")
            return _json(201, self._create(route, _parse_body(body), dry_run))
        if not route.name:
            raise ApiError(405, f"{method} needs an object name")
        if method == "PUT":
            return _json(200, self._replace(route, _parse_body(body), dry_run))
        if method == "PATCH":
            return _json(200, self._patch(route, headers.get("Content-Type") or "", body, dry_run))
        if method == "DELETE":
            return _json(200, self._delete(route, dry_run))
        raise ApiError(405, f"the Kubernetes double does not allow {method}")

    def _check_body(self, route: Route, obj: dict) -> dict:
        resource = route.resource
        if obj.get("kind") not in (None, resource.kind) or obj.get("apiVersion") not in (None, resource.api_version()):
            raise ApiError(400, f"the body is a {obj.get('kind')} {obj.get('apiVersion')}, not a {resource.kind}")
        metadata = obj.setdefault("metadata", {})
        if metadata.get("namespace") not in (None, "", route.namespace):
            raise ApiError(400, "the namespace of the provided object does not match the namespace sent on the request")
        metadata["namespace"] = route.namespace
        obj["apiVersion"], obj["kind"] = resource.api_version(), resource.kind
        return obj

    def _create(self, route: Route, obj: dict, dry_run: bool) -> dict:
        obj = self._check_body(route, obj)
        metadata = obj["metadata"]
        if not metadata.get("name") and not metadata.get("generateName"):
            raise ApiError(
                422,
                f"{route.resource.kind} is invalid: metadata.name: Required value: name or generateName is required",
            )
        metadata.pop("resourceVersion", None)
        metadata.pop("uid", None)
        metadata.pop("creationTimestamp", None)
        with self._lock:
            if metadata.get("name") and self._find(route.resource, obj) is not None:
                raise ApiError(
                    409,
                    f'{route.resource.qualified} "{metadata["name"]}" already exists',
                    reason="AlreadyExists",
                    details={"name": metadata["name"], "kind": route.resource.plural},
                )
            return self._commit(route, obj, None, dry_run)

    def _replace(self, route: Route, obj: dict, dry_run: bool) -> dict:
        obj = self._check_body(route, obj)
        metadata = obj["metadata"]
        if metadata.get("name") not in (None, route.name):
            raise ApiError(400, "the name of the object does not match the name on the URL")
        metadata["name"] = route.name
        with self._lock:
            existing = self._bucket(route.resource).get(self._key(route.resource, route.namespace, route.name))
            if existing is None:
                raise _not_found(route.resource, route.name)
            self._check_precondition(route, existing, metadata.get("resourceVersion"))
            metadata["uid"] = existing["metadata"]["uid"]
            metadata["creationTimestamp"] = existing["metadata"]["creationTimestamp"]
            return self._commit(route, obj, existing, dry_run)

    def _patch(self, route: Route, content_type: str, body: bytes, dry_run: bool) -> dict:
        kind_of_patch = content_type.split(";")[0].strip().lower()
        changes = _parse_body(body, allow_list=True)
        with self._lock:
            existing = self._bucket(route.resource).get(self._key(route.resource, route.namespace, route.name))
            if existing is None:
                raise _not_found(route.resource, route.name)
            try:
                if kind_of_patch in ("application/merge-patch+json", "application/strategic-merge-patch+json"):
                    if not isinstance(changes, dict):
                        raise SelectorError("a merge patch must be a JSON object")
                    self._check_precondition(route, existing, (changes.get("metadata") or {}).get("resourceVersion"))
                    patched = merge_patch(existing, changes)
                elif kind_of_patch == "application/json-patch+json":
                    patched = json_patch(existing, changes)
                else:
                    raise ApiError(415, f"the Kubernetes double does not accept patches of type {content_type!r}")
            except SelectorError as error:
                raise ApiError(422 if "test failed" in str(error) else 400, str(error)) from None
            if not isinstance(patched, dict):
                raise ApiError(422, "the patch did not leave an object")
            metadata = patched.setdefault("metadata", {})
            if metadata.get("name") != route.name or metadata.get("namespace") != route.namespace:
                raise ApiError(422, "a patch may not change metadata.name or metadata.namespace")
            metadata["uid"] = existing["metadata"]["uid"]
            metadata["creationTimestamp"] = existing["metadata"]["creationTimestamp"]
            return self._commit(route, patched, existing, dry_run)

    def _delete(self, route: Route, dry_run: bool) -> dict:
        with self._lock:
            existing = self._bucket(route.resource).get(self._key(route.resource, route.namespace, route.name))
            if existing is None:
                raise _not_found(route.resource, route.name)
            if not dry_run:
                self.delete(route.resource.api_version(), route.resource.kind, route.namespace, route.name)
        return {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Success",
            "details": {"name": route.name, "kind": route.resource.plural, "uid": existing["metadata"]["uid"]},
        }

    @staticmethod
    def _check_precondition(route: Route, existing: dict, resource_version: str | None) -> None:
        if resource_version and resource_version != existing["metadata"]["resourceVersion"]:
            raise ApiError(
                409,
                f'Operation cannot be fulfilled on {route.resource.qualified} "{route.name}": the object has been '
                "modified; please apply your changes to the latest version and try again",
                reason="Conflict",
                details={"name": route.name, "kind": route.resource.plural},
            )

    def _commit(self, route: Route, obj: dict, existing: dict | None, dry_run: bool) -> dict:
        try:
            if dry_run:
                preview = copy.deepcopy(obj)
                metadata = preview["metadata"]
                if not metadata.get("name"):
                    metadata["name"] = metadata["generateName"] + secrets.token_hex(3)[:5]
                metadata.setdefault("uid", str(uuid.uuid4()))
                metadata.setdefault("creationTimestamp", _now())
                metadata["resourceVersion"] = (existing or {}).get("metadata", {}).get("resourceVersion", "")
                return self._present(route.resource, preview, route.version)
            return self._present(route.resource, self._store(route.resource, obj, existing), route.version)
        except ValueError as error:
            raise ApiError(422, str(error)) from None


def _tail(text: str, tail_lines: str | None) -> str:
    if tail_lines in (None, ""):
        return text
    try:
        count = int(tail_lines)
    except ValueError:
        raise ApiError(400, "tailLines must be a whole number") from None
    if count < 0:
        raise ApiError(400, "tailLines must not be negative")
    if count == 0:
        return ""
    lines = text.splitlines(keepends=True)
    return "".join(lines[-count:])


def _parse_body(body: bytes, allow_list: bool = False):
    try:
        parsed = json.loads(body or b"null")
    except (ValueError, UnicodeDecodeError):
        raise ApiError(400, "the request body is not valid JSON") from None
    if isinstance(parsed, dict) or (allow_list and isinstance(parsed, list)):
        return parsed
    raise ApiError(400, "the request body must be a JSON object")


def _json(code: int, payload: dict) -> tuple[int, dict, bytes]:
    return code, {"Content-Type": "application/json"}, json.dumps(payload).encode("utf-8")


# ---------------------------------------------------------------------------------------------
# HTTP plumbing


class _Server(ThreadingHTTPServer):
    # A client opens a connection per watched list at once; the default backlog of 5 would drop some.
    request_queue_size = 256


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kube-double"
    timeout = 60

    @property
    def double(self) -> KubeDouble:
        return self.server.double

    def setup(self):
        super().setup()
        # As Go servers do: without it, the head and body writes of an answer meet the client's
        # delayed ACK and every request waits ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.double._lock:
            self.double._connections.add(self.connection)

    def finish(self):
        try:
            super().finish()
        finally:
            with self.double._lock:
                self.double._connections.discard(self.connection)

    def log_message(self, format, *args):  # noqa: A002 - the base class names it so
        pass

    def do_GET(self):
        self._serve("GET")

    def do_POST(self):
        self._serve("POST")

    def do_PUT(self):
        self._serve("PUT")

    def do_PATCH(self):
        self._serve("PATCH")

    def do_DELETE(self):
        self._serve("DELETE")

    def _serve(self, method: str) -> None:
        parts = urlsplit(self.path)
        path, query = unquote(parts.path), dict(parse_qsl(parts.query, keep_blank_values=True))
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        double = self.double
        with double._lock:
            double._calls.append((method, path, query))
            wake = double._wake
        try:
            fault = double._take_fault(method, path)
            if fault and fault.delay:
                wake.wait(fault.delay)
            if fault and fault.drop:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if fault and fault.status:
                error = ApiError(int(fault.status), self._fault_message(method, path, int(fault.status)))
                if fault.retry_after is not None or fault.status == 429:
                    error.headers["Retry-After"] = str(fault.retry_after if fault.retry_after is not None else 1)
                raise error
            code, headers, payload = double.handle(method, path, query, self.headers, body)
        except WatchRequest as watch:
            if double.watch_misbehaviour == PLAIN_LIST:
                self._plain_list(watch)
                return
            try:
                self._stream(Stream(double, watch.route, watch.query), path)
            except ApiError as error:
                self._send(error.code, {"Content-Type": "application/json"}, json.dumps(error.body()).encode())
            return
        except ApiError as error:
            code, headers, payload = error.code, {"Content-Type": "application/json", **error.headers}, b""
            payload = json.dumps(error.body()).encode("utf-8")
        except Exception as error:  # a bug in the double must still answer like a server would
            failure = ApiError(500, f"the Kubernetes double failed: {type(error).__name__}: {error}")
            code, headers, payload = 500, {"Content-Type": "application/json"}, json.dumps(failure.body()).encode()
        self._send(code, headers, payload)

    def _stream(self, stream: Stream, path: str) -> None:
        """A watch: chunked newline-delimited JSON events until the stream ends."""
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Cache-Control", "no-cache, private")
            self.end_headers()

            def write(chunk: bytes) -> None:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
                self.double._count_bytes(path, len(chunk))

            if stream.serve(write):
                # A clean end keeps the connection for the next request, as a Go server does: closing
                # it would fail the client's next call on its pooled connection.
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
                return
            self.connection.shutdown(socket.SHUT_RDWR)
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        self.close_connection = True

    def _plain_list(self, watch: WatchRequest) -> None:
        """A watch answered as a list, as by a proxy that dropped `watch=true` (one line of JSON)."""
        listed = {k: v for k, v in watch.query.items() if k not in ("watch", "allowWatchBookmarks", "timeoutSeconds")}
        try:
            code, headers, payload = _json(200, self.double._list_page(watch.route, listed))
        except ApiError as error:
            code, headers, payload = error.code, {"Content-Type": "application/json"}, json.dumps(error.body()).encode()
        self._send(code, headers, payload)

    def _fault_message(self, method: str, path: str, status: int) -> str:
        if status == 403:
            try:
                route = self.double._route(path)
            except ApiError:
                return f'User "{SERVICE_ACCOUNT}" cannot {method.lower()} path "{path}"'
            return (
                f'{route.resource.qualified} is forbidden: User "{SERVICE_ACCOUNT}" cannot {_verb(method, route)} '
                f'resource "{route.resource.plural}" {route.describe()}'
            )
        messages = {
            404: _PAGE_NOT_FOUND,
            410: "The provided continue parameter is too old to display a consistent list result.",
            429: "Too many requests, please try again later.",
            500: "Internal error occurred: injected by the Kubernetes double",
            503: "the server is currently unable to handle the request",
            504: "the server was unable to return a response in the time allotted",
        }
        return messages.get(status, f"injected failure {status} from the Kubernetes double")

    def _send(self, code: int, headers: dict, payload: bytes) -> None:
        try:
            self.send_response(code)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Cache-Control", "no-cache, private")
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()
            self.double._count_bytes(self.path.split("?")[0], len(payload))
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except (BrokenPipeError, ConnectionResetError, TimeoutError, OSError):
            self.close_connection = True


# ---------------------------------------------------------------------------------------------
# Command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve a Kubernetes API double and print its kubeconfig path.")
    parser.add_argument("objects", nargs="*", help="YAML files of objects to load (multi-document or v1 List)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--kubeconfig", help="where to write the kubeconfig (default: a temporary file)")
    options = parser.parse_args(argv)
    double = KubeDouble()
    for name in options.objects:
        try:
            double.put_yaml(Path(name).read_text(encoding="utf-8"))
        except (OSError, ValueError, yaml.YAMLError) as error:
            print(f"could not load {name}: {error}", file=sys.stderr)
            return 2
    double.start(options.host, options.port)
    path = options.kubeconfig or Path(tempfile.mkdtemp(prefix="kube-double-")) / "kubeconfig"
    print(double.write_kubeconfig(path), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        double.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

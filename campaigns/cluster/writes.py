"""What this site writes to the cluster: the status records (ConfigMaps) and the status writer's Lease.

`campaigns.cluster.status_records` keeps the records with the conditional writes, under the Lease
`campaigns.cluster.status_lease` holds. Each write is one request through `campaigns.cluster.kube`
(its timeouts and errors); a write the API refuses is `kube.ClusterUnavailable`, one that meets a
newer version of its object is `Conflict`.
"""

from __future__ import annotations

from campaigns.cluster import kube

LEASES = "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"


class Conflict(Exception):
    """409: the object changed since it was read, or one by that name already exists."""


def create_config_map(namespace: str, body: dict) -> None:
    try:
        kube.call("POST", f"/api/v1/namespaces/{namespace}/configmaps", body=body, content_type="application/json")
    except kube.NotReadable as refused:
        raise kube.ClusterUnavailable(f"creating a ConfigMap was refused ({refused.status})") from None


def patch_config_map(namespace: str, name: str, patch: dict) -> None:
    try:
        kube.call(
            "PATCH",
            f"/api/v1/namespaces/{namespace}/configmaps/{name}",
            body=patch,
            content_type="application/merge-patch+json",
        )
    except kube.NotReadable as refused:
        raise kube.ClusterUnavailable(f"patching ConfigMap {name} was refused ({refused.status})") from None


# --- conditional writes and the status writer's Lease --------------------------------------------------


def _write(method: str, path: str, body: dict, content_type: str, what: str) -> dict:
    try:
        return kube.call(method, path, body=body, content_type=content_type)
    except kube.NotReadable as refused:
        raise kube.ClusterUnavailable(f"{what} was refused ({refused.status})") from None
    except kube.ClusterUnavailable as trouble:
        if trouble.status == 409:
            raise Conflict(what) from None
        raise


def _get_or_none(path: str) -> dict | None:
    try:
        return kube.call("GET", path)
    except kube.NotReadable as refused:
        if refused.status == 404:
            return None
        raise kube.ClusterUnavailable(f"reading {path} was refused ({refused.status})") from None


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

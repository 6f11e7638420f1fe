"""One status writer at a time among every replica and worker: a Kubernetes Lease per namespace.

The Lease `htrbrowser-status-writer` names its holder (pod name and process id). The holder renews
it while it writes; another process takes it over only once the holder has left it unrenewed for
`leaseDurationSeconds`, measured on the taker's own clock from when it first saw that record
(as client-go's leader election does, so clocks that disagree between nodes do not matter). Every
change is a PUT carrying the `resourceVersion` it was read at, so of two processes racing for it
one wins and the other gets 409 and stays a reader.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from campaigns.cluster import kube

log = logging.getLogger(__name__)

LEASE_NAME = "htrbrowser-status-writer"
LEASE_SECONDS = 30
# A holder renews once this share of the lease has passed; a reader asks again no sooner either.
RENEW_AFTER = 1 / 3


def holder_identity() -> str:
    pod = os.environ.get("POD_NAME") or os.environ.get("HOSTNAME") or socket.gethostname()
    return f"{pod}-{os.getpid()}"


def _micro_time(when: datetime | None = None) -> str:
    return (when or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class _Seen:
    record: tuple  # (holder, renewTime, resourceVersion) as last read
    seen_at: float  # monotonic time the record was first seen unchanged
    held: bool = False
    asked_at: float = 0.0


_seen: dict[str, _Seen] = {}
_lock = threading.Lock()


def forget() -> None:
    """Tests: as if this process had never looked at a Lease."""
    with _lock:
        _seen.clear()


def hold(namespace: str, seconds: int = LEASE_SECONDS, identity: str | None = None) -> bool:
    """True when this process may write status records in `namespace` now (taking or renewing the Lease).

    Raises `kube.ClusterUnavailable` when the Lease cannot be read or written for another reason
    than a lost race (for example a service account without access to Leases).
    """
    identity = identity or holder_identity()
    now = time.monotonic()
    with _lock:
        seen = _seen.get(namespace)
        if seen is not None and now - seen.asked_at < seconds * RENEW_AFTER:
            return seen.held
    return _ask(namespace, seconds, identity, now)


def _ask(namespace: str, seconds: int, identity: str, now: float) -> bool:
    lease = kube.get_lease(namespace, LEASE_NAME)
    if lease is None:
        body = _body(namespace, identity, seconds)
        return _remember(namespace, _try(lambda: kube.create_lease(namespace, body)), now)
    spec = lease.get("spec") or {}
    record = _record_of(lease)
    with _lock:
        seen = _seen.get(namespace)
        if seen is None or seen.record != record:
            seen = _seen[namespace] = _Seen(record, now)
    holder = record[0]
    duration = int(spec.get("leaseDurationSeconds") or seconds)
    if holder and holder != identity and now - seen.seen_at < duration:
        return _remember(namespace, None, now)  # someone else holds it and renews it
    body = dict(lease)
    transitions = int(spec.get("leaseTransitions") or 0) + (0 if holder == identity else 1)
    body["spec"] = {
        **spec,
        "holderIdentity": identity,
        "leaseDurationSeconds": seconds,
        "renewTime": _micro_time(),
        "leaseTransitions": transitions,
    }
    if holder != identity:
        body["spec"]["acquireTime"] = _micro_time()
        log.warning(
            "Taking over the status writer Lease in %s from %s.",
            namespace,
            holder or "nobody",
            extra={"namespace": namespace, "previous_holder": holder, "holder": identity},
        )
    return _remember(namespace, _try(lambda: kube.update_lease(namespace, LEASE_NAME, body)), now)


def _try(write) -> dict | None:
    try:
        return write()
    except kube.Conflict:
        return None  # another process wrote it first: it holds the Lease


def _remember(namespace: str, written: dict | None, now: float) -> bool:
    with _lock:
        seen = _seen.get(namespace) or _Seen((), now)
        seen.asked_at = now
        seen.held = written is not None
        if written is not None:
            seen.record = _record_of(written)
            seen.seen_at = now
        _seen[namespace] = seen
        return seen.held


def _record_of(lease: dict) -> tuple:
    spec, metadata = lease.get("spec") or {}, lease.get("metadata") or {}
    return (spec.get("holderIdentity") or "", spec.get("renewTime") or "", metadata.get("resourceVersion") or "")


def _body(namespace: str, identity: str, seconds: int) -> dict:
    now = _micro_time()
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": LEASE_NAME, "namespace": namespace},
        "spec": {
            "holderIdentity": identity,
            "leaseDurationSeconds": seconds,
            "acquireTime": now,
            "renewTime": now,
            "leaseTransitions": 0,
        },
    }

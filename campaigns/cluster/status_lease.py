"""One status writer at a time among every replica and worker: a Kubernetes Lease per namespace.

The Lease `htrbrowser-status-writer` names its holder (pod name and process id). The holder renews
it while it writes; another process takes it over only once the holder has left it unrenewed for
`leaseDurationSeconds`, measured on the taker's own clock from when it first saw that record
(as client-go's leader election does, so clocks that disagree between nodes do not matter). Every
change is a PUT carrying the `resourceVersion` it was read at, so of two processes racing for it
one wins and the other gets 409 and stays a reader.

A process that stops gracefully gives its Leases up (`release`: no holder, as client-go's
ReleaseOnCancel leaves it), and a process that does not hold one looks again within a second while
it has records to write, so after a restart the new process writes at once; only a holder that died
without giving up (killed, out of memory) is waited out for `leaseDurationSeconds`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from django.conf import settings

from campaigns.cluster import kube, writes

log = logging.getLogger(__name__)

LEASE_NAME = "htrbrowser-status-writer"
LEASE_SECONDS = 30
# A holder renews once this share of the lease has passed.
RENEW_AFTER = 1 / 3
# A process that does not hold the Lease asks again no sooner than this (nor than RENEW_AFTER allows).
ASK_AGAIN_SECONDS = 1.0


def holder_identity() -> str:
    return f"{settings.POD_NAME}-{os.getpid()}"


def _micro_time(when: datetime | None = None) -> str:
    return (when or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class _Seen:
    record: tuple  # (holder, renewTime, resourceVersion) as last read
    seen_at: float  # monotonic time the record was first seen unchanged
    held: bool = False
    asked_at: float = 0.0
    held_as: str = ""  # the identity it is held under


class Candidate:
    """One process's claim to the Lease of each namespace it writes in (the module keeps one, `_process`;
    tests make more to play several processes)."""

    def __init__(self) -> None:
        self._seen: dict[str, _Seen] = {}
        self._asking: dict[str, threading.Lock] = {}  # one ask or release of a namespace's Lease at a time
        self._lock = threading.Lock()
        self._released = False

    def forget(self) -> None:
        with self._lock:
            self._seen.clear()
            self._released = False

    def hold(self, namespace: str, seconds: int = LEASE_SECONDS, identity: str | None = None) -> bool:
        identity = identity or holder_identity()
        now = time.monotonic()
        with self._lock:
            if self._released:
                return False
            seen = self._seen.get(namespace)
            if seen is not None and now - seen.asked_at < _ask_again_after(seen, seconds):
                return seen.held
            asking = self._asking.setdefault(namespace, threading.Lock())
        with asking:
            if self._released:
                return False  # released while this waited: a stopping process takes nothing again
            return self._ask(namespace, seconds, identity, time.monotonic())  # now, after any wait

    def release(self) -> list[str]:
        """Give up every Lease held, as client-go's ReleaseOnCancel does, and take none again.

        Each becomes free at once (no holder, a one-second duration), so the next process takes it
        on its next ask instead of waiting out `LEASE_SECONDS`. Returns the namespaces given up; one
        that cannot be given up now (the API does not answer) is left to expire.
        """
        with self._lock:
            self._released = True
            held = [(namespace, seen.held_as) for namespace, seen in self._seen.items() if seen.held]
            asking = {namespace: self._asking.setdefault(namespace, threading.Lock()) for namespace, _ in held}
        given_up = []
        for namespace, identity in held:
            # An ask under way finishes first, within its calls' timeouts: it may have renewed the Lease.
            if not asking[namespace].acquire(timeout=4 * float(settings.HTRFLOW_KUBE_TIMEOUT)):
                continue
            try:
                if _give_up(namespace, identity):
                    given_up.append(namespace)
            except kube.ClusterUnavailable as trouble:
                log.warning("Could not give up the status writer Lease in %s: %s", namespace, trouble.sentence)
            finally:
                with self._lock:
                    self._seen.pop(namespace, None)
                asking[namespace].release()
        return given_up

    def _ask(self, namespace: str, seconds: int, identity: str, now: float) -> bool:
        lease = writes.get_lease(namespace, LEASE_NAME)
        if lease is None:
            body = _body(namespace, identity, seconds)
            return self._remember(namespace, _try(lambda: writes.create_lease(namespace, body)), now, identity)
        spec = lease.get("spec") or {}
        record = _record_of(lease)
        with self._lock:
            seen = self._seen.get(namespace)
            if seen is None or seen.record != record:
                seen = self._seen[namespace] = _Seen(record, now)
        holder = record[0]
        duration = int(spec.get("leaseDurationSeconds") or seconds)
        if holder and holder != identity and now - seen.seen_at < duration:
            return self._remember(namespace, None, now, identity)  # someone else holds it and renews it
        body = _taken(lease, identity, seconds)
        if holder != identity:
            log.warning(
                "Taking over the status writer Lease in %s from %s.",
                namespace,
                holder or "nobody (it was given up)",
                extra={"namespace": namespace, "previous_holder": holder, "holder": identity},
            )
        written = _try(lambda: writes.update_lease(namespace, LEASE_NAME, body))
        return self._remember(namespace, written, now, identity)

    def _remember(self, namespace: str, written: dict | None, now: float, identity: str) -> bool:
        with self._lock:
            seen = self._seen.get(namespace) or _Seen((), now)
            seen.asked_at = now
            seen.held = written is not None
            if written is not None:
                seen.record = _record_of(written)
                seen.seen_at = now
                seen.held_as = identity
            self._seen[namespace] = seen
            return seen.held


def _ask_again_after(seen: _Seen, seconds: int) -> float:
    """A holder renews a third of the way into its lease; a process that does not hold it looks again
    within a second, so a Lease given up is taken at once (one small GET, and only while there are
    status records to write)."""
    return seconds * RENEW_AFTER if seen.held else min(ASK_AGAIN_SECONDS, seconds * RENEW_AFTER)


def _taken(lease: dict, identity: str, seconds: int) -> dict:
    """The Lease as `identity` holds it from now (taken, or renewed when it already held it)."""
    spec = lease.get("spec") or {}
    holder = spec.get("holderIdentity") or ""
    body = dict(lease)
    body["spec"] = {
        **spec,
        "holderIdentity": identity,
        "leaseDurationSeconds": seconds,
        "renewTime": _micro_time(),
        "leaseTransitions": int(spec.get("leaseTransitions") or 0) + (0 if holder == identity else 1),
    }
    if holder != identity:
        body["spec"]["acquireTime"] = _micro_time()
    return body


def _give_up(namespace: str, identity: str) -> bool:
    """Leave the Lease with no holder, if `identity` still holds it; True when given up."""
    for _ in range(2):  # a renewal may have moved it on since it was read: read it once more
        lease = writes.get_lease(namespace, LEASE_NAME)
        spec = (lease or {}).get("spec") or {}
        if spec.get("holderIdentity") != identity:
            return False  # taken over meanwhile, or gone: nothing of ours to give up
        now = _micro_time()
        body = {**lease, "spec": {**spec, "holderIdentity": "", "leaseDurationSeconds": 1, "renewTime": now}}
        body["spec"]["acquireTime"] = now
        try:
            writes.update_lease(namespace, LEASE_NAME, body)
        except writes.Conflict:
            continue
        log.info("Gave up the status writer Lease in %s: this process is stopping.", namespace)
        return True
    return False


def _try(write) -> dict | None:
    try:
        return write()
    except writes.Conflict:
        return None  # another process wrote it first: it holds the Lease


_process = Candidate()


def forget() -> None:
    """Tests: as if this process had never looked at a Lease (nor given them up)."""
    _process.forget()


def hold(namespace: str, seconds: int = LEASE_SECONDS, identity: str | None = None) -> bool:
    """True when this process may write status records in `namespace` now (taking or renewing the Lease).

    Raises `kube.ClusterUnavailable` when the Lease cannot be read or written for another reason
    than a lost race (for example a service account without access to Leases). False for good once
    `release` was called.
    """
    return _process.hold(namespace, seconds, identity)


def release() -> list[str]:
    """A process that stops gives up its Leases, so the next writer starts at once (see `Candidate.release`)."""
    return _process.release()


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

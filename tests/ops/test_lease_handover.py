"""The status writer's Lease handed over at a restart (issue 19): a process that stops gracefully gives
it up and the next writer takes it within a second or two; one that dies without a word is still
waited out for the Lease's duration. Against the Kubernetes API double, through the real client.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
import requests

from campaigns.cluster import kube, status_lease
from campaigns.cluster.status_lease import LEASE_NAME, Candidate
from tests.campaigns.test_kube import NS
from tests.fixtures.serving import dockerfile_command, free_port, production_env
from tests.ops.test_served import ROOT, login
from tests.ops.test_status_writes import put_campaign

LEASE = ("coordination.k8s.io/v1", "Lease", NS, LEASE_NAME)


@pytest.fixture
def cluster(kube, settings):
    settings.HTRFLOW_NAMESPACES = [NS]
    settings.HTRFLOW_KUBE_TIMEOUT = 2.0
    status_lease.forget()
    yield kube
    status_lease.forget()


def holder(double) -> str:
    return ((double.get(*LEASE) or {}).get("spec") or {}).get("holderIdentity") or ""


def first_true(ask, seconds: float) -> float | None:
    """Ask as the board's publisher would (every 50 ms here); seconds until True, None if never."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if ask():
            return time.monotonic() - started
        time.sleep(0.05)
    return None


def test_a_lease_given_up_is_taken_by_the_next_writer_within_a_second_or_two(cluster):
    old, new = Candidate(), Candidate()
    assert old.hold(NS, identity="old-pod-1") is True
    assert new.hold(NS, identity="new-pod-1") is False  # the old process still writes
    assert old.release() == [NS]
    spec = cluster.get(*LEASE)["spec"]
    assert spec["holderIdentity"] == "" and spec["leaseDurationSeconds"] == 1
    taken_after = first_true(lambda: new.hold(NS, identity="new-pod-1"), seconds=5)
    assert taken_after is not None and taken_after <= 1.5
    assert holder(cluster) == "new-pod-1"
    assert cluster.get(*LEASE)["spec"]["leaseDurationSeconds"] == status_lease.LEASE_SECONDS


def test_a_process_that_released_takes_nothing_again(cluster):
    stopping = Candidate()
    assert stopping.hold(NS, identity="old-pod-1") is True
    stopping.release()
    time.sleep(1.1)
    assert stopping.hold(NS, identity="old-pod-1") is False
    assert holder(cluster) == ""


def test_a_holder_that_dies_without_giving_up_is_waited_out_for_the_lease(cluster):
    dead, new = Candidate(), Candidate()
    assert dead.hold(NS, seconds=3, identity="killed-pod-1") is True  # then nothing more: killed
    taken_after = first_true(lambda: new.hold(NS, seconds=3, identity="new-pod-1"), seconds=8)
    assert taken_after is not None
    assert 2.5 <= taken_after <= 4.5  # the Lease's 3 s on the taker's clock (it first looked at 0)
    assert holder(cluster) == "new-pod-1"


def test_giving_up_leaves_a_lease_someone_else_has_taken_alone(cluster):
    old, new = Candidate(), Candidate()
    assert old.hold(NS, identity="old-pod-1") is True
    lease = cluster.get(*LEASE)
    lease["spec"]["holderIdentity"] = "other-pod-9"
    kube.update_lease(NS, LEASE_NAME, lease)  # taken over meanwhile (old was thought dead)
    assert old.release() == []
    assert holder(cluster) == "other-pod-9"
    assert new.hold(NS, identity="new-pod-1") is False


def test_giving_up_while_the_api_is_down_leaves_the_lease_to_expire(cluster):
    old = Candidate()
    assert old.hold(NS, identity="old-pod-1") is True
    cluster.inject_fault(r"/leases", status=503)
    assert old.release() == []
    cluster.clear_faults()
    assert holder(cluster) == "old-pod-1"


# --- the image's gunicorn, stopped as Kubernetes stops a pod ------------------------------------------


@pytest.fixture
def served(cluster, store, tmp_path):
    """The Dockerfile's gunicorn writing status records against the API double (one campaign whose
    status record is due), logged in; stopped with SIGTERM by the test."""
    put_campaign(cluster, done=3)
    env = production_env(
        tmp_path,
        HTRFLOW_HTTPS="false",
        KUBECONFIG=str(cluster.kubeconfig_path),
        HTRFLOW_RESULTS_NAMESPACE=store.namespace,
        S3_ENDPOINT=store.endpoint,
        S3_BUCKET=store.bucket,
        HTRFLOW_WRITE_STATUS="true",
        HTRFLOW_SNAPSHOT_SECONDS="0.2",
        POD_NAME="old-pod",
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT, env=env, check=True, capture_output=True, timeout=120,
    )
    port = free_port()
    log_file = tmp_path / "gunicorn.log"
    with open(log_file, "wb") as output:
        process = subprocess.Popen(dockerfile_command(port), cwd=ROOT, env=env, stdout=output, stderr=output)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                requests.get(base + "/healthz", timeout=5)
                break
            except requests.RequestException:
                if process.poll() is not None:
                    pytest.fail(log_file.read_text())
                time.sleep(0.1)
        yield process, base, log_file
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=20)


def test_gunicorn_stopped_with_sigterm_gives_the_lease_up_for_the_next_pod(served, cluster, store):
    process, base, log_file = served
    session = login(base, store.accounts["full"])
    assert session.get(base + "/", timeout=20).status_code == 200  # the board starts and writes
    deadline = time.monotonic() + 20
    while not holder(cluster).startswith("old-pod-") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert holder(cluster).startswith("old-pod-"), log_file.read_text()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)
    logged = log_file.read_text()
    assert holder(cluster) == "", logged
    # Given up when told to stop, not after the worker's last response (which may be a slow download).
    assert logged.index("Gave up the status writer Lease in htr-batch") < logged.index("Worker exiting")
    started = time.monotonic()
    assert Candidate().hold(NS, identity="new-pod-1") is True  # the new pod's first ask
    assert time.monotonic() - started < 2

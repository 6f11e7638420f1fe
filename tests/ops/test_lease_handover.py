"""The status writer's Lease handed over at a restart (issue 19): a process that stops gracefully gives
it up and the next writer takes it within a second or two; one that dies without a word is still
waited out for the Lease's duration. Against the Kubernetes API double, through the real client.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest
import requests

from campaigns.cluster import status_lease, writes
from campaigns.cluster.status_lease import LEASE_NAME, Candidate
from tests.campaigns.cluster.test_kube import NS
from tests.fixtures.serving import dockerfile_command, free_port, production_env
from tests.fixtures.waiting import wait_until
from tests.ops.test_served import ROOT, login
from tests.ops.test_status_writes import NAME, put_campaign, stored

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


def seconds_until(ask, seconds: float, what: str) -> float:
    """Ask as the board's publisher would (every 50 ms here); the seconds until it said True."""
    started = time.monotonic()
    wait_until(ask, timeout=seconds, interval=0.05, what=what)
    return time.monotonic() - started


class Clock:
    """A monotonic clock for status_lease that moves only when the test says so."""

    def __init__(self):
        self.now = time.monotonic()

    def monotonic(self) -> float:
        return self.now


def test_a_lease_given_up_is_taken_by_the_next_writer_within_a_second_or_two(cluster):
    old, new = Candidate(), Candidate()
    assert old.hold(NS, identity="old-pod-1") is True
    assert new.hold(NS, identity="new-pod-1") is False  # the old process still writes
    assert old.release() == [NS]
    spec = cluster.get(*LEASE)["spec"]
    assert spec["holderIdentity"] == "" and spec["leaseDurationSeconds"] == 1
    taken_after = seconds_until(lambda: new.hold(NS, identity="new-pod-1"), 5, "the new writer to take the Lease")
    assert taken_after <= 1.5
    assert holder(cluster) == "new-pod-1"
    assert cluster.get(*LEASE)["spec"]["leaseDurationSeconds"] == status_lease.LEASE_SECONDS


def test_a_process_that_released_takes_nothing_again(cluster, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(status_lease, "time", clock)
    stopping = Candidate()
    assert stopping.hold(NS, identity="old-pod-1") is True
    stopping.release()
    clock.now += 1.1  # past the second before it would ask again, and past the given-up Lease's second
    assert stopping.hold(NS, identity="old-pod-1") is False
    assert holder(cluster) == ""


def test_a_holder_that_dies_without_giving_up_is_waited_out_for_the_lease(cluster):
    dead, new = Candidate(), Candidate()
    assert dead.hold(NS, seconds=3, identity="killed-pod-1") is True  # then nothing more: killed
    taken_after = seconds_until(
        lambda: new.hold(NS, seconds=3, identity="new-pod-1"), 8, "the new writer to take the dead holder's Lease"
    )
    assert 2.5 <= taken_after <= 4.5  # the Lease's 3 s on the taker's clock (it first looked at 0)
    assert holder(cluster) == "new-pod-1"


def test_giving_up_leaves_a_lease_someone_else_has_taken_alone(cluster):
    old, new = Candidate(), Candidate()
    assert old.hold(NS, identity="old-pod-1") is True
    lease = cluster.get(*LEASE)
    lease["spec"]["holderIdentity"] = "other-pod-9"
    writes.update_lease(NS, LEASE_NAME, lease)  # taken over meanwhile (old was thought dead)
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


class Pod:
    """The Dockerfile's gunicorn as one pod named `name`, writing status records against the API double."""

    def __init__(self, name: str, env: dict, folder):
        self.name = name
        self.log_file = folder / f"{name}.log"
        self.base = f"http://127.0.0.1:{free_port()}"
        with open(self.log_file, "wb") as output:
            port = int(self.base.rsplit(":", 1)[1])
            self.process = subprocess.Popen(
                dockerfile_command(port),
                cwd=ROOT,
                env={**env, "POD_NAME": name},
                stdout=output,
                stderr=output,
                start_new_session=True,  # its own process group, so the worker can be ended with it
            )

    def serving(self, account) -> Pod:
        """Once it answers, log in and open the list: its board starts reading (and writing)."""
        wait_until(
            self._answering,
            timeout=30,
            interval=0.1,
            what=f"{self.name} to answer",
            ignoring=(requests.RequestException,),
        )
        self.session = login(self.base, account)
        assert self.session.get(self.base + "/", timeout=20).status_code == 200
        return self

    def _answering(self) -> bool:
        if self.process.poll() is not None:
            pytest.fail(self.log())
        return requests.get(self.base + "/healthz", timeout=5) is not None

    def log(self) -> str:
        return self.log_file.read_text()

    def stop(self) -> None:
        """As the kubelet stops a container: SIGTERM, then wait for it to end."""
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


@pytest.fixture
def pods(cluster, store, tmp_path):
    """Start pods (`pods("old-pod")`) serving one campaign whose status record is due; killed at the end."""
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
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT, env=env, check=True, capture_output=True, timeout=120,
    )
    started: list[Pod] = []

    def start(name: str) -> Pod:
        started.append(Pod(name, env, tmp_path))
        return started[-1].serving(store.accounts["full"])

    yield start
    for pod in started:
        if pod.process.poll() is None:
            pod.process.terminate()  # gunicorn's master takes its worker along (SIGKILL would orphan it)
        try:
            pod.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(pod.process.pid, signal.SIGKILL)
            pod.process.wait(timeout=20)


def wait_for_holder(double, prefix: str, seconds: float = 20) -> float:
    """Seconds until a holder named `prefix...` holds the Lease."""
    started = time.monotonic()
    wait_until(
        lambda: holder(double).startswith(prefix),
        timeout=seconds,
        what=lambda: f"a holder named {prefix}... (it is held by {holder(double)!r})",
    )
    return time.monotonic() - started


def volumes_done(pod: Pod) -> int | None:
    """Volumes done in the raced campaign as the pod's own reading shows it. A board keeps the status
    records of a reading before it shows it, so by then the pod has asked for the Lease if it would."""
    answer = pod.session.get(f"{pod.base}/api/v1/jobs", timeout=20)
    if answer.status_code != 200:
        return None
    return next((job["counts"]["done"] for job in answer.json() if job["name"] == NAME), None)


def request_in_flight(base: str) -> socket.socket:
    """A login whose body is still on its way (a slow client): the worker keeps it in flight, and a
    graceful stop waits for it."""
    address = base.rsplit("/", 1)[1]
    host, port = address.split(":")
    sock = socket.create_connection((host, int(port)), timeout=5)
    head = (
        f"POST /results/_login HTTP/1.1\r\nHost: {address}\r\nOrigin: {base}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
    )
    sock.sendall(head.encode())
    sock.settimeout(1)
    try:
        answer = sock.recv(2000)
    except TimeoutError:
        return sock  # no answer: the request is still being read
    raise AssertionError(answer)


def test_gunicorn_stopped_with_sigterm_gives_the_lease_up_at_once_for_the_next_pod(pods, cluster):
    old = pods("old-pod")
    wait_for_holder(cluster, "old-pod-")
    slow = request_in_flight(old.base)
    old.process.send_signal(signal.SIGTERM)
    wait_until(lambda: holder(cluster) == "", timeout=3, what=lambda: f"the Lease given up; the pod's log: {old.log()}")
    # Given up when told to stop, while a response is still in flight, not when the worker ends.
    assert old.process.poll() is None
    started = time.monotonic()
    assert Candidate().hold(NS, identity="new-pod-1") is True  # the new pod's first ask
    assert time.monotonic() - started < 2
    slow.close()
    old.process.wait(timeout=30)
    assert "Gave up the status writer Lease in htr-batch" in old.log()


def test_in_a_rolling_update_the_new_pod_writes_within_a_second_or_two_of_the_old_one_stopping(pods, cluster):
    old = pods("old-pod")
    wait_for_holder(cluster, "old-pod-")
    new = pods("new-pod")  # the new pod is up before the old one is stopped, as a rolling update does
    put_campaign(cluster, done=4)
    # Both pods read the change; the old one writes it, the new one has had its turn to ask and waits.
    wait_until(lambda: stored(cluster)["data"]["volumesDone"] == "4", what="the old pod to write 4 volumes done")
    wait_until(lambda: volumes_done(new) == 4, what="the new pod to read 4 volumes done")
    assert holder(cluster).startswith("old-pod-")  # the new pod waits while the old one writes
    old.stop()
    put_campaign(cluster, done=5)  # a change to write: the new pod's board publishes and asks
    assert wait_for_holder(cluster, "new-pod-") < 2.5, new.log()
    wait_until(
        lambda: stored(cluster)["data"]["volumesDone"] == "5",
        timeout=5,
        what=lambda: f"5 volumes done in the record; the new pod's log: {new.log()}",
    )

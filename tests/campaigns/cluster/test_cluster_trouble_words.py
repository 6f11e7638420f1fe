"""Why the cluster could not be read, in words that send an operator to the right cause (issue 19).

Against real sockets, through the real `kubernetes` client: a port nobody listens on (the API server
is down), a listener that takes the connection and never answers (too slow), and the API double
answering with an error status. Each gets its own cause, its own sentence and its own banner.
"""

from __future__ import annotations

import socket
import threading
import time
from datetime import UTC, datetime

import pytest
import yaml
from prometheus_client import REGISTRY

from benchmarks.faultproxy import FaultProxy
from campaigns.cluster import board, informer, kube, sources, writes
from campaigns.wording.banners import stale_banner
from tests.campaigns.cluster.test_kube import NS, load_campaigns
from tests.fixtures.waiting import wait_until

LIST = f"/apis/batch/v1/namespaces/{NS}/jobs"


def kubeconfig(path, server: str, token: str) -> str:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u", "namespace": NS}}],
        "current-context": "c",
    }
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return str(path)


def unused_port() -> int:
    """A port that was free a moment ago and that nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def silent_listener():
    """A socket that listens (the kernel takes connections) but never reads nor answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    yield sock.getsockname()[1]
    sock.close()


@pytest.fixture
def double(request):
    """The API double, emptied, with the settings pointed at it (the `kube` fixture, named apart from
    the module)."""
    return request.getfixturevalue("kube")


@pytest.fixture
def point_at(settings, tmp_path):
    settings.HTRFLOW_KUBE_TIMEOUT = 0.5

    def point(server: str, token: str = "nobody-checks-it") -> None:
        settings.KUBECONFIG = kubeconfig(tmp_path / f"kubeconfig-{time.monotonic_ns()}", server, token)

    yield point
    kube.close_clients()


def trouble(call) -> kube.ClusterUnavailable:
    with pytest.raises(kube.ClusterUnavailable) as raised:
        call()
    return raised.value


def test_a_port_nobody_listens_on_is_down_not_slow(point_at):
    point_at(f"http://127.0.0.1:{unused_port()}")
    started = time.monotonic()
    refused = trouble(lambda: kube.list_all(LIST))
    assert time.monotonic() - started < 0.5  # refused at once, no timeout waited for
    assert refused.cause == kube.DOWN
    assert refused.sentence.startswith("The cluster is not taking connections.")
    assert "refused the connection" in refused.sentence and "slow" not in refused.sentence


def test_a_server_that_takes_the_connection_and_never_answers_is_slow(point_at, silent_listener):
    point_at(f"http://127.0.0.1:{silent_listener}")
    started = time.monotonic()
    slow = trouble(lambda: kube.list_all(LIST))
    assert 0.4 < time.monotonic() - started < 3  # one read timeout
    assert slow.cause == kube.SLOW
    assert slow.sentence.startswith("The cluster is too slow to answer.")
    assert "did not answer within 0.5 seconds" in slow.sentence


def test_a_connection_nobody_takes_in_time_is_unreachable_not_slow(point_at):
    """A full accept queue drops the connection attempt, as a firewall or a powered-off host does."""
    with socket.socket() as full, socket.socket() as first:
        full.bind(("127.0.0.1", 0))
        full.listen(0)
        first.connect(full.getsockname())  # the one place in the queue, taken
        point_at(f"http://127.0.0.1:{full.getsockname()[1]}")
        unreached = trouble(lambda: kube.list_all(LIST))
    assert unreached.cause == kube.UNREACHABLE
    assert unreached.sentence.startswith("The cluster could not be reached.")
    assert "Nothing took the connection to its API server within 0.5 seconds" in unreached.sentence


class HangingUp:
    """A listener that takes each connection, reads the request and closes it without a word, `times`
    times; then it stops listening, as an API server that goes away mid-request does."""

    def __init__(self, times: int | None = None):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.taken = 0
        self.times = times
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while self.times is None or self.taken < self.times:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.taken += 1
            connection.recv(65536)
            if self.times is not None and self.taken >= self.times:
                self.listener.close()  # before hanging up: a try again must find no one listening
            connection.close()
        self.listener.close()

    def close(self) -> None:
        self.listener.close()


def test_a_read_cut_off_by_a_server_going_away_is_asked_once_more_and_worded_by_what_that_meets(point_at):
    going = HangingUp(times=1)
    point_at(f"http://127.0.0.1:{going.port}")
    gone = trouble(lambda: kube.list_all(LIST))
    assert going.taken == 1
    assert gone.cause == kube.DOWN, gone.sentence


def test_a_server_that_hangs_up_on_every_read_is_unreachable_after_two_tries(point_at):
    rude = HangingUp()
    try:
        point_at(f"http://127.0.0.1:{rude.port}")
        broke = trouble(lambda: kube.list_all(LIST))
        assert rude.taken == 2  # once more, not in a loop
        assert broke.cause == kube.UNREACHABLE
        assert broke.sentence.endswith("The connection to its API server broke before an answer came.")
        rude.taken = 0
        assert trouble(lambda: writes.update_lease(NS, "x", {"metadata": {"name": "x"}})).cause == kube.UNREACHABLE
        assert rude.taken == 1  # a write is never sent twice
    finally:
        rude.close()


def test_writes_are_worded_the_same_way(point_at, silent_listener):
    """A PUT is not retried by urllib3 and comes back unwrapped: the chain is read all the same."""
    point_at(f"http://127.0.0.1:{unused_port()}")
    assert trouble(lambda: writes.update_lease(NS, "x", {"metadata": {"name": "x"}})).cause == kube.DOWN
    point_at(f"http://127.0.0.1:{silent_listener}")
    assert trouble(lambda: writes.update_lease(NS, "x", {"metadata": {"name": "x"}})).cause == kube.SLOW


@pytest.mark.parametrize(
    ("status", "cause", "words"),
    [
        (500, kube.BROKEN, "answered 500"),
        (503, kube.BROKEN, "answered 503"),
        (429, kube.THROTTLED, "too many"),
        (401, kube.REFUSED, "credentials"),
        (403, kube.REFUSED, "may not list"),
    ],
)
def test_an_error_status_from_the_api_is_worded_by_its_status(double, settings, status, cause, words):
    settings.HTRFLOW_KUBE_TIMEOUT = 2.0
    double.inject_fault(r"/jobs$", status=status)
    answered = trouble(lambda: sources.fetch_snapshot(NS))
    assert answered.cause == cause
    assert words in answered.sentence


def test_every_cause_opens_the_banner_with_its_own_sentence(point_at, silent_listener, kube_double):
    """Each kind of trouble, as the informers meet it, reads differently on the page."""
    since = datetime(2026, 9, 24, 14, 2, tzinfo=UTC)
    point_at(f"http://127.0.0.1:{unused_port()}")
    met = {"refused connection": trouble(lambda: kube.list_all(LIST))}
    point_at(f"http://127.0.0.1:{silent_listener}")
    met["timeout"] = trouble(lambda: kube.list_all(LIST))
    point_at(kube_double.url, kube_double.token)
    for status in (503, 429, 401, 403):
        fault = kube_double.inject_fault(r"/jobs$", status=status)
        try:
            met[status] = trouble(lambda: sources.list_source(sources.sources(NS)[0]))
        finally:
            fault.remove()
    openings = {what: stale_banner(since, since, each.cause).split(" since ")[0] for what, each in met.items()}
    assert openings == {
        "refused connection": "The cluster has not been taking connections",
        "timeout": "The cluster has been too slow to answer",
        503: "The cluster has been answering with errors",
        429: "The cluster has been turning this site's reads away as too many",
        401: "The cluster has refused this site's reads",
        403: "The cluster has refused this site's reads",
    }


def calls_by_cause() -> dict[str, float]:
    counted: dict[str, float] = {}
    for family in REGISTRY.collect():
        for sample in family.samples:
            if sample.name == "htrbrowser_kube_calls_total":
                cause = sample.labels["cause"]
                counted[cause] = counted.get(cause, 0.0) + sample.value
    return counted


def test_the_calls_metric_carries_each_cause_as_the_banner_words_it(point_at, silent_listener, kube_double):
    """A refused connection is counted as `down` (urllib3 names it a connect timeout), a silent server as
    `slow`, a 403 as `refused`, a call answered as `none`."""
    met = {}
    for cause, server, token in (
        ("down", f"http://127.0.0.1:{unused_port()}", "nobody-checks-it"),
        ("slow", f"http://127.0.0.1:{silent_listener}", "nobody-checks-it"),
        ("refused", kube_double.url, kube_double.token),
        ("none", kube_double.url, kube_double.token),
    ):
        point_at(server, token)
        fault = kube_double.inject_fault(r"/jobs$", status=403) if cause == "refused" else None
        before = calls_by_cause().get(cause, 0.0)
        try:
            sources.list_source(sources.sources(NS)[0])
        except kube.ClusterUnavailable:
            pass
        finally:
            if fault is not None:
                fault.remove()
        met[cause] = calls_by_cause().get(cause, 0.0) - before
    assert met == {"down": 1, "slow": 1, "refused": 1, "none": 1}


# --- the board's banner when the API server goes away --------------------------------------------------


class Front:
    """A TCP front for the API double: forwards while up; `go_down()` closes the port and every open
    connection, as an API server that stops does (a new connection is then refused)."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed: down
            server = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
            server.settimeout(None)
            with self.lock:
                self.open += [client, server]
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for each in (source, sink):
                try:
                    each.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def go_down(self) -> None:
        self.listener.close()
        with self.lock:
            for each in self.open:
                try:
                    each.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                each.close()
            self.open.clear()


@pytest.fixture
def fronted(double, point_at, settings):
    settings.HTRFLOW_NAMESPACES = [NS]
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.05
    settings.HTRFLOW_WRITE_STATUS = False
    settings.HTRFLOW_KUBE_TIMEOUT = 1.0
    board.stop_all()
    front = Front(int(double.url.rsplit(":", 1)[1].rstrip("/")))
    point_at(f"http://127.0.0.1:{front.port}", double.token)
    yield double, front
    front.go_down()
    board.stop_all()


def test_when_the_api_server_goes_away_the_banner_says_it_is_not_taking_connections(fronted):
    double, front = fronted
    load_campaigns(double, 1)
    assert board.reading(NS).banner() is None
    front.go_down()
    # A call cut as the server goes away reads as "broke" at first; the next one is refused.
    reading = wait_until(
        lambda: (r := board.reading(NS)).cause == kube.DOWN and r,
        timeout=20,
        what=lambda: f"a reading whose cause is DOWN, not {board.reading(NS).problem!r}",
    )
    assert reading.unreachable_since is not None
    assert reading.cause == kube.DOWN, reading.problem
    assert reading.banner().startswith("The cluster has not been taking connections since ")
    assert [c.name for c in reading.campaigns] == ["campaign-000"]  # the last state is still shown


@pytest.fixture
def proxied(double, point_at, settings):
    """The API double behind the soak's fault proxy, whose `refuse()` stops listening and cuts every open
    connection at once (none accepted after it is served, so the server is gone for every list)."""
    settings.HTRFLOW_NAMESPACES = [NS]
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.05
    settings.HTRFLOW_WRITE_STATUS = False
    settings.HTRFLOW_KUBE_TIMEOUT = 1.0
    board.stop_all()
    proxy = FaultProxy(("127.0.0.1", int(double.url.rsplit(":", 1)[1].rstrip("/"))), "api").start()
    point_at(proxy.url, double.token)
    yield double, proxy
    proxy.stop()
    board.stop_all()


def test_the_banner_follows_the_failure_met_last_not_the_first_list_in_trouble(proxied):
    """The Jobs list met errors and waits long before its next try; meanwhile the server goes away and
    the other lists meet that: the banner says what the server does now."""
    double, proxy = proxied
    load_campaigns(double, 1)
    assert board.reading(NS).banner() is None
    jobs = next(each for each in board.board(NS).informers if each.source.field == "jobs")
    double.inject_fault(r".", status=503)
    double.drop_watches()
    wait_until(lambda: jobs.failure is not None and jobs.failure.cause == kube.BROKEN, what="the Jobs list broken")
    jobs._backoff = informer.Backoff(120.0, 120.0)  # from its next failure on, a minute or two apart
    first = jobs.failed_at
    wait_until(lambda: jobs.failed_at > first, timeout=30, what="the Jobs list failing again")
    proxy.refuse()
    reading = wait_until(lambda: (r := board.reading(NS)).cause == kube.DOWN and r, timeout=20, what="cause DOWN")
    assert jobs.failure.cause == kube.BROKEN  # the first list in trouble still holds what it met
    assert reading.banner().startswith("The cluster has not been taking connections since ")

"""A rollout as the chart orders it loses no request: two pods (the Dockerfile's command, with the environment
the chart gives) behind a stand-in for the Service's endpoints; one is taken out of the endpoints (as a
stopping pod is), keeps listening (the preStop sleep), then gets SIGTERM and lets its downloads in flight
finish for HTRFLOW_GRACEFUL_SECONDS. A client polls all along (no refused connection); a download read at
once completes; one still unread when the grace is over ends cut short, never as a complete-looking file."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading

import pytest
import requests

from tests.chart.render import container_env, one, render
from tests.fixtures.serving import ROOT, dockerfile_command, free_port, production_env, wait_until_serving

GRACE = 3  # seconds: web.shutdown.gracefulSeconds for this test
BIG = 64 * 1024 * 1024  # more than every socket buffer between the pod and the client can hold


class Endpoints:
    """A stand-in for a Service's endpoints: each new connection goes to the next backend in the list, in
    turn; a backend taken out gets no new connection while the ones it has go on (as with kube-proxy)."""

    def __init__(self, *backends: int):
        self.backends = list(backends)
        self.turn = 0
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def add(self, port: int) -> None:
        with self.lock:
            self.backends.append(port)

    def remove(self, port: int) -> None:
        with self.lock:
            self.backends.remove(port)

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                port = self.backends[self.turn % len(self.backends)]
                self.turn += 1
            try:
                upstream = socket.create_connection(("127.0.0.1", port), timeout=10)
            except OSError:
                client.close()  # what a browser sees as a refused connection
                continue
            upstream.settimeout(None)
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for sock in (sink, source):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def chart_env() -> dict[str, str]:
    """The plain environment the chart gives the web container, with this test's grace."""
    deployment = one(render({"web": {"shutdown": {"gracefulSeconds": GRACE}}}), "Deployment")
    env = {name: entry["value"] for name, entry in container_env(deployment).items() if "value" in entry}
    return {name: env[name] for name in ("HTRFLOW_GRACEFUL_SECONDS", "HTRFLOW_HTTPS", "HTRFLOW_TRUSTED_HOPS")}


@pytest.fixture
def pods(tmp_path):
    env = production_env(tmp_path, **chart_env())
    assert env["HTRFLOW_GRACEFUL_SECONDS"] == str(GRACE)
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput"],
                   cwd=ROOT, env=env, check=True, capture_output=True, timeout=120)
    (tmp_path / "static" / "big.bin").write_bytes(os.urandom(BIG))  # a result file, served as a file is
    started = []
    for _ in range(2):
        port = free_port()
        process = subprocess.Popen(dockerfile_command(port), cwd=ROOT, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        started.append((port, process))
        wait_until_serving(process, f"http://127.0.0.1:{port}")
    yield started
    for _, process in started:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


def start_download(base: str) -> tuple[socket.socket, int, int]:
    """A download begun through the endpoints and left unread after its first bytes: the socket, the
    Content-Length and the body bytes read so far."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)  # a slow link: little held on the way
    sock.connect(("127.0.0.1", int(base.rsplit(":", 1)[1])))
    sock.sendall(b"GET /static/big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(4096)
        assert chunk, received
        received += chunk
    head, body = received.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 200"), head
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    return sock, length, len(body)


def read_rest(sock: socket.socket) -> int:
    total = 0
    sock.settimeout(60)
    try:
        while chunk := sock.recv(1 << 20):
            total += len(chunk)
    except ConnectionResetError:
        pass
    sock.close()
    return total


def test_a_pod_taken_out_then_stopped_refuses_nothing_and_cuts_only_what_outlasts_the_grace(pods):
    (leaving, stopping), (staying, _) = pods
    endpoints = Endpoints(leaving)
    failures = []

    def poll(times: int = 10) -> None:
        for _ in range(times):
            try:
                answer = requests.get(endpoints.base + "/healthz", timeout=10, headers={"Connection": "close"})
                if answer.status_code != 200:
                    failures.append(answer.status_code)
            except requests.RequestException as error:
                failures.append(repr(error))

    try:
        short, short_length, short_read = start_download(endpoints.base)
        long, long_length, long_read = start_download(endpoints.base)
        assert short_length == long_length == BIG
        endpoints.add(staying)
        poll()
        endpoints.remove(leaving)  # the pod is stopping: out of the endpoints at once
        poll()
        # The preStop sleep: still listening to whoever has not yet forgotten it.
        assert requests.get(f"http://127.0.0.1:{leaving}/healthz", timeout=10).status_code == 200
        stopping.send_signal(signal.SIGTERM)
        poll()
        assert short_read + read_rest(short) == BIG  # read within the grace: complete
        stopping.wait(timeout=GRACE + 60)
        poll()
        assert long_read + read_rest(long) < BIG  # outlasted the grace: visibly cut, never complete-looking
    finally:
        endpoints.close()
    assert failures == []
    assert stopping.returncode is not None

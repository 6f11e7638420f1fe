"""Benchmark: pages and probes while many slow clients download result files.

Run with `make bench-slow` (or `.venv/bin/python -m pytest benchmarks/bench_slow_clients.py -s`).
It starts the devstack's Kubernetes and S3 doubles with the demo scene, writes an 8 MiB result
file, and runs the app as the Dockerfile runs it (gunicorn, one worker, its thread count), once
with the image's threads and once with 8 (what the image had before), side by side. In each run
64 clients, spread over the two demo accounts that may read it, each read one download at about 5 KiB/s (a phone on
a poor link), with a small receive window so the server cannot hand the whole file to the kernel
and forget it. While they read, the benchmark asks `/healthz`, the list page and the read API
in turn and prints p50/p95/p99 and the errors of each (a timeout of 10 s counts as an error),
then one person's download past their cap (its status and Retry-After).

What the figures include: loopback only, the doubles in this process's children, gunicorn's
worker serving everything (no ingress buffering), the progress reads the list page makes through
the store. The slow readers run in this process's threads, so the load they add is theirs too.
"""

from __future__ import annotations

import socket
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import requests

SLOW_CLIENTS = 64
READ_BYTES = 1024
READ_PAUSE = 0.2  # 1 KiB every 0.2 s: 5 KiB/s
FILE_BYTES = 8 * 1024 * 1024  # more than the kernel buffers on the way, less than 64 copies can swamp the store double
SAMPLES = 60
TIMEOUT = 10.0
BUDGET_SECONDS = 60  # of asking, per run: a run whose threads are all held would otherwise take half an hour
OLD_THREADS = 8
READERS = ("full", "limited")  # the demo accounts that may read the file


def _setup() -> None:
    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))


class SlowReader(threading.Thread):
    """One client that asks for a file and reads it slowly until told to stop."""

    def __init__(self, port: int, path: str, cookie: str):
        super().__init__(daemon=True)
        self.port, self.path, self.cookie = port, path, cookie
        self.status = ""
        self.received = 0
        self.stop = threading.Event()

    def run(self) -> None:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(TIMEOUT)
        try:
            sock.connect(("127.0.0.1", self.port))
            lines = [f"GET {self.path} HTTP/1.1", "Host: 127.0.0.1", f"Cookie: {self.cookie}", "Connection: close"]
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            head = sock.recv(READ_BYTES)
            self.status = head.split(b" ", 2)[1].decode() if head.startswith(b"HTTP/") else "?"
            while not self.stop.is_set():
                chunk = sock.recv(READ_BYTES)
                if not chunk:
                    break
                self.received += len(chunk)
                time.sleep(READ_PAUSE)
        except OSError as error:
            self.status = self.status or type(error).__name__
        finally:
            sock.close()


def _cookie_header(session: requests.Session) -> str:
    return "; ".join(f"{c.name}={c.value}" for c in session.cookies)


def _timed(session: requests.Session, url: str) -> tuple[float, bool]:
    began = time.perf_counter()
    try:
        ok = session.get(url, timeout=TIMEOUT).status_code < 500
    except requests.RequestException:
        ok = False
    return time.perf_counter() - began, ok


def _quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    return f"p50 {pick(0.5):7.1f} ms  p95 {pick(0.95):7.1f} ms  p99 {pick(0.99):7.1f} ms"


def _measure(app, sessions: list[requests.Session], key: str) -> list[str]:
    readers = [
        SlowReader(app.port, f"/results/{key}", _cookie_header(sessions[i % len(sessions)]))
        for i in range(SLOW_CLIENTS)
    ]
    for reader in readers:
        reader.start()
    began = time.monotonic()
    time.sleep(3)  # every download under way
    asker = sessions[0]
    timings: dict[str, list[float]] = {"/healthz": [], "/": [], "/api/v1/jobs": []}
    errors = dict.fromkeys(timings, 0)
    deadline = time.monotonic() + BUDGET_SECONDS
    for _ in range(SAMPLES):
        if time.monotonic() > deadline:
            break
        for path in timings:
            seconds, ok = _timed(asker, app.base + path)
            timings[path].append(seconds)
            errors[path] += not ok
    statuses = sorted({reader.status for reader in readers})
    slow_rate = statistics.median(r.received for r in readers) / (time.monotonic() - began)
    for reader in readers:
        reader.stop.set()
    for reader in readers:
        reader.join(TIMEOUT)
    lines = [f"  {SLOW_CLIENTS} slow downloads, statuses {statuses}, median {slow_rate / 1024:.1f} KiB/s each"]
    for path, values in timings.items():
        lines.append(f"  {path:14} {_quantiles(values)}  errors {errors[path]}/{len(values)}")
    return lines


def _past_the_cap(app, session: requests.Session, key: str, cap: int) -> str:
    readers = [SlowReader(app.port, f"/results/{key}", _cookie_header(session)) for _ in range(cap)]
    for reader in readers:
        reader.start()
    time.sleep(2)
    try:
        answer = session.get(f"{app.base}/results/{key}", timeout=TIMEOUT, stream=True)
        retry = answer.headers.get("Retry-After")
        line = f"  download {cap + 1} of one person: {answer.status_code}, Retry-After {retry}"
        answer.close()
    except requests.RequestException as error:
        line = f"  download {cap + 1} of one person: no answer ({type(error).__name__})"
    for reader in readers:
        reader.stop.set()
    for reader in readers:
        reader.join(TIMEOUT)
    return line


def run() -> list[str]:
    _setup()
    from benchmarks.archive.app import App
    from devstack.images import ImageServer
    from devstack.kubeapi import KubeDouble
    from devstack.scene import build_scene, load_scene
    from devstack.store import DEMO_LOGINS, StoreDouble

    lines = []
    with tempfile.TemporaryDirectory() as folder:
        kube = KubeDouble().start("127.0.0.1", 0)
        store = StoreDouble().start("127.0.0.1", 0)
        images = ImageServer().start("127.0.0.1", 0)
        try:
            scene = build_scene(datetime.now(UTC), images.base, "http://127.0.0.1:1/results")
            load_scene(scene, kube, store, images)
            key = f"{store.namespace}/bench/slow/big.bin"
            store.put_large(key, FILE_BYTES)
            kubeconfig = str(kube.write_kubeconfig(Path(folder) / "kubeconfig"))
            for threads in (OLD_THREADS, None):
                app = App(Path(folder), kubeconfig, store.endpoint, store.bucket, threads=threads)
                readers = [DEMO_LOGINS[name] for name in READERS]
                per_person = -(-SLOW_CLIENTS // len(readers))
                app.env["HTRFLOW_DOWNLOADS_PER_PERSON"] = str(per_person)
                app.start()
                try:
                    sessions = [app.login(user, password) for user, password in readers]
                    told = threads if threads is not None else "the image's"
                    lines.append(f"gunicorn with {told} threads, {per_person} downloads per person:")
                    lines += _measure(app, sessions, key)
                    lines.append(_past_the_cap(app, sessions[0], key, per_person))
                    print("\n".join(lines), flush=True)
                finally:
                    app.stop()
        finally:
            images.stop()
            store.stop()
            kube.stop()
    return lines


def test_slow_clients_figures():
    lines = run()
    print("\n" + "\n".join(lines))
    assert any("429" in line for line in lines), "past the cap a download must get 429"


if __name__ == "__main__":
    print("\n".join(run()))

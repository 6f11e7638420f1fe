"""Benchmark: the results proxy against a direct boto3 read of the same 256 MiB object.

Run with `.venv/bin/python -m pytest benchmarks/bench_proxy.py -s` or as a script. It starts the
devstack store (moto in a child process), writes a 256 MiB object, starts the app with the
Dockerfile's gunicorn command, logs in as the full reader, then alternates: a direct boto3 read
of the object (1 MiB chunks) and the same object through ``/results/<key>`` over HTTP. Printed:
MiB/s of each (median and best of the rounds), their ratio, and the CPU seconds gunicorn's workers
spent per GiB proxied (from /proc; the proxy is one more process on the path, so on a machine whose
cores are all busy the ratio falls towards direct CPU / (direct + proxy CPU)). Bounded in time:
every call has a timeout, and rounds stop after ``BUDGET_SECONDS``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZE = 256 * 1024 * 1024
CHUNK = 1024 * 1024
ROUNDS = 3
BUDGET_SECONDS = 120
TIMEOUT_SECONDS = 60


def _setup() -> None:
    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))


def _direct_read(client, bucket: str, key: str) -> float:
    began = time.perf_counter()
    body = client.get_object(Bucket=bucket, Key=key)["Body"]
    total = sum(len(chunk) for chunk in body.iter_chunks(CHUNK))
    seconds = time.perf_counter() - began
    assert total == SIZE, total
    return SIZE / 2**20 / seconds


def _proxy_read(browser, base: str, key: str) -> float:
    began = time.perf_counter()
    with browser.get(f"{base}/results/{key}", stream=True, timeout=TIMEOUT_SECONDS) as answer:
        assert answer.status_code == 200, answer.status_code
        total = sum(len(chunk) for chunk in answer.iter_content(CHUNK))
    seconds = time.perf_counter() - began
    assert total == SIZE, total
    return SIZE / 2**20 / seconds


def _cpu_seconds(parent_pid: int) -> float:
    """User and system CPU seconds of a process's children so far (gunicorn's workers); 0 without /proc."""
    try:
        children = Path(f"/proc/{parent_pid}/task/{parent_pid}/children").read_text().split()
        total = 0
        for child in children:
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    except OSError:
        return 0.0
    return total / os.sysconf("SC_CLK_TCK")


def _login(browser, base: str, account) -> None:
    answer = browser.post(
        base + "/results/_login",
        data=json.dumps({"username": account.username, "password": account.password}),
        headers={"Origin": base, "Content-Type": "application/json"},
        timeout=TIMEOUT_SECONDS,
    )
    assert answer.status_code == 204, answer.text[:200]


def run() -> list[str]:
    _setup()
    import requests

    from devstack.store import StoreDouble
    from tests.fixtures.serving import ROOT, dockerfile_command, free_port, production_env, wait_until_serving

    with StoreDouble() as double, tempfile.TemporaryDirectory() as scratch:
        key = f"{double.namespace}/bench/proxy-256.bin"
        double.put_large(key, SIZE)
        env = production_env(
            Path(scratch),
            S3_ENDPOINT=double.endpoint,
            S3_BUCKET=double.bucket,
            HTRFLOW_RESULTS_NAMESPACE=double.namespace,
            HTRFLOW_HTTPS="false",
            HTRFLOW_S3_TIMEOUT=str(TIMEOUT_SECONDS),
        )
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput"],
            cwd=ROOT, env=env, check=True, capture_output=True, timeout=120,
        )
        port = free_port()
        server = subprocess.Popen(
            dockerfile_command(port), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        try:
            base = wait_until_serving(server, f"http://127.0.0.1:{port}")
            direct_client = double.client(double.accounts["full"])
            with requests.Session() as browser:
                _login(browser, base, double.accounts["full"])
                direct, proxied, proxy_cpu = [], [], 0.0
                deadline = time.monotonic() + BUDGET_SECONDS
                for _ in range(ROUNDS):
                    direct.append(_direct_read(direct_client, double.bucket, key))
                    before = _cpu_seconds(server.pid)
                    proxied.append(_proxy_read(browser, base, key))
                    proxy_cpu += _cpu_seconds(server.pid) - before
                    if time.monotonic() > deadline:
                        break
        finally:
            server.terminate()
            server.wait(timeout=10)
    direct_rate, proxy_rate = statistics.median(direct), statistics.median(proxied)
    gib_proxied = len(proxied) * SIZE / 2**30
    return [
        f"256 MiB object, {len(direct)} rounds; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores:",
        f"direct boto3 read: {direct_rate:.0f} MiB/s (best {max(direct):.0f})",
        f"through the proxy (gunicorn as the Dockerfile runs it): {proxy_rate:.0f} MiB/s (best {max(proxied):.0f});"
        f" workers' CPU {proxy_cpu / gib_proxied:.2f} s per GiB",
        f"proxy / direct (medians): {proxy_rate / direct_rate:.2f}",
    ]


def test_proxy_figures():
    report = run()
    print("\n" + "\n".join(report))
    assert len(report) == 4


if __name__ == "__main__":
    print("\n".join(run()))

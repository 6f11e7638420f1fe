"""Benchmark: a 2 000-page volume's text and ALTO ZIP, and a 5 000-volume campaign's table as CSV, streamed from
the S3 store double (devstack/store.py, a child process) with a person's own account, as the downloads do.

Run with `.venv/bin/python -m pytest benchmarks/bench_volume_downloads.py -s` or as a script. Figures: for each,
the time to the first chunk and to the last, the bytes written, and Python's memory peak while writing
(tracemalloc, in a second pass: tracing slows the first). The pages are the devstack's realistic ALTO pages
(about 20 to 40 KB each); the manifests are of 300-page volumes. Reads go over HTTP to the double, as to a store
on the same machine: a remote store adds its latency per read, which the downloads' reading ahead hides in part.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
import tracemalloc
from pathlib import Path

PAGES = 2000
VOLUMES = 5000
PIPELINE = "bench-dl"


def _setup() -> None:
    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()


def _measure(make_chunks, traced: bool) -> tuple[float, float, int, int]:
    """(seconds to the first chunk, seconds in all, bytes, tracemalloc peak or 0)."""
    gc.collect()
    if traced:
        tracemalloc.start()
    started = time.perf_counter()
    first, written = None, 0
    try:
        for chunk in make_chunks():
            if first is None:
                first = time.perf_counter() - started
            written += len(chunk)
        peak = tracemalloc.get_traced_memory()[1] if traced else 0
    finally:
        if traced:
            tracemalloc.stop()
    return first or 0.0, time.perf_counter() - started, written, peak


def _line(what: str, timed, traced) -> str:
    first, total, written, _ = timed
    return (
        f"{what}: {written / 1048576:.1f} MiB in {total:.1f} s (first chunk after {first * 1000:.0f} ms);"
        f" memory peak {traced[3] / 1048576:.1f} MiB (tracemalloc)"
    )


def run() -> list[str]:
    _setup()
    from django.conf import settings

    from campaigns.models import Campaign, Volume
    from campaigns.store import volume_figures
    from campaigns.web import volume_downloads
    from devstack.content import alto_xml, page_layout
    from devstack.store import StoreDouble
    from results.accounts.session import ResultsSession
    from results.store import s3
    from results.store.reader import ResultsReader
    from results.viewers import volume_files

    with StoreDouble() as double:
        settings.S3_ENDPOINT, settings.S3_BUCKET = double.endpoint, double.bucket
        settings.HTRFLOW_RESULTS_NAMESPACE = settings.HTRFLOW_NAMESPACES[0] = double.namespace
        s3.forget_clients()
        ns = double.namespace
        prefix = f"{ns}/{PIPELINE}/BIG1"
        objects = [
            (f"{prefix}/alto/{n:04d}.xml", alto_xml(page_layout("BIG1", n), 4).decode(), "application/xml")
            for n in range(1, PAGES + 1)
        ]
        manifest = {"pages": PAGES, "pages_ok": PAGES - 1, "pages_failed": 1,
                    "results": {f"{n:04d}": {"status": "failed" if n == 7 else "ok"} for n in range(1, PAGES + 1)}}
        objects.append((f"{prefix}/manifest.json", json.dumps(manifest), "application/json"))
        alto_bytes = sum(len(body) for _key, body, _type in objects)
        small = {"pages": 300, "pages_ok": 299, "pages_failed": 1, "quality": {"mean": 0.9},
                 "results": {f"{n:04d}": {"status": "ok", "seconds": 1.5} for n in range(1, 301)}}
        body = json.dumps(small)
        objects += [(f"{ns}/{PIPELINE}/V{n:05d}/manifest.json", body, "application/json") for n in range(VOLUMES)]
        for start in range(0, len(objects), 2000):
            double.put_many(objects[start : start + 2000])

        account = double.accounts["full"]
        reader = ResultsReader(ResultsSession(account.username, account.access_key, account.secret_key))
        files = volume_files.volume_files(reader, prefix)
        volumes = [Volume(index=n, id=f"V{n:05d}", state="done", namespace=ns, pipeline=PIPELINE)
                   for n in range(VOLUMES)]
        campaign = Campaign(namespace=ns, name="bench", volumes=volumes)

        def text():
            return volume_files.text_chunks(reader, files, "BIG1")

        def archive():
            return volume_files.zip_chunks(reader, files, "BIG1")

        def table():
            spend = volume_figures.Budget(volume_figures.READS_MOST, volume_figures.SECONDS_MOST)
            return volume_downloads._csv_chunks(reader, campaign, spend)

        report = [f"{PAGES} ALTO pages of {alto_bytes / PAGES / 1024:.0f} KiB on average; {VOLUMES} manifests"
                  f" of {len(body) // 1024} KiB; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"]
        for what, make in (("volume text", text), ("volume ALTO zip", archive), (f"CSV of {VOLUMES} volumes", table)):
            report.append(_line(what, _measure(make, traced=False), _measure(make, traced=True)))
        return report


def test_volume_download_figures():
    for line in run():
        print(line)


if __name__ == "__main__":
    for line in run():
        print(line)

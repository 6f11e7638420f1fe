"""Benchmark: API calls and time per campaign page, and what a card poll costs next to a page.

Not collected by `make test`. Run with `.venv/bin/python -m pytest benchmarks/bench_campaigns.py -s`
or as a script: `.venv/bin/python benchmarks/bench_campaigns.py`. Progress reads and access proofs are
left out (no store; every logged-in account sees every campaign), so the figures are the cluster, the
projection and the rendering.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from campaigns.cluster import reading

SIZES = (2, 20, 60)
VOLUMES = 2000
PARALLELISM = 4
REPEATS = 5
NS = "htr-batch"


def _setup_django():
    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()


def _load(double, campaigns: int) -> None:
    # The same small objects the kube tests use, at archive scale.
    from tests.campaigns.cluster.test_kube import campaign_job, campaign_pod, campaign_record, workload

    for number in range(campaigns):
        name = f"bench-{number:03d}"
        uid = f"00000000-0000-4000-8000-{number:012d}"
        done = VOLUMES // 2
        job = campaign_job(name, uid, volumes=VOLUMES, completed=f"0-{done - 1}", failed=f"{done}", active=PARALLELISM)
        job["spec"]["parallelism"] = PARALLELISM
        double.put(job)
        double.put(campaign_record(name, [f"C{number:03d}{i:06d}" for i in range(VOLUMES)]))
        double.put(workload(name, uid))
        for index in range(done + 1, done + 1 + PARALLELISM):
            double.put(campaign_pod(name, index))


def _timed(function, repeats=REPEATS) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def run() -> list[dict]:
    _setup_django()
    from django.conf import settings
    from django.test import Client
    from django.test.utils import override_settings

    from campaigns.cluster import status_records
    from campaigns.store import progress
    from devstack.kubeapi import KubeDouble
    from results.accounts import session

    double = KubeDouble().start()
    folder = Path(tempfile.mkdtemp(prefix="bench-campaigns-"))
    kubeconfig = double.write_kubeconfig(folder / "kubeconfig")
    originals = (session.session_from_request, progress._reader)
    session.session_from_request = lambda request: session.ResultsSession(user="bench", access_key="x", secret_key="y")
    progress._reader = lambda request: None
    client = Client()
    rows = []
    try:
        with override_settings(
            KUBECONFIG=str(kubeconfig),
            HTRFLOW_NAMESPACES=[NS],
            HTRFLOW_SNAPSHOT_SECONDS=600,
            HTRFLOW_WRITE_STATUS=False,
            HTRFLOW_CARDS_FOR="store-accounts",  # no store here to prove the fake account's rights against
            ALLOWED_HOSTS=["testserver"],
        ):
            assert settings.KUBECONFIG == str(kubeconfig)
            for size in SIZES:
                double.reset()
                _load(double, size)
                reading.clear_cache()
                status_records.forget()
                double.reset_calls()
                started = time.perf_counter()
                assert client.get("/").status_code == 200
                cold = time.perf_counter() - started
                calls = len(double.calls)
                page = _timed(lambda: client.get("/"))
                poll = _timed(lambda: client.get("/campaigns/htr-batch/bench-000/card", headers={"HX-Request": "true"}))
                detail = _timed(lambda: client.get("/campaigns/htr-batch/bench-000"))
                assert len(double.calls) == calls, "warm pages must not call the API"
                rows.append(
                    {
                        "campaigns": size,
                        "api_calls": calls,
                        "cold_page_s": cold,
                        "page_s": page,
                        "poll_s": poll,
                        "detail_s": detail,
                        "page_per_poll": page / poll if poll else float("inf"),
                    }
                )
    finally:
        session.session_from_request, progress._reader = originals
        reading.clear_cache()
        double.stop()
    return rows


def report(rows: list[dict]) -> None:
    print()
    print(f"campaign pages, {VOLUMES} volumes per campaign, median of {REPEATS} (progress reads left out)")
    headings = ("campaigns", "API calls", "cold page", "warm page", "card poll", "detail", "page/poll")
    widths = (9, 9, 10, 10, 10, 9, 9)
    print(" ".join(f"{heading:>{width}}" for heading, width in zip(headings, widths, strict=True)))
    for row in rows:
        print(
            f"{row['campaigns']:>9} {row['api_calls']:>9} {row['cold_page_s'] * 1000:>8.0f}ms "
            f"{row['page_s'] * 1000:>8.0f}ms {row['poll_s'] * 1000:>8.1f}ms {row['detail_s'] * 1000:>7.0f}ms "
            f"{row['page_per_poll']:>8.1f}x"
        )


def test_campaign_page_benchmark():
    rows = run()
    report(rows)
    assert len({row["api_calls"] for row in rows}) == 1, "API calls must not depend on the number of campaigns"


if __name__ == "__main__":
    report(run())

"""Benchmark: the product at archive scale (40 campaigns x 5 000 volumes, 2 880 pods, 20 open tabs).

Run with `make bench-archive` (this file alone, figures printed) or as part of `make bench`. It
takes about four minutes. `make bench-archive ARCHIVE_SCALE=5` runs five times the archive (200
campaigns, 14 400 pods, 10 volumes finishing per 5 s, 50 tabs; benchmarks/archive/size.py). It
starts the devstack's Kubernetes double and S3 store with the archive loaded
(benchmarks/archive/scene.py), serves the product with the Dockerfile's gunicorn command, and
measures the raw LIST calls, cold and warm list pages, worker memory, the page's size, and
1 and 20 (50) tabs polling for a minute. Everything listens on 127.0.0.1 and is stopped at the end.
The figures are the "today" baseline and the "done when" numbers of the archive-scale issue.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.archive.figures import measure, report  # noqa: E402


def test_archive_benchmark():
    found: dict = {}
    try:
        measure(found)
    except BaseException:
        print("\nfigures so far:", json.dumps(found, indent=1, default=str))
        raise
    print()
    for line in report(found):
        print(line)
    assert found["page"]["polls"] >= 1, "the list page has nothing that polls, so no tab was measured"
    assert all(tab["polls"] > 0 for tab in found["tabs"].values()), "a tab run made no polls"


if __name__ == "__main__":
    for line in report(measure()):
        print(line)

"""One of two processes racing to keep a status record current (tests/ops/test_status_writes.py).

Both act as writers at once (the Lease is bypassed: this is the worst case, two processes that each
believe they hold it), each reading its own snapshots and writing from them after a random pause
(between the two numbers given, in seconds): a slow one writes from snapshots older than the record.
Stops when the stop file appears, after one last pass.
"""

import os
import random
import sys
import time
from pathlib import Path

import django

from campaigns.cluster import reading

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
django.setup()

from django.utils import timezone  # noqa: E402

from campaigns.cluster import status_lease, status_records  # noqa: E402
from campaigns.domain.projection import project  # noqa: E402


def one_pass(pause: tuple[float, float]):
    reading.clear_cache()
    current = reading.read_namespace(os.environ["HTRFLOW_NAMESPACES"])
    campaigns = project(current.snapshot, timezone.now())
    time.sleep(random.uniform(*pause))  # noqa: S311 - a jitter, not a secret
    status_records.forget()
    status_records.keep_current(current, campaigns)


def main(stop_file: str, shortest: str, longest: str) -> int:
    status_lease.hold = lambda namespace, **kwargs: True
    pause = (float(shortest), float(longest))
    while not Path(stop_file).exists():
        one_pass(pause)
    one_pass((0, 0))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))

"""Each volume's figures for the volume table taken away (CSV, the read API): pages done, failed pages, mean
predicted quality and when it last changed, read from the same file the volume page reads them from.

Why its own reads. The cards' progress reads are cached and capped per request (``campaigns.store.progress``),
so a done volume whose progress was never polled would have no figures there. Here a done volume's figures come
from its ``manifest.json`` (the completion record: final pages and quality) and a running or failed one's from
its ``progress.json``, read with the person's own account, whatever is cached.

Why a budget of its own. A campaign holds thousands of volumes; one download must neither take the person's
shared budget (100 reads per 5 s, which pages and polls need) nor read without end. It reads at most
``READS_MOST`` objects and for at most ``SECONDS_MOST`` seconds, ``AHEAD`` at a time a little ahead of the rows
being written (so the first row goes out after one read, and memory stays a few files); past either bound the
remaining rows are written without figures and ``Budget.cut_short`` says so.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime

from campaigns.models import Volume, non_negative_int, progress_from_json
from core import bounded_json
from core.quality import volume_quality
from results.store.reader import StoreError

READS_MOST = 10_000
SECONDS_MOST = 120.0
AHEAD = 8
MANIFEST_MAX_BYTES = 4 * 1024 * 1024
MANIFEST_VALUES_MAX = 500_000
PROGRESS_MAX_BYTES = 64 * 1024

# Where a row's figures came from, or why it has none (codes: the CSV and the API carry them unchanged).
MANIFEST = "manifest.json"
PROGRESS = "progress.json"
NOT_STARTED = "not_started"  # a pending volume: nothing to read
NOT_FOUND = "not_found"
FORBIDDEN = "forbidden"
UNREADABLE = "unreadable"
OVER_BUDGET = "over_budget"  # not read: the download's own budget was spent


@dataclass(frozen=True)
class Figures:
    source: str
    pages_total: int | None = None
    pages_done: int | None = None
    pages_failed: int | None = None
    mean_quality: float | None = None
    updated_at: datetime | None = None


@dataclass
class Budget:
    """Store reads one download may still make, and until when."""

    reads_most: int = READS_MOST
    seconds_most: float = SECONDS_MOST
    reads: int = 0
    started: float = 0.0
    cut_short: bool = False

    def __post_init__(self):
        self.started = self.started or time.monotonic()

    def take(self) -> bool:
        if self.reads >= self.reads_most or time.monotonic() - self.started > self.seconds_most:
            self.cut_short = True
            return False
        self.reads += 1
        return True


def _file_of(volume: Volume) -> str:
    if volume.state == "done":
        return MANIFEST
    if volume.state in ("active", "failed", "unknown") or volume.retrying:
        return PROGRESS
    return ""


def read_figures(reader, volume: Volume) -> Figures:
    """One volume's figures: one store read (of the file its state says), every failure a source code."""
    which = _file_of(volume)
    if not which:
        return Figures(NOT_STARTED)
    key = volume.manifest_key if which == MANIFEST else volume.progress_key
    try:
        if which == MANIFEST:
            blob = reader.get(key, max_bytes=MANIFEST_MAX_BYTES)
            if not blob.complete:
                return Figures(UNREADABLE)
            record = bounded_json.loads(
                blob.body.decode("utf-8"), max_bytes=MANIFEST_MAX_BYTES, max_values=MANIFEST_VALUES_MAX
            )
            return _of_manifest(record, blob.last_modified)
        record = reader.get_json(key, max_bytes=PROGRESS_MAX_BYTES)
    except StoreError as error:
        return Figures(error.outcome.value)  # forbidden, not_found, unreachable, timeout…: codes unchanged
    except (ValueError, UnicodeDecodeError, RecursionError):
        return Figures(UNREADABLE)
    read = progress_from_json(record, None)
    if read is None:
        return Figures(UNREADABLE)
    mean = read.quality.mean if read.quality is not None else None
    return Figures(PROGRESS, read.total, read.done, read.failed, mean, read.updated_at)


def _of_manifest(record, last_modified: datetime | None) -> Figures:
    if not isinstance(record, dict):
        return Figures(UNREADABLE)
    results = record.get("results") if isinstance(record.get("results"), dict) else {}
    statuses = [entry.get("status") for entry in results.values() if isinstance(entry, dict)]
    done = non_negative_int(record.get("pages_ok"))
    failed = non_negative_int(record.get("pages_failed"))
    quality = volume_quality(record.get("quality"))
    return Figures(
        MANIFEST,
        pages_total=non_negative_int(record.get("pages")) if record.get("pages") is not None else len(results),
        pages_done=done if done is not None else statuses.count("ok"),
        pages_failed=failed if failed is not None else statuses.count("failed"),
        mean_quality=quality.mean if quality is not None else None,
        updated_at=last_modified,
    )


def figures_of(
    reader, volumes: Iterable[Volume], budget: Budget, ahead: int = AHEAD
) -> Iterator[tuple[Volume, Figures]]:
    """``(volume, figures)`` in the volumes' order, read ``ahead`` at a time on threads of this download's own;
    a volume met after the budget is spent gets ``OVER_BUDGET`` without a read."""
    pool = ThreadPoolExecutor(max_workers=ahead, thread_name_prefix="volume-figures")
    queue: deque = deque()

    def ask(volume: Volume):
        if reader is None or not _file_of(volume):
            return Figures(NOT_STARTED)
        if not budget.take():
            return Figures(OVER_BUDGET)
        return pool.submit(read_figures, reader, volume)

    def answer(pending) -> Figures:
        return pending.result() if not isinstance(pending, Figures) else pending

    try:
        for volume in volumes:
            queue.append((volume, ask(volume)))
            if len(queue) >= ahead:
                first, pending = queue.popleft()
                yield first, answer(pending)
        while queue:
            first, pending = queue.popleft()
            yield first, answer(pending)
    finally:
        for _volume, pending in queue:
            if not isinstance(pending, Figures):
                pending.cancel()
        pool.shutdown(wait=True, cancel_futures=True)

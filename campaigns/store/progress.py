"""Live progress of active volumes: each volume's `progress.json`, read with the person's own session.

Bounded per request: at most `limit` reads (24 by default), run in parallel on a small shared thread
pool, all of them waited for at most a few seconds together. Bounded per person: at most
`budget.BUDGET_READS` store reads per `budget.BUDGET_SECONDS` (shared with the access checks),
however many tabs and cards the person has open (the existing front end's bound). Answers are cached
per person and key, so a person's tabs share them: a little longer than a poll period while the
volume runs, an hour once its progress is final. A running volume's answer that has just aged out is
still shown once while it is read again in the background (for at most `STALE_SECONDS`), so a poll
never waits for the store to say what it said a moment ago; the reads, and their budget, are the
same. An answer the store refuses is a state (`outcome`), never an error: a forbidden volume is
marked on its row, an unreachable store or an ended session gets one sentence for the whole card.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache

from campaigns.models import Progress, progress_from_json
from campaigns.wording.progress import CARD_SENTENCES, VOLUME_SENTENCES
from results.store import budget
from results.store.reader import reader_for

log = logging.getLogger(__name__)

READS_PER_REQUEST = 24
EXTRA_READS_PER_REQUEST = 6
PROGRESS_MAX_BYTES = 64 * 1024
RUNNING_SECONDS = 6  # longer than a poll period (5 s): a poll reads what changed since the last one
STALE_SECONDS = 30  # a running volume's last answer is shown while it is read again, for at most this long
FINAL_SECONDS = 3600
MISSING_SECONDS = 5
FORBIDDEN_SECONDS = 60
FINAL_STAGES = ("done", "failed")

FORBIDDEN = "forbidden"
NOT_FOUND = "not_found"
SESSION_ENDED = "session_ended"
NO_SESSION = "no_session"
UNREACHABLE = "unreachable"
TIMEOUT = "timeout"
NO_REASON = "no_reason"
UNREADABLE = "unreadable"
NOT_ASKED = "not_asked"

# Outcomes that keep a whole card's progress from being read: the card says so once, for the first
# one met (campaigns.wording.progress.CARD_SENTENCES); the others are said on the volume's row.
CARD_OUTCOMES = (NO_SESSION, SESSION_ENDED, UNREACHABLE, TIMEOUT, NO_REASON)

# Answers live in their own in-process cache: done volumes' answers are kept an hour, and Django's
# default local cache holds only 300 entries, which one large campaign would churn through.
_answers = LocMemCache("htrbrowser-progress", {"OPTIONS": {"MAX_ENTRIES": 50_000, "CULL_FREQUENCY": 10}})

# The last answer for each running volume, kept past its freshness to be shown while it is read again.
_last = LocMemCache("htrbrowser-progress-last", {"OPTIONS": {"MAX_ENTRIES": 50_000, "CULL_FREQUENCY": 10}})
_refreshing: set[str] = set()  # cache keys being read again in the background
_refreshing_lock = threading.Lock()
_generation = [0]  # bumped by clear_cache: a read again that began before lands nowhere
REFRESHING_MOST = 64  # reads again in flight at most; past that the last answer stands until STALE_SECONDS

_pool = ThreadPoolExecutor(max_workers=6, thread_name_prefix="progress")
_pool_lock = threading.Lock()
# Reads again have their own threads: however many queue up, they never delay a read a page waits for.
_refresh_pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="progress-again")




@dataclass(frozen=True)
class VolumeProgress:
    progress: Progress | None = None
    outcome: str = ""  # "" when read; otherwise one of the constants above

    @property
    def forbidden(self) -> bool:
        return self.outcome == FORBIDDEN

    @property
    def note(self) -> str:
        return VOLUME_SENTENCES.get(self.outcome, "")


@dataclass
class ProgressReport:
    by_key: dict[str, VolumeProgress] = field(default_factory=dict)
    card_outcome: str = ""
    reads: int = 0  # store reads this report cost (cached answers cost none)

    @property
    def card_sentence(self) -> str:
        return CARD_SENTENCES.get(self.card_outcome, "")

    @property
    def needs_login(self) -> bool:
        return self.card_outcome in (NO_SESSION, SESSION_ENDED)

    def get(self, key: str) -> VolumeProgress | None:
        return self.by_key.get(key)


def clear_cache() -> None:
    """Forget every cached answer and spent budget (tests and benchmarks start from nothing)."""
    _answers.clear()
    _last.clear()
    budget.reads.clear()
    with _refreshing_lock:
        _refreshing.clear()
        _generation[0] += 1


def _person(request) -> str:
    return budget.person_of(request)


def _cache_key(person: str, key: str) -> str:
    return "progress:" + hashlib.sha256(f"{person}\0{key}".encode()).hexdigest()


def _reader(request):
    try:
        return reader_for(request)
    except Exception:  # a broken session is "no session" here, not a failed page
        log.exception("could not open a results reader for progress")
        return None


def _fetch(reader, key: str) -> tuple[str, object]:
    """(outcome, parsed JSON): one store read, every failure turned into an outcome."""
    try:
        return "", reader.get_json(key, max_bytes=PROGRESS_MAX_BYTES)
    except Exception as error:  # noqa: BLE001 - StoreError carries an outcome; anything else is unreadable
        outcome = getattr(getattr(error, "outcome", None), "value", None) or UNREADABLE
        return outcome, None


def _remember(person: str, key: str, outcome: str, data) -> None:
    if outcome == "":
        stage = data.get("stage") if isinstance(data, dict) else None
        seconds = FINAL_SECONDS if stage in FINAL_STAGES else RUNNING_SECONDS
        if stage not in FINAL_STAGES:
            _last.set(_cache_key(person, key), (outcome, data), STALE_SECONDS)
    elif outcome == NOT_FOUND:
        seconds = MISSING_SECONDS
    elif outcome == FORBIDDEN:
        seconds = FORBIDDEN_SECONDS
    else:
        return  # a store that is down or a session that ended is asked again on the next page
    _answers.set(_cache_key(person, key), (outcome, data), seconds)


def read_progress(
    request,
    keys: list[str],
    now: datetime,
    limit: int = READS_PER_REQUEST,
    extra_keys: list[str] = (),
    extra_limit: int = EXTRA_READS_PER_REQUEST,
) -> ProgressReport:
    """Progress for each key (in order of importance); keys past `limit` are marked NOT_ASKED.

    `extra_keys` (e.g. done volumes, to add up their pages) come after `keys` and cost at most
    `extra_limit` of the same `limit`; answered from the cache they cost nothing.
    """
    report = ProgressReport()
    main = set(keys)
    extra = {key for key in extra_keys if key not in main}
    keys = [*keys, *(key for key in extra_keys if key in extra)]
    if not keys:
        return report
    reader = _reader(request)
    if reader is None:
        report.card_outcome = NO_SESSION
        return report
    person = _person(request)
    wanted = list(dict.fromkeys(keys))
    cache_keys = {key: _cache_key(person, key) for key in wanted}
    cached = _answers.get_many(list(cache_keys.values()))
    missing = [cache_keys[key] for key in wanted if cache_keys[key] not in cached]
    last = _last.get_many(missing) if missing else {}
    answers: dict[str, tuple[str, object]] = {}
    to_read, to_refresh = [], []
    extra_reads = 0
    for key in wanted:
        if cache_keys[key] in cached:
            answers[key] = cached[cache_keys[key]]
        elif len(to_read) + len(to_refresh) >= limit or (key in extra and extra_reads >= extra_limit):
            continue
        elif cache_keys[key] in last:
            answers[key] = last[cache_keys[key]]  # shown now, read again for the next poll
            to_refresh.append(key)
            extra_reads += key in extra
        else:
            to_read.append(key)
            extra_reads += key in extra
    to_refresh = _claim(person, to_refresh)  # another tab's poll may be reading some already
    granted = budget.reads.take(person, len(to_read) + len(to_refresh))
    to_read = to_read[:granted]
    _release(person, to_refresh[granted - len(to_read):])
    to_refresh = to_refresh[: granted - len(to_read)]
    report.reads = len(to_read) + len(to_refresh)
    _refresh_in_background(reader, person, to_refresh)
    answers.update(_read_in_parallel(reader, person, to_read))
    _fill(report, wanted, answers, now)
    return report


def _fill(report: ProgressReport, keys: list[str], answers: dict[str, tuple[str, object]], now: datetime) -> None:
    """Each key's progress or outcome (a key no read reached was not asked); the card says the first
    outcome that keeps a whole card's progress from being read."""
    for key in keys:
        outcome, data = answers.get(key, (NOT_ASKED, None))
        progress = progress_from_json(data, now) if outcome == "" else None
        if outcome == "" and progress is None:
            outcome = NOT_FOUND
        report.by_key[key] = VolumeProgress(progress, outcome)
        if outcome in CARD_OUTCOMES and not report.card_outcome:
            report.card_outcome = outcome


def _claim(person: str, keys: list[str]) -> list[str]:
    """The keys no one is reading again yet, now marked as being read (as many as may be in flight)."""
    claimed = []
    with _refreshing_lock:
        for key in keys:
            marker = _cache_key(person, key)
            if marker not in _refreshing and len(_refreshing) < REFRESHING_MOST:
                _refreshing.add(marker)
                claimed.append(key)
    return claimed


def _release(person: str, keys: list[str]) -> None:
    with _refreshing_lock:
        for key in keys:
            _refreshing.discard(_cache_key(person, key))


def _refresh_in_background(reader, person: str, keys: list[str]) -> None:
    """Read these (claimed) keys again without waiting: the answers land in the cache for the next poll."""

    generation = _generation[0]

    def read(key: str) -> None:
        try:
            outcome, data = _fetch(reader, key)
            if _generation[0] != generation:
                return  # the cache was cleared meanwhile (tests): this answer belongs to no one now
            _remember(person, key, outcome, data)
            if outcome != "":
                # The store refused or is down: the next poll asks in the foreground and says so,
                # instead of showing the last answer as if nothing had happened.
                _last.delete(_cache_key(person, key))
        finally:
            _release(person, [key])

    for key in keys:
        _refresh_pool.submit(read, key)


def _read_in_parallel(reader, person: str, keys: list[str]) -> dict[str, tuple[str, object]]:
    if not keys:
        return {}
    deadline = time.monotonic() + float(settings.HTRFLOW_S3_TIMEOUT) + 1.0
    with _pool_lock:
        futures = {key: _pool.submit(_fetch, reader, key) for key in keys}
    answers = {}
    for key, future in futures.items():
        try:
            outcome, data = future.result(timeout=max(0.01, deadline - time.monotonic()))
        except FuturesTimeout:
            future.cancel()
            outcome, data = TIMEOUT, None
        answers[key] = (outcome, data)
        _remember(person, key, outcome, data)
        if outcome in (SESSION_ENDED, UNREACHABLE):
            deadline = 0  # the others will say the same; do not wait for each of them
    return answers

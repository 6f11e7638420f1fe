"""Live progress of active volumes: each volume's `progress.json`, read with the person's own session.

Bounded per request: at most `limit` reads (24 by default), run in parallel on a small shared thread
pool. A page waits for them at most `HTRFLOW_STORE_WAIT_SECONDS` (well under a second) all together:
a read the store has not answered by then goes on in the background, its answer lands in the cache
for the next poll, and its row says "not known yet" meanwhile (outcome `PENDING`), never "timed out".
Bounded per person: at most `budget.BUDGET_READS` store reads per `budget.BUDGET_SECONDS` (shared
with the access checks), however many tabs and cards the person has open (the existing front end's
bound). Bounded per process: one read per person and key in flight (a poll does not ask again for
what an earlier poll is still reading), and at most `IN_FLIGHT_MOST` reads in flight at all.
Answers are cached per person and key, so a person's tabs share them: a little longer than a poll
period while the volume runs, an hour once its progress is final. A running volume's answer that has
just aged out is still shown while it is read again in the background (for at most
`STALE_SECONDS`), so a poll never waits for the store to say what it said a moment ago; the reads,
and their budget, are the same. So is a store that was down or slow past its own timeout: its
outcome is shown (the card's sentence) while it is asked again behind it. An answer the store
refuses is a state (`outcome`), never an error: a forbidden volume is marked on its row, an
unreachable store or an ended session gets one sentence for the whole card.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import dataclass, field, replace
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
TLS = "tls"  # not reached: the TLS handshake failed (results.store.outcomes.TLS)
STORE_FAULT = "store_fault"  # reached, and it answered 5xx (results.store.outcomes.STORE_FAULT)
TIMEOUT = "timeout"
NO_REASON = "no_reason"
UNREADABLE = "unreadable"
NOT_ASKED = "not_asked"
PENDING = "reading"  # asked, and not answered within the page's wait: the answer lands for the next poll

# Outcomes that keep a whole card's progress from being read: the card says so once, for the first
# one met (campaigns.wording.progress.CARD_SENTENCES); the others are said on the volume's row.
CARD_OUTCOMES = (NO_SESSION, SESSION_ENDED, UNREACHABLE, TLS, STORE_FAULT, TIMEOUT, NO_REASON)
# Outcomes of a volume whose progress this request does not know (asked later, or still being read).
UNANSWERED = (NOT_ASKED, TIMEOUT, PENDING)

# Answers live in their own in-process cache: done volumes' answers are kept an hour, and Django's
# default local cache holds only 300 entries, which one large campaign would churn through.
_answers = LocMemCache("htrbrowser-progress", {"OPTIONS": {"MAX_ENTRIES": 50_000, "CULL_FREQUENCY": 10}})

# The last answer for each running volume (or the store's failure to give one), kept past its freshness to be
# shown while it is read again.
_last = LocMemCache("htrbrowser-progress-last", {"OPTIONS": {"MAX_ENTRIES": 50_000, "CULL_FREQUENCY": 10}})
_in_flight: set[str] = set()  # cache keys being read now, for a page or in the background
_in_flight_lock = threading.Lock()
_generation = [0]  # bumped by clear_cache: a read that began before lands nowhere
IN_FLIGHT_MOST = 64  # reads in flight at most; past that a key waits for a later poll

_pool_lock = threading.Lock()
# Reads a page asks for, waited for at most the page's wait; those that outlive it finish here too.
_pool = ThreadPoolExecutor(max_workers=12, thread_name_prefix="progress")
# Reads again have their own threads: however many queue up, they never delay a read a page waits for.
_refresh_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="progress-again")


@dataclass(frozen=True)
class VolumeProgress:
    progress: Progress | None = None
    outcome: str = ""  # "" when read; otherwise one of the constants above

    @property
    def forbidden(self) -> bool:
        return self.outcome == FORBIDDEN

    @property
    def note(self) -> str:
        """What the row says instead of its progress, worded now for this reader ("" when read)."""
        return str(VOLUME_SENTENCES.get(self.outcome, ""))


@dataclass
class ProgressReport:
    by_key: dict[str, VolumeProgress] = field(default_factory=dict)
    card_outcome: str = ""
    reads: int = 0  # store reads this report cost (cached answers cost none)

    @property
    def card_sentence(self) -> str:
        """The card's one sentence for an outcome that kept its progress from being read, worded now for this
        reader ("" when none did). Answers are cached per person; their words are made at each request."""
        return str(CARD_SENTENCES.get(self.card_outcome, ""))

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
    with _in_flight_lock:
        _in_flight.clear()
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
        if outcome == UNREACHABLE and getattr(error, "cause", "") in (TLS, STORE_FAULT):
            outcome = error.cause  # said apart from a store that is down: each has another fix
        return outcome, None


def _kept(outcome: str, data) -> Progress | None:
    """What is kept of a read: the card's ``Progress`` (read without a time, aged when shown), never the
    parsed file. A file may hold anything up to PROGRESS_MAX_BYTES, and answers are kept for up to an hour
    in caches of 50,000 entries; a Progress is a few hundred bytes (at most that of 50 lowest-scored
    pages)."""
    return progress_from_json(data, None) if outcome == "" else None


def _aged(progress: Progress | None, now: datetime) -> Progress | None:
    if progress is None or progress.updated_at is None or now is None:
        return progress
    return replace(progress, age_seconds=max(0.0, (now - progress.updated_at).total_seconds()))


def _remember(person: str, key: str, outcome: str, data: Progress | None) -> None:
    marker = _cache_key(person, key)
    if outcome == "":
        stage = data.stage if data is not None else None
        seconds = FINAL_SECONDS if stage in FINAL_STAGES else RUNNING_SECONDS
        if stage in FINAL_STAGES:
            _last.delete(marker)  # kept an hour itself: nothing is left for the running answer to stand in for
        else:
            _last.set(marker, (outcome, data), STALE_SECONDS)
    elif outcome in (NOT_FOUND, FORBIDDEN):
        seconds = MISSING_SECONDS if outcome == NOT_FOUND else FORBIDDEN_SECONDS
        _last.delete(marker)
    else:
        # The store is down, or slow past its own timeout, or the session ended: never an answer to
        # keep, but what the next polls say (the card's sentence) while they ask again behind it.
        _last.set(marker, (outcome, None), STALE_SECONDS)
        return
    _answers.set(marker, (outcome, data), seconds)


def read_progress(
    request,
    keys: list[str],
    now: datetime,
    limit: int = READS_PER_REQUEST,
    extra_keys: list[str] = (),
    extra_limit: int = EXTRA_READS_PER_REQUEST,
) -> ProgressReport:
    """Progress for each key (in order of importance); keys past `limit` are marked NOT_ASKED, keys
    whose read has not come back within the page's wait PENDING.

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
    answers, to_read, to_refresh = _known_answers(person, wanted, extra, limit, extra_limit)
    to_read, to_refresh, pending = _claim_and_pay(person, to_read, to_refresh)
    answers.update(dict.fromkeys(pending, (PENDING, None)))  # an earlier poll's read of them is under way
    report.reads = len(to_read) + len(to_refresh)
    _start(reader, person, to_refresh, _refresh_pool)  # not waited for: the last answer is shown meanwhile
    answers.update(_wait_for(_start(reader, person, to_read, _pool)))
    _fill(report, wanted, answers, now)
    return report


def _known_answers(person: str, wanted: list[str], extra: set[str], limit: int, extra_limit: int):
    """What the caches say now, the keys to read (nothing known of them) and the keys to read again (an
    aged answer is shown meanwhile): at most `limit` reads, of them at most `extra_limit` extra keys."""
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
    return answers, to_read, to_refresh


def _claim_and_pay(person: str, to_read: list[str], to_refresh: list[str]):
    """The keys to read and to read again that no read is in flight for (now claimed) and that the
    person's budget pays for, reads first; and the keys to read whose read an earlier poll began."""
    reading, pending = _claim(person, to_read)
    refreshing, _busy = _claim(person, to_refresh)  # another tab's poll may be reading some already
    granted = budget.reads.take(person, len(reading) + len(refreshing))
    paid_refreshes = max(0, granted - len(reading))
    _release(person, reading[granted:] + refreshing[paid_refreshes:])
    return reading[:granted], refreshing[:paid_refreshes], pending


def _fill(report: ProgressReport, keys: list[str], answers: dict[str, tuple[str, object]], now: datetime) -> None:
    """Each key's progress or outcome (a key no read reached was not asked); the card says the first
    outcome that keeps a whole card's progress from being read, else that some is still being read."""
    for key in keys:
        outcome, data = answers.get(key, (NOT_ASKED, None))
        progress = _aged(data, now) if outcome == "" else None
        if outcome == "" and progress is None:
            outcome = NOT_FOUND
        report.by_key[key] = VolumeProgress(progress, outcome)
        if outcome in CARD_OUTCOMES and not report.card_outcome:
            report.card_outcome = outcome
    if not report.card_outcome and any(answer.outcome == PENDING for answer in report.by_key.values()):
        report.card_outcome = PENDING


def _claim(person: str, keys: list[str]) -> tuple[list[str], list[str]]:
    """The keys no one is reading yet, now marked as being read (as many as may be in flight), and the
    keys someone is reading already."""
    claimed, busy = [], []
    with _in_flight_lock:
        for key in keys:
            marker = _cache_key(person, key)
            if marker in _in_flight:
                busy.append(key)
            elif len(_in_flight) < IN_FLIGHT_MOST:
                _in_flight.add(marker)
                claimed.append(key)
    return claimed, busy


def _release(person: str, keys: list[str]) -> None:
    with _in_flight_lock:
        for key in keys:
            _in_flight.discard(_cache_key(person, key))


def _start(reader, person: str, keys: list[str], pool: ThreadPoolExecutor) -> dict[str, Future]:
    """Read these (claimed, paid for) keys on ``pool``. Each answer lands in the cache whether or not
    anyone still waits for it, and frees its key for the next read."""
    generation = _generation[0]

    def read(key: str) -> tuple[str, object]:
        try:
            outcome, data = _fetch(reader, key)
            data = _kept(outcome, data)
            if _generation[0] == generation:  # else the cache was cleared meanwhile (tests): it is no one's
                _remember(person, key, outcome, data)
            return outcome, data
        finally:
            if _generation[0] == generation:
                _release(person, [key])

    with _pool_lock:  # one request's reads queue together
        return {key: pool.submit(read, key) for key in keys}


def _wait_for(futures: dict[str, Future]) -> dict[str, tuple[str, object]]:
    """The answers that come within the page's wait (HTRFLOW_STORE_WAIT_SECONDS, for all of them
    together); the others are PENDING and land in the cache for the next poll."""
    deadline = time.monotonic() + float(settings.HTRFLOW_STORE_WAIT_SECONDS)
    answers = {}
    for key, future in futures.items():
        try:
            answers[key] = future.result(timeout=max(0.0, deadline - time.monotonic()))
        except FuturesTimeout:
            answers[key] = (PENDING, None)
            continue
        if answers[key][0] in (SESSION_ENDED, UNREACHABLE, TLS):
            deadline = 0  # the others will say the same; do not wait for each of them
    return answers

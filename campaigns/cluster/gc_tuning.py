"""Python's cyclic garbage collector, kept off what the readings hold.

A full pass of the collector walks every object it tracks and holds every thread meanwhile. At five
times the archive a namespace's reading is about 400 000 such objects (campaigns, volumes, their
sentences, the informers' objects): each full pass took about 300 ms, came about twice a minute
with no tab open and more often with 50 tabs polling, and freed nothing (a reading makes no
reference cycles; what it drops is freed as its last reference goes). Those pauses, not the
readings' own work, were the polls' slowest answers.

So after each reading everything the process holds is set aside from the collector (`gc.freeze`,
which costs nothing): its automatic passes look only at what came since, and stay short. Just
before, one pass collects what came since the last reading (only that: the rest is set aside
already), so garbage caught in a cycle by then (requests and answers make such cycles, a relist's
errors too) is freed instead of being set aside with the rest: set aside, the soak's worker held
20 to 45 MiB more after each window of relists. Objects are still freed as their last reference
goes; only a cycle that forms among objects already set aside waits. To bound that wait, once every
`THAW_SECONDS` the frozen objects are handed back and collected in one full pass, in a board's
thread after its reading (one pause every ten minutes).

A request in the middle of its view holds what it made so far: its part of a reading (the campaigns
it shows, in Django's template context, itself a reference cycle), and objects in cycles with the
request. Set aside then, all of it waited for the thaw once the request ended, and with it every
campaign the reading had replaced meanwhile: the soak's worker held 23 000 such objects (about
100 000 allocations) at one thaw. So a reading waits for a moment when no request is in its view
(`serving()`, marked by `htrbrowser.middleware.InViewMiddleware`), at most `QUIET_WAIT_SECONDS`, and
then collects and sets aside while requests wait to enter their views (a few milliseconds, a pass
holds every thread anyway); with no such moment it sets nothing aside this time (`skipped`) and the
next reading tries again. Probes and static files are answered before that middleware and do not
count; a download counts until its view has answered, not while its body streams.

The C allocator is set up for a long-lived server at start (`tune_malloc`), where the C library is
glibc, as in the image:
- Blocks of `LARGE_BLOCK_BYTES` or more each get a mapping of their own, unmapped as soon as they are
  freed. glibc does so from 128 KiB at first, but raises that bar to the size of every such block
  freed, up to 32 MiB: after the first list page's text (megabytes) was freed, every later one came
  from the heap, and the soak's worker held 37 MiB more heap after the first window of relists,
  nearly all of it free, and 18 MiB more RSS. The bar is set above the results proxy's 1 MiB chunks:
  at 256 KiB every chunk streamed was a fresh mapping, faulted in page by page and unmapped, and the
  proxy's workers spent 1.1 CPU-s per GiB instead of 0.4 (benchmarks/bench_proxy_speed.py).
- At most `MALLOC_ARENAS` heaps. glibc gives each new thread a heap of its own, up to eight per core,
  so that threads need not wait for each other to allocate; Python's threads allocate while holding
  the GIL, so they gain nothing from it, and each heap kept its own partly used pages: with those
  heaps (the worker runs some 50 threads) a 9-minute run of relists grew 172 -> 188 MiB after its
  warm-up, with two 172 -> 174 MiB.

Memory freed is also handed back to the system (`give_back`) after each thaw, and by an informer
after each relist: glibc's allocator otherwise keeps the heap's free pages, and the soak saw the
worker's RSS step up at every relist and never come down. `malloc_trim` returns them, in about a
millisecond when there is little to return (where the C library has it: glibc, as in the image;
elsewhere nothing is done). Four relists of the archive took the worker from 211 to 228 MiB without
it, from 210 to 215 MiB with it (when pages were still decoded whole: `pages.py` says why no more).
"""

from __future__ import annotations

import ctypes
import gc
import threading
import time
from contextlib import contextmanager

THAW_SECONDS = 600.0
LARGE_BLOCK_BYTES = 2 * 1024 * 1024
MALLOC_ARENAS = 2
M_MMAP_THRESHOLD, M_ARENA_MAX = -3, -8  # mallopt's parameter numbers, from glibc's malloc.h
QUIET_WAIT_SECONDS = 0.5

_lock = threading.Lock()
_last_thaw = {"at": time.monotonic()}
_quiet = threading.Condition(threading.Lock())
_in_view = {"requests": 0, "skipped": 0}  # requests in their views now; readings that set nothing aside


def _libc_function(name: str):
    try:
        return getattr(ctypes.CDLL(None), name, None)
    except OSError:
        return None


_trim = _libc_function("malloc_trim")
_mallopt = _libc_function("mallopt")


def tune_malloc() -> bool:
    """Large blocks always mapped on their own, and few heaps (see above); False where the C library
    has no `mallopt`. Best called before the process starts its threads."""
    if _mallopt is None:
        return False
    done = [_mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK_BYTES), _mallopt(M_ARENA_MAX, MALLOC_ARENAS)]
    return all(done)  # mallopt answers 1 for a setting taken


def give_back() -> bool:
    """Hand the C allocator's free pages back to the system; False where that cannot be done."""
    if _trim is None:
        return False
    _trim(0)
    return True


@contextmanager
def serving():
    """Around a request's view: a reading sets nothing aside while one is in it."""
    with _quiet:
        _in_view["requests"] += 1
    try:
        yield
    finally:
        with _quiet:
            _in_view["requests"] -= 1
            if not _in_view["requests"]:
                _quiet.notify_all()


def skipped() -> int:
    """Readings that found no moment without a request in its view, so set nothing aside."""
    return _in_view["skipped"]


def after_reading() -> None:
    """Once no request is in its view: collect what came since the last reading, then set aside from
    the collector what the process holds now; every `THAW_SECONDS`, first hand back what was set
    aside before, so that pass collects everything, and hand what it freed back to the system."""
    with _lock, _quiet:
        if not _quiet.wait_for(lambda: not _in_view["requests"], QUIET_WAIT_SECONDS):
            _in_view["skipped"] += 1
            return
        thawed = time.monotonic() - _last_thaw["at"] >= THAW_SECONDS
        if thawed:
            gc.unfreeze()
            _last_thaw["at"] = time.monotonic()
        gc.collect()  # after a thaw, everything; otherwise only what came since the last reading
        gc.freeze()
        if thawed:
            give_back()

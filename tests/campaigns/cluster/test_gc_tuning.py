"""campaigns.cluster.gc_tuning: what came since the last reading is collected and what a reading holds
is set aside from Python's cyclic collector, handed back and collected once per thaw period, so
garbage caught in a cycle still goes."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
import time
import weakref

from campaigns.cluster import board, gc_tuning
from tests.campaigns.cluster.test_board import cluster  # noqa: F401 - the board's fixture
from tests.campaigns.cluster.test_kube import NS, load_campaigns
from tests.fixtures.waiting import wait_until


class _Node:
    other: object = None


def _cycle() -> weakref.ref:
    """A reference cycle nothing else holds (garbage only the collector can free)."""
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    return weakref.ref(first)


def test_a_cycle_made_since_the_last_reading_is_collected_not_set_aside(monkeypatch):
    monkeypatch.setattr(gc_tuning, "THAW_SECONDS", 3600.0)
    monkeypatch.setitem(gc_tuning._last_thaw, "at", time.monotonic())
    gc.disable()  # no automatic pass between making the cycle and the reading
    try:
        alive = _cycle()
        gc_tuning.after_reading()
        assert alive() is None
    finally:
        gc.enable()


def test_a_cycle_among_objects_set_aside_waits_for_the_thaw_and_is_collected_then(monkeypatch):
    monkeypatch.setattr(gc_tuning, "THAW_SECONDS", 3600.0)
    monkeypatch.setitem(gc_tuning._last_thaw, "at", time.monotonic())
    first, second = _Node(), _Node()
    gc_tuning.after_reading()  # both alive, so set aside
    first.other, second.other = second, first
    alive = weakref.ref(first)
    del first, second  # now garbage, caught in a cycle among objects set aside
    gc_tuning.after_reading()
    gc.collect()
    assert alive() is not None and gc.get_freeze_count() > 0  # set aside: no pass sees it
    monkeypatch.setattr(gc_tuning, "THAW_SECONDS", 0.0)
    gc_tuning.after_reading()
    assert alive() is None  # handed back and collected


def test_the_board_sets_its_reading_aside_after_each_one(cluster, monkeypatch):  # noqa: F811
    calls = []
    monkeypatch.setattr(gc_tuning, "after_reading", lambda: calls.append(time.monotonic()))
    load_campaigns(cluster, 1)
    board.reading(NS)
    wait_until(lambda: len(calls) >= 1, what="a reading set aside")


def test_memory_a_thaw_frees_goes_back_to_the_system(monkeypatch):
    trims = []
    monkeypatch.setattr(gc_tuning, "_trim", trims.append)
    monkeypatch.setitem(gc_tuning._last_thaw, "at", time.monotonic())
    gc_tuning.after_reading()
    assert trims == []  # an ordinary reading frees nothing to give back
    monkeypatch.setattr(gc_tuning, "THAW_SECONDS", 0.0)
    gc_tuning.after_reading()
    assert trims == [0]


def test_the_c_library_here_can_give_memory_back():
    assert gc_tuning.give_back(), "malloc_trim was not found in this process's C library (glibc has it)"


class _Watched(threading.Condition):
    """The collector's condition, telling when a reading found a request in its view and began to wait."""

    def __init__(self):
        super().__init__(threading.Lock())
        self.held_back = threading.Event()

    def wait_for(self, predicate, timeout=None):
        def watched():
            quiet = predicate()
            if not quiet:
                self.held_back.set()
            return quiet

        return super().wait_for(watched, timeout)


def test_a_reading_waits_for_a_request_in_its_view_so_what_the_request_held_is_not_set_aside(monkeypatch):
    monkeypatch.setattr(gc_tuning, "THAW_SECONDS", 3600.0)
    monkeypatch.setitem(gc_tuning._last_thaw, "at", time.monotonic())
    quiet = _Watched()
    monkeypatch.setattr(gc_tuning, "_quiet", quiet)
    made, finish = threading.Event(), threading.Event()
    alive: list[weakref.ref] = []

    def request():
        with gc_tuning.serving():
            first, second = _Node(), _Node()  # what a view holds: alive now, a cycle once it ends
            first.other, second.other = second, first
            alive.append(weakref.ref(first))
            made.set()
            finish.wait(5)
            del first, second

    in_view = threading.Thread(target=request)
    in_view.start()
    made.wait(5)
    reading = threading.Thread(target=gc_tuning.after_reading)
    gc.disable()  # no automatic pass: only the reading's own may free the cycle
    try:
        reading.start()
        assert quiet.held_back.wait(5), "the reading did not wait for the request in its view"
        assert reading.is_alive(), "the reading set things aside while a request was in its view"
        finish.set()
        in_view.join(5)
        reading.join(5)
        assert alive[0]() is None  # collected by the reading's pass, not set aside until the thaw
    finally:
        gc.enable()


def test_a_reading_sets_nothing_aside_when_no_request_leaves_its_view_in_time(monkeypatch):
    monkeypatch.setattr(gc_tuning, "QUIET_WAIT_SECONDS", 0.2)
    monkeypatch.setitem(gc_tuning._last_thaw, "at", time.monotonic())
    gc.unfreeze()
    skipped = gc_tuning.skipped()
    with gc_tuning.serving():
        started = time.monotonic()
        gc_tuning.after_reading()
        waited = time.monotonic() - started
    assert gc.get_freeze_count() == 0
    assert gc_tuning.skipped() == skipped + 1
    assert waited >= 0.2
    gc_tuning.after_reading()  # the next reading, with no request in a view, sets aside again
    assert gc.get_freeze_count() > 0


def test_a_page_request_is_marked_in_its_view_and_a_probe_is_not(client, monkeypatch):
    seen = []
    original = gc_tuning.serving

    def serving():
        seen.append("in view")
        return original()

    monkeypatch.setattr(gc_tuning, "serving", serving)
    assert client.get("/healthz").status_code == 200
    assert seen == []
    client.get("/no-such-page")
    assert seen == ["in view"]


MALLOC_AFTER_START = """
import ctypes, json, os, sys, tempfile, threading
import django
class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                                     "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
libc.fopen.restype = ctypes.c_void_p
libc.fclose.argtypes = [ctypes.c_void_p]
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
if sys.argv[1] == "django":
    django.setup()
first = bytearray(8 << 20)  # a list page's text, about
del first  # glibc, left to itself, now serves blocks up to 8 MiB from the heap
mapped = libc.mallinfo2().hblkhd
second = bytearray(8 << 20)
mapped = libc.mallinfo2().hblkhd - mapped
held, together = [], threading.Barrier(6)

def allocate():
    held.append(bytes(4096))
    together.wait()  # all six alive at once: a heap a thread left behind would serve the next

threads = [threading.Thread(target=allocate) for _ in range(6)]
for each in threads:
    each.start()
for each in threads:
    each.join()
with tempfile.NamedTemporaryFile(suffix=".xml") as report:
    out = libc.fopen(report.name.encode(), b"w")
    libc.malloc_info(0, out)
    libc.fclose(out)
    heaps = open(report.name).read().count("<heap nr=")
print(json.dumps({"mapped": mapped, "heaps": heaps}))
"""


def malloc_after_start(how: str) -> dict:
    """In a fresh process, plain or once Django is set up: the bytes mapped for a second 8 MiB block
    after a first was freed, and glibc's heaps after six threads allocated."""
    run = subprocess.run([sys.executable, "-c", MALLOC_AFTER_START, how], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}, check=True)
    return json.loads(run.stdout)


def test_a_process_that_starts_django_maps_every_large_block_and_keeps_few_heaps():
    """A list page's text freed, the next one still gets a mapping of its own, unmapped when freed, so
    the heap does not grow to hold it (glibc alone raises the bar for mapping to the freed size); and
    threads share two heaps instead of one each."""
    plain, tuned = malloc_after_start("plain"), malloc_after_start("django")
    assert plain == {"mapped": 0, "heaps": 7}  # glibc alone: from the heap; the main heap and one per thread
    assert tuned["mapped"] >= 8 << 20
    assert tuned["heaps"] == gc_tuning.MALLOC_ARENAS

"""campaigns.cluster.collector: what came since the last reading is collected and what a reading holds
is set aside from Python's cyclic collector, handed back and collected once per thaw period, so
garbage caught in a cycle still goes."""

from __future__ import annotations

import gc
import time
import weakref

from campaigns.cluster import board, collector
from tests.campaigns.test_board import cluster  # noqa: F401 - the board's fixture
from tests.campaigns.test_kube import NS, load_campaigns
from tests.fixtures.kube import eventually


class _Node:
    other: object = None


def _cycle() -> weakref.ref:
    """A reference cycle nothing else holds (garbage only the collector can free)."""
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    return weakref.ref(first)


def test_a_cycle_made_since_the_last_reading_is_collected_not_set_aside(monkeypatch):
    monkeypatch.setattr(collector, "THAW_SECONDS", 3600.0)
    monkeypatch.setitem(collector._last_thaw, "at", time.monotonic())
    gc.disable()  # no automatic pass between making the cycle and the reading
    try:
        alive = _cycle()
        collector.after_reading()
        assert alive() is None
    finally:
        gc.enable()


def test_a_cycle_among_objects_set_aside_waits_for_the_thaw_and_is_collected_then(monkeypatch):
    monkeypatch.setattr(collector, "THAW_SECONDS", 3600.0)
    monkeypatch.setitem(collector._last_thaw, "at", time.monotonic())
    first, second = _Node(), _Node()
    collector.after_reading()  # both alive, so set aside
    first.other, second.other = second, first
    alive = weakref.ref(first)
    del first, second  # now garbage, caught in a cycle among objects set aside
    collector.after_reading()
    gc.collect()
    assert alive() is not None and gc.get_freeze_count() > 0  # set aside: no pass sees it
    monkeypatch.setattr(collector, "THAW_SECONDS", 0.0)
    collector.after_reading()
    assert alive() is None  # handed back and collected


def test_the_board_sets_its_reading_aside_after_each_one(cluster, monkeypatch):  # noqa: F811
    calls = []
    monkeypatch.setattr(collector, "after_reading", lambda: calls.append(time.monotonic()))
    load_campaigns(cluster, 1)
    board.reading(NS)
    eventually(lambda: len(calls) >= 1)


def test_memory_a_thaw_frees_goes_back_to_the_system(monkeypatch):
    trims = []
    monkeypatch.setattr(collector, "_trim", trims.append)
    monkeypatch.setitem(collector._last_thaw, "at", time.monotonic())
    collector.after_reading()
    assert trims == []  # an ordinary reading frees nothing to give back
    monkeypatch.setattr(collector, "THAW_SECONDS", 0.0)
    collector.after_reading()
    assert trims == [0]


def test_the_c_library_here_can_give_memory_back():
    assert collector.give_back(), "malloc_trim was not found in this process's C library (glibc has it)"

"""campaigns.cluster.informer against a misbehaving API server: back-off, spaced relists, recovery.

The API double misbehaves as real servers and proxies do (`KubeDouble.misbehave_watches`): every watch
ended at once, every watch answered with a plain list, every version expired. The informers must not
spin: watch starts per list stay about one a second at most, the process's CPU stays low, a compaction
costs each list one relist at a random moment, and data is fresh again soon after the server behaves.
Windows are a few seconds long; `benchmarks/bench_watch_backoff.py` measures a minute.
"""

from __future__ import annotations

import threading
import time

import pytest
from prometheus_client import REGISTRY

from campaigns.cluster import board, gc_tuning, informer, sources
from core import metrics
from devstack.kube_watch import END_AT_ONCE, EXPIRE, PLAIN_LIST
from tests.campaigns.cluster.test_kube import NS, campaign_pod, load_campaigns
from tests.fixtures.waiting import wait_until

WINDOW_SECONDS = 4.0


@pytest.fixture
def cluster(kube, settings):
    settings.HTRFLOW_NAMESPACES = [NS]
    settings.HTRFLOW_KUBE_TIMEOUT = 3.0
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.05
    settings.HTRFLOW_WRITE_STATUS = False
    kube.bookmark_seconds = 0.1
    board.stop_all()
    yield kube
    kube.misbehave_watches(None)
    board.stop_all()


def started(double) -> list[informer.Informer]:
    load_campaigns(double, 2)
    board.reading(NS)
    informers = board.board(NS).informers
    wait_until(lambda: all(each.watch_starts or not each.known for each in informers), what="every list to be watched")
    return informers


def watches_by_list(double) -> dict[tuple, int]:
    """Watch requests the double received, per list (path and selectors: one informer each)."""
    counted: dict[tuple, int] = {}
    for method, path, query in double.calls:
        if method == "GET" and query.get("watch") == "true":
            key = (path, query.get("labelSelector"), query.get("fieldSelector"))
            counted[key] = counted.get(key, 0) + 1
    return counted


def misbehaving_window(double, mode: str) -> tuple[dict[tuple, float], float]:
    """Watch starts per second per list, counted at the server while it misbehaves, and the
    process's CPU seconds meanwhile (the double's threads included)."""
    double.reset_calls()
    cpu = time.process_time()
    double.misbehave_watches(mode)
    time.sleep(WINDOW_SECONDS)
    cpu = time.process_time() - cpu
    counted = watches_by_list(double)
    assert counted, "no watch was started at all"
    return {key: count / WINDOW_SECONDS for key, count in counted.items()}, cpu


def sample(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


# --- the pure parts --------------------------------------------------------------------------------


def test_back_off_doubles_from_its_start_to_its_cap_with_jitter_and_resets():
    highest = informer.Backoff(1.0, 8.0, draw=lambda: 1.0)
    assert [highest.next() for _ in range(6)] == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    lowest = informer.Backoff(1.0, 8.0, draw=lambda: 0.0)
    assert [lowest.next() for _ in range(5)] == [0.5, 1.0, 2.0, 4.0, 4.0]
    lowest.reset()
    assert lowest.next() == 0.5
    drawn = [informer.Backoff(1.0, 8.0).next() for _ in range(200)]
    assert min(drawn) >= 0.5 and max(drawn) <= 1.0 and len(set(drawn)) > 100  # jittered, not in step


def test_how_a_watch_ended_is_told_by_its_length_and_what_it_brought():
    assert informer.WatchEnd(seconds=0.01).how == informer.SHORT
    assert informer.WatchEnd(seconds=0.2, changes=2, bookmarks=1).how == informer.SHORT
    assert informer.WatchEnd(seconds=0.2, changes=50).how == informer.HEALTHY  # a burst, then the end
    assert informer.WatchEnd(seconds=240).how == informer.QUIET  # no bookmarks: quiet, not broken
    assert informer.WatchEnd(seconds=240, bookmarks=4).how == informer.HEALTHY
    assert informer.WatchEnd(seconds=240, changes=1, not_a_stream=True).how == informer.NOT_A_STREAM


# --- against the double -----------------------------------------------------------------------------


def test_watches_ended_at_once_are_started_again_at_most_once_a_second_without_spinning(cluster):
    started(cluster)
    rates, cpu = misbehaving_window(cluster, END_AT_ONCE)
    assert max(rates.values()) <= 1.0, rates
    assert len(rates) >= 8 and sum(rates.values()) / len(rates) <= 1.0
    assert cpu <= 0.15 * WINDOW_SECONDS, f"{cpu:.2f} CPU-s in {WINDOW_SECONDS:g} s"
    assert sample("htrbrowser_watch_ends_total", source="pods", how="short") >= 1
    assert sample("htrbrowser_watch_backoff_seconds_total", source="pods") > 0
    assert b'htrbrowser_watch_starts_total{source="pods"}' in metrics.exposition()[0]
    # The server behaves again: a change made now is read within 10 s, without a banner.
    cluster.misbehave_watches(None)
    behaved = time.monotonic()
    cluster.put(campaign_pod("campaign-001", 0))
    wait_until(lambda: len(board.reading(NS).snapshot.pods) == 5, timeout=10, what="the new pod in the reading")
    assert time.monotonic() - behaved < 10
    assert board.reading(NS).banner() is None


def test_a_watch_answered_with_a_plain_list_is_recognised_and_backed_off(cluster):
    jobs = next(each for each in started(cluster) if each.source.field == "jobs")
    before, lists = sample("htrbrowser_watch_ends_total", source="jobs", how="not_a_stream"), jobs.lists
    rates, cpu = misbehaving_window(cluster, PLAIN_LIST)
    assert max(rates.values()) <= 1.0, rates
    assert cpu <= 0.15 * WINDOW_SECONDS, f"{cpu:.2f} CPU-s in {WINDOW_SECONDS:g} s"
    assert sample("htrbrowser_watch_ends_total", source="jobs", how="not_a_stream") > before
    assert len(jobs.items()) == 2 and jobs.lists == lists  # the list it got was not taken for changes
    cluster.misbehave_watches(None)
    cluster.put(campaign_pod("campaign-000", 0))
    wait_until(lambda: len(board.reading(NS).snapshot.pods) == 5, timeout=10, what="the new pod in the reading")


def test_after_a_compaction_each_list_relists_once_at_its_own_moment(cluster, monkeypatch):
    informers = started(cluster)
    by_field = {each.source.field: each for each in informers}
    listed: dict[str, list[float]] = {}
    lock = threading.Lock()
    real = sources.list_source

    def list_source(source, transform=None):
        with lock:
            listed.setdefault(source.field, []).append(time.monotonic())
        if source.field in by_field:  # in the informer's own thread: a bookmark from now on comes after this list
            by_field[source.field].server_bookmarks = None
        return real(source, transform)

    monkeypatch.setattr(sources, "list_source", list_source)
    cluster.put(campaign_pod("campaign-000", 0))
    cluster.compact()
    cluster.drop_watches()  # every watch opens again from a version the server no longer holds
    known = [each.source.field for each in informers if each.known]
    # Each list read again, and its watch from the version read brings bookmarks: the server holds that
    # version, so the watch will not expire again and there is nothing left to list.
    wait_until(
        lambda: all(field in listed and by_field[field].server_bookmarks for field in known),
        timeout=10,
        what=lambda: f"every list read again and watched (read: {sorted(listed)} of {sorted(known)})",
    )
    assert all(len(times) == 1 for times in listed.values()), listed
    moments = sorted(times[0] for times in listed.values())
    assert moments[-1] - moments[0] >= 0.3, "every list came back in the same instant"
    assert len(board.settle(NS).snapshot.pods) == 5


def test_a_relist_keeps_what_did_not_change_so_nothing_is_held_twice_or_projected_again(cluster, monkeypatch):
    informers = started(cluster)
    pods = next(each for each in informers if each.source.field == "pods")
    before = board.settle(NS)
    held = {informer._key(pod): pod for pod in pods.items()}
    lists = pods.lists
    relists = []
    monkeypatch.setattr(gc_tuning, "give_back", lambda: relists.append(True))
    cluster.put(campaign_pod("campaign-000", 0))  # one pod changes while the watches are gone
    cluster.compact()
    cluster.drop_watches()
    wait_until(lambda: pods.lists > lists, timeout=10, what="the pods listed again")
    after = board.settle(NS)
    now = {informer._key(pod): pod for pod in pods.items()}
    changed = informer._key(campaign_pod("campaign-000", 0))
    assert changed in now
    assert all(now[key] is pod for key, pod in held.items() if key != changed), "a relist made a second copy"
    assert after.edition > before.edition
    untouched = [c for c in after.campaigns if c.name != "campaign-000"]
    assert untouched and all(any(c is old for old in before.campaigns) for c in untouched), (
        "a campaign whose objects did not change was projected again"
    )
    assert next(c for c in after.campaigns if c.name == "campaign-000") not in before.campaigns
    assert relists, "a relist did not give its pages' memory back"


def test_a_server_that_expires_every_version_is_relisted_further_and_further_apart(cluster):
    informers = started(cluster)
    pods = next(each for each in informers if each.source.field == "pods")
    lists = pods.lists
    cluster.misbehave_watches(EXPIRE)
    time.sleep(WINDOW_SECONDS)
    assert pods.lists - lists <= WINDOW_SECONDS / 1.0  # 0.5-1 s, then 1-2 s, then 2-4 s...
    assert board.reading(NS).banner() is None  # every list answers: the data is current


def test_a_quiet_watch_without_bookmarks_is_left_to_run_and_opened_again_at_once(cluster, monkeypatch):
    monkeypatch.setattr(informer, "WATCH_SECONDS", 2)
    cluster.bookmark_seconds = 3600.0  # a server that sends no bookmarks
    informers = started(cluster)
    pods = next(each for each in informers if each.source.field == "pods")
    # each watch ran its 2 s, then the next
    wait_until(lambda: pods.watch_starts >= 3, timeout=10, what="a third watch of the pods")
    assert pods.server_bookmarks is False
    assert pods._backoff.steps == 0  # never backed off
    cluster.put(campaign_pod("campaign-000", 0))
    wait_until(lambda: len(board.reading(NS).snapshot.pods) == 5, timeout=5, what="the new pod in the reading")


def test_watches_that_keep_ending_early_are_a_banner_until_a_watch_lasts_again(cluster, monkeypatch):
    monkeypatch.setattr(informer, "WATCHES_FAILING_SECONDS", 1.0)
    started(cluster)
    cluster.misbehave_watches(END_AT_ONCE)
    stale = wait_until(lambda: (r := board.reading(NS)).unreachable_since and r, what="a stale reading")
    assert stale.banner().startswith("The cluster has been answering with errors since ")
    assert stale.snapshot.pods  # the last state read is still shown
    cluster.bookmark_seconds = 3600.0  # behaving again, but quiet: a watch's lasting is its proof
    cluster.misbehave_watches(None)
    wait_until(lambda: board.reading(NS).unreachable_since is None, timeout=10, what="a current reading")


def test_a_plain_list_for_every_watch_is_a_banner_and_fresh_data_follows_the_server_behaving(cluster, monkeypatch):
    monkeypatch.setattr(informer, "WATCHES_FAILING_SECONDS", 1.0)
    started(cluster)
    cluster.misbehave_watches(PLAIN_LIST)
    wait_until(lambda: board.reading(NS).unreachable_since, timeout=10, what="a stale reading")
    cluster.misbehave_watches(None)
    cluster.put(campaign_pod("campaign-001", 0))
    reading = wait_until(
        lambda: (r := board.reading(NS)).unreachable_since is None and len(r.snapshot.pods) == 5 and r,
        what="a current reading with the new pod",
    )
    assert reading.banner() is None

"""What the campaign pages read from the cluster and the bucket stays bounded whatever it holds: a
termination message is parsed as JSON only within a size and a depth, and a volume's progress is kept
between polls as the card's few values, never as the file it was read from."""

from __future__ import annotations

import json
import pickle
import tracemalloc

import pytest
from django.utils import timezone

from campaigns.domain.projection import reason_from_pod
from campaigns.domain.projection.reasons import MESSAGE_JSON_MOST
from campaigns.models import TEXT_LIMIT, progress_from_json
from campaigns.store import progress as progress_module
from devstack import kube_samples as o
from results.accounts.session import ResultsSession

MiB = 1024 * 1024


class AnsweringReader:
    """Answers progress.json from a dict, as the store would; counts what it was asked."""

    def __init__(self, answers):
        self.answers = answers
        self.asked = []

    def get_json(self, key, max_bytes=None):
        self.asked.append(key)
        return self.answers[key]


class PersonRequest:
    results_session = ResultsSession(user="someone", access_key="k", secret_key="s")


@pytest.fixture
def fake_reader(monkeypatch):
    progress_module.clear_cache()

    def install(answers):
        reader = AnsweringReader(answers)
        monkeypatch.setattr(progress_module, "_reader", lambda request: reader)
        return reader

    yield install
    progress_module.clear_cache()


def traced(work):
    tracemalloc.start()
    try:
        return work(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_termination_message_of_a_million_tiny_values_is_read_as_text_not_parsed():
    message = '{"stage": "stream", "error": [' + "{}," * 350_000 + "{}]}"
    assert len(message) > 64 * MESSAGE_JSON_MOST
    pod = o.failed_wrapper_pod("parish-records-1870", 11, message, exit_code=1)
    reason, peak = traced(lambda: reason_from_pod(pod))
    assert reason.stage is None and len(reason.error) <= TEXT_LIMIT  # taken as plain text, bounded
    assert peak < 2 * len(message), f"{peak / MiB:.1f} MiB"  # parsed, it was 350,000 objects and some 25 MiB


def test_a_termination_message_nested_deep_is_read_as_text_without_recursing():
    message = '{"a":' * 2_000 + "1" + "}" * 2_000
    assert len(message) < MESSAGE_JSON_MOST
    pod = o.failed_wrapper_pod("parish-records-1870", 11, message, exit_code=1)
    reason = reason_from_pod(pod)
    assert reason.stage is None and reason.error.startswith('{"a":{"a":')


def test_a_wrapper_message_within_the_bounds_is_still_read_as_json():
    pod = o.failed_wrapper_pod("parish-records-1870", 11, o.wrapper_message("setup", True, "HTTP 404"))
    reason = reason_from_pod(pod)
    assert (reason.stage, reason.permanent, reason.error) == ("setup", True, "HTTP 404")


def _cached_entries() -> list[bytes]:
    """What the progress caches hold now, as stored (pickled)."""
    caches = (progress_module._answers, progress_module._last)
    return [value for cache in caches for value in cache._cache.values()]


def test_the_progress_cache_keeps_the_cards_values_not_the_file(fake_reader):
    key = "htr-batch/p/V1/progress.json"
    sample = {
        "stage": "stream",
        "pages_total": 412,
        "pages_done": 137,
        "last_page": "0138",
        "updated_at": "2026-09-24T08:31:47+00:00",
        "quality": {"mean": 0.9, "lowest": [{"page": "0007", "quality": 0.5}]},
    }
    # Within the 64 KiB a progress.json may be: anything besides, which the card does not read.
    hostile = {**sample, "junk": [[] for _ in range(10_000)], "more": "x" * 15_000}
    assert len(json.dumps(hostile)) <= progress_module.PROGRESS_MAX_BYTES
    fake_reader({key: hostile})
    now = timezone.now()
    report = progress_module.read_progress(PersonRequest(), [key], now)
    assert report.get(key).progress == progress_from_json(sample, now)
    entries = _cached_entries()
    assert entries and max(len(entry) for entry in entries) < 2 * 1024  # the file pickled is over 60 KiB
    assert len(pickle.dumps(hostile)) > 30 * max(len(entry) for entry in entries)


def test_a_cached_progress_is_aged_when_it_is_shown(fake_reader):
    key = "htr-batch/p/V2/progress.json"
    data = {"stage": "done", "pages_total": 5, "pages_done": 5, "updated_at": "2026-09-24T08:31:47+00:00"}
    reader = fake_reader({key: data})
    first_time = timezone.now()
    first = progress_module.read_progress(PersonRequest(), [key], first_time).get(key).progress
    later = progress_module.read_progress(PersonRequest(), [key], first_time + timezone.timedelta(minutes=5))
    assert len(reader.asked) == 1  # the second answer came from the cache
    assert later.get(key).progress.age_seconds == first.age_seconds + 300

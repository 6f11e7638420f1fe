"""Benchmark: every viewer and parser of bucket content fed hostile inputs at 1×, 4× and 16× a size near its
cap (issue 34, item 6), printing per request the time, the peak memory and how both grow.

Run with `make bench-hostile` (or `.venv/bin/python -m pytest benchmarks/bench_hostile.py -q -s`); part of
`make bench`. Linear is the goal: 16× the input should cost about 16× the time (the `time ×` column).

How each figure is taken:
- `time` is the wall time of the work: one run when it takes REPEAT_BELOW s or more, else the median
  of at least three runs (of more for quick work, up to SHORT_RUNS_SECONDS of them). Other work on
  the machine shows in it: each table says the load average. `peak` is tracemalloc's peak of Python
  allocations in this process during one more run, traced from just before it (the input already
  built is not counted; C libraries' own memory is not traced). The store is a separate process:
  its memory is never counted, its time is (a viewer waits for it).
- The log and ALTO viewers, the manifest summary and the IIIF reader are asked through the real
  views with Django's test client, logged in as the store double's `full` account
  (tests/fixtures/store.py: a local S3 server with per-account permissions): one GET = the store
  read + parsing + the template's render, in this thread. The other parsers are called directly.
- Where a module constant caps rows (lines drawn, pages listed, thumbnails), the constant is raised
  for the measurement so the cap cannot hide the growth, and the same sizes are measured again with
  the cap as shipped. A constant this code does not have is reported as `no cap`.
- A size whose cost (its timed and traced runs together), projected from the growth measured so far,
  would pass HOSTILE_BUDGET_SECONDS (120 s by default) is cut to the largest multiple that fits, or
  skipped when none does; its row says so, with the projection.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import logging
import math
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.test import Client

from benchmarks import hostile_inputs as make
from campaigns.domain import pace, rerun
from campaigns.domain.projection import project, reason_from_pod, records
from campaigns.store import progress
from devstack import kube_samples as objects
from results.accounts import ratelimit
from results.accounts.session import ResultsSession
from results.formats import alto as alto_format
from results.store.reader import ResultsReader
from tests.fixtures.session import login_as, session_key_file  # noqa: F401 - a sealing key for the logins
from tests.fixtures.store import store, store_double, store_prefix  # noqa: F401 - the local S3 store

BUDGET = float(os.environ.get("HOSTILE_BUDGET_SECONDS", "120"))
REPEAT_BELOW = 5.0  # a run shorter than this is repeated: at least three runs, the median kept
SHORT_RUNS_SECONDS = 0.5  # quick work is run until this much time is spent (at most 51 runs)
MULTIPLES = (1, 4, 16)
RAISED = 10_000_000  # what a row cap is raised to for a measurement
RESULTS_URL = "http://testserver/results"
MiB = 1024 * 1024
# The log viewer's cap on the lines one answer shows (issue 34 adds it; older code has none).
LOG_ROW_CAPS = (("results.viewers.log", "ROWS_PER_VIEW"),)


# --- measuring ----------------------------------------------------------------------------------------


@dataclass
class Point:
    """One size of one case: what it was, what the product answered, and what that cost."""

    name: str  # "1×", "4×", ... with any note on a cut size
    multiple: float
    size: str  # the input in words
    answer: str = ""
    seconds: float | None = None
    peak: int | None = None
    traced_seconds: float = 0.0  # what the traced run took (tracing slows allocation-heavy work down)


def _timed(work: Callable[[], str]) -> tuple[float, str]:
    started = time.perf_counter()
    answer = work()
    return time.perf_counter() - started, answer


def measure(work: Callable[[], str]) -> tuple[float, int, str, float]:
    """(seconds, tracemalloc peak in bytes, answer, seconds of the traced run) of ``work``: see the
    module's docstring."""
    gc.collect()
    seconds, answer = _timed(work)
    if seconds < REPEAT_BELOW:
        runs = [seconds]
        while len(runs) < 3 or (sum(runs) < SHORT_RUNS_SECONDS and len(runs) < 51):
            runs.append(_timed(work)[0])
        seconds = statistics.median(runs)
    gc.collect()
    tracemalloc.start()
    try:
        traced = _timed(work)[0]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return seconds, peak, answer, traced


def _projected(done: list[Point], multiple: float) -> tuple[float, float]:
    """(seconds projected for ``multiple``, timed and traced runs together; the growth exponent): from the
    last two sizes measured, at least linear, at most cubic."""
    last, exponent = done[-1], 1.0
    if len(done) > 1 and done[-2].seconds > 0.005 and last.seconds > done[-2].seconds:
        exponent = math.log(last.seconds / done[-2].seconds) / math.log(last.multiple / done[-2].multiple)
    exponent = min(3.0, max(1.0, exponent))
    both = last.seconds + last.traced_seconds
    return both * (multiple / last.multiple) ** exponent, exponent


def run_sizes(prepare: Callable[[float], tuple[str, Callable[[], str]]], sizes) -> list[Point]:
    """Each (name, multiple) of ``sizes`` measured in turn; ``prepare(multiple)`` builds the input (not
    timed) and returns it in words and the work. A size projected past BUDGET is cut to fit."""
    done: list[Point] = []
    for name, multiple in sizes:
        if done:
            projected, exponent = _projected(done, multiple)
            if projected > BUDGET:
                last = done[-1]
                fits = last.multiple * (BUDGET / (last.seconds + last.traced_seconds)) ** (1 / exponent)
                if fits < last.multiple * 1.5:
                    done.append(Point(f"{name} skipped", multiple, f"projected {projected:.0f} s > budget"))
                    break
                name = f"{name} cut to {fits:.1f}× ({projected:.0f} s projected)"
                multiple = fits
        size, work = prepare(multiple)
        seconds, peak, answer, traced = measure(work)
        done.append(Point(name, multiple, size, answer, seconds, peak, traced))
    return done


# --- row caps raised for a measurement ----------------------------------------------------------------


@contextlib.contextmanager
def caps_raised(caps):
    """Raise each (module, constant) of ``caps`` that exists to RAISED; yields the words for what was done."""
    found = []
    for module_name, name in caps:
        module = importlib.import_module(module_name)
        shipped = getattr(module, name, None)
        if isinstance(shipped, int):
            found.append((module, name, shipped))
    try:
        for module, name, _shipped in found:
            setattr(module, name, RAISED)
        yield ", ".join(f"{m.__name__}.{n} raised from {s:,} to {RAISED:,}" for m, n, s in found)
    finally:
        for module, name, shipped in found:
            setattr(module, name, shipped)


def shipped_caps(caps) -> str:
    words = []
    for module_name, name in caps:
        value = getattr(importlib.import_module(module_name), name, None)
        if isinstance(value, int):
            words.append(f"{module_name}.{name} = {value:,}")
    return ", ".join(words)


def run_case(title: str, includes: str, prepare, caps=(), sizes=None) -> list[list[Point]]:
    """Measure a case and print its table(s): with its row caps raised and as shipped when it has any."""
    sizes = sizes or [(f"{m}×", m) for m in MULTIPLES]
    shipped = shipped_caps(caps)
    tables = []
    if shipped:
        with caps_raised(caps) as raised:
            tables.append(run_sizes(prepare, sizes))
            report(f"{title} — row caps raised: {raised}", includes, tables[-1])
        tables.append(run_sizes(prepare, sizes))
        report(f"{title} — row caps as shipped: {shipped}", includes, tables[-1])
    else:
        tables.append(run_sizes(prepare, sizes))
        missing = " or ".join(f"{m}.{n}" for m, n in caps)
        report(f"{title}" + (f" — no cap ({missing} not in this code)" if caps else ""), includes, tables[-1])
    return tables


def _ratio(value, first) -> str:
    return f"{value / first:6.1f}" if value is not None and first else "     -"


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value >= 1 else f"{value * 1000:.2f} ms"


FIGURES = (
    "time: wall time, median of 3+ runs under 5 s, else one run; peak: tracemalloc peak of Python allocations in "
    "this process during one more, traced run (the store's own process not counted); × columns: over the 1× row"
)


def report(title: str, includes: str, points: list[Point]) -> None:
    first = points[0]
    width = max(12, *(len(p.name) for p in points))
    print(f"\n== {title}\n   each figure: {includes}; load average {os.getloadavg()[0]:.1f} at the end")
    print(f"   {FIGURES}")
    print(f"   {'size':<{width}} {'input':<30} {'answer':<30} {'time':>9} {'peak':>10} {'time ×':>7} {'peak ×':>7}")
    for p in points:
        if p.seconds is None:
            print(f"   {p.name:<{width}} {p.size}")
            continue
        peak = f"{p.peak / MiB:7.1f} MiB"
        print(
            f"   {p.name:<{width}} {p.size:<30} {p.answer[:30]:<30} {_seconds(p.seconds):>9} {peak:>10}"
            f" {_ratio(p.seconds, first.seconds):>7} {_ratio(p.peak, first.peak):>7}"
        )


# --- the viewers, through Django's test client ----------------------------------------------------------

QUIET = ("django.request", "htrbrowser.requests", "results.accounts.login")


@pytest.fixture(autouse=True)
def quiet_request_logs():
    """No line per request (or traceback per 500) between the tables: a 500 is named in its row."""
    loggers = [logging.getLogger(name) for name in QUIET]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    yield
    for logger, level in zip(loggers, levels, strict=True):
        logger.setLevel(level)


def _answer(response, what: str) -> str:
    """The status and ``what`` of a test client's response, or the exception a 500 came from."""
    if response.status_code >= 500 and getattr(response, "exc_info", None):
        return f"{response.status_code} {response.exc_info[0].__name__}"
    return f"{response.status_code}, {what}"


class Viewer:
    """Django's test client logged in as the store double's ``full`` account, and a volume to fill."""

    def __init__(self, store, prefix: str):  # noqa: F811 - the fixture's value
        self.store = store
        self.namespace = prefix.rstrip("/")  # the volume's place, as the results layout has it
        self.base = f"{prefix}p/V1"
        self.client = Client(raise_request_exception=False)  # a 500 is a figure here, not a failure
        login_as(self.client, store.accounts["full"])

    def put(self, name: str, body) -> str:
        """Write ``<volume>/<name>`` (``.txt`` for the log) and return its results address."""
        key = f"{self.base}{name}"
        self.store.put(key, body)
        return f"{RESULTS_URL}/{key}"

    def get(self, path: str, params: dict) -> Callable[[], str]:
        def work() -> str:
            response = self.client.get(path, params)
            return _answer(response, f"{len(response.content) / MiB:.2f} MiB page")

        return work


@pytest.fixture
def viewer(store, store_prefix, session_key_file, settings):  # noqa: F811
    settings.HTRFLOW_RESULTS_URL = RESULTS_URL
    volume = Viewer(store, store_prefix)
    volume.put("/iiif.json", make.iiif_manifest(4, volume.namespace, RESULTS_URL).encode())
    tiny = volume.put(".txt", make.one_character_lines(10))
    volume.get("/log", {"log": tiny})()  # the account's access to the volume is proven once, not timed
    return volume


VIEW = "one GET through Django's test client: store read + parse + template render"


def test_run_log_viewer_on_one_character_lines(viewer):
    """The 128 KiB tail of one-character lines: 1× = 2,000 lines, up to 16× and the tail's worth."""

    def prepare(multiple):
        lines = round(2000 * multiple)
        address = viewer.put(".txt", make.one_character_lines(lines))
        return f"{lines:,} lines, {lines * 2 / 1024:.0f} KiB", viewer.get("/log", {"log": address})

    tail = 128 * 1024 / 2 / 2000
    sizes = [(f"{m}×", m) for m in MULTIPLES] + [(f"{tail:.1f}× (the whole tail)", tail)]
    tables = run_case("/log, a run log of one-character lines", VIEW, prepare, LOG_ROW_CAPS, sizes)
    assert all(len(table) >= 2 for table in tables)


def test_alto_viewer_on_long_outlines(viewer):
    """400 lines whose outlines have 625, 2,500 and 10,000 points (the most a polygon is read with):
    16× is a file near the 16 MiB cap."""

    def prepare(multiple):
        points = round(625 * multiple)
        data = make.alto_long_outlines(400, points)
        address = viewer.put("/alto/0001.xml", data)
        return f"400 × {points:,} points, {len(data) / MiB:.1f} MiB", viewer.get("/alto", {"src": address})

    cap = f"{VIEW}; the file cap is {alto_format.MAX_ALTO_BYTES / MiB:.0f} MiB"
    tables = run_case("/alto, a page of long outlines", cap, prepare)
    assert all(len(table) >= 2 for table in tables)


def test_alto_viewer_on_tiny_lines(viewer):
    """Many one-word lines: near the row caps (caps raised, then as shipped), and near the 16 MiB file cap."""

    def prepare_for(first: int):
        def prepare(multiple):
            lines = round(first * multiple)
            data = make.alto_tiny_lines(lines)
            address = viewer.put("/alto/0001.xml", data)
            return f"{lines:,} lines, {len(data) / MiB:.1f} MiB", viewer.get("/alto", {"src": address})

        return prepare

    caps = (("results.viewers.alto", "DRAWN_LINES_MAX"), ("results.formats.alto", "MAX_LINES"))
    near_rows = run_case("/alto, a page of tiny lines near the row caps", VIEW, prepare_for(1250), caps)
    near_cap = round(alto_format.MAX_ALTO_BYTES * 0.97 / len(make.TINY_LINE) / 16)  # 16× is just under the cap
    title = "/alto, a page of tiny lines near the file cap (caps as shipped)"
    near_bytes = run_case(title, VIEW, prepare_for(near_cap))
    assert all(len(table) >= 2 for table in near_rows + near_bytes)


def test_manifest_summary_and_iiif_reader(viewer):
    """manifest.json (summary on the log page, 4 MiB cap) and iiif.json (the ALTO page's image and strip, 8 MiB cap),
    realistic records near their caps, and nested arrays as deep as the cap allows."""
    log = viewer.put(".txt", make.one_character_lines(10))
    page = viewer.put("/alto/0001.xml", make.alto_tiny_lines(10))
    manifest_bytes = len(make.volume_manifest(100)) / 100

    def manifest(multiple):
        pages = round(4 * MiB / manifest_bytes / 16 * multiple * 0.97)
        data = make.volume_manifest(pages).encode()
        address = viewer.put("/manifest.json", data)
        return f"{pages:,} pages, {len(data) / MiB:.2f} MiB", viewer.get("/log", {"log": log, "manifest": address})

    def iiif(multiple):
        pages = round(8 * MiB / 940 / 16 * multiple * 0.97)
        data = make.iiif_manifest(pages, viewer.namespace, RESULTS_URL).encode()
        viewer.put("/iiif.json", data)
        return f"{pages:,} canvases, {len(data) / MiB:.2f} MiB", viewer.get("/alto", {"src": page})

    def deep(name: str, cap: int, path: str, params: dict):
        def prepare(multiple):
            depth = round(cap / 16 * multiple) - 1
            viewer.put(name, make.deep_json(depth))
            return f"{depth:,} '[' ({depth / MiB:.2f} MiB)", viewer.get(path, params)

        return prepare

    pages = (("results.viewers.manifest", "PAGES_LISTED"),)
    tables = run_case("/log?manifest=, manifest.json of many pages", VIEW, manifest, pages)
    manifest_address = f"{RESULTS_URL}/{viewer.base}/manifest.json"
    deep_manifest = deep("/manifest.json", 4 * MiB, "/log", {"log": log, "manifest": manifest_address})
    tables += run_case("/log?manifest=, manifest.json nested deep", VIEW, deep_manifest)
    tables += run_case("/alto, iiif.json of many canvases", VIEW, iiif, (("results.viewers.iiif", "THUMBNAILS_MAX"),))
    tables += run_case("/alto, iiif.json nested deep", VIEW, deep("/iiif.json", 8 * MiB, "/alto", {"src": page}))
    viewer.put("/iiif.json", make.iiif_manifest(4, viewer.namespace, RESULTS_URL).encode())
    assert all(len(table) >= 2 for table in tables)


# --- the parsers, called directly ---------------------------------------------------------------------------


def _outcome(work: Callable[[], object]) -> Callable[[], str]:
    """The work, answering in words: what it returned, or the exception it raised (a figure, not a failure)."""

    def worded() -> str:
        try:
            result = work()
        except Exception as error:  # noqa: BLE001 - what a hostile input makes a parser raise is the finding
            return f"raised {type(error).__name__}"
        return result if isinstance(result, str) else f"returned {type(result).__name__}"

    return worded


def _clear(module, name: str) -> None:
    """Empty an lru_cache the product keeps of parsed text, so each run parses anew (when it has one)."""
    cached = getattr(module, name, None)
    if hasattr(cached, "cache_clear"):
        cached.cache_clear()


def test_progress_file(store, store_prefix):  # noqa: F811
    """progress.json, 64 KiB cap (campaigns.store.progress): read and parsed as a card's poll does."""
    account = store.accounts["full"]
    reader = ResultsReader(ResultsSession("bench", account.access_key, account.secret_key))
    fetch = getattr(progress, "_fetch", None) or (lambda r, key: ("", r.get_json(key)))
    now = objects.NOW
    key = f"{store_prefix}p/V1/progress.json"

    def read():
        outcome, data = fetch(reader, key)
        if outcome:
            return f"outcome {outcome!r}"
        return "progress" if progress.progress_from_json(data, now) else "no progress"

    def prepare_with(build):
        def prepare(multiple):
            size = round(64 * 1024 / 16 * multiple) - 1
            data = build(size)
            store.put(key, data)
            return f"{len(data) / 1024:.1f} KiB", _outcome(read)

        return prepare

    includes = "progress._fetch (store read + json as a card's poll) + progress_from_json, called directly"
    cap = progress.PROGRESS_MAX_BYTES // 1024
    title = f"progress.json of many scored pages ({cap} KiB cap)"
    tables = run_case(title, includes, prepare_with(make.progress_record))
    tables += run_case("progress.json nested deep", includes, prepare_with(make.deep_json))
    assert all(len(table) >= 2 for table in tables)


def test_campaign_status_record():
    """A status ConfigMap's failedVolumes (1,000,000 characters read at most) and pace (2,000)."""
    pace_cap = getattr(pace, "RECORD_MOST", 2000)

    def prepare_with(failed, pace_text):
        def prepare(multiple):
            size = round(1_000_000 / 16 * multiple) - 1
            data = {"failedVolumes": failed(size), "pace": pace_text(round(pace_cap / 16 * multiple) - 1)}

            def read():
                _clear(records, "_failed_volumes")
                failed = records.failed_volumes_from_record(data)
                timeline = pace.timeline_from_record(data["pace"])
                return f"{len(failed)} volumes, {'a' if timeline else 'no'} timeline"

            return f"{size / 1024:.0f} KiB + pace {len(data['pace']):,} chars", _outcome(read)

        return prepare

    includes = "records.failed_volumes_from_record + pace.timeline_from_record, called directly, cache emptied"
    timeline = lambda n: '{"v": 1, "points": [' + "[1, 1]," * ((n - 28) // 7) + "[1, 1]]}"  # noqa: E731 - n chars at most
    realistic = prepare_with(make.failed_volumes_text, timeline)
    deep = prepare_with(lambda n: make.deep_json(n).decode(), lambda n: make.deep_json(n).decode())
    tables = run_case("status record, failedVolumes of many volumes", includes, realistic)
    tables += run_case("status record nested deep", includes, deep)
    assert all(len(table) >= 2 for table in tables)


def test_rerun_file():
    """The re-run file of a campaign whose volumes all failed, from a campaign record (a ConfigMap, at most
    1 MiB) of short lines or of long image lists."""

    def prepare_with(line_chars: int):
        def prepare(multiple):
            text, volumes = make.volumes_txt(round(MiB / 16 * multiple * 0.98), line_chars)
            failed = f"0-{volumes - 1}"
            job = objects.finished_job("hostile", "uid-hostile", completed="", failed=failed, completions=volumes)
            snapshot = objects.scene(
                jobs=[job], records=[objects.campaign_record("hostile", text)], status_records=[], workloads=[], pods=[]
            )

            def write():
                _clear(importlib.import_module("campaigns.domain.projection.volume_parts"), "_volume_lines")
                [campaign] = project(snapshot, objects.NOW)
                plan = rerun.plan_rerun(campaign)
                rerun.outlook(plan)
                return f"{len(rerun.campaign_file(plan)) / 1024:.0f} KiB file, {plan.count:,} volumes"

            return f"{volumes:,} volumes, {len(text) / 1024:.0f} KiB", _outcome(write)

        return prepare

    includes = "project (parses volumes.txt) + plan_rerun + outlook + campaign_file, called directly"
    tables = run_case("re-run file, volumes.txt of short lines", includes, prepare_with(60))
    tables += run_case("re-run file, volumes.txt of long image lists", includes, prepare_with(3900))
    assert all(len(table) >= 2 for table in tables)


def test_termination_messages():
    """A wrapper's termination message: Kubernetes keeps 4 KiB, so 1× = 4 KiB, and beyond (a cluster's API
    may answer anything); JSON nested deep."""

    def prepare_with(build):
        def prepare(multiple):
            message = build(round(4096 * multiple))
            pod = objects.failed_wrapper_pod("hostile", 0, message)

            def read():
                reason = reason_from_pod(pod)
                return f"stage {reason.stage!r}, error {len(reason.error):,} chars"

            return f"{len(message) / 1024:.0f} KiB", _outcome(read)

        return prepare

    includes = "projection.reason_from_pod of one failed pod, called directly"
    tables = run_case("termination message, a long error", includes, prepare_with(make.termination_message))
    deep = prepare_with(lambda n: make.deep_object_text(n // 6))
    tables += run_case("termination message nested deep", includes, deep)
    assert all(len(table) >= 2 for table in tables)


# --- the login API ------------------------------------------------------------------------------------------


def test_login_api_body(store, session_key_file, settings):  # noqa: F811
    """POST /results/_login with a body nested deep, a large flat object, and bodies over the 16 KiB cap."""
    client = Client(raise_request_exception=False)

    def post(body: bytes) -> Callable[[], str]:
        def work() -> str:
            ratelimit.reset()  # every attempt counts against the login limits: start each from none
            answer = client.post(
                "/results/_login", data=body, content_type="application/json", HTTP_ORIGIN="http://testserver"
            )
            return _answer(answer, f"{len(answer.content):,} bytes")

        return work

    def prepare_with(build, first: int):
        def prepare(multiple):
            body = build(round(first * multiple))
            return f"{len(body) / 1024:.1f} KiB", post(body)

        return prepare

    includes = "one POST through Django's test client (body read + parse + answer; no store call for these bodies)"
    tables = run_case("login body nested deep", includes, prepare_with(make.deep_json, 1000))
    tables += run_case("login body, a large flat object", includes, prepare_with(make.many_keys_object, 1000))
    tables += run_case("login body over the cap", includes, prepare_with(make.many_keys_object, 16 * 1024 + 1))
    assert all(len(table) >= 2 for table in tables)

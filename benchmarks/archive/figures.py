"""The archive benchmark's measurements, in one run, and how they are printed.

Order: the stand-ins start with the archive loaded; the raw LIST calls a snapshot needs are timed
with the real client (before the product runs, so nothing competes); gunicorn starts; a person logs
in; the first `GET /` (cold), then warm ones; worker memory; the page's size; then the scene starts
moving and 1, then 20 tabs poll for a minute each. Every figure says what it includes.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from kubernetes import client

from benchmarks.archive.app import App
from benchmarks.archive.servers import Servers
from benchmarks.archive.size import CAMPAIGNS, FINISHING_PER_STEP, SCALE, TABS
from benchmarks.archive.tabs import parse, run_tabs
from campaigns.cluster import sources
from devstack.store import DEMO_LOGINS

NS = "htr-batch"
PAGE_SIZE = 500
TIMEOUT = (10, 60)
RAW_REPEATS, RAW_BUDGET = 3, 20.0  # at most 3 samples, no new one after 20 s
WARM_REPEATS, WARM_BUDGET = 5, 30.0
TAB_COUNTS = (1, TABS)
TAB_SECONDS = 60.0
STEADY_FROM = 20.0  # seconds into the one-tab run: steady state is measured after this
CYCLE = 5.0
KUEUE = ("kueue.x-k8s.io", "v1beta2")

# The list calls of one snapshot as campaigns/cluster/sources.py makes them (its selectors; paths, pages of 500).
SNAPSHOT_LISTS = (
    ("jobs (campaigns)", "jobs", sources.CAMPAIGN_JOBS, None),
    ("jobs (warm-ups)", "jobs", sources.WARMUP_JOBS, None),
    ("configmaps (campaign records)", "configmaps", sources.CAMPAIGN_RECORDS, None),
    ("configmaps (status records)", "configmaps", sources.STATUS_RECORDS, None),
    ("configmaps (pipelines)", "configmaps", sources.PIPELINE_CONFIGMAPS, None),
    ("pods", "pods", sources.JOB_PODS, sources.UNFINISHED_PODS),
    ("pods (finished warm-ups)", "pods", sources.WARMUP_PODS, sources.SUCCEEDED_PODS),
    ("workloads", "workloads", None, None),
    ("localqueues", "localqueues", None, None),
    ("clusterqueues", "clusterqueues", None, None),
    ("workloadpriorityclasses", "workloadpriorityclasses", None, None),
    ("resourceflavors", "resourceflavors", None, None),
    ("persistentvolumeclaims", "persistentvolumeclaims", None, None),
    ("events (first page)", "events", None, None),
    ("deployments (Kueue's namespace)", "deployments", None, None),
    ("pods (Kueue's controller)", "kueue-pods", sources.KUEUE_CONTROLLER_PODS, None),
)
KUEUE_NAMESPACE = "kueue-system"  # the setting's default, which the benchmark's app runs with


# --- raw LIST --------------------------------------------------------------------------------------


def api_client(url: str, token: str) -> client.ApiClient:
    configuration = client.Configuration()
    configuration.host = url
    configuration.api_key = {"BearerToken": token}
    configuration.api_key_prefix = {"BearerToken": "Bearer"}
    configuration.retries = 0
    return client.ApiClient(configuration)


def _one_page(api: client.ApiClient, plural: str, labels, fields, token):
    core, batch, custom = client.CoreV1Api(api), client.BatchV1Api(api), client.CustomObjectsApi(api)
    apps = client.AppsV1Api(api)
    options = dict(limit=PAGE_SIZE, _preload_content=False, _request_timeout=TIMEOUT)
    if labels:
        options["label_selector"] = labels
    if fields:
        options["field_selector"] = fields
    if token:
        options["_continue"] = token
    if plural == "jobs":
        return batch.list_namespaced_job(NS, **options)
    if plural == "configmaps":
        return core.list_namespaced_config_map(NS, **options)
    if plural == "pods":
        return core.list_namespaced_pod(NS, **options)
    if plural == "kueue-pods":
        return core.list_namespaced_pod(KUEUE_NAMESPACE, **options)
    if plural == "deployments":
        return apps.list_namespaced_deployment(KUEUE_NAMESPACE, **options)
    if plural == "persistentvolumeclaims":
        return core.list_namespaced_persistent_volume_claim(NS, **options)
    if plural == "events":
        return core.list_namespaced_event(NS, **options)
    if plural in ("clusterqueues", "workloadpriorityclasses", "resourceflavors"):
        return custom.list_cluster_custom_object(*KUEUE, plural, **options)
    return custom.list_namespaced_custom_object(*KUEUE, NS, plural, **options)


def raw_lists(api: client.ApiClient) -> dict:
    """Every list of one snapshot, pages followed (events: one page, as the app reads them), JSON decoded."""
    items = {}
    started = time.perf_counter()
    for name, plural, labels, fields in SNAPSHOT_LISTS:
        token, count = None, 0
        while True:
            answer = json.loads(_one_page(api, plural, labels, fields, token).data)
            count += len(answer.get("items") or [])
            token = (answer.get("metadata") or {}).get("continue")
            if not token or plural == "events":
                break
        items[name] = count
    return {"seconds": time.perf_counter() - started, "items": items}


# --- helpers ---------------------------------------------------------------------------------------


def _api_bytes(before: dict, after: dict, name: str = "kube") -> int:
    return sum(after[name][k] - before[name][k] for k in ("bytes_up", "bytes_down"))


def _requests(before: dict, after: dict, what: str) -> int:
    return after["store"]["requests"].get(what, 0) - before["store"]["requests"].get(what, 0)


def _percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def _samples(take, most: int, budget: float) -> list:
    """Up to `most` samples, at least one; none started once `budget` seconds have passed."""
    began, found = time.monotonic(), []
    while len(found) < most and (not found or time.monotonic() - began < budget):
        found.append(take())
    return found


def _timed_get(session, url: str) -> tuple[float, object]:
    started = time.perf_counter()
    answer = session.get(url, timeout=120)
    return time.perf_counter() - started, answer


# --- the run ---------------------------------------------------------------------------------------


def measure(found: dict | None = None) -> dict:
    """Run every measurement; figures go into `found` as they come (so a failure still shows some)."""
    found = {} if found is None else found
    found.update(load_before=os.getloadavg(), began=time.monotonic())
    with Servers() as servers:
        info = servers.info
        found["scene"] = {"built": info["built"], "build_seconds": info["build_seconds"]}
        api = api_client(info["raw_url"], info["token"])
        before = servers.counts()
        raws = _samples(lambda: raw_lists(api), RAW_REPEATS, RAW_BUDGET)
        after = servers.counts()
        api.close()
        found["raw"] = {
            "seconds": statistics.median(r["seconds"] for r in raws),
            "all_seconds": [r["seconds"] for r in raws],
            "items": raws[0]["items"],
            "bytes": _api_bytes(before, after, "raw") / len(raws),
        }
        with tempfile.TemporaryDirectory(prefix="bench-archive-app-") as folder:
            app = App(Path(folder), info["kubeconfig"], info["s3_endpoint"], info["bucket"])
            try:
                _measure_app(app.start(), servers, found)
            except BaseException:
                print(app.log_tail())
                raise
            finally:
                app.stop()
    found["load_after"] = os.getloadavg()
    found["total_seconds"] = time.monotonic() - found.pop("began")
    return found


def _measure_app(app: App, servers: Servers, found: dict) -> None:
    found["ready_seconds"] = app.ready_seconds
    session = app.login(*DEMO_LOGINS["full"])
    before, cpu = servers.counts(), app.cpu_seconds()
    cold_seconds, page = _timed_get(session, app.base + "/")
    if page.status_code != 200:
        raise RuntimeError(f"GET / answered {page.status_code}: {page.text[:300]}")
    found["cold"] = {"seconds": cold_seconds, "cpu": app.cpu_seconds() - cpu,
                     "api_bytes": _api_bytes(before, servers.counts())}
    warm = _samples(lambda: _timed_get(session, app.base + "/")[0], WARM_REPEATS, WARM_BUDGET)
    found["warm"] = {"seconds": statistics.median(warm), "all_seconds": warm}
    found["rss"] = sorted(app.rss().values())
    parsed = parse(page.text)
    found["page"] = {"bytes": len(page.content), "elements": parsed.elements, "polls": len(parsed.polls),
                     "encoding": page.headers.get("Content-Encoding", "none")}
    servers.move(True)
    found["tabs"] = {}
    for count in TAB_COUNTS:
        found["tabs"][count] = _tab_run(app, servers, session.cookies.get_dict(), count, parsed)
    found["moved"] = servers.move(False)["moved"]


def _tab_run(app: App, servers: Servers, cookies: dict, count: int, page) -> dict:
    marks: dict = {}

    def start_mark():  # when polling starts: page loads are not part of what polling costs
        marks["start"] = (servers.counts(), app.cpu_seconds())

    def steady_mark():
        marks["counts"], marks["time"] = servers.counts(), time.monotonic()

    at = [(0.0, start_mark)] + ([(STEADY_FROM, steady_mark)] if count == 1 else [])
    tabs = run_tabs(app.base, cookies, count, TAB_SECONDS, at=at, fallback=page)
    # The window ends when the last answer in flight has come (polls are not sent after TAB_SECONDS).
    end_counts, end_cpu, ended = servers.counts(), app.cpu_seconds(), time.monotonic()
    start_counts, start_cpu = marks["start"]
    window = ended - tabs[0].started
    polls = [poll for tab in tabs for poll in tab.polls]
    latencies = [poll.seconds for poll in polls if not poll.failed]
    cycles = window / CYCLE
    cpu = end_cpu - start_cpu
    figures = {
        "mode": tabs[0].mode,
        "opening_seconds": tabs[0].opening_seconds,
        "opened": sum(1 for tab in tabs if tab.opened),
        "window": window,
        "polls": len(polls),
        "by_kind": {kind: sum(1 for p in polls if p.kind == kind) for kind in sorted({p.kind for p in polls})},
        "errors": sum(1 for p in polls if p.failed),
        "error_kinds": sorted({p.error or str(p.status) for p in polls if p.failed}),
        "stopped_286": sum(1 for p in polls if p.status == 286),
        "p50": _percentile(latencies, 0.5),
        "p95": _percentile(latencies, 0.95),
        "cpu": cpu,
        "cpu_per_tab_cycle": cpu / count / cycles,
        "api_bytes_per_minute": _api_bytes(start_counts, end_counts) * 60 / window,
        "progress_gets_per_cycle": _requests(start_counts, end_counts, "GET progress.json") / cycles,
        "received_per_tab_cycle": sum(p.received for p in polls) / count / cycles,
    }
    if "counts" in marks:
        figures["steady_api_bytes_per_minute"] = _api_bytes(marks["counts"], end_counts) * 60 / (ended - marks["time"])
    return figures


# --- printing --------------------------------------------------------------------------------------


def _mb(value: float) -> str:
    return f"{value / 1e6:.1f} MB"


def report(found: dict) -> list[str]:
    raw, cold, warm, page = found["raw"], found["cold"], found["warm"], found["page"]
    built = found["scene"]["built"]
    pods = built.get("Pod running", 0) + built.get("Pod failed", 0)
    lines = [
        f"archive benchmark (ARCHIVE_SCALE={SCALE}): {CAMPAIGNS} campaigns x 5 000 volumes, gunicorn as the "
        "Dockerfile runs it, default settings",
        f"scene: {pods} pods ({built.get('Pod running', 0)} running), {built.get('Job', 0)} Jobs, "
        f"{built.get('ConfigMap record', 0)} campaign records, {built.get('progress.json', 0)} progress.json; "
        f"built in {found['scene']['build_seconds']:.1f} s; gunicorn ready in {found['ready_seconds']:.1f} s; "
        f"load average {found['load_before'][0]:.1f} before, {found['load_after'][0]:.1f} after (2 cores); "
        f"whole benchmark {found['total_seconds']:.0f} s",
        f"raw LIST ({len(SNAPSHOT_LISTS)} list calls of one snapshot, paged at {PAGE_SIZE}, real client, "
        f"JSON decoded, median of {len(raw['all_seconds'])}): {raw['seconds']:.2f} s, {_mb(raw['bytes'])} on the "
        "wire; items "
        + ", ".join(f"{name} {n}" for name, n in raw["items"].items()),
        f"cold list page (first GET / after start, logged in; includes the snapshot read, progress reads, "
        f"status record writes): {cold['seconds']:.2f} s = {cold['seconds'] / raw['seconds']:.2f}x raw LIST; "
        f"app CPU {cold['cpu']:.2f} s; API server {_mb(cold['api_bytes'])}",
        f"warm list page (median of {len(warm['all_seconds'])} GET / one after another, same person): "
        f"{warm['seconds'] * 1000:.0f} ms "
        f"(all: {', '.join(f'{s * 1000:.0f}' for s in warm['all_seconds'])} ms)",
        "gunicorn worker RSS after rendering the list: " + ", ".join(f"{r / 2**20:.0f} MiB" for r in found["rss"]),
        f"list page: {page['bytes'] / 1000:.0f} KB of HTML (content encoding: {page['encoding']}), "
        f"{page['elements']} elements, {page['polls']} polling elements",
    ]
    for count, tab in found["tabs"].items():
        lines.append(
            f"{count} tab{'s' if count > 1 else ''} (pages loaded in {tab['opening_seconds']:.0f} s"
            + (f", {count - tab['opened']} too late: they poll a copy" if tab["opened"] < count else "")
            + f") polling {TAB_SECONDS:.0f} s + {tab['window'] - TAB_SECONDS:.0f} s for answers in flight "
            f"({tab['mode']}; the scene moves "
            f"~{FINISHING_PER_STEP} volumes per 5 s): {tab['polls']} polls {tab['by_kind']}, "
            f"p50 {tab['p50'] * 1000:.0f} ms, "
            f"p95 {tab['p95'] * 1000:.0f} ms, errors {tab['errors']} {tab['error_kinds'] or ''}, "
            f"286 stops {tab['stopped_286']}"
        )
        lines.append(
            f"    app CPU (gunicorn master + workers) {tab['cpu']:.1f} s = {tab['cpu_per_tab_cycle']:.3f} s per tab "
            f"per 5-s cycle = {tab['cpu_per_tab_cycle'] / cold['cpu']:.2f}x one cold page's CPU; "
            f"API server {_mb(tab['api_bytes_per_minute'])}/min; progress GETs {tab['progress_gets_per_cycle']:.0f} "
            f"per 5 s (one person); answers {tab['received_per_tab_cycle'] / 1000:.0f} KB per tab per cycle"
        )
        if "steady_api_bytes_per_minute" in tab:
            lines.append(
                f"    steady state, one page open (from {STEADY_FROM:.0f} s to the end): API server "
                f"{_mb(tab['steady_api_bytes_per_minute'])}/min"
            )
    return lines

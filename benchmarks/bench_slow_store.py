"""Benchmark: pages, the read API and the probe while the results store answers every request after 4 s.

Run with `make bench-slow-store` (or `.venv/bin/python -m pytest benchmarks/bench_slow_store.py -s`).
It starts the devstack's Kubernetes, S3 and image doubles with the demo scene and runs the app as
the Dockerfile runs it (gunicorn, one worker, its threads). Several sessions of three accounts log in
and open the list once at full speed (so each account's access is proved, as for people already at
work when the store slows down); then, side by side in one run, two phases of POLL_SECONDS each:
the store at normal speed, and the store answering every request only after STORE_DELAY seconds
(the double's `slow` knob: a real wait in the server, below the store timeout of 5 s). In each
phase every session asks in turn for the list page with one running campaign's card open, that
campaign's read API answer (which reads its volumes' progress) and the campaign list of the read
API, a second apart, while one more client asks `/healthz` four times a second. It prints
p50/p95/p99 and status counts of each, how many answers said "progress not known yet", and, under
the slow store, what a new login, its first page, a raw file and the log viewer answer and how long
they take (they wait for the store; a person whose access was never proved gets 503, "could not be
checked", with `Retry-After`: nothing is known yet that could be shown to them).

What the figures include: loopback only, the doubles in this process's children, gunicorn's worker
serving everything, every client in this process's threads (their load is theirs too). A request
that gets no answer within TIMEOUT counts as status 0.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import requests

STORE_DELAY = 4.0
POLL_SECONDS = float(os.environ.get("SLOW_STORE_POLL_SECONDS", "60"))  # per phase
SESSIONS_PER_ACCOUNT = 2
ACCOUNTS = ("full", "limited", "project")
PAUSE = 1.0  # between one session's requests
HEALTH_EVERY = 0.25
TIMEOUT = 15.0
NOT_KNOWN = "not known yet"  # a row's "Progress not known yet: ...", a card's "...some progress is not known yet..."


def _setup() -> None:
    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))


class Recorder:
    """Every answer of a phase: (what was asked, seconds, status), and how many said "not known yet"."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seconds: dict[str, list[float]] = {}
        self.statuses: dict[str, Counter] = {}
        self.not_known = Counter()

    def ask(self, session: requests.Session, what: str, url: str) -> requests.Response | None:
        began = time.perf_counter()
        try:
            answer = session.get(url, timeout=TIMEOUT)
            status = answer.status_code
        except requests.RequestException:
            answer, status = None, 0
        seconds = time.perf_counter() - began
        with self.lock:
            self.seconds.setdefault(what, []).append(seconds)
            self.statuses.setdefault(what, Counter())[status] += 1
            if answer is not None and NOT_KNOWN in answer.text:
                self.not_known[what] += 1
        return answer


def _quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    return f"p50 {pick(0.5):7.1f} ms  p95 {pick(0.95):7.1f} ms  p99 {pick(0.99):7.1f} ms"


def _poll(base: str, session: requests.Session, record: Recorder, until: float, offset: int) -> None:
    campaigns = _running_campaigns(base, session)  # those this session's account may see
    turn = offset
    while time.monotonic() < until:
        namespace, name = campaigns[turn % len(campaigns)]
        turn += 1
        for what, url in (
            ("list page (one card open)", f"{base}/?open={namespace}/{name}"),
            ("campaign page", f"{base}/campaigns/{namespace}/{name}"),
            ("read API: campaign", f"{base}/api/v1/jobs/{namespace}/{name}"),
            ("read API: list", f"{base}/api/v1/jobs"),
        ):
            if time.monotonic() >= until:
                return
            record.ask(session, what, url)
            time.sleep(PAUSE)


def _probe(base: str, record: Recorder, until: float) -> None:
    session = requests.Session()
    while time.monotonic() < until:
        record.ask(session, "/healthz", base + "/healthz")
        time.sleep(HEALTH_EVERY)


def _phase(base: str, sessions) -> Recorder:
    record = Recorder()
    until = time.monotonic() + POLL_SECONDS
    threads = [threading.Thread(target=_probe, args=(base, record, until), daemon=True)]
    threads += [
        threading.Thread(target=_poll, args=(base, session, record, until, n), daemon=True)
        for n, session in enumerate(sessions)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(POLL_SECONDS + 2 * TIMEOUT)
    return record


def _running_campaigns(base: str, session: requests.Session) -> list[tuple[str, str]]:
    jobs = session.get(base + "/api/v1/jobs", timeout=TIMEOUT).json()
    running = [(j["namespace"], j["name"]) for j in jobs if (j.get("counts") or {}).get("active")]
    return running or [(j["namespace"], j["name"]) for j in jobs[:3]]


def _timed(session: requests.Session, method: str, url: str, **kwargs) -> tuple[float, requests.Response | None]:
    began = time.perf_counter()
    try:
        answer = session.request(method, url, timeout=TIMEOUT, **kwargs)
    except requests.RequestException:
        answer = None
    return time.perf_counter() - began, answer


def _said(answer: requests.Response | None) -> str:
    if answer is None:
        return "no answer"
    text = answer.text
    if "application/json" in answer.headers.get("Content-Type", ""):
        text = str(answer.json().get("detail") or answer.json().get("error") or "") if answer.text else ""
    for sentence in ("did not answer in time", "could not be checked", "could not be reached"):
        if sentence in text:
            return f'{answer.status_code} "...{sentence}..."'
    return str(answer.status_code)


def _one_off(app, session: requests.Session, log_key: str) -> list[str]:
    """What a person meets under the slow store outside the polling: a login, its first page, a raw file
    and the log viewer (these wait for the store, within its timeout)."""
    from devstack.store import DEMO_LOGINS

    lines = []
    user, password = DEMO_LOGINS["full"]
    fresh = requests.Session()
    seconds, answer = _timed(fresh, "POST", app.base + "/results/_login", json={"username": user, "password": password},
                             headers={"Origin": app.base})
    lines.append(f"  a new login                      {seconds * 1000:7.0f} ms  {_said(answer)}")
    seconds, answer = _timed(fresh, "GET", app.base + "/")
    lines.append(f"  its first list page (never proved){seconds * 1000:6.0f} ms  {_said(answer)}")
    path = f"/results/{log_key}"
    seconds, answer = _timed(session, "GET", app.base + path)
    lines.append(f"  a raw file (a run log)           {seconds * 1000:7.0f} ms  {_said(answer)}")
    seconds, answer = _timed(session, "GET", app.base + "/log", params={"log": app.base + path})
    lines.append(f"  the log viewer                   {seconds * 1000:7.0f} ms  {_said(answer)}")
    return lines


def _report(name: str, record: Recorder) -> list[str]:
    lines = [name]
    for what in ("/healthz", "list page (one card open)", "campaign page", "read API: campaign", "read API: list"):
        values = record.seconds.get(what, [])
        if not values:
            lines.append(f"  {what:26} no answers")
            continue
        statuses = ", ".join(f"{status or 'none'}: {count}" for status, count in sorted(record.statuses[what].items()))
        known = f"  not known yet {record.not_known[what]}" if what != "/healthz" else ""
        lines.append(f"  {what:26} {_quantiles(values)}  statuses {{{statuses}}}{known}")
    return lines


def run() -> tuple[list[str], list[Recorder]]:
    _setup()
    from benchmarks.archive.app import App
    from devstack.images import ImageServer
    from devstack.kubeapi import KubeDouble
    from devstack.scene import build_scene, load_scene
    from devstack.store import DEMO_LOGINS, StoreDouble

    lines, records = [], []
    with tempfile.TemporaryDirectory() as folder:
        kube = KubeDouble().start("127.0.0.1", 0)
        store = StoreDouble().start("127.0.0.1", 0)
        images = ImageServer().start("127.0.0.1", 0)
        app = None
        try:
            scene = build_scene(datetime.now(UTC), images.base, "http://127.0.0.1:1/results")
            load_scene(scene, kube, store, images)
            kubeconfig = str(kube.write_kubeconfig(Path(folder) / "kubeconfig"))
            app = App(Path(folder), kubeconfig, store.endpoint, store.bucket).start()
            sessions = [app.login(*DEMO_LOGINS[name]) for name in ACCOUNTS for _ in range(SESSIONS_PER_ACCOUNT)]
            for session in sessions:
                session.get(app.base + "/", timeout=TIMEOUT)  # each account's access proved at full speed
            campaigns = _running_campaigns(app.base, sessions[0])
            lines.append(f"{len(sessions)} sessions of {', '.join(ACCOUNTS)}, each polling the running campaigns "
                         f"its account may see ({len(campaigns)} for full) in turn; {POLL_SECONDS:g} s per phase; "
                         f"load average {os.getloadavg()[0]:.2f} at the start")
            records.append(_phase(app.base, sessions))
            lines += _report("store at normal speed:", records[-1])
            print("\n".join(lines), flush=True)
            store.slow(STORE_DELAY)
            records.append(_phase(app.base, sessions))
            lines += _report(f"store answering every request after {STORE_DELAY:g} s:", records[-1])
            lines += _one_off(app, sessions[0], next(key for key in scene.files if key.endswith(".txt")))
            lines.append(f"load average {os.getloadavg()[0]:.2f} at the end")
        finally:
            if app is not None:
                app.stop()
            images.stop()
            store.stop()
            kube.stop()
    return lines, records


def test_slow_store_figures():
    lines, records = run()
    print("\n" + "\n".join(lines))
    for record in records:
        for what, statuses in record.statuses.items():
            assert not any(status >= 500 or status == 0 for status in statuses), (what, statuses)


if __name__ == "__main__":
    print("\n".join(run()[0]))

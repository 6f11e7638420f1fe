"""Benchmark: a soak at archive scale with a fault every few minutes (`make bench-soak`).

`SOAK_MINUTES` (default 30) long, it runs the archive scene (benchmarks/archive: 40 campaigns of
5 000 volumes, moving ~2 volumes per 5 s) in its servers child, the product under the Dockerfile's
gunicorn command, and against it: 20 tabs polling the list as htmx does (benchmarks/archive/tabs.py),
16 slow downloads of a 1 MiB result file at ~5 KiB/s (two accounts, re-opened when they end), a
probe asking `/healthz` every second and `/readyz` every 5 s, the read API (`/api/v1/jobs`) every
second, the list page every 15 s and a small result file every 3 s. The product reaches the API
server and the store through a fault proxy each (benchmarks/faultproxy.py), and every
`SOAK_FAULT_SECONDS` (default 180) one fault begins, in turn: the API server gone 20 s (connection
refused, open connections cut), watches expired 20 s (the double answers every watch 410), the
store slow 30 s (every answer after 4 s), the store gone 20 s. `SOAK_FAULTS` (comma-separated names)
takes only those in turn, to look at one closer in a shorter run.

What it prints:

- status counts per window (before the first fault, then from each fault's start to the next's),
  by what asked; any 5xx with its URL; "no answer" is a timeout or a broken connection;
- recovery of each fault: the time from its end until the read API shows a change the scene made
  after it ended (its done volumes summed over campaigns exceed what the scene had finished at the
  end, and the answer is not stale); for store faults also until a result file is read again. The
  scene moves every 5 s, so up to 5 s of it is waiting for the next change: the "lag" column is
  from that change to the read API showing it;
- the gunicorn worker's RSS, threads and open file descriptors from /proc every 10 s, and their
  growth from the end of the warm-up (`WARMUP_SECONDS`, or a third of a short run) to the end.

Loopback only; the stand-ins run in the servers child, the clients in this process's threads.
`SOAK_KEEP_LOG=<file>` keeps gunicorn's log there for a closer look.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import boto3
import requests
import yaml
from botocore.config import Config

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.archive.app import App  # noqa: E402
from benchmarks.archive.servers import Servers  # noqa: E402
from benchmarks.archive.tabs import parse, run_tabs  # noqa: E402
from benchmarks.faultproxy import FaultProxy  # noqa: E402
from devstack.store import DEMO_LOGINS, WRITER_LOGIN  # noqa: E402

TABS = 20
DOWNLOADS = 16
DOWNLOADERS = ("full", "limited")  # the accounts that download, half each
FILE_BYTES = 1024 * 1024
READ_BYTES, READ_PAUSE = 1024, 0.2  # 5 KiB/s
TIMEOUT = 10.0
WARMUP_SECONDS = 300.0
SAMPLE_SECONDS = 10.0
MOVE_ASK_SECONDS = 0.5
SLOW_STORE_SECONDS = 4.0
TABS_END_SECONDS = 300.0  # the tabs poll for the soak's length from when their pages came
REQUEST_5XX = re.compile(r"\b(GET|HEAD|POST|PUT|DELETE) (\S+) (5\d\d) \d+ ms")
# (name, seconds, what the proxies and the double do meanwhile)
FAULTS = (
    ("API server gone", 20.0),
    ("watches expired", 20.0),
    ("store slow", 30.0),
    ("store gone", 20.0),
)


def soak_minutes() -> float:
    return float(os.environ.get("SOAK_MINUTES", "") or 30)


def fault_seconds() -> float:
    return float(os.environ.get("SOAK_FAULT_SECONDS", "") or 180)


def faults() -> tuple[tuple[str, float], ...]:
    """The faults taken in turn: all of `FAULTS`, or those `SOAK_FAULTS` names (comma-separated), to
    look at one closer in a shorter run."""
    wanted = [name.strip() for name in os.environ.get("SOAK_FAULTS", "").split(",") if name.strip()]
    unknown = set(wanted) - {name for name, _seconds in FAULTS}
    if unknown:
        raise ValueError(f"SOAK_FAULTS names no such fault: {sorted(unknown)}; the faults are {[n for n, _ in FAULTS]}")
    return tuple(fault for fault in FAULTS if not wanted or fault[0] in wanted)


@dataclass
class Asked:
    """One request the soak made: when (monotonic), by what, to where, and what came back."""

    at: float
    what: str
    url: str
    status: int  # 0: no answer
    seconds: float
    note: str = ""


@dataclass
class Fault:
    name: str
    began: float
    ended: float = 0.0
    moved_at_end: int = 0
    caught_up: float | None = None  # seconds from the end to the read API showing what the scene had at the end
    recovered: float | None = None  # seconds from the end to fresh data
    lag: float | None = None  # seconds from the first change after the end to the read API showing it
    store_back: float | None = None  # store faults: seconds from the end to a file read again


@dataclass
class Record:
    asked: list[Asked] = field(default_factory=list)
    jobs: list[tuple[float, float, int, bool]] = field(default_factory=list)  # sent, answered, done, stale
    moved: list[tuple[float, int]] = field(default_factory=list)
    samples: list[dict] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    ends: list[tuple[float, bool]] = field(default_factory=list)  # downloads ended: when, whole file read
    sent_again: int = 0  # requests sent again because the server closed their idle connection (`_closed_while_idle`)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, asked: Asked) -> None:
        with self.lock:
            self.asked.append(asked)


# --- the clients ---------------------------------------------------------------------------------


def _closed_while_idle(error: requests.RequestException) -> bool:
    """The server closed a kept-alive connection just as this request went out on it, before any
    answer (HTTP/1.1's keep-alive race; urllib3 calls it "Connection aborted", with the server's close
    or reset). Browsers send the request again on a new connection; `requests` does not, so the soak
    does it once and counts it. The worker keeps idle connections 75 s (htrbrowser/gunicorn_conf.py),
    so this should not happen to a client asking every few seconds."""
    return isinstance(error, requests.ConnectionError) and "Connection aborted" in repr(error)


def _get(session, record: Record, what: str, url: str, stop: threading.Event | None = None):
    began = time.monotonic()
    try:
        try:
            answer = session.get(url, timeout=TIMEOUT)
        except requests.ConnectionError as error:
            if not _closed_while_idle(error):
                raise
            with record.lock:
                record.sent_again += 1
            answer = session.get(url, timeout=TIMEOUT)
    except requests.RequestException as error:
        record.add(Asked(began, what, urlsplit(url).path, 0, time.monotonic() - began, type(error).__name__))
        return None
    note = answer.text[:160] if answer.status_code >= 500 else ""
    record.add(Asked(began, what, urlsplit(url).path, answer.status_code, time.monotonic() - began, note))
    return answer


def _every(seconds: float, stop: threading.Event, action) -> None:
    """`action` every `seconds`; one that took longer is followed by the next at once, not by a burst."""
    next_at = time.monotonic()
    while not stop.is_set():
        action()
        next_at = max(next_at + seconds, time.monotonic())
        stop.wait(max(0.0, next_at - time.monotonic()))


def _ask_jobs(session, base: str, record: Record) -> None:
    sent = time.monotonic()
    answer = _get(session, record, "read API", base + "/api/v1/jobs")
    if answer is None or answer.status_code != 200:
        return
    try:
        campaigns = answer.json()
    except ValueError:
        return
    done = sum(int((c.get("counts") or {}).get("done") or 0) for c in campaigns)
    stale = any((c.get("snapshot") or {}).get("stale") for c in campaigns)
    with record.lock:
        record.jobs.append((sent, time.monotonic(), done, stale))


def _slow_download(port: int, path: str, cookie: str, record: Record, stop: threading.Event) -> None:
    """Download `path` at ~5 KiB/s again and again until `stop`; each opening and each end is recorded."""
    while not stop.is_set():
        began, status, received, note = time.monotonic(), 0, 0, ""
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(TIMEOUT * 3)
        try:
            sock.connect(("127.0.0.1", port))
            head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
            sock.sendall(head.encode())
            first = sock.recv(READ_BYTES)
            status = int(first.split(b" ", 2)[1]) if first.startswith(b"HTTP/") else 0
            received = len(first.partition(b"\r\n\r\n")[2])
            if status >= 500:
                note = first.split(b"\r\n\r\n", 1)[-1][:160].decode(errors="replace")
            record.add(Asked(began, "download", path, status, time.monotonic() - began, note))
            while not stop.is_set():
                chunk = sock.recv(READ_BYTES)
                if not chunk:
                    break
                received += len(chunk)
                time.sleep(READ_PAUSE)
        except (OSError, ValueError, IndexError) as error:
            if not status:
                record.add(Asked(began, "download", path, 0, time.monotonic() - began, type(error).__name__))
        finally:
            sock.close()
        if status == 200 and not stop.is_set():
            with record.lock:
                record.ends.append((time.monotonic(), received >= FILE_BYTES))
        stop.wait(1.0 if status == 200 else 2.0)


# --- the stage -----------------------------------------------------------------------------------


def _host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", int(parts.port or 80)


def _kubeconfig_through(original: str, server: str, folder: Path) -> str:
    """The servers' kubeconfig, pointed at `server` (the fault proxy)."""
    config = yaml.safe_load(Path(original).read_text())
    config["clusters"][0]["cluster"]["server"] = server
    path = folder / "kubeconfig-soak"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return str(path)


def _put_files(info: dict) -> tuple[str, str]:
    """A 1 MiB file to download slowly and a small one to read often, written with real boto3."""
    s3 = boto3.session.Session().client(
        "s3",
        endpoint_url=info["s3_endpoint"],
        aws_access_key_id=WRITER_LOGIN[0],
        aws_secret_access_key=WRITER_LOGIN[1],
        config=Config(region_name="us-east-1", signature_version="s3v4", s3={"addressing_style": "path"},
                      connect_timeout=5, read_timeout=60, retries={"max_attempts": 1}),
    )
    big, small = (f"{info['namespace']}/bench/soak/{name}" for name in ("big.bin", "small.json"))
    s3.put_object(Bucket=info["bucket"], Key=big, Body=os.urandom(FILE_BYTES), ContentType="application/octet-stream")
    s3.put_object(Bucket=info["bucket"], Key=small, Body=b'{"soak": true}\n', ContentType="application/json")
    return big, small


def _cookie(session: requests.Session) -> str:
    return "; ".join(f"{c.name}={c.value}" for c in session.cookies)


def _proc(pid: int) -> dict:
    """RSS (bytes), threads and open file descriptors of `pid`, from /proc."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "Threads"):
            fields[name] = int(value.split()[0])
    sockets = 0
    fds = os.listdir(f"/proc/{pid}/fd")
    for fd in fds:
        try:
            sockets += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except OSError:  # closed since the listing
            pass
    return {"pid": pid, "rss": fields.get("VmRSS", 0) * 1024, "threads": fields.get("Threads", 0),
            "fds": len(fds), "sockets": sockets}


class Soak:
    """Everything one soak run starts, and what it records."""

    def __init__(self, servers: Servers, app: App, kube_proxy: FaultProxy, store_proxy: FaultProxy):
        self.servers, self.app = servers, app
        self.kube_proxy, self.store_proxy = kube_proxy, store_proxy
        self.record = Record()
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []

    def _thread(self, name: str, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        thread.start()
        self.threads.append(thread)

    def start_clients(self, sessions: dict, big: str, small: str, page) -> None:
        base, record, stop = self.app.base, self.record, self.stop
        probe, reader = requests.Session(), sessions["full"]
        self._thread("healthz", _every, 1.0, stop, lambda: _get(probe, record, "healthz", base + "/healthz"))
        self._thread("readyz", _every, 5.0, stop, lambda: _get(probe, record, "readyz", base + "/readyz"))
        self._thread("read API", _every, 1.0, stop, lambda: _ask_jobs(reader, base, record))
        lister = requests.Session()
        lister.cookies.update(reader.cookies)
        self._thread("list page", _every, 15.0, stop, lambda: _get(lister, record, "list page", base + "/"))
        filer = requests.Session()
        filer.cookies.update(reader.cookies)
        # Every 3 s, not 2: gunicorn ends a kept-alive connection after 2 s idle, and a request sent
        # on it in that very instant fails as a browser would retry it.
        self._thread("file", _every, 3.0, stop, lambda: _get(filer, record, "file", f"{base}/results/{small}"))
        for n in range(DOWNLOADS):
            cookie = _cookie(sessions[DOWNLOADERS[n % len(DOWNLOADERS)]])
            self._thread(f"download {n}", _slow_download, self.app.port, f"/results/{big}", cookie, record, stop)
        self.tabs: list = []
        seconds = soak_minutes() * 60
        self._thread("tabs", lambda: self.tabs.extend(
            run_tabs(base, reader.cookies.get_dict(), TABS, seconds, fallback=page)))

    def run(self) -> None:
        """The schedule: sample and ask the scene's progress until the end, a fault every period."""
        began = self.began = time.monotonic()
        end = began + soak_minutes() * 60
        period = fault_seconds()
        schedule, turns = [], faults()
        at, turn = period, 0
        while at + turns[turn % len(turns)][1] + period / 2 <= soak_minutes() * 60:
            schedule.append((began + at, turns[turn % len(turns)]))
            at, turn = at + period, turn + 1
        next_sample = began
        while (now := time.monotonic()) < end:
            if schedule and now >= schedule[0][0]:
                _when, (name, seconds) = schedule.pop(0)
                self._fault(name, seconds)
                continue
            if now >= next_sample:
                self._sample()
                next_sample += SAMPLE_SECONDS
            self._moved()
            time.sleep(MOVE_ASK_SECONDS)

    def _moved(self) -> int:
        moved = int(self.servers.counts()["moved"])
        self.record.moved.append((time.monotonic(), moved))
        return moved

    def _sample(self) -> None:
        workers = self.app.workers()
        if workers:
            sample = _proc(workers[0])
            sample.update(at=time.monotonic(), cpu=self.app.cpu_seconds(), load=os.getloadavg()[0])
            self.record.samples.append(sample)

    def _fault(self, name: str, seconds: float) -> None:
        """Begin `name`, keep asking the scene meanwhile, and end it after `seconds`."""
        fault = Fault(name, time.monotonic())
        print(f"  {fault.began - self.began:6.0f} s  {name} for {seconds:g} s", flush=True)
        self._switch(name, on=True)
        while time.monotonic() < fault.began + seconds:
            self._moved()
            if time.monotonic() >= self.record.samples[-1]["at"] + SAMPLE_SECONDS:
                self._sample()
            time.sleep(MOVE_ASK_SECONDS)
        self._switch(name, on=False)
        fault.ended = time.monotonic()
        fault.moved_at_end = self._moved()
        self.record.faults.append(fault)

    def _switch(self, name: str, on: bool) -> None:
        if name == "API server gone":
            (self.kube_proxy.refuse if on else self.kube_proxy.forward)()
        elif name == "watches expired":
            self.servers.misbehave_watches("expire" if on else None)
        elif name == "store slow":
            self.store_proxy.delay(SLOW_STORE_SECONDS) if on else self.store_proxy.forward()
        elif name == "store gone":
            (self.store_proxy.refuse if on else self.store_proxy.forward)()

    def finish(self) -> None:
        """Stop the clients; the tabs end by themselves, their polling time after their pages loaded."""
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=TABS_END_SECONDS if thread.name == "tabs" else TIMEOUT * 4 + 30)


# --- what it found -------------------------------------------------------------------------------


def _windows(soak: Soak) -> list[tuple[str, float, float]]:
    """(name, from, to) in monotonic time: before the first fault, then each fault to the next."""
    end = soak.began + soak_minutes() * 60
    starts = [(f.name, f.began) for f in soak.record.faults]
    marks = [("before faults", soak.began), *starts, ("", end)]
    return [(name, at, marks[n + 1][1]) for n, (name, at) in enumerate(marks[:-1])]


def _everything_asked(soak: Soak) -> list[Asked]:
    asked = list(soak.record.asked)
    for tab in soak.tabs:
        for poll in tab.polls:
            asked.append(Asked(poll.started, "tab poll", "/changes", poll.status, poll.seconds, poll.error))
    return sorted(asked, key=lambda a: a.at)


def _p95(values: list[float], share: float = 0.95) -> float | None:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else None


def _recover(soak: Soak, done_before: int) -> None:
    record = soak.record
    for fault in record.faults:
        wanted = done_before + fault.moved_at_end + 1
        fresh = next((answered for sent, answered, done, stale in record.jobs
                      if sent >= fault.ended and done >= wanted and not stale), None)
        change = next((at for at, moved in record.moved if at >= fault.ended and moved > fault.moved_at_end), None)
        caught_up = next((answered for sent, answered, done, stale in record.jobs
                          if sent >= fault.ended and done >= wanted - 1 and not stale), None)
        fault.caught_up = caught_up - fault.ended if caught_up is not None else None
        if fresh is not None:
            fault.recovered = fresh - fault.ended
            fault.lag = fresh - change if change is not None else None
        if fault.name.startswith("store"):
            back = next((a.at + a.seconds for a in record.asked
                         if a.what == "file" and a.at >= fault.ended and a.status == 200), None)
            fault.store_back = back - fault.ended if back is not None else None


def _growth(samples: list[dict], warm_until: float, key: str) -> tuple[float, float, float]:
    """(after warm-up, at the end, highest after warm-up): medians of a minute's samples each."""
    after = [s for s in samples if s["at"] >= warm_until]
    if not after:
        return (float("nan"),) * 3
    first = [s[key] for s in after if s["at"] < after[0]["at"] + 60] or [after[0][key]]
    last = [s[key] for s in after if s["at"] > after[-1]["at"] - 60] or [after[-1][key]]
    return statistics.median(first), statistics.median(last), max(s[key] for s in after)


def _minutes(samples: list[dict], began: float) -> list[list[dict]]:
    """The samples of each minute of the soak, by the time they were taken (after a fault the sampler
    catches up with a few samples at once, so every sixth sample drifts from the minute it names)."""
    minutes: dict[int, list[dict]] = {}
    for sample in samples:
        minutes.setdefault(int((sample["at"] - began) // 60), []).append(sample)
    return [minutes[minute] for minute in sorted(minutes)]


def _server_log(path: Path) -> dict:
    text = path.read_text(errors="replace") if path.exists() else ""
    lines = text.splitlines()
    fives = [line for line in lines if REQUEST_5XX.search(line)]
    return {"5xx lines": fives[:20], "5xx count": len(fives),
            "tracebacks": text.count("Traceback"), "worker boots": text.count("Booting worker"),
            "worker timeouts": text.count("WORKER TIMEOUT")}


def analyse(soak: Soak, done_before: int, log_path: Path) -> dict:
    _recover(soak, done_before)
    asked = _everything_asked(soak)
    windows = []
    for name, since, until in _windows(soak):
        inside = [a for a in asked if since <= a.at < until]
        by_what: dict[str, Counter] = {}
        for each in inside:
            kind = "none" if each.status == 0 else f"{each.status // 100}xx"
            by_what.setdefault(each.what, Counter())[kind] += 1
        cut = sum(1 for at, whole in soak.record.ends if since <= at < until and not whole)
        sampled = [x for x in soak.record.samples if since <= x["at"] < until]
        windows.append({"name": name, "from": since - soak.began, "to": until - soak.began, "by": by_what,
                        "p95": {what: _p95([a.seconds for a in inside if a.what == what and a.status])
                                for what in ("healthz", "read API", "tab poll", "list page")},
                        "healthz_p99": _p95([a.seconds for a in inside if a.what == "healthz" and a.status], 0.99),
                        "cpu": sampled[-1]["cpu"] - sampled[0]["cpu"] if len(sampled) > 1 else float("nan"),
                        "cpu_seconds": sampled[-1]["at"] - sampled[0]["at"] if len(sampled) > 1 else float("nan"),
                        "load": statistics.mean(x["load"] for x in sampled) if sampled else float("nan"),
                        "downloads_cut": cut})
    total = soak_minutes() * 60
    warm_until = soak.began + (WARMUP_SECONDS if total >= 3 * WARMUP_SECONDS else total / 3)
    samples = soak.record.samples
    return {
        "windows": windows,
        "fives": [a for a in asked if a.status >= 500],
        "no_answer": Counter((a.what, a.url, a.note) for a in asked if a.status == 0),
        "faults": soak.record.faults,
        "warm_from": warm_until - soak.began,
        "growth": {key: _growth(samples, warm_until, key) for key in ("rss", "threads", "fds")},
        "pids": sorted({s["pid"] for s in samples}),
        "rss_by_minute": [statistics.median(s["rss"] for s in minute) for minute in _minutes(samples, soak.began)],
        "fds_by_minute": [(minute[0]["fds"], minute[0].get("sockets", 0)) for minute in _minutes(samples, soak.began)],
        "sent_again": soak.record.sent_again,
        "samples": len(samples),
        "downloads_whole": sum(1 for _at, whole in soak.record.ends if whole),
        "log": _server_log(log_path),
        "tab_count": len(soak.tabs),
        "tabs_opened": sum(1 for tab in soak.tabs if getattr(tab, "opened", False)),
    }


# --- printing ------------------------------------------------------------------------------------


def _seconds(value: float | None) -> str:
    return "never" if value is None else f"{value:.1f} s"


def report(found: dict) -> list[str]:
    lines = [
        f"soak: {soak_minutes():g} min at archive scale (40 x 5 000 volumes, the scene moving), gunicorn as the "
        f"Dockerfile runs it, {TABS} tabs polling, {DOWNLOADS} slow downloads ({FILE_BYTES // 1024} KiB at ~5 KiB/s, "
        f"re-opened), /healthz every 1 s, the read API every 1 s, the list every 15 s, a file every 3 s; a fault "
        f"every {fault_seconds():g} s; load average {found['load_before'][0]:.1f} before, "
        f"{found['load_after'][0]:.1f} after (2 cores, shared)",
        f"tabs: {found['tab_count']} ran ({found['tabs_opened']} loaded their own page); read API done volumes "
        f"before moving: {found['done_before']}",
        "",
        f"{'window':16} {'seconds':>11}  requests by what asked (2xx/3xx/4xx/5xx/no answer)",
    ]
    for window in found["windows"]:
        parts = []
        for what, counts in sorted(window["by"].items()):
            cells = "/".join(str(counts.get(k, 0)) for k in ("2xx", "3xx", "4xx", "5xx", "none"))
            parts.append(f"{what} {cells}")
        p99 = window["healthz_p99"]
        p95 = ", ".join(f"{what} {value * 1000:.0f}" for what, value in window["p95"].items() if value is not None)
        lines.append(f"{window['name']:16} {window['from']:5.0f}-{window['to']:<5.0f}  " + "; ".join(parts))
        lines.append(f"{'':16} {'':11}  p95 ms: {p95}; /healthz p99 {p99 * 1000 if p99 else float('nan'):.0f} ms; "
                     f"downloads cut {window['downloads_cut']}; app CPU {window['cpu']:.1f} s in "
                     f"{window['cpu_seconds']:.0f} s; load average {window['load']:.1f}")
    lines.append(f"downloads read whole: {found['downloads_whole']}")
    lines.append("")
    lines.append("recovery (from each fault's end: the read API shows a change the scene made after it, not stale; "
                 "lag: from that change; store faults: a result file read again):")
    for fault in found["faults"]:
        line = (f"  {fault.name:16} at {fault.began - found['began']:5.0f} s for {fault.ended - fault.began:4.0f} s: "
                f"fresh after {_seconds(fault.recovered)} (lag {_seconds(fault.lag)}; "
                f"caught up with the end's state after {_seconds(fault.caught_up)})")
        if fault.name.startswith("store"):
            line += f", file read after {_seconds(fault.store_back)}"
        lines.append(line)
    lines += _resource_lines(found)
    files = [a for a in found["fives"] if a.what in ("file", "download")]
    others = [a for a in found["fives"] if a.what not in ("file", "download")]
    lines.append(f"5xx answers seen by the clients: {len(others)} to pages, polls, the read API and probes; "
                 f"{len(files)} to result files (a raw file cannot be served while the store is down), by status "
                 + str(dict(Counter(a.status for a in files))))
    for each in others[:20] + files[:5]:
        lines.append(f"  {each.at - found['began']:6.0f} s  {each.what}: {each.status} {each.url}  {each.note[:100]!r}")
    lines.append(f"no answer: {sum(found['no_answer'].values())}; sent again on a new connection after the server "
                 f"closed the idle one (as browsers do): {found['sent_again']}")
    for (what, url, note), count in found["no_answer"].most_common(10):
        lines.append(f"  {count:5} {what} {url} ({note})")
    log = found["log"]
    lines.append(f"gunicorn log: {log['5xx count']} request lines with 5xx, {log['tracebacks']} tracebacks, "
                 f"{log['worker boots']} worker boots, {log['worker timeouts']} worker timeouts")
    lines += [f"  {line[:200]}" for line in log["5xx lines"][:10]]
    return lines


def _resource_lines(found: dict) -> list[str]:
    rss, threads, fds = (found["growth"][key] for key in ("rss", "threads", "fds"))
    mib = 2**20
    return [
        f"gunicorn worker {found['pids']} sampled every {SAMPLE_SECONDS:g} s ({found['samples']} samples), "
        f"from {found['warm_from']:.0f} s (after warm-up; medians of a minute) to the end:",
        f"  RSS {rss[0] / mib:.0f} -> {rss[1] / mib:.0f} MiB ({(rss[1] / rss[0] - 1) * 100:+.1f}%), "
        f"highest {rss[2] / mib:.0f} MiB",
        f"  threads {threads[0]:.0f} -> {threads[1]:.0f} (highest {threads[2]:.0f}); "
        f"open fds {fds[0]:.0f} -> {fds[1]:.0f} (highest {fds[2]:.0f})",
        "  RSS each minute of the soak, median (MiB): "
        + " ".join(f"{rss / mib:.0f}" for rss in found["rss_by_minute"]),
        "  open fds at each minute's start (of which sockets): "
        + " ".join(f"{fds}({sockets})" for fds, sockets in found["fds_by_minute"]),
    ]


# --- the run -------------------------------------------------------------------------------------


def _done_now(session: requests.Session, base: str) -> int:
    """Done volumes the read API shows, summed, once two answers 6 s apart agree (the scene stands still)."""
    last = None
    for _ in range(10):
        answer = session.get(base + "/api/v1/jobs", timeout=60)
        answer.raise_for_status()
        done = sum(int((c.get("counts") or {}).get("done") or 0) for c in answer.json())
        if done == last:
            return done
        last = done
        time.sleep(6)
    raise RuntimeError("the read API's done volumes did not settle while the scene stood still")


def measure() -> dict:
    found: dict = {"load_before": os.getloadavg()}
    with Servers() as servers, tempfile.TemporaryDirectory(prefix="bench-soak-") as folder:
        info = servers.info
        kube_server = yaml.safe_load(Path(info["kubeconfig"]).read_text())["clusters"][0]["cluster"]["server"]
        kube_proxy = FaultProxy(_host_port(kube_server), "kube").start()
        store_proxy = FaultProxy(_host_port(info["s3_endpoint"]), "store").start()
        try:
            big, small = _put_files(info)
            kubeconfig = _kubeconfig_through(info["kubeconfig"], kube_proxy.url, Path(folder))
            app = App(Path(folder), kubeconfig, store_proxy.url, info["bucket"])
            app.env["HTRFLOW_DOWNLOADS_PER_PERSON"] = str(DOWNLOADS // len(DOWNLOADERS) + 2)
            app.start()
            try:
                _soak(servers, app, kube_proxy, store_proxy, big, small, found)
            except BaseException:
                print(app.log_tail())
                raise
            finally:
                app.stop()
                if os.environ.get("SOAK_KEEP_LOG"):  # where to keep gunicorn's log for a closer look
                    shutil.copyfile(app.log_path, os.environ["SOAK_KEEP_LOG"])
        finally:
            kube_proxy.stop()
            store_proxy.stop()
    found["load_after"] = os.getloadavg()
    return found


def _first_page(session: requests.Session, base: str) -> requests.Response:
    """The list page once it answers 200 (the first answers after a start may say the store's check is
    under way); what came before is printed, not hidden."""
    deadline = time.monotonic() + 120
    while True:
        page = session.get(base + "/", timeout=120)
        if page.status_code == 200:
            return page
        print(f"  GET / before the soak answered {page.status_code}", flush=True)
        if time.monotonic() > deadline:
            raise RuntimeError(f"GET / answered {page.status_code}: {page.text[:300]}")
        time.sleep(2)


def _soak(servers, app, kube_proxy, store_proxy, big: str, small: str, found: dict) -> None:
    sessions = {name: app.login(*DEMO_LOGINS[name]) for name in DOWNLOADERS}
    page = _first_page(sessions["full"], app.base)
    found["done_before"] = _done_now(sessions["full"], app.base)
    servers.move(True)
    soak = Soak(servers, app, kube_proxy, store_proxy)
    soak.start_clients(sessions, big, small, parse(page.text))
    try:
        soak.run()
    finally:
        soak.finish()
        servers.move(False)
    found.update(analyse(soak, found["done_before"], app.log_path), began=soak.began)


def test_soak():
    found = measure()
    print()
    for line in report(found):
        print(line)
    print(json.dumps({"fives": len(found["fives"]), "recovered": [f.recovered for f in found["faults"]]}))
    assert found["faults"], "the soak was too short for a single fault"
    assert found["windows"][0]["by"], "nothing was asked"
    assert found["samples"] > 0, "the gunicorn worker was never sampled"


if __name__ == "__main__":
    for each in report(measure()):
        print(each)

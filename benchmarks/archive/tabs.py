"""Open list pages that poll the way a browser with htmx does, for today's page and for a one-poll page.

A tab loads `GET /` with the person's cookie, then:

- when the page has an element `id="list-poll"`, it asks that element's `hx-get` every 5 s
  (`HX-Request: true`) with the `shown` inputs of `#list-shown` when its `hx-include` names them, as
  htmx does: 204 means nothing changed; a 200 may carry a new `list-poll` element whose `hx-get`
  replaces the old one, and a new `#list-shown` (an out-of-band swap) whose inputs the next poll
  sends; 286 stops the poll;
- otherwise (today's page) every element whose `hx-trigger` says `every Ns` is polled at its own
  period, as htmx does with `hx-swap="outerHTML"`: the next poll is due a period after the answer
  was swapped in; 286, or an answer whose element no longer polls, stops that element; new polling
  elements in an answer (out-of-band cards) start polling; `hx-include` of the cards' `shown`
  inputs goes along as query parameters. Failed polls back off as static/js/campaigns.js does.

A tab has at most 6 requests in flight (a browser's connections per host) and gives up on a poll
after 15 s (htmx's timeout there). Every poll is recorded with its latency and outcome.
"""

from __future__ import annotations

import html
import re
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlencode

import requests

ONE_POLL_ID = "list-poll"
LIST_SHOWN = "#list-shown"
ONE_POLL_SECONDS = 5.0
CONNECTIONS = 6
POLL_TIMEOUT = 15.0
OPEN_TIMEOUT = 60.0
OPEN_BUDGET = 30.0
OPENING_AT_ONCE = 2  # pages loaded at the same time before the tabs start polling
BACKOFF_FIRST, BACKOFF_MAX = 10.0, 120.0
EVERY = re.compile(r"every\s+(\d+(?:\.\d+)?)(ms|s|m)?")


def period_of(trigger: str) -> float | None:
    match = EVERY.search(trigger or "")
    if not match:
        return None
    number, unit = float(match[1]), match[2] or "ms"
    return number / 1000 if unit == "ms" else number * 60 if unit == "m" else number


@dataclass
class Polling:
    """One element that polls: its id, address, period, and whether it sends the cards' `shown`."""

    id: str
    url: str
    period: float
    includes_shown: bool = False


class PageParser(HTMLParser):
    """Polling elements, `shown` inputs (by the card they sit in) and the element count."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.polls: dict[str, Polling] = {}
        self.ids: set[str] = set()
        self.shown: dict[str, str] = {}
        self.list_shown: list[str] | None = None  # the inputs of #list-shown, when the page has one
        self.elements = 0
        self._last_id = ""

    def handle_starttag(self, tag, attrs):
        self.elements += 1
        values = dict(attrs)
        ident = values.get("id") or ""
        if ident:
            self.ids.add(ident)
            self._last_id = ident
        if ident == ONE_POLL_ID and values.get("hx-get"):
            include = values.get("hx-include") or ""
            self.polls[ident] = Polling(ident, values["hx-get"], ONE_POLL_SECONDS, LIST_SHOWN in include)
            return
        if ident == LIST_SHOWN[1:]:
            self.list_shown = []
        period = period_of(values.get("hx-trigger", ""))
        if ident and values.get("hx-get") and period:
            include = values.get("hx-include") or ""
            self.polls[ident] = Polling(ident, values["hx-get"], period, "shown" in include)
        if tag == "input" and values.get("name") == "shown" and self._last_id == LIST_SHOWN[1:]:
            self.list_shown.append(values.get("value") or "")
        elif tag == "input" and values.get("name") == "shown" and self._last_id:
            self.shown[self._last_id] = values.get("value") or ""  # the card it sits in

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)


def parse(text: str) -> PageParser:
    parser = PageParser()
    parser.feed(text)
    parser.close()
    return parser


@dataclass
class Poll:
    started: float
    seconds: float
    status: int  # 0: no answer (timeout or connection error)
    kind: str
    received: int = 0
    error: str = ""

    @property
    def failed(self) -> bool:
        return self.status == 0 or self.status >= 400


@dataclass
class _Element:
    polling: Polling
    due: float
    busy: bool = False
    stopped: bool = False
    backoff: float = 0.0


@dataclass
class Tab:
    """One open list page; `run(until)` polls until that monotonic time, then waits for its answers."""

    base: str
    cookies: dict
    polls: list[Poll] = field(default_factory=list)
    mode: str = ""

    def __post_init__(self):
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._local = threading.local()
        self._elements: dict[str, _Element] = {}
        self._shown: dict[str, str] = {}
        self._list_shown: list[str] = []

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
            session.cookies.update(self.cookies)
        return session

    def open(self) -> PageParser:
        answer = self._session().get(self.base + "/", timeout=OPEN_TIMEOUT)
        answer.raise_for_status()
        self.page = parse(answer.text)
        return self._show(self.page)

    def adopt(self, page: PageParser) -> PageParser:
        """Poll what another page of the same person polls (this tab's own page did not come in time)."""
        self.page = page
        return self._show(self.page)

    def _show(self, page: PageParser) -> PageParser:
        now = time.monotonic()
        self.mode = "one poll" if ONE_POLL_ID in page.polls else "today's polls"
        chosen = [page.polls[ONE_POLL_ID]] if ONE_POLL_ID in page.polls else list(page.polls.values())
        for polling in chosen:
            self._elements[polling.id] = _Element(polling, now + polling.period)
        self._shown = dict(page.shown)
        self._list_shown = list(page.list_shown or [])
        return page

    def run(self, until: float) -> None:
        """Poll until `until`; then polls not yet sent are dropped and those in flight are waited for."""
        connections = ThreadPoolExecutor(max_workers=CONNECTIONS, thread_name_prefix="tab")
        try:
            while (now := time.monotonic()) < until:
                with self._lock:
                    due = [e for e in self._elements.values() if not e.busy and not e.stopped and e.due <= now]
                    for element in due:
                        element.busy = True
                    waiting = [e.due for e in self._elements.values() if not e.busy and not e.stopped]
                for element in due:
                    connections.submit(self._poll, element)
                self._wake.wait(max(0.01, min([until, *waiting]) - time.monotonic()))
                self._wake.clear()
        finally:
            connections.shutdown(wait=True, cancel_futures=True)

    # --- one poll ---------------------------------------------------------------------------------

    def _address(self, polling: Polling) -> str:
        url = self.base + html.unescape(polling.url)
        if polling.includes_shown:
            with self._lock:
                values = self._list_shown if polling.id == ONE_POLL_ID else self._shown.values()
                shown = [("shown", value) for value in values]
            url += ("&" if "?" in url else "?") + urlencode(shown)
        return url

    def _poll(self, element: _Element) -> None:
        polling = element.polling
        kind = "list-poll" if polling.id == ONE_POLL_ID else "watch" if polling.includes_shown else "card"
        headers = {"HX-Request": "true", "HX-Current-URL": self.base + "/", "HX-Target": polling.id,
                   "HX-Trigger": polling.id}
        started = time.monotonic()
        try:
            answer = self._session().get(self._address(polling), headers=headers, timeout=POLL_TIMEOUT)
            poll = Poll(started, time.monotonic() - started, answer.status_code, kind, len(answer.content))
        except requests.RequestException as error:
            answer = None
            poll = Poll(started, time.monotonic() - started, 0, kind, error=type(error).__name__)
        with self._lock:
            self.polls.append(poll)
            element.busy = False
            now = time.monotonic()
            if poll.failed:
                element.backoff = min(BACKOFF_MAX, element.backoff * 2 if element.backoff else BACKOFF_FIRST)
                element.due = now + max(element.backoff, polling.period)
            else:
                element.backoff = 0.0
                self._answered(element, answer, now)
        self._wake.set()

    def _answered(self, element: _Element, answer: requests.Response, now: float) -> None:
        """Swap an answer in: the element's next poll, new polling elements, stopped ones."""
        if answer.status_code == 286:
            element.stopped = True
            return
        element.due = now + element.polling.period
        if answer.status_code == 204 or not answer.text:
            return
        page = parse(answer.text)
        if element.polling.id == ONE_POLL_ID:
            if ONE_POLL_ID in page.polls:
                element.polling = page.polls[ONE_POLL_ID]
            if page.list_shown is not None:
                self._list_shown = page.list_shown
            return
        self._shown.update(page.shown)
        if element.polling.id in page.ids and element.polling.id not in page.polls:
            element.stopped = True  # swapped for an element that no longer polls
        for ident, polling in page.polls.items():
            current = self._elements.get(ident)
            if current is None or current.stopped:
                self._elements[ident] = _Element(polling, now + polling.period)
            else:
                current.polling = polling


def run_tabs(base: str, cookies: dict, count: int, seconds: float, at=None, fallback=None) -> list[Tab]:
    """Open `count` tabs, then let them all poll for `seconds`; returns the tabs with their polls.

    Tabs load their page OPENING_AT_ONCE at a time; a tab whose page has not come within
    OPEN_BUDGET seconds (or by the time the first page came, when that is later) polls a copy of a
    page that came, or of `fallback` (a parsed page the same person loaded before) when none came;
    `opened` says which tabs loaded their own. So slow pages cannot stretch the benchmark.
    `at` is a list of (seconds after the polling starts, callable), run from the calling thread.
    """
    tabs = [Tab(base, cookies) for _ in range(count)]
    opening_began = time.monotonic()
    opening = ThreadPoolExecutor(max_workers=OPENING_AT_ONCE, thread_name_prefix="open")
    futures = {opening.submit(tab.open): tab for tab in tabs}

    def opened() -> list[Tab]:
        return [tab for future, tab in futures.items()
                if future.done() and not future.cancelled() and future.exception() is None]

    wait(futures, timeout=OPEN_BUDGET)
    while not opened() and fallback is None and not all(f.done() for f in futures):  # one page is needed
        wait(futures, timeout=1.0, return_when=FIRST_COMPLETED)
    opening.shutdown(wait=False, cancel_futures=True)
    loaded = opened()
    if not loaded and fallback is None:
        raise RuntimeError("no list page could be loaded: " + repr(next(iter(futures)).exception()))
    for tab in tabs:
        tab.opened = tab in loaded
        if not tab.opened:
            tab.adopt(loaded[0].page if loaded else fallback)
    started = time.monotonic()
    until = started + seconds
    threads = [threading.Thread(target=tab.run, args=(until,), name=f"tab-{n}") for n, tab in enumerate(tabs)]
    for thread in threads:
        thread.start()
    for offset, callback in sorted(at or [], key=lambda mark: mark[0]):
        time.sleep(max(0.0, started + offset - time.monotonic()))
        callback()
    for thread in threads:
        thread.join(timeout=seconds + POLL_TIMEOUT + 30)
    for tab in tabs:
        tab.started, tab.opening_seconds = started, started - opening_began
    return tabs

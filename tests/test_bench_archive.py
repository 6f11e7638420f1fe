"""The archive benchmark's own instruments: the counting forwarder and how a tab reads a page."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

from benchmarks.archive.tabs import ONE_POLL_ID, parse, period_of
from benchmarks.archive.tcpcount import Forwarder, key_suffix


class _Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self._answer(b"x" * 1000)

    def do_PUT(self):
        self._answer(self.rfile.read(int(self.headers["Content-Length"])))

    def _answer(self, body):
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_forwarder_counts_bytes_and_requests_on_one_kept_alive_connection():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    forwarder = Forwarder(server.server_address, count_requests=True).start()
    try:
        with requests.Session() as session:
            for key in ("ns/p/v1/progress.json", "ns/p/v2/progress.json", "ns/p/v1/alto/0001.xml"):
                assert session.get(f"{forwarder.url}/bucket/{key}", timeout=5).content == b"x" * 1000
            assert session.put(f"{forwarder.url}/bucket/ns/p/v1/progress.json", data=b"{}" * 300, timeout=5).ok
        counts = forwarder.counts()
    finally:
        forwarder.stop()
        server.shutdown()
        server.server_close()
    assert counts["requests"] == {"GET progress.json": 2, "GET .xml": 1, "PUT progress.json": 1}
    assert counts["connections"] == 1
    assert counts["unparsed"] == 0
    assert counts["bytes_down"] > 3 * 1000 + 600
    assert counts["bytes_up"] > 600


def test_key_suffixes():
    assert key_suffix("/bucket/ns/p/C1/progress.json?x=1") == "progress.json"
    assert key_suffix("/bucket/ns/status/logs/p/C1.txt") == ".txt"
    assert key_suffix("/bucket/ns/") == "/"


TODAY = """
<div id="list-watch" hx-get="/?watch=1" hx-trigger="every 15s, poll-now" hx-include="#cards input[name=shown]"></div>
<div id="cards">
  <article id="card-a" hx-get="/campaigns/ns/a/card" hx-trigger="every 5s, poll-now" hx-swap="outerHTML">
    <input type="hidden" name="shown" value="ns/a:0"><p>a</p></article>
  <article id="card-b"><input type="hidden" name="shown" value="ns/b:1"></article>
</div>
"""
ONE_POLL = '<main><div id="list-poll" hx-get="/poll?since=4&amp;q=x" hx-trigger="every 5s"></div><p>x</p></main>'


def test_todays_page_polls_each_card_and_the_watch_with_the_shown_cards():
    page = parse(TODAY)
    assert {p.id: (p.url, p.period, p.includes_shown) for p in page.polls.values()} == {
        "list-watch": ("/?watch=1", 15.0, True),
        "card-a": ("/campaigns/ns/a/card", 5.0, False),
    }
    assert page.shown == {"card-a": "ns/a:0", "card-b": "ns/b:1"}
    assert page.elements == 7


def test_a_one_poll_page_is_recognised_by_its_list_poll_element():
    page = parse(ONE_POLL)
    assert list(page.polls) == [ONE_POLL_ID]
    assert page.polls[ONE_POLL_ID].url == "/poll?since=4&q=x"


def test_htmx_periods():
    assert period_of("every 5s, poll-now") == 5.0
    assert period_of("every 500ms") == 0.5
    assert period_of("every 1m") == 60.0
    assert period_of("click") is None


LIST_PAGE = """<div id="list-poll" hx-get="/changes" hx-trigger="every 5s" hx-include="#list-shown"></div>
<div id="list-shown" hidden><input type="hidden" name="shown" value="p1.one">
<input type="hidden" name="shown" value="two"></div>"""


def test_a_list_poll_sends_every_shown_input_of_the_page_as_htmx_includes_them():
    page = parse(LIST_PAGE)
    assert page.polls[ONE_POLL_ID].includes_shown
    assert page.list_shown == ["p1.one", "two"]
    assert parse(ONE_POLL).list_shown is None  # a page without them: nothing to send

"""The store's outage warning says which trouble it is (issue 19: the cluster's read a refused
connection as slow; the store's, checked here against real sockets, never did).

botocore turns urllib3's NewConnectionError into EndpointConnectionError before it looks for a
connect timeout, so a stopped store, a hung one and one failing on its side are three sentences.
"""

import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from results.store import s3 as store
from results.store import watch
from results.store.outcomes import Outcome, StoreError


class _Unavailable(BaseHTTPRequestHandler):
    def do_HEAD(self):  # noqa: N802 - the name http.server asks for
        self.send_response(503)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def failing_endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Unavailable)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def outage_sentence(settings, caplog, endpoint) -> tuple[Outcome, str]:
    settings.S3_ENDPOINT = endpoint
    store.forget_clients()
    watch.store_outage.reset()
    caplog.clear()
    with pytest.raises(StoreError) as raised:
        store.head_object("reader", "secret-of-the-reader", "htr-batch/p/v/progress.json")
    failing = [r for r in caplog.records if r.name == "results.store.s3" and getattr(r, "state", "") == "failing"]
    assert len(failing) == 1
    assert failing[0].sentence == raised.value.sentence
    return raised.value.outcome, failing[0].sentence


def test_stopped_hung_and_failing_stores_are_three_sentences(
    settings, caplog, closed_port_endpoint, hung_endpoint, failing_endpoint
):
    settings.HTRFLOW_S3_TIMEOUT = 0.3
    settings.S3_BUCKET = "htr-results"
    caplog.set_level(logging.WARNING, logger="results.store.s3")
    stopped = outage_sentence(settings, caplog, closed_port_endpoint)
    hung = outage_sentence(settings, caplog, hung_endpoint)
    failing = outage_sentence(settings, caplog, failing_endpoint)
    assert stopped == (Outcome.UNREACHABLE, "The results store could not be reached.")
    assert hung == (Outcome.TIMEOUT, "The results store did not answer in time.")
    assert failing[1] == "The results store reported a fault of its own; try again shortly."
    watch.store_outage.reset()

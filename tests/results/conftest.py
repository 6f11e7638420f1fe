"""Helpers for the results tests: clean rate limits, and stores that misbehave on purpose."""

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from results import ratelimit, store


@pytest.fixture(autouse=True)
def clean_results_state():
    ratelimit.reset()
    store.forget_clients()
    yield
    ratelimit.reset()
    store.forget_clients()


@pytest.fixture
def closed_port_endpoint():
    """An address on this machine where nothing listens (a stopped store)."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def hung_endpoint():
    """A store that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held = []
    stop = threading.Event()

    def accept_and_hold():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            held.append(connection)

    thread = threading.Thread(target=accept_and_hold, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join(2)
    for connection in held:
        connection.close()
    server.close()


class _BareRefusal(BaseHTTPRequestHandler):
    """Answers every request 403 with no body, the way a misrouted store or gateway does."""

    def _refuse(self):
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD = do_POST = _refuse

    def log_message(self, *args):
        pass


@pytest.fixture
def bare_403_endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _BareRefusal)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()

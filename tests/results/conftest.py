"""Helpers for the results tests: clean rate limits, and stores that misbehave on purpose."""

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from results.accounts import ratelimit
from results.store import s3 as store


@pytest.fixture(autouse=True)
def clean_results_state():
    ratelimit.reset()
    store.forget_clients()
    yield
    ratelimit.reset()
    store.forget_clients()


@pytest.fixture
def store_calls(monkeypatch):
    """Counts every S3 client the proxy asks for, i.e. every intention to call the store."""
    calls = []
    real = store.client_for

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "client_for", counting)
    return calls


@pytest.fixture
def closed_port_endpoint():
    """An address on this machine where nothing listens (a stopped store)."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return f"http://127.0.0.1:{port}"


class HungStore:
    """A store that accepts connections and never answers; ``connections`` counts what reached it."""

    def __init__(self):
        self._server = socket.socket()
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(16)
        self._held = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept_and_hold, daemon=True)
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}"

    @property
    def connections(self):
        return len(self._held)

    def _accept_and_hold(self):
        self._server.settimeout(0.05)
        while not self._stop.is_set():
            try:
                connection, _ = self._server.accept()
            except OSError:
                continue
            self._held.append(connection)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(2)
        for connection in self._held:
            connection.close()
        self._server.close()


@pytest.fixture
def hung_store():
    with HungStore() as hung:
        yield hung


@pytest.fixture
def hung_endpoint(hung_store):
    """The address of a store that accepts connections and never answers."""
    return hung_store.url


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

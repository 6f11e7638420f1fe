"""The soak's fault proxy: it relays, refuses like a server that went away, and holds answers back."""

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from benchmarks.faultproxy import FaultProxy, _ephemeral_range


class _Hello(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = b"hello"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def proxy():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    relay = FaultProxy(server.server_address, "test").start()
    yield relay
    relay.stop()
    server.shutdown()
    server.server_close()


def test_it_listens_below_the_ephemeral_range_and_relays(proxy):
    assert proxy.port < _ephemeral_range()[0]
    with requests.Session() as session:
        for _ in range(3):
            assert session.get(proxy.url + "/", timeout=5).text == "hello"
    assert proxy.state == "forwarding"


def test_refusing_cuts_open_connections_and_refuses_new_ones_then_forwarding_listens_again(proxy):
    open_one = socket.create_connection(("127.0.0.1", proxy.port), timeout=5)
    open_one.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = b""
    while not answer.endswith(b"hello"):
        answer += open_one.recv(1024)
    proxy.refuse()
    assert proxy.state == "refusing"
    assert (proxy.connections, proxy.refused_cuts) == (1, 1)
    assert open_one.recv(1024) == b""  # cut: the server side is gone
    open_one.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", proxy.port), timeout=5)
    with pytest.raises(requests.ConnectionError):
        requests.get(proxy.url + "/", timeout=5)
    proxy.forward()
    assert requests.get(proxy.url + "/", timeout=5).text == "hello"


def test_delaying_holds_every_answer_back_at_least_that_long(proxy):
    proxy.delay(0.5)
    assert proxy.state == "delaying 0.5 s"
    with requests.Session() as session:
        for _ in range(2):  # a kept-alive connection's second request is held too
            began = time.monotonic()
            assert session.get(proxy.url + "/", timeout=5).text == "hello"
            assert time.monotonic() - began >= 0.5
    proxy.forward()
    assert proxy.state == "forwarding"

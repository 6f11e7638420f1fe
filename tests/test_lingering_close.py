"""Clients that keep their end of a finished connection open hold no one else up.

gunicorn's threaded worker closes a finished connection gracefully: it half-closes, then waits up
to 2 s for the client to close too. In its event-loop thread that wait held every request of the
worker, one client after another (the soak, benchmarks/bench_soak.py, saw /healthz held 23 s when
16 slow downloads ended together); htrbrowser/gunicorn_conf.py moves the wait to threads of its own.
"""

import http.client
import socket
import time

import requests

HOLDERS = 8  # each would hold the event loop 2 s: 16 s in all


def test_clients_that_keep_their_end_open_do_not_hold_the_health_check(gunicorn):
    base = gunicorn(collect_static=False)
    port = int(base.rsplit(":", 1)[1])
    holders = []
    try:
        for _ in range(HOLDERS):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            holders.append(sock)
        for sock in holders:  # every answer came: the worker now closes each, waiting for the client
            assert sock.recv(64).startswith(b"HTTP/1.1 200")
        assert requests.get(base + "/healthz", timeout=5).status_code == 200
    finally:
        for sock in holders:
            sock.close()


def test_an_idle_connection_is_kept_longer_than_a_poll(gunicorn):
    """A request sent on a connection left idle 3 s is answered on it (gunicorn's own 2 s would have
    closed it, and a client sending just then would get no answer)."""
    base = gunicorn(collect_static=False)
    connection = http.client.HTTPConnection("127.0.0.1", int(base.rsplit(":", 1)[1]), timeout=10)
    try:
        answers, sockets = [], []
        for turn in range(2):
            time.sleep(3 if turn else 0)
            connection.request("GET", "/healthz")
            answer = connection.getresponse()
            answers.append((answer.status, answer.read()))
            sockets.append(connection.sock)
    finally:
        connection.close()
    assert answers == [(200, b"ok\n"), (200, b"ok\n")]
    assert sockets[0] is sockets[1]  # the same connection, not a new one

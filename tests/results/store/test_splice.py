"""A download moved from the store's socket to the client's inside the kernel (results/store/splice.py).

Served by the Dockerfile's gunicorn (which hands the app its client socket), the proxy splices a file's body
past the first chunk; the Django test client has no socket to hand, so the rest of the suite covers the path
that reads and writes in Python. Here: the bytes arrive whole and in order (whole files, ranges, two on one
kept connection), the store's side is found only where it is safe, and ``forward`` ends a download early,
with a reason, when either side fails or the store goes quiet.
"""

import errno
import hashlib
import os
import socket
import stat
import threading

import pytest
import requests

from results import file_views
from results.store import budget, downloads, splice

pytestmark = pytest.mark.skipif(not splice.available(), reason="os.splice is Linux-only")

MIB = 1024 * 1024


def _login(base, account):
    answer = requests.post(
        base + "/results/_login",
        json={"username": account.username, "password": account.password},
        headers={"Origin": base},
        timeout=30,
    )
    assert answer.status_code == 204, answer.text[:200]
    return answer.cookies


@pytest.fixture
def big_file(store, store_prefix):
    """A 3 MiB object of random bytes (several pipes' worth, an odd length) and its key."""
    body = os.urandom(3 * MIB + 12345)
    key = store_prefix + "vol/pages/big.bin"
    store.put(key, body, content_type="application/octet-stream")
    return key, body


def test_a_file_served_by_gunicorn_arrives_whole_and_in_order(plain_gunicorn, store, big_file):
    key, body = big_file
    with requests.Session() as client:
        client.cookies.update(_login(plain_gunicorn, store.accounts["full"]))
        answer = client.get(f"{plain_gunicorn}/results/{key}", timeout=60)
        assert answer.status_code == 200
        assert answer.headers["Content-Length"] == str(len(body))
        assert hashlib.sha256(answer.content).hexdigest() == hashlib.sha256(body).hexdigest()


def test_a_range_and_a_second_file_on_the_same_kept_connection_arrive_exactly(plain_gunicorn, store, big_file):
    key, body = big_file
    opened = []
    with requests.Session() as client:
        client.cookies.update(_login(plain_gunicorn, store.accounts["full"]))
        for headers, expected, status in (
            ({"Range": "bytes=70000-2200000"}, body[70000:2200001], 206),
            ({}, body, 200),
            ({"Range": "bytes=-5"}, body[-5:], 206),
        ):
            answer = client.get(f"{plain_gunicorn}/results/{key}", headers=headers, timeout=60, stream=True)
            opened.append(answer.raw.connection.sock.getsockname() if answer.raw.connection else None)
            content = answer.content
            assert answer.status_code == status
            assert content == expected
    # The three answers came on one connection: after a spliced body the server read the next request right.
    assert len({place for place in opened if place}) == 1


def test_past_its_first_chunk_the_proxy_hands_the_body_to_the_kernel(
    results_client, store, big_file, monkeypatch, close_response
):
    monkeypatch.setattr(budget, "person_of", lambda request: "splices")  # no other test's downloads counted
    key, body = big_file
    # Asking for compression too: a middleware that rewrote the streamed chunks (gzip) would break the spliced
    # body behind them, and this assertion with it.
    yielded, received, status = _through_the_proxy(results_client, key, close_response, HTTP_ACCEPT_ENCODING="gzip, br")
    assert status == 200
    assert yielded + received == body
    # Only the first chunk and what the store client's buffer held went through Python.
    assert 0 < len(yielded) <= file_views.FIRST_CHUNK_BYTES + 64 * 1024
    assert downloads.open_downloads("splices") == 0


def test_with_the_setting_off_every_byte_goes_through_python(results_client, store, big_file, settings, close_response):
    settings.HTRFLOW_SPLICE = False
    key, body = big_file
    yielded, received, _ = _through_the_proxy(results_client, key, close_response)
    assert (yielded, received) == (body, b"")  # nothing written to the client's socket behind the server's back


def test_a_kernel_that_refuses_to_splice_loses_nothing(results_client, store, big_file, monkeypatch, close_response):
    def refused(*_args, **_kwargs):
        raise OSError(errno.EINVAL, "Invalid argument")

    monkeypatch.setattr(splice.os, "splice", refused)
    key, body = big_file
    yielded, received, _ = _through_the_proxy(results_client, key, close_response)
    assert (yielded, received) == (body, b"")  # read on in Python from where the refused move began
    assert not splice.available()  # and not asked again


def test_the_store_side_is_found_on_a_plain_http_body_of_known_length(store, big_file):
    key, body = big_file
    answer = store.client(store.accounts["full"]).get_object(Bucket=store.bucket, Key=key)
    streaming = answer["Body"]
    try:
        first = streaming.read(1000)
        held = splice.buffered_bytes(streaming)
        source = splice.source_of(streaming)
        assert source is not None
        assert source.remaining == len(body) - len(first) - len(held)
        assert source.timeout and source.timeout > 0  # the store client's read timeout still bounds each wait
        rest = _forwarded(source)
        assert first + held + rest == body
    finally:
        streaming.close()


def test_a_body_not_read_from_a_socket_is_not_spliced():
    import io  # only this test builds a body from memory

    from botocore.response import StreamingBody  # only this test builds a boto3 body

    assert splice.source_of(StreamingBody(io.BytesIO(b"abc"), 3)) is None
    assert splice.source_of(object()) is None


def test_only_a_plain_blocking_http1_client_socket_is_used():
    http11 = {"SERVER_PROTOCOL": "HTTP/1.1"}
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
        assert splice.client_socket({"gunicorn.socket": tcp, **http11}) is tcp
        assert splice.client_socket({"gunicorn.socket": tcp, "SERVER_PROTOCOL": "HTTP/1.0"}) is tcp
        # HTTP/2 carries many answers on one connection: raw bytes would break every stream on it.
        assert splice.client_socket({"gunicorn.socket": tcp, "SERVER_PROTOCOL": "HTTP/2"}) is None
        assert splice.client_socket({"gunicorn.socket": tcp}) is None
        tcp.settimeout(5)  # a socket with a timeout is not blocking underneath: a move could stop half-way
        assert splice.client_socket({"gunicorn.socket": tcp, **http11}) is None
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        assert splice.client_socket({"gunicorn.socket": udp, **http11}) is None
    assert splice.client_socket(http11) is None  # another server, or the test client
    assert splice.client_socket({"gunicorn.socket": "not a socket", **http11}) is None


def _through_the_proxy(results_client, key, close_response, **extra):
    """(bytes the answer yielded, bytes written to the client's socket behind it, status)."""
    ours, theirs = socket.socketpair()
    received = bytearray()
    reader = threading.Thread(target=_read_all, args=(theirs, received))
    reader.start()
    try:
        response = results_client.get(f"/results/{key}", **{"gunicorn.socket": ours}, **extra)
        yielded = b"".join(response.streaming_content)
        close_response(response)
    finally:
        ours.close()
        reader.join(timeout=30)
        theirs.close()
    return yielded, bytes(received), response.status_code


@pytest.mark.parametrize("size", [64 * 1024 + 1, 64 * 1024 + 4000, 72 * 1024, 72 * 1024 + 1, 64 * 1024])
def test_a_body_just_past_the_first_chunk_arrives_whole_without_a_warning(
    results_client, store, store_prefix, size, caplog, close_response
):
    # The first chunk is 64 KiB and the store client buffers up to 8 KiB more: when that is the whole rest,
    # nothing is left to splice.
    body = os.urandom(size)
    key = f"{store_prefix}edge-{size}.bin"
    store.put(key, body, content_type="application/octet-stream")
    yielded, received, status = _through_the_proxy(results_client, key, close_response)
    assert status == 200 and yielded + received == body
    assert not [record for record in caplog.records if "stopped early" in record.getMessage()]


def test_the_moves_to_the_client_never_hold_the_last_bytes_back(
    results_client, store, big_file, monkeypatch, close_response
):
    # SPLICE_F_MORE would tell the kernel more is coming: the body's last partial packet would wait, on a kept
    # connection, until a timer sends it.
    calls = []
    real = os.splice

    def recording(source, target, count, *rest, **named):
        calls.append((target, named.get("flags", rest[-1] if rest else 0)))
        return real(source, target, count, *rest, **named)

    monkeypatch.setattr(splice.os, "splice", recording)
    key, body = big_file
    yielded, received, _ = _through_the_proxy(results_client, key, close_response)
    assert yielded + received == body
    assert calls and not [flags for _target, flags in calls if flags & os.SPLICE_F_MORE]


def test_a_kernel_that_refuses_to_move_into_the_client_socket_loses_nothing(
    results_client, store, big_file, monkeypatch, close_response
):
    real = os.splice
    refusals = []

    def refusing_the_client(source, target, count, *rest, **named):
        if not stat.S_ISFIFO(os.fstat(target).st_mode):  # out of the pipe, into a socket
            refusals.append(target)
            raise OSError(errno.EINVAL, "Invalid argument")
        return real(source, target, count, *rest, **named)

    monkeypatch.setattr(splice.os, "splice", refusing_the_client)
    key, body = big_file
    yielded, received, _ = _through_the_proxy(results_client, key, close_response)
    assert yielded + received == body  # what the pipe held was sent back, the rest copied
    assert len(refusals) == 1 and not splice.available()  # and the process stopped trying
    again, received_again, _ = _through_the_proxy(results_client, key, close_response)
    assert again == body and received_again == b""  # the next download is read and written in Python


def test_a_store_failing_mid_body_shuts_the_client_side_so_it_does_not_wait():
    class Failing:
        def __init__(self):
            self.reads = 0

        def read(self, _amount):
            self.reads += 1
            if self.reads > 1:
                raise TimeoutError("the store went quiet")
            return b"first"

    ours, theirs = socket.socketpair()
    try:
        chunks = file_views._chunks_of(Failing(), ours, declared=1000, may_splice=False)
        assert next(chunks) == b"first"
        with pytest.raises(TimeoutError):
            next(chunks)
        theirs.settimeout(5)
        assert theirs.recv(10) == b""  # the end of the stream, at once: no wait on a kept connection
    finally:
        ours.close()
        theirs.close()


# --- forward, between socket pairs ----------------------------------------------------------------


def _forwarded(source):
    """What ``forward`` delivers to a client socket, read on the other end."""
    ours, theirs = socket.socketpair()
    received = bytearray()
    reader = threading.Thread(target=_read_all, args=(theirs, received))
    reader.start()
    try:
        splice.forward(source, ours)
    finally:
        ours.close()
        reader.join(timeout=30)
        theirs.close()
    return bytes(received)


def _read_all(sock, into):
    while chunk := sock.recv(MIB):
        into.extend(chunk)


def _store_side(payload, *, close_after=True, timeout=5.0):
    """A socket that sends ``payload`` (then closes, or stays quiet) and the one forward reads from."""
    store_end, ours = socket.socketpair()
    ours.settimeout(timeout)

    def send():
        try:
            store_end.sendall(payload)
        except OSError:
            return  # the test is over and closed its end
        if close_after:
            store_end.close()

    threading.Thread(target=send, daemon=True).start()
    return store_end, ours


def test_forward_moves_exactly_the_remaining_bytes_and_no_more():
    payload = os.urandom(2 * MIB + 7)
    store_end, ours = _store_side(payload + b"NEXT ANSWER", close_after=False)
    try:
        source = splice.Source(sock=ours, remaining=len(payload), timeout=5.0)
        assert _forwarded(source) == payload
        assert source.remaining == 0
        assert ours.recv(100) == b"NEXT ANSWER"  # what follows the body stays unread
    finally:
        store_end.close()
        ours.close()


def test_a_store_that_closes_before_the_end_stops_the_download_with_a_reset():
    store_end, ours = _store_side(b"x" * 1000)
    try:
        with pytest.raises(ConnectionResetError):
            _forwarded(splice.Source(sock=ours, remaining=5000, timeout=5.0))
    finally:
        ours.close()


def test_a_store_that_goes_quiet_stops_the_download_after_its_read_timeout():
    store_end, ours = _store_side(b"x" * 1000, close_after=False, timeout=0.2)
    try:
        with pytest.raises(splice.StoreWentQuiet):
            _forwarded(splice.Source(sock=ours, remaining=5000, timeout=0.2))
    finally:
        store_end.close()
        ours.close()


def test_a_client_that_went_away_stops_the_download():
    store_end, ours = _store_side(os.urandom(4 * MIB), close_after=False)
    client, client_end = socket.socketpair()
    client_end.close()
    try:
        with pytest.raises(OSError):
            splice.forward(splice.Source(sock=ours, remaining=4 * MIB, timeout=5.0), client)
    finally:
        for sock in (store_end, ours, client):
            sock.close()


def test_a_spliced_body_takes_no_memory_in_python_however_long():
    import tracemalloc  # only this test measures allocations

    payload = os.urandom(16 * MIB)
    store_end, ours = _store_side(payload)
    client, client_end = socket.socketpair()
    digest, buffer = hashlib.sha256(), bytearray(MIB)  # the reading end allocates nothing while it reads

    def read_all():
        view = memoryview(buffer)
        while got := client_end.recv_into(view):
            digest.update(view[:got])

    reader = threading.Thread(target=read_all)
    reader.start()
    tracemalloc.start()
    try:
        splice.forward(splice.Source(sock=ours, remaining=len(payload), timeout=5.0), client)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        client.close()
        reader.join(timeout=30)
        for sock in (client_end, ours):
            sock.close()
    assert digest.hexdigest() == hashlib.sha256(payload).hexdigest()
    assert peak < 64 * 1024  # 16 MiB moved; a read through Python would hold at least a chunk of 1 MiB

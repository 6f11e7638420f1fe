"""What one download costs the proxy, counted: store requests and chunks (issue 39, item 8).

The proxy keeps up with a direct read only while it adds nothing per download (a HEAD before the GET,
a second GET for a Range) and little per byte (a chunk is a pass through Python, the store's client
and gunicorn). Both are counted here, never timed; the rates are in benchmarks/bench_proxy_speed.py.
"""

import pytest

from devstack.store import large_object_bytes
from results import file_views
from results.store import budget, downloads
from results.store import s3 as store

SIZE = 5 * 1024 * 1024 + 17


@pytest.fixture
def store_requests(monkeypatch):
    """(method, path) of every request the proxy's store clients send from now on."""
    sent = []
    make = store._make_client

    def counting(access_key, secret_key):
        client = make(access_key, secret_key)
        client.meta.events.register("before-send.s3", lambda request, **_: sent.append((request.method, request.url)))
        return client

    monkeypatch.setattr(store, "_make_client", counting)
    store.forget_clients()
    return sent


def _for(sent, key):
    return [method for method, url in sent if url.split("?", 1)[0].endswith("/" + key)]


def _read(response, close_response):
    chunks = list(response.streaming_content)
    close_response(response)
    return chunks


def test_a_whole_download_is_one_get_of_the_store_in_few_chunks(
    results_client, store, store_prefix, store_requests, close_response
):
    key = store_prefix + "whole.bin"
    store.put_large(key, SIZE)
    chunks = _read(results_client.get(f"/results/{key}"), close_response)
    assert b"".join(chunks) == large_object_bytes(0, SIZE)
    assert _for(store_requests, key) == ["GET"]  # no HEAD first, no second read
    # A first chunk sent as soon as the store answers, then full chunks: per-chunk work stays a small share.
    assert len(chunks[0]) <= file_views.FIRST_CHUNK_BYTES
    assert max(len(chunk) for chunk in chunks) <= file_views.CHUNK_BYTES
    full = -(-(SIZE - len(chunks[0])) // file_views.CHUNK_BYTES)
    assert len(chunks) <= 1 + full


def test_a_range_and_a_conditional_request_are_one_get_each(
    results_client, store, store_prefix, store_requests, close_response
):
    key = store_prefix + "ranged.bin"
    store.put_large(key, SIZE)
    ranged = results_client.get(f"/results/{key}", HTTP_RANGE="bytes=1000-1999999")
    assert ranged.status_code == 206
    assert ranged["Content-Range"] == f"bytes 1000-1999999/{SIZE}"
    assert b"".join(_read(ranged, close_response)) == large_object_bytes(1000, 1999000)
    current = results_client.get(f"/results/{key}", HTTP_IF_NONE_MATCH=ranged["ETag"])
    assert current.status_code == 304
    assert _for(store_requests, key) == ["GET", "GET"]


def test_a_download_given_up_early_gives_its_slot_back(
    results_client, store, store_prefix, store_requests, monkeypatch, close_response
):
    # A person of this test's own: a download another test's server thread still streams is not counted here.
    monkeypatch.setattr(budget, "person_of", lambda request: "gives-up-early")
    key = store_prefix + "dropped.bin"
    store.put_large(key, SIZE)
    response = results_client.get(f"/results/{key}")
    first = next(iter(response.streaming_content))
    assert first == large_object_bytes(0, len(first))
    assert downloads.open_downloads("gives-up-early") == 1
    close_response(response)  # what the server does when the client goes away mid-stream
    assert downloads.open_downloads("gives-up-early") == 0
    assert _for(store_requests, key) == ["GET"]

"""GET /results/<key>: one person may be downloading only so many files at once (results/store/downloads.py)."""

import pytest
from django.test import Client, RequestFactory

from results import file_views
from results.store import budget, downloads
from tests.fixtures.session import login_as


@pytest.fixture
def file_key(store, store_prefix):
    key = store_prefix + "big.txt"
    store.put(key, b"x" * 200_000, "text/plain")
    return key


@pytest.fixture
def two_each(settings):
    settings.HTRFLOW_DOWNLOADS_PER_PERSON = 2


def _person(account):
    return budget.person_named(account.username)


def test_past_the_cap_a_download_gets_429_with_retry_after_and_a_sentence(results_client, file_key, store, two_each):
    open_ones = [results_client.get(f"/results/{file_key}") for _ in range(2)]
    assert [r.status_code for r in open_ones] == [200, 200]
    assert downloads.open_downloads(_person(store.accounts["full"])) == 2

    refused = results_client.get(f"/results/{file_key}")
    assert refused.status_code == 429
    assert refused["Retry-After"] == str(downloads.RETRY_AFTER_SECONDS)
    assert "try again when one of them has finished" in refused.content.decode()
    as_json = results_client.get(f"/results/{file_key}", HTTP_ACCEPT="application/json")
    assert (as_json.status_code, as_json.json()["reason"]) == (429, "too_many_downloads")

    # Someone else is not held back by it.
    other = Client()
    login_as(other, store.accounts["limited"])
    assert other.get(f"/results/{file_key}").status_code == 200

    # A download read to its end gives its slot back.
    assert len(b"".join(open_ones[0].streaming_content)) == 200_000
    assert downloads.open_downloads(_person(store.accounts["full"])) == 1
    assert results_client.get(f"/results/{file_key}").status_code == 200


class _Body:
    """A store stream that records being closed."""

    def __init__(self):
        self.closed = 0
        self._left = [b"x" * 10]

    def read(self, size):
        return self._left.pop() if self._left else b""

    def close(self):
        self.closed += 1


def test_a_download_dropped_unread_gives_its_slot_back_once(two_each):
    # What the server does when the client goes away before the first byte: it closes the
    # response, which closes its content without ever iterating it.
    person = "someone"
    assert downloads.take(person)
    body = _Body()
    unread = file_views._download(RequestFactory().get("/"), body, "ns/p/v/file", person)
    unread.close()
    unread.close()
    assert (body.closed, downloads.open_downloads(person)) == (1, 0)

    assert downloads.take(person)
    read = file_views._download(RequestFactory().get("/"), _Body(), "ns/p/v/file", person)
    assert b"".join(read) == b"x" * 10  # read to its end: closed by its own iteration
    read.close()
    assert downloads.open_downloads(person) == 0


def test_answers_that_are_not_the_file_hold_no_slot(results_client, file_key, store, store_prefix, two_each):
    for _ in range(3):
        assert results_client.get(f"/results/{store_prefix}missing.txt").status_code == 404
    etag = results_client.head(f"/results/{file_key}")["ETag"]
    for _ in range(3):
        assert results_client.get(f"/results/{file_key}", HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert downloads.open_downloads(_person(store.accounts["full"])) == 0
    assert results_client.get(f"/results/{file_key}").status_code == 200

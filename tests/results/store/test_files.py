"""GET|HEAD /results/<key>: files read through real boto3 from the store double with each account."""

import json

import pytest

from devstack.store import large_object_bytes
from results.file_views import CHUNK_BYTES
from tests.fixtures.session import login_as

STRICT = {
    "Cache-Control": "private, no-cache",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
}


def assert_strict_headers(response):
    for name, value in STRICT.items():
        assert response[name] == value, name


def body_of(response):
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.fixture
def progress(store, store_prefix):
    key = store_prefix + "vol-1/progress.json"
    store.put(key, json.dumps({"stage": "stream", "pages_total": 10}), "application/json")
    return key


def test_the_full_account_reads_a_file_with_its_metadata(results_client, progress):
    response = results_client.get(f"/results/{progress}")
    assert response.status_code == 200
    assert json.loads(body_of(response)) == {"stage": "stream", "pages_total": 10}
    assert response["Content-Type"] == "application/json"
    assert response["Accept-Ranges"] == "bytes"
    assert response["ETag"].startswith('"')
    assert response["Last-Modified"].endswith("GMT")
    assert int(response["Content-Length"]) == len(body_of(results_client.get(f"/results/{progress}")))
    assert "Content-Disposition" not in response
    assert_strict_headers(response)


def test_a_range_is_206_with_content_range(results_client, store, store_prefix):
    key = store_prefix + "log.txt"
    store.put(key, b"0123456789", "text/plain")
    response = results_client.get(f"/results/{key}", HTTP_RANGE="bytes=2-5")
    assert response.status_code == 206
    assert body_of(response) == b"2345"
    assert response["Content-Range"] == "bytes 2-5/10"
    assert response["Content-Length"] == "4"
    suffix = results_client.get(f"/results/{key}", HTTP_RANGE="bytes=-3")
    assert (suffix.status_code, body_of(suffix)) == (206, b"789")
    assert_strict_headers(response)


def test_an_unsatisfiable_range_is_416(results_client, store, store_prefix):
    key = store_prefix + "log.txt"
    store.put(key, b"0123456789", "text/plain")
    response = results_client.get(f"/results/{key}", HTTP_RANGE="bytes=50-60")
    assert response.status_code == 416
    assert response["Content-Range"] == "bytes */10"
    assert_strict_headers(response)


def test_a_multi_range_or_malformed_range_gets_the_whole_file(results_client, store, store_prefix):
    key = store_prefix + "log.txt"
    store.put(key, b"0123456789", "text/plain")
    for value in ("bytes=0-1,4-5", "lines=1-2", "bytes=5-2"):
        response = results_client.get(f"/results/{key}", HTTP_RANGE=value)
        assert (response.status_code, body_of(response)) == (200, b"0123456789")


def test_a_current_copy_is_304_by_etag_and_by_date(results_client, progress):
    first = results_client.get(f"/results/{progress}")
    by_tag = results_client.get(f"/results/{progress}", HTTP_IF_NONE_MATCH=first["ETag"])
    assert by_tag.status_code == 304
    assert by_tag["ETag"] == first["ETag"]
    assert body_of(by_tag) == b""
    assert_strict_headers(by_tag)
    by_date = results_client.get(f"/results/{progress}", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert by_date.status_code == 304
    stale = results_client.get(f"/results/{progress}", HTTP_IF_NONE_MATCH='"something-else"')
    assert stale.status_code == 200


def test_head_answers_the_headers_without_a_body(results_client, progress):
    response = results_client.head(f"/results/{progress}")
    assert response.status_code == 200
    assert int(response["Content-Length"]) > 0
    assert response["Content-Type"] == "application/json"
    assert body_of(response) == b""
    assert_strict_headers(response)


@pytest.mark.parametrize(
    "name, stored_type, served_type",
    [
        ("page.xml", "application/xml", "application/xml; charset=utf-8"),
        ("page.xml", None, "application/xml; charset=utf-8"),
        ("run.txt", "text/plain; charset=utf-8", "text/plain; charset=utf-8"),
        ("data.json", "binary/octet-stream", "application/json"),
    ],
)
def test_json_xml_and_plain_text_are_served_as_themselves(
    results_client, store, store_prefix, name, stored_type, served_type
):
    store.put(store_prefix + name, b"content", stored_type)
    response = results_client.get(f"/results/{store_prefix}{name}")
    assert response["Content-Type"] == served_type
    assert "Content-Disposition" not in response


@pytest.mark.parametrize(
    "name, stored_type", [("evil.html", "text/html"), ("x.svg", "image/svg+xml"), ("y.json", "text/html")]
)
def test_anything_else_is_a_download(results_client, store, store_prefix, name, stored_type):
    store.put(store_prefix + name, b"<script>alert(1)</script>", stored_type)
    response = results_client.get(f"/results/{store_prefix}{name}")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/octet-stream"
    assert response["Content-Disposition"] == f'attachment; filename="{name}"'
    assert_strict_headers(response)


def test_without_a_session_a_file_is_401_with_a_sentence(client, store, progress, session_key_file):
    response = client.get(f"/results/{progress}")
    assert response.status_code == 401
    assert "Log in" in response.content.decode()
    assert_strict_headers(response)
    as_json = client.get(f"/results/{progress}", HTTP_ACCEPT="application/json")
    assert as_json.json()["reason"] == "no_session"


def test_the_limited_account_is_refused_the_volumes_it_may_not_read(client, store, store_prefix, session_key_file):
    allowed, denied = store_prefix + "open/progress.json", store_prefix + "closed/progress.json"
    store.put(allowed, b"{}", "application/json")
    store.put(denied, b"{}", "application/json")
    store.deny_limited(store_prefix + "closed/")
    login_as(client, store.accounts["limited"])
    assert client.get(f"/results/{allowed}").status_code == 200
    refused = client.get(f"/results/{denied}")
    assert refused.status_code == 403
    assert refused.content.decode().strip() == "Your store account may not read this file."
    assert_strict_headers(refused)
    assert client.head(f"/results/{denied}").status_code == 403


def test_the_outsider_logs_in_but_is_refused_files(client, store, progress, session_key_file):
    login_as(client, store.accounts["outsider"])
    assert client.get(f"/results/{progress}").status_code == 403


def test_a_missing_file_is_404(results_client, store_prefix):
    response = results_client.get(f"/results/{store_prefix}nothing.json")
    assert response.status_code == 404
    assert_strict_headers(response)


def test_a_session_the_store_no_longer_accepts_is_401_and_the_cookie_is_cleared(
    client, store, progress, settings, tmp_path
):
    # A session sealed for an account the store does not know (as after the account is removed).
    from results.accounts import session

    key_file = tmp_path / "key"
    key_file.write_text(session.new_key_text())
    settings.HTRFLOW_SESSION_KEY_FILE = str(key_file)
    gone = session.ResultsSession("gone-user", "GONEKEY", "gone-secret", issued_at=int(__import__("time").time()))
    client.cookies["htrflow_session"] = session.seal(gone, "htrflow_session")
    response = client.get(f"/results/{progress}")
    assert response.status_code == 401
    assert "log in again" in response.content.decode()
    assert response.cookies["htrflow_session"]["max-age"] == 0


def test_a_stopped_store_is_502_and_a_hung_one_504(
    results_client, progress, settings, closed_port_endpoint, hung_endpoint
):
    settings.S3_ENDPOINT = closed_port_endpoint
    response = results_client.get(f"/results/{progress}")
    assert response.status_code == 502
    assert response["Retry-After"] == "30"  # a script that retries waits out a restart, not a second
    settings.S3_ENDPOINT = hung_endpoint
    settings.HTRFLOW_S3_TIMEOUT = 0.3
    response = results_client.get(f"/results/{progress}")
    assert response.status_code == 504
    assert response["Retry-After"] == "30"
    assert_strict_headers(response)


def test_a_missing_file_says_nothing_of_asking_again(results_client, progress):
    response = results_client.get(f"/results/{progress}.gone")
    assert response.status_code == 404
    assert "Retry-After" not in response


def test_a_hung_store_costs_one_timeout_not_two(results_client, progress, settings, hung_store):
    settings.S3_ENDPOINT = hung_store.url
    settings.HTRFLOW_S3_TIMEOUT = 0.3
    response = results_client.get(f"/results/{progress}")
    assert response.status_code == 504
    assert hung_store.connections == 1


@pytest.mark.parametrize(
    "raw_path",
    [
        "/results/htr-batch/%2e%2e/secret",
        "/results/htr-batch/p%2Fx/y",
        "/results/htr-batch/p%5Cx/y",
        "/results/other-namespace/p/x.json",
        "/results/htr-batch//x.json",
    ],
)
def test_key_rules_apply_to_the_raw_path_before_the_store_is_asked(results_client, raw_path, monkeypatch):
    from results.store import s3 as store_module

    monkeypatch.setattr(store_module, "client_for", lambda *a: pytest.fail("the store was asked"))
    # Gunicorn hands the raw request target over as RAW_URI; the test client has none of its own.
    response = results_client.get(raw_path, RAW_URI=raw_path)
    assert response.status_code == 404
    assert "does not name a results file" in response.content.decode()
    assert_strict_headers(response)


def test_without_a_raw_path_the_decoded_path_is_not_decoded_twice(results_client, store, store_prefix):
    key = store_prefix + "a%41.txt"
    store.put(key, b"literal percent", "text/plain")
    response = results_client.get(f"/results/{store_prefix}a%2541.txt")
    assert body_of(response) == b"literal percent"


@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_other_methods_are_405(results_client, progress, method):
    response = getattr(results_client, method)(f"/results/{progress}")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"
    assert_strict_headers(response)


def test_a_large_object_streams_in_chunks(results_client, store, store_prefix):
    key = store_prefix + "large.bin"
    size = 5 * 1024 * 1024 + 17
    store.put_large(key, size)
    response = results_client.get(f"/results/{key}")
    assert response.streaming
    assert response["Content-Length"] == str(size)
    total, largest = 0, 0
    for chunk in response.streaming_content:
        assert chunk == large_object_bytes(total, len(chunk))
        total += len(chunk)
        largest = max(largest, len(chunk))
    assert total == size
    assert largest <= CHUNK_BYTES


def test_a_refused_connection_is_tried_once_more_but_a_timeout_is_not():
    from botocore.exceptions import EndpointConnectionError, ReadTimeoutError

    from results.store import s3 as store_module

    answers = iter([EndpointConnectionError(endpoint_url="http://s3"), "the object"])

    def flaky():
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert store_module._once_more_if_refused(flaky) == "the object"
    calls = []

    def hung():
        calls.append(1)
        raise ReadTimeoutError(endpoint_url="http://s3")

    with pytest.raises(ReadTimeoutError):
        store_module._once_more_if_refused(hung)
    assert len(calls) == 1


@pytest.mark.parametrize("value", ["bytes=" + "9" * 4301 + "-", "bytes=0-" + "9" * 4301, "bytes=-" + "9" * 5000])
def test_a_range_with_thousands_of_digits_is_416_not_a_fault(results_client, store, store_prefix, value):
    # Python's int() refuses more than 4 300 digits; no store holds an object anywhere near that size.
    key = store_prefix + "log.txt"
    store.put(key, b"0123456789", "text/plain")
    response = results_client.get(f"/results/{key}", HTTP_RANGE=value)
    assert response.status_code == 416
    assert response["Content-Range"] == "bytes */10"
    assert_strict_headers(response)

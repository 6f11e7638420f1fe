"""POST /results/_login, /results/_logout and GET /results/_session against the store double."""

import hashlib
import io
import json
import logging

import pytest
from django.core import signing

from tests.fixtures.session import TEST_SERVER_ORIGIN, login_as

pytestmark = pytest.mark.usefixtures("session_key_file")


def post_login(client, username, password, origin=TEST_SERVER_ORIGIN, **extra):
    headers = {"HTTP_ORIGIN": origin} if origin else {}
    return client.post(
        "/results/_login",
        data=json.dumps({"username": username, "password": password}),
        content_type="application/json",
        **headers,
        **extra,
    )


def test_the_full_account_logs_in_with_a_strict_session_cookie(client, store, settings):
    settings.HTRFLOW_SESSION_HOURS = 8
    account = store.accounts["full"]
    response = post_login(client, account.username, account.password)
    assert response.status_code == 204
    cookie = response.cookies["htrflow_session"]
    assert cookie["httponly"] and cookie["samesite"] == "Strict" and cookie["path"] == "/"
    assert cookie["max-age"] == 8 * 3600
    assert not cookie["secure"]
    assert client.get("/results/_session").json() == {"user": account.username}


def test_over_https_the_cookie_is_secure_and_host_prefixed(client, store):
    account = store.accounts["full"]
    response = post_login(client, account.username, account.password, origin="https://testserver", secure=True)
    assert response.status_code == 204
    cookie = response.cookies["__Host-htrflow_session"]
    assert cookie["secure"] and cookie["httponly"] and cookie["path"] == "/"
    assert "htrflow_session" not in response.cookies
    # The same sealed value presented without the prefix over https is no session.
    client.cookies["htrflow_session"] = cookie.value
    del client.cookies["__Host-htrflow_session"]
    assert client.get("/results/_session", secure=True).status_code == 401


def test_a_wrong_password_is_401_with_its_sentence_and_no_cookie(client, store):
    response = post_login(client, store.accounts["full"].username, "not-the-password")
    assert response.status_code == 401
    assert response.json()["error"] == "Wrong user name or password."
    assert "htrflow_session" not in response.cookies


def test_an_unknown_user_is_401(client, store):
    assert post_login(client, "nobody-here", "whatever").status_code == 401


def test_the_outsider_logs_in_because_the_store_knows_the_account(client, store):
    account = store.accounts["outsider"]
    assert post_login(client, account.username, account.password).status_code == 204


def test_hcp_key_derivation_logs_in_with_the_typed_name_and_password(client, store, settings):
    settings.HTRFLOW_KEY_DERIVATION = "hcp"
    account = store.hcp_accounts["full"]
    assert post_login(client, account.username, account.password).status_code == 204
    assert client.get("/results/_session").json() == {"user": account.username}
    settings.HTRFLOW_KEY_DERIVATION = "none"
    assert post_login(client, account.username, account.password).status_code == 401


@pytest.mark.parametrize("origin", ["https://evil.example", "http://testserver.evil.example", None, "null"])
def test_a_foreign_or_missing_origin_is_403_without_a_cookie_or_a_store_call(client, store, store_calls, origin):
    account = store.accounts["full"]
    response = post_login(client, account.username, account.password, origin=origin)
    assert response.status_code == 403
    assert "site's own address" in response.json()["error"]
    assert "htrflow_session" not in response.cookies
    assert store_calls == []


def test_a_forwarded_address_is_the_sites_own_only_through_trusted_hops(client, store, settings):
    account = store.accounts["full"]
    behind_proxy = {"HTTP_X_FORWARDED_HOST": "htr.example.org", "HTTP_X_FORWARDED_PROTO": "https"}
    settings.ALLOWED_HOSTS = ["testserver", "htr.example.org"]
    settings.TRUSTED_HOPS = 0
    assert (
        post_login(client, account.username, account.password, "https://htr.example.org", **behind_proxy).status_code
        == 403
    )
    settings.TRUSTED_HOPS = 1
    assert (
        post_login(client, account.username, account.password, "https://htr.example.org", **behind_proxy).status_code
        == 204
    )


def test_a_body_over_16_kib_is_413(client, store, store_calls):
    body = json.dumps({"username": "u", "password": "p" * 17000})
    response = client.post(
        "/results/_login", data=body, content_type="application/json", HTTP_ORIGIN=TEST_SERVER_ORIGIN
    )
    assert response.status_code == 413
    assert store_calls == []


def post_chunked(client, body, terminated=True):
    """A login body sent with Transfer-Encoding: chunked and no Content-Length, as gunicorn hands it on."""
    return client.generic(
        "POST",
        "/results/_login",
        b"",
        CONTENT_TYPE="application/json",
        HTTP_ORIGIN=TEST_SERVER_ORIGIN,
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": io.BytesIO(body), "wsgi.input_terminated": terminated},
    )


def test_a_chunked_body_from_a_server_that_does_not_end_the_stream_is_not_read(client, store, store_calls):
    account = store.accounts["full"]
    body = json.dumps({"username": account.username, "password": account.password}).encode()
    response = post_chunked(client, body, terminated=False)
    assert response.status_code == 422
    assert store_calls == []


def test_a_chunked_body_over_16_kib_is_413(client, store, store_calls):
    response = post_chunked(client, json.dumps({"username": "u", "password": "p" * (2 * 1024 * 1024)}).encode())
    assert response.status_code == 413
    assert store_calls == []


def test_a_chunked_login_is_read_whole(client, store):
    account = store.accounts["full"]
    response = post_chunked(client, json.dumps({"username": account.username, "password": account.password}).encode())
    assert response.status_code == 204
    assert client.get("/results/_session").json() == {"user": account.username}


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "[]",
        json.dumps({"username": "u"}),
        json.dumps({"username": "u", "password": "p", "extra": 1}),
        json.dumps({"username": 5, "password": "p"}),
        json.dumps({"username": "", "password": "p"}),
        json.dumps({"username": "u", "password": ""}),
        json.dumps({"username": "u" * 257, "password": "p"}),
        json.dumps({"username": "u", "password": "p" * 1025}),
        b"\xff\xfe",
    ],
)
def test_other_shapes_are_422(client, store, store_calls, body):
    response = client.post(
        "/results/_login", data=body, content_type="application/json", HTTP_ORIGIN=TEST_SERVER_ORIGIN
    )
    assert response.status_code == 422
    assert "user name of 1 to 256 characters" in response.json()["error"]
    assert store_calls == []


def test_the_longest_allowed_fields_reach_the_store(client, store):
    assert post_login(client, "u" * 256, "p" * 1024).status_code == 401


def test_other_methods_are_405(client):
    assert client.get("/results/_login").status_code == 405


def test_failed_logins_for_one_user_name_are_limited(client, store, store_calls, settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (3, 600)
    account = store.accounts["full"]
    for _ in range(3):
        assert post_login(client, account.username, "wrong", REMOTE_ADDR="203.0.113.5").status_code == 401
    calls_before = len(store_calls)
    response = post_login(client, account.username, account.password, REMOTE_ADDR="203.0.113.5")
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 500
    assert response.json()["error"] == (
        "Too many failed logins for this user name from your address; wait 10 minutes before trying again."
    )
    assert len(store_calls) == calls_before
    # The owner at another address is not locked out by someone else's guesses.
    assert post_login(client, account.username, account.password, REMOTE_ADDR="203.0.113.77").status_code == 204


def test_failed_logins_from_one_address_are_limited_by_the_right_most_trusted_hop(client, store, settings):
    settings.HTRFLOW_LOGIN_ADDRESS_LIMIT = (3, 120)
    settings.TRUSTED_HOPS = 1
    for number in range(3):
        # The client varies the left part of X-Forwarded-For; the proxy's entry stays the same.
        spoof = {"HTTP_X_FORWARDED_FOR": f"10.9.9.{number}, 198.51.100.4"}
        assert post_login(client, f"user-{number}", "wrong", **spoof).status_code == 401
    response = post_login(client, "someone-else", "wrong", HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.4")
    assert response.status_code == 429
    assert response.json()["error"] == "Too many failed logins from your address; wait 2 minutes before trying again."
    assert 100 <= int(response["Retry-After"]) <= 120  # the window started with the first failure, seconds ago


def test_a_new_login_replaces_the_old_session(client, store):
    login_as(client, store.accounts["limited"])
    login_as(client, store.accounts["full"])
    assert client.get("/results/_session").json() == {"user": store.accounts["full"].username}


def test_logout_clears_the_cookie_and_ends_the_session(results_client):
    response = results_client.post("/results/_logout", HTTP_ORIGIN=TEST_SERVER_ORIGIN)
    assert response.status_code == 204
    assert response.cookies["htrflow_session"]["max-age"] == 0
    assert results_client.get("/results/_session").status_code == 401


def test_a_cross_site_logout_is_refused(results_client):
    assert results_client.post("/results/_logout", HTTP_ORIGIN="https://evil.example").status_code == 403
    assert results_client.get("/results/_session").status_code == 200


def test_session_without_a_login_is_401(client, store):
    response = client.get("/results/_session")
    assert response.status_code == 401
    assert "Log in" in response.json()["error"]


def test_a_stopped_store_is_502(client, store, settings, closed_port_endpoint):
    settings.S3_ENDPOINT = closed_port_endpoint
    response = post_login(client, "u", "p")
    assert response.status_code == 502
    assert "could not be reached" in response.json()["error"]


def test_a_hung_store_is_504_after_the_timeout(client, store, settings, hung_endpoint):
    settings.S3_ENDPOINT = hung_endpoint
    settings.HTRFLOW_S3_TIMEOUT = 0.3
    response = post_login(client, "u", "p")
    assert response.status_code == 504
    assert "did not answer in time" in response.json()["error"]


def test_a_login_against_a_hung_store_is_asked_once(client, store, settings, hung_store):
    settings.S3_ENDPOINT = hung_store.url
    settings.HTRFLOW_S3_TIMEOUT = 0.3
    assert post_login(client, "u", "p").status_code == 504
    assert hung_store.connections == 1


def test_a_bare_403_from_the_store_is_502_no_reason(client, store, settings, bare_403_endpoint):
    settings.S3_ENDPOINT = bare_403_endpoint
    response = post_login(client, "u", "p")
    assert response.status_code == 502
    assert "without giving a reason" in response.json()["error"]


def test_a_missing_session_key_is_503_with_a_sentence(client, store, settings, tmp_path):
    settings.HTRFLOW_SESSION_KEY_FILE = str(tmp_path / "missing")
    account = store.accounts["full"]
    response = post_login(client, account.username, account.password)
    assert response.status_code == 503
    assert "session key" in response.json()["error"]


def test_credentials_never_reach_logs_or_answers(client, store, caplog, settings):
    caplog.set_level(logging.DEBUG)
    account = store.accounts["full"]
    seen = []
    seen.append(post_login(client, account.username, account.password))
    seen.append(post_login(client, account.username, "a-wrong-but-secret-password"))
    seen.append(client.get("/results/_session"))
    seen.append(client.get("/results/htr-batch/nothing/here.json"))
    settings.HTRFLOW_S3_TIMEOUT = 0.2
    settings.S3_ENDPOINT = "http://127.0.0.1:9"
    seen.append(post_login(client, account.username, account.password))
    text = caplog.text + "".join(
        r.content.decode("utf-8", "replace") + str(r.headers) for r in seen if not getattr(r, "streaming", False)
    )
    for secret in (account.password, "a-wrong-but-secret-password"):
        assert secret not in text
    cookie = seen[0].cookies["htrflow_session"].value
    assert account.password not in cookie


@pytest.mark.parametrize("derivation", ["none", "hcp"])
@pytest.mark.parametrize(
    ("username", "password"),
    [
        ("zz", "x\udfff"),
        ("z\ud800z", "pw"),
        ("line\nbreak", "pw"),
        ("tab\tname", "pw"),
        ("zz", "bell\x07"),
        ("zz", "del\x7f"),
        ("zz", "c1\x85"),
    ],
)
def test_text_that_is_not_utf8_or_holds_control_characters_is_422(
    client, store, store_calls, settings, derivation, username, password
):
    settings.HTRFLOW_KEY_DERIVATION = derivation
    # json.dumps writes a lone surrogate as a \\udfff escape, which is valid JSON text.
    response = post_login(client, username, password)
    assert response.status_code == 422
    assert "user name of 1 to 256 characters" in response.json()["error"]
    assert store_calls == []


def test_the_form_refuses_control_characters_too(client, store, store_calls):
    response = client.post("/login", {"username": "a\rb", "password": "p"}, HTTP_ORIGIN=TEST_SERVER_ORIGIN)
    assert response.status_code == 422
    assert store_calls == []


def test_a_login_gives_the_browser_a_long_lived_device_cookie_that_holds_no_secret(client, store):
    account = store.accounts["full"]
    response = post_login(client, account.username, account.password)
    assert response.status_code == 204
    cookie = response.cookies["htrflow_device"]
    assert cookie["httponly"] and cookie["samesite"] == "Strict" and cookie["path"] == "/"
    assert cookie["max-age"] == 90 * 24 * 3600
    assert not cookie["secure"]
    # Signed, not sealed: what it holds is readable, and it is only a hash of the name and a random id.
    held = signing.loads(cookie.value, salt="results.device:htrflow_device")
    assert set(held) == {"u", "d"}
    assert held["u"] == hashlib.sha256(account.username.casefold().encode()).hexdigest()[:32]
    for secret in (account.password, account.username):
        assert secret not in cookie.value and secret not in json.dumps(held)
    # Logging out ends the session, not what the browser is known for.
    assert "htrflow_device" not in client.post("/results/_logout", HTTP_ORIGIN=TEST_SERVER_ORIGIN).cookies


def test_over_https_the_device_cookie_is_secure_and_host_prefixed(client, store):
    account = store.accounts["full"]
    response = post_login(client, account.username, account.password, origin="https://testserver", secure=True)
    cookie = response.cookies["__Host-htrflow_device"]
    assert cookie["secure"] and cookie["httponly"] and cookie["samesite"] == "Strict" and cookie["path"] == "/"
    assert "htrflow_device" not in response.cookies


def test_a_failed_login_gives_no_device_cookie(client, store):
    response = post_login(client, store.accounts["full"].username, "not-the-password")
    assert response.status_code == 401
    assert not any("htrflow_device" in name for name in response.cookies)

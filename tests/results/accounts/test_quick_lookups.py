"""The operators' "Quick lookups" work as written: log in with curl-like requests, keep the cookie, read a file.

These go over real HTTP to the live server, so the raw request path and HEAD are the server's own.
"""

import json
import logging

import pytest
import requests

from results.store import s3 as store_module

pytestmark = pytest.mark.usefixtures("session_key_file")


def test_login_then_read_with_the_cookie_jar(live_server, store, store_prefix):
    key = store_prefix + "vol/progress.json"
    store.put(key, b'{"stage": "done"}', "application/json")
    account = store.accounts["full"]
    jar = requests.Session()
    login = jar.post(
        f"{live_server.url}/results/_login",
        data=json.dumps({"username": account.username, "password": account.password}),
        headers={"Origin": live_server.url, "Content-Type": "application/json"},
        timeout=10,
    )
    assert login.status_code == 204
    answer = jar.get(f"{live_server.url}/results/{key}", timeout=10)
    assert (answer.status_code, answer.json()) == (200, {"stage": "done"})
    head = jar.head(f"{live_server.url}/results/{key}", timeout=10)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["Content-Length"] == str(len(b'{"stage": "done"}'))
    traversal = jar.get(f"{live_server.url}/results/{store_prefix}%2e%2e/%2e%2e/x", timeout=10)
    assert traversal.status_code == 404


def test_without_the_cookie_a_file_is_401(live_server, store, store_prefix):
    answer = requests.get(f"{live_server.url}/results/{store_prefix}x.json", timeout=10)
    assert answer.status_code == 401
    assert answer.headers["Content-Security-Policy"] == "default-src 'none'; sandbox"


def test_a_store_whose_tls_is_not_accepted_is_502_with_a_certificate_sentence(client, store, settings):
    # The double speaks plain HTTP: asking it for TLS fails the handshake, as a refused certificate does.
    settings.S3_ENDPOINT = store.endpoint.replace("http://", "https://")
    response = client.post(
        "/results/_login",
        data=json.dumps({"username": "u", "password": "p"}),
        content_type="application/json",
        HTTP_ORIGIN="http://testserver",
    )
    assert response.status_code == 502
    assert "TLS" in response.json()["error"] and "S3_VERIFY_TLS" in response.json()["error"]


def test_skipping_certificate_checks_is_honoured_and_logged(settings, caplog):
    settings.S3_VERIFY_TLS = False
    settings.S3_ENDPOINT = "https://127.0.0.1:9"
    store_module.forget_clients()
    store_module._warned_insecure = False
    with caplog.at_level(logging.WARNING, logger="results.store.s3"):
        client = store_module.client_for("a", "b")
    assert "S3_VERIFY_TLS is false" in caplog.text
    assert client._endpoint.http_session._verify is False
    assert store_module.client_for("a", "b") is client

"""Scheme and host behind front proxies: one decision, from the entry the outermost trusted proxy wrote.

Each test runs with the proxy-related Django settings that ``htrbrowser/settings.py`` itself
produces for that many hops, so a setting that hands the headers to Django a second way shows.
"""

import json
import runpy
from pathlib import Path

import pytest

from tests.fixtures.session import TEST_SERVER_ORIGIN

pytestmark = pytest.mark.usefixtures("session_key_file")

SETTINGS_FILE = Path(__file__).resolve().parents[3] / "htrbrowser" / "settings.py"


@pytest.fixture
def behind_proxies(settings, monkeypatch):
    """Set the number of trusted hops as a deployment would, settings module included."""

    def configure(hops):
        monkeypatch.setenv("HTRFLOW_TRUSTED_HOPS", str(hops))
        produced = runpy.run_path(str(SETTINGS_FILE))
        settings.TRUSTED_HOPS = produced["TRUSTED_HOPS"]
        settings.SECURE_PROXY_SSL_HEADER = produced.get("SECURE_PROXY_SSL_HEADER")
        settings.USE_X_FORWARDED_HOST = produced.get("USE_X_FORWARDED_HOST", False)
        settings.ALLOWED_HOSTS = ["testserver", "127.0.0.1", "htr.example.org"]

    return configure


def post_login(client, account, origin, **headers):
    return client.post(
        "/results/_login",
        data=json.dumps({"username": account.username, "password": account.password}),
        content_type="application/json",
        HTTP_ORIGIN=origin,
        **headers,
    )


def test_without_trusted_hops_forwarded_headers_change_nothing(client, store, behind_proxies):
    behind_proxies(0)
    forged = {"HTTP_X_FORWARDED_PROTO": "https", "HTTP_X_FORWARDED_HOST": "htr.example.org"}
    account = store.accounts["full"]
    assert post_login(client, account, "https://htr.example.org", **forged).status_code == 403
    response = post_login(client, account, TEST_SERVER_ORIGIN, **forged)
    assert response.status_code == 204
    assert set(response.cookies) == {"htrflow_session", "htrflow_device"}
    assert not response.cookies["htrflow_session"]["secure"]


def test_one_hop_believes_only_the_right_most_proto(client, store, behind_proxies):
    behind_proxies(1)
    # The client sent "https"; the one trusted proxy appended what it saw: "http".
    account = store.accounts["full"]
    appended = {"HTTP_X_FORWARDED_PROTO": "https, http"}
    assert post_login(client, account, "https://testserver", **appended).status_code == 403
    response = post_login(client, account, TEST_SERVER_ORIGIN, **appended)
    assert response.status_code == 204
    assert set(response.cookies) == {"htrflow_session", "htrflow_device"}
    assert not response.cookies["htrflow_session"]["secure"]


def test_one_hop_believes_only_the_right_most_host(client, behind_proxies):
    behind_proxies(1)
    response = client.get("/login", HTTP_X_FORWARDED_HOST="evil.example, 127.0.0.1:8128")
    assert response.status_code == 200


def test_one_hop_over_https_gives_the_prefixed_secure_cookie(client, store, behind_proxies):
    behind_proxies(1)
    account = store.accounts["full"]
    appended = {"HTTP_X_FORWARDED_PROTO": "http, https", "HTTP_X_FORWARDED_HOST": "evil.example, htr.example.org"}
    assert post_login(client, account, "https://evil.example", **appended).status_code == 403
    response = post_login(client, account, "https://htr.example.org", **appended)
    assert response.status_code == 204
    assert set(response.cookies) == {"__Host-htrflow_session", "__Host-htrflow_device"}
    assert response.cookies["__Host-htrflow_session"]["secure"]


def test_two_hops_believe_the_entry_the_outer_proxy_wrote(client, store, behind_proxies):
    behind_proxies(2)
    account = store.accounts["full"]
    # client, outer proxy (public https address), inner proxy (cluster-internal http).
    appended = {
        "HTTP_X_FORWARDED_PROTO": "http, https, http",
        "HTTP_X_FORWARDED_HOST": "evil.example, htr.example.org, 127.0.0.1:8128",
    }
    assert client.get("/login", **appended).status_code == 200
    assert post_login(client, account, "http://127.0.0.1:8128", **appended).status_code == 403
    response = post_login(client, account, "https://htr.example.org", **appended)
    assert response.status_code == 204
    assert set(response.cookies) == {"__Host-htrflow_session", "__Host-htrflow_device"}


def test_the_session_cookie_is_read_under_the_name_the_trusted_scheme_gives(client, store, behind_proxies):
    behind_proxies(1)
    account = store.accounts["full"]
    appended = {"HTTP_X_FORWARDED_PROTO": "https", "HTTP_X_FORWARDED_HOST": "htr.example.org"}
    assert post_login(client, account, "https://htr.example.org", **appended).status_code == 204
    assert client.get("/results/_session", **appended).json() == {"user": account.username}
    # A client that claims https in front of the proxy's "http" is read as plain http: no session.
    spoofed = {"HTTP_X_FORWARDED_PROTO": "https, http", "HTTP_X_FORWARDED_HOST": "htr.example.org"}
    assert client.get("/results/_session", **spoofed).status_code == 401

"""A login that cannot be read (nested too deep, too large, too many form fields) is a 4xx with a sentence,
never a 500, and counts against its address's failed-login limit like a wrong password does."""

import json

import pytest

from results.accounts import login
from tests.fixtures.session import TEST_SERVER_ORIGIN

pytestmark = pytest.mark.usefixtures("session_key_file")

DEEP = "[" * 16_000  # 16 000 bytes: under the 16 KiB cap, and deep enough to make json.loads recurse out


@pytest.fixture
def three_per_address(settings):
    settings.HTRFLOW_LOGIN_ADDRESS_LIMIT = (3, 900)


def post_api(client, body, address="203.0.113.7"):
    return client.post(
        "/results/_login",
        data=body,
        content_type="application/json",
        HTTP_ORIGIN=TEST_SERVER_ORIGIN,
        REMOTE_ADDR=address,
    )


def post_form(client, data, address="203.0.113.7"):
    return client.post(
        "/login",
        data,
        content_type="application/x-www-form-urlencoded",
        HTTP_ORIGIN=TEST_SERVER_ORIGIN,
        REMOTE_ADDR=address,
    )


@pytest.mark.parametrize("body", [DEEP, '{"username": ' * 1200, '{"username": "u", "password": [[[[["p"]]]]]}'])
def test_a_body_nested_too_deep_is_422_with_a_sentence_and_never_reaches_the_store(client, store, store_calls, body):
    response = post_api(client, body)
    assert response.status_code == 422
    assert response.json() == {"error": login.SENTENCES["too_deep"], "reason": "too_deep"}
    assert store_calls == []


def test_bodies_nested_too_deep_are_counted_until_the_address_limit_refuses_them(
    client, store, store_calls, three_per_address, caplog
):
    statuses = [post_api(client, DEEP).status_code for _ in range(4)]
    assert statuses == [422, 422, 422, 429]
    # The address is now at its limit: a real login from it waits too, one from elsewhere does not.
    account = store.accounts["full"]
    real = json.dumps({"username": account.username, "password": account.password})
    held = post_api(client, real)
    assert held.status_code == 429
    assert "from your address" in held.json()["error"] and int(held["Retry-After"]) > 0
    assert post_api(client, real, address="198.51.100.9").status_code == 204
    assert "RecursionError" not in caplog.text


def test_bodies_too_large_are_counted_too(client, store, three_per_address):
    large = json.dumps({"username": "u", "password": "p" * 17_000})
    assert [post_api(client, large).status_code for _ in range(4)] == [413, 413, 413, 429]


def test_a_malformed_body_is_still_refused_without_being_counted(client, store, three_per_address):
    assert [post_api(client, "not json").status_code for _ in range(5)] == [422] * 5


def test_a_form_of_too_many_fields_is_answered_on_the_login_page_and_counted(
    client, store, store_calls, three_per_address
):
    fields = "&".join(f"f{number}=" for number in range(1_500)) + "&username=u&password=p"
    assert len(fields) < login.MAX_BODY_BYTES
    first = post_form(client, fields)
    assert first.status_code == 400
    page = first.content.decode()
    assert str(login.SENTENCES["too_many_fields"]) in page and 'name="password"' in page
    assert [post_form(client, fields).status_code for _ in range(3)] == [400, 400, 429]
    assert store_calls == []


def test_a_form_too_large_is_counted(client, store, three_per_address):
    data = f"username=u&password={'p' * 17_000}"
    assert [post_form(client, data).status_code for _ in range(4)] == [413, 413, 413, 429]


def test_a_form_from_another_site_is_refused_without_being_counted(client, store, three_per_address):
    # Another site's page can make its visitors' browsers post such forms; they must not fill the
    # visitors' own address counts.
    data = f"username=u&password={'p' * 17_000}"
    for origin in ("https://evil.example", None):
        headers = {"HTTP_ORIGIN": origin} if origin else {}
        answers = [
            client.post(
                "/login", data, content_type="application/x-www-form-urlencoded", REMOTE_ADDR="203.0.113.8", **headers
            ).status_code
            for _ in range(5)
        ]
        assert answers == [413] * 5

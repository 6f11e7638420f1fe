"""The device cookie: strangers' guesses cannot lock an owner out of the browser they log in from.

Everything goes through the real endpoints (the JSON login and the form) against the store double,
behind one trusted proxy whose X-Forwarded-For entry is the client's address.
"""

import json
import time

import pytest
from django.conf import settings
from django.core import signing
from django.test import Client

from results.accounts import device, ratelimit

pytestmark = pytest.mark.usefixtures("session_key_file")

NAT = "198.51.100.99"


@pytest.fixture(autouse=True)
def behind_one_proxy(settings):
    settings.TRUSTED_HOPS = 1


def post_login(browser, username, password, address, secure=False):
    scheme = "https" if secure else "http"
    return browser.post(
        "/results/_login",
        data=json.dumps({"username": username, "password": password}),
        content_type="application/json",
        HTTP_ORIGIN=f"{scheme}://testserver",
        HTTP_X_FORWARDED_FOR=address,
        secure=secure,
    )


def form_login(browser, username, password, address):
    return browser.post(
        "/login",
        {"username": username, "password": password},
        HTTP_ORIGIN="http://testserver",
        HTTP_X_FORWARDED_FOR=address,
    )


def owners_browser(owner, address="203.0.113.80"):
    """A browser the owner has logged in from once: it holds their device cookie."""
    browser = Client()
    assert post_login(browser, owner.username, owner.password, address).status_code == 204
    assert device.PLAIN_COOKIE in browser.cookies
    return browser


def fill_the_shared_address(owner):
    """Strangers behind NAT: wrong passwords for the owner's name up to the limit per name and address, then
    other names until the address limit holds everyone behind it back (5 and 20 unless a test lowers them)."""
    per_name, _ = getattr(settings, "HTRFLOW_LOGIN_USER_LIMIT", ratelimit.USER_LIMIT)
    per_address, _ = getattr(settings, "HTRFLOW_LOGIN_ADDRESS_LIMIT", ratelimit.ADDRESS_LIMIT)
    stranger = Client()
    statuses = [post_login(stranger, owner.username, "guess", NAT).status_code for _ in range(per_name + 1)]
    assert statuses == [401] * per_name + [429]
    others = per_address - per_name
    statuses = [post_login(stranger, f"name-{n}", "guess", NAT).status_code for n in range(others + 1)]
    assert statuses == [401] * others + [429]


@pytest.fixture
def low_limits(settings):
    """Limits low enough that filling an address takes a few requests (for tests about the cookie itself)."""
    settings.HTRFLOW_LOGIN_USER_LIMIT = (2, 900)
    settings.HTRFLOW_LOGIN_ADDRESS_LIMIT = (4, 900)


def test_guesses_from_256_ipv6_networks_do_not_keep_the_owner_out_of_their_browser(store):
    owner = store.accounts["full"]
    browser = owners_browser(owner)
    stranger = Client()
    statuses = [post_login(stranger, owner.username, "guess", f"2001:db8:{n:x}::1").status_code for n in range(256)]
    # The per-name ceiling (50 from addresses the name never logged in from) holds the strangers back...
    assert statuses == [401] * 50 + [429] * 206
    # ...and so an unknown browser on a new address, right password and all...
    refused = post_login(Client(), owner.username, owner.password, "2001:db8:ffff::9")
    assert refused.status_code == 429
    assert "from many addresses" in refused.json()["error"]
    # ...but the owner's browser gets in from a new address too, by the JSON endpoint or the form.
    assert post_login(browser, owner.username, owner.password, "2001:db8:fffe::9").status_code == 204
    assert form_login(browser, owner.username, owner.password, "2001:db8:fffd::9").status_code == 303


def test_failures_from_a_shared_address_do_not_stop_a_device_cookie_holder_behind_it(store):
    owner = store.accounts["full"]
    browser = owners_browser(owner)
    fill_the_shared_address(owner)
    assert post_login(Client(), owner.username, owner.password, NAT).status_code == 429
    assert post_login(Client(), "someone-else", "pw", NAT).status_code == 429
    assert post_login(browser, owner.username, owner.password, NAT).status_code == 204


def test_the_form_gives_the_browser_its_device_cookie_too(store, low_limits):
    owner = store.accounts["full"]
    browser = Client()
    assert form_login(browser, owner.username, owner.password, "203.0.113.81").status_code == 303
    fill_the_shared_address(owner)
    assert form_login(browser, owner.username, owner.password, NAT).status_code == 303


def test_a_device_is_held_to_its_own_limit(store):
    owner = store.accounts["full"]
    browser, other_browser = owners_browser(owner), owners_browser(owner)
    statuses = [post_login(browser, owner.username, "guess", NAT).status_code for _ in range(6)]
    assert statuses == [401] * 5 + [429]
    refused = post_login(browser, owner.username, owner.password, NAT)
    assert refused.status_code == 429
    assert refused.json()["error"] == (
        "Too many failed logins for this user name from this browser; wait 15 minutes before trying again."
    )
    # The guesses counted against that device only: not the address, not the owner's other browser.
    assert post_login(other_browser, owner.username, owner.password, NAT).status_code == 204
    assert post_login(Client(), owner.username, owner.password, NAT).status_code == 204


def tampered(value):
    return value[:-1] + ("A" if value[-1] != "A" else "B")


class _SignedLongAgo(signing.TimestampSigner):
    def timestamp(self):
        return signing.b62_encode(int(time.time()) - device.LIFETIME_SECONDS - 60)


def _payload(username, device_id="a-random-device-id-000"):
    return {"u": device._name_hash(username), "d": device_id}


@pytest.mark.parametrize(
    "make_cookie",
    [
        pytest.param(lambda owner, real: tampered(real), id="tampered"),
        pytest.param(
            lambda owner, real: signing.dumps(_payload(owner.username), key="not-the-sites-key" * 4,
                                              salt="results.device:htrflow_device"),
            id="forged-with-another-key",
        ),
        pytest.param(
            lambda owner, real: signing.dumps(_payload(owner.username), salt="results.device:__Host-htrflow_device"),
            id="signed-for-the-other-cookie-name",
        ),
        pytest.param(
            lambda owner, real: _SignedLongAgo(salt="results.device:htrflow_device").sign_object(
                _payload(owner.username)
            ),
            id="older-than-90-days",
        ),
        pytest.param(
            lambda owner, real: signing.dumps({"u": device._name_hash(owner.username), "d": ""},
                                              salt="results.device:htrflow_device"),
            id="without-a-device-id",
        ),
        pytest.param(lambda owner, real: "not a signed value at all", id="garbage"),
    ],
)
def test_a_forged_or_tampered_device_cookie_gives_no_exemption(store, low_limits, make_cookie):
    owner = store.accounts["full"]
    real = owners_browser(owner).cookies[device.PLAIN_COOKIE].value
    fill_the_shared_address(owner)
    browser = Client()
    browser.cookies[device.PLAIN_COOKIE] = make_cookie(owner, real)
    assert post_login(browser, owner.username, owner.password, NAT).status_code == 429
    # The same request with the real cookie would have been let in: the test refuses only the fake.
    browser.cookies[device.PLAIN_COOKIE] = real
    assert post_login(browser, owner.username, owner.password, NAT).status_code == 204


def test_a_device_cookie_for_another_name_gives_no_exemption(store, low_limits):
    owner, other = store.accounts["full"], store.accounts["limited"]
    browser = owners_browser(other)
    fill_the_shared_address(owner)
    assert post_login(browser, owner.username, owner.password, NAT).status_code == 429
    # The cookie is good for the name it was given for, there and then.
    assert post_login(browser, other.username, other.password, NAT).status_code == 204


def test_over_https_only_the_host_prefixed_cookie_counts(store, low_limits):
    owner = store.accounts["full"]
    plain = owners_browser(owner).cookies[device.PLAIN_COOKIE].value
    secure_browser = Client()
    assert post_login(secure_browser, owner.username, owner.password, "203.0.113.82", secure=True).status_code == 204
    fill_the_shared_address(owner)
    copied = Client()
    copied.cookies[device.SECURE_COOKIE] = plain  # an http cookie's value under the https name
    assert post_login(copied, owner.username, owner.password, NAT, secure=True).status_code == 429
    assert post_login(secure_browser, owner.username, owner.password, NAT, secure=True).status_code == 204


def test_many_device_cookies_of_one_name_share_one_ceiling(store, settings):
    """Whoever once logged in and kept cookies gets no more guesses than the ceiling for all of them together."""
    settings.HTRFLOW_LOGIN_DEVICE_LIMIT = (2, 900)
    settings.HTRFLOW_LOGIN_DEVICES_CEILING = (5, 900)
    owner = store.accounts["full"]
    browsers = [owners_browser(owner) for _ in range(4)]
    statuses = [post_login(b, owner.username, "guess", NAT).status_code for b in browsers for _ in range(2)]
    assert statuses.count(401) == 5 and statuses[5:] == [429] * 3
    refused = post_login(browsers[-1], owner.username, "guess", NAT)
    assert refused.json()["error"].startswith("Too many failed logins for this user name from browsers it logged in")
    assert post_login(Client(), owner.username, owner.password, "203.0.113.7").status_code == 204  # not a lock-out

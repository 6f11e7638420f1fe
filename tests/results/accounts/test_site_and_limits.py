"""The site's own origin, the client's address behind trusted proxies, and failed-login limits."""

import pytest
from django.test import RequestFactory

from results.accounts import ratelimit
from results.accounts.forwarded import client_address, normalise_origin, origin_is_own, site_origin

factory = RequestFactory()


def request_with(**meta):
    return factory.post("/results/_login", **meta)


def test_without_trusted_hops_forwarded_headers_are_ignored(settings):
    settings.TRUSTED_HOPS = 0
    request = request_with(
        HTTP_HOST="htr.local:8000", HTTP_X_FORWARDED_HOST="evil.example", HTTP_X_FORWARDED_PROTO="https"
    )
    assert site_origin(request) == "http://htr.local:8000"


def test_one_trusted_hop_makes_the_forwarded_address_the_sites_own(settings):
    settings.TRUSTED_HOPS = 1
    request = request_with(
        HTTP_HOST="htrflow-web:8000",
        HTTP_X_FORWARDED_HOST="htr.example.org",
        HTTP_X_FORWARDED_PROTO="https",
        HTTP_ORIGIN="https://htr.example.org",
    )
    assert site_origin(request) == "https://htr.example.org"
    assert origin_is_own(request)


def test_with_one_hop_a_client_supplied_forwarded_entry_is_not_believed(settings):
    settings.TRUSTED_HOPS = 1
    request = request_with(HTTP_X_FORWARDED_HOST="evil.example, htr.example.org", HTTP_X_FORWARDED_PROTO="http, https")
    assert site_origin(request) == "https://htr.example.org"


@pytest.mark.parametrize(
    "origin",
    ["http://testserver.evil", "https://testserver", "null", "", "http://testserver/path", "http://u@testserver"],
)
def test_a_foreign_or_odd_origin_is_not_the_sites_own(settings, origin):
    settings.TRUSTED_HOPS = 0
    assert not origin_is_own(request_with(HTTP_ORIGIN=origin))


def test_default_ports_and_case_do_not_matter():
    assert normalise_origin("HTTPS://Htr.Example.org:443") == "https://htr.example.org"
    assert normalise_origin("http://localhost:8000") == "http://localhost:8000"


def test_the_client_address_is_the_right_most_trusted_forwarded_entry(settings):
    settings.TRUSTED_HOPS = 1
    request = request_with(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="1.1.1.1, 203.0.113.9")
    assert client_address(request) == "203.0.113.9"
    settings.TRUSTED_HOPS = 2
    assert client_address(request) == "1.1.1.1"


def test_without_trusted_hops_the_client_cannot_choose_its_address(settings):
    settings.TRUSTED_HOPS = 0
    request = request_with(REMOTE_ADDR="198.51.100.7", HTTP_X_FORWARDED_FOR="1.2.3.4")
    assert client_address(request) == "198.51.100.7"


def test_fewer_forwarded_entries_than_hops_fall_back_to_the_peer(settings):
    settings.TRUSTED_HOPS = 2
    request = request_with(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="1.2.3.4")
    assert client_address(request) == "10.0.0.2"


@pytest.mark.parametrize(
    "address, bucket",
    [
        ("203.0.113.9", "203.0.113.9"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2::1", "2001:db8:1:2::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::ffff:203.0.113.9", "203.0.113.9"),
        ("unknown", "unknown"),
    ],
)
def test_a_client_is_an_ipv4_address_or_an_ipv6_slash_64(address, bucket):
    assert ratelimit.address_bucket(address) == bucket


def test_user_limit_sentences_name_the_limit_and_the_wait(settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (2, 120)
    settings.HTRFLOW_LOGIN_ADDRESS_LIMIT = (100, 600)
    assert ratelimit.reserve("203.0.113.1", "Alice")[0] is None
    assert ratelimit.reserve("203.0.113.1", "alice ")[0] is None
    refusal, reservation = ratelimit.reserve("203.0.113.1", "ALICE")
    assert reservation is None
    assert refusal.scope == "user"
    assert "this user name from your address" in refusal.sentence and "2 minutes" in refusal.sentence
    assert ratelimit.reserve("203.0.113.3", "alice")[0] is None


def test_a_success_forgets_the_names_failures_and_a_release_gives_the_attempt_back(settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (2, 120)
    ratelimit.reserve("203.0.113.1", "alice")
    _refusal, reservation = ratelimit.reserve("203.0.113.1", "alice")
    ratelimit.succeeded(reservation)
    _refusal, reservation = ratelimit.reserve("203.0.113.1", "alice")
    ratelimit.release(reservation)
    assert ratelimit.reserve("203.0.113.1", "alice")[0] is None
    assert ratelimit.reserve("203.0.113.1", "alice")[0] is None
    assert ratelimit.reserve("203.0.113.1", "alice")[0].scope == "user"


def test_address_limit_sentences_name_the_address(settings):
    settings.HTRFLOW_LOGIN_ADDRESS_LIMIT = (2, 30)
    ratelimit.reserve("203.0.113.1", "a")
    ratelimit.reserve("203.0.113.1", "b")
    refusal, _reservation = ratelimit.reserve("203.0.113.1", "c")
    assert refusal.scope == "address"
    assert refusal.sentence == "Too many failed logins from your address; wait 30 seconds before trying again."

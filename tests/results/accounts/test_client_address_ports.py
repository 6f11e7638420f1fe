"""A forwarded address counts as one client whether the proxy wrote a port or IPv6 brackets or not."""

import pytest
from django.test import RequestFactory

from results.accounts import login
from results.accounts.forwarded import client_address
from results.store import s3 as store
from results.store.outcomes import Outcome, StoreError

pytestmark = pytest.mark.usefixtures("session_key_file")

factory = RequestFactory()


def forwarded(entry, proxy="10.0.0.1"):
    return factory.post("/results/_login", REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=f"6.6.6.6, {entry}")


@pytest.mark.parametrize(
    "entry, bare",
    [
        ("198.51.100.50:1234", "198.51.100.50"),
        ("198.51.100.50", "198.51.100.50"),
        ("[2001:db8::5]:443", "2001:db8::5"),
        ("[2001:db8::5]", "2001:db8::5"),
        ("2001:db8::5", "2001:db8::5"),
        ("[fe80::1%eth0]:8080", "fe80::1%eth0"),
        # Not an address with a port: kept as written.
        ("unknown", "unknown"),
        ("_hidden-proxy", "_hidden-proxy"),
        ("198.51.100.50:http", "198.51.100.50:http"),
    ],
)
def test_a_port_and_brackets_are_stripped_from_the_trusted_entry(settings, entry, bare):
    settings.TRUSTED_HOPS = 1
    assert client_address(forwarded(entry)) == bare


@pytest.mark.parametrize(
    "forms",
    [
        ["198.51.100.50:1234", "198.51.100.50", "198.51.100.50:80", "198.51.100.50:1234"],
        ["[2001:db8::5]:443", "[2001:db8::5]", "2001:db8::5", "[2001:db8::6]:1"],
    ],
    ids=["ipv4", "ipv6"],
)
def test_every_form_of_one_address_counts_as_one_client(settings, monkeypatch, forms):
    settings.TRUSTED_HOPS = 1
    settings.HTRFLOW_LOGIN_ADDRESS_LIMIT = (len(forms), 900)

    def wrong(access_key, secret_key, **options):
        raise StoreError(Outcome.SESSION_ENDED)

    monkeypatch.setattr(store, "prove_account", wrong)
    statuses = [login.attempt(forwarded(entry), f"name-{n}", "guess").status for n, entry in enumerate(forms)]
    assert statuses == [401] * len(forms)
    for entry in forms:
        answer = login.attempt(forwarded(entry), "another-name", "guess")
        assert (answer.status, answer.sentence.startswith("Too many failed logins from your address")) == (429, True)

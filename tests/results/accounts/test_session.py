"""Sealing the store account into the cookie: only an intact, current cookie under the right name opens."""

import base64
import time

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import RequestFactory

from results.accounts import session
from results.accounts.checks import session_key_check
from results.accounts.session import PLAIN_COOKIE, SECURE_COOKIE, ResultsSession, seal, unseal

ACCOUNT = ResultsSession(user="full-reader", access_key="AKIA-TEST", secret_key="very-secret-value", issued_at=0)


def fresh(issued_at=None):
    issued_at = int(time.time()) if issued_at is None else issued_at
    return ResultsSession(ACCOUNT.user, ACCOUNT.access_key, ACCOUNT.secret_key, issued_at=issued_at)


def test_a_sealed_session_opens_to_the_same_account(session_key_file):
    sealed = seal(fresh(), PLAIN_COOKIE)
    opened = unseal(sealed, PLAIN_COOKIE)
    assert (opened.user, opened.access_key, opened.secret_key) == ("full-reader", "AKIA-TEST", "very-secret-value")


def test_the_cookie_does_not_reveal_the_secret_or_the_access_key(session_key_file):
    sealed = seal(fresh(), PLAIN_COOKIE)
    padded = sealed + "=" * (-len(sealed) % 4)
    raw = base64.urlsafe_b64decode(padded)
    for text in ("very-secret-value", "AKIA-TEST", "full-reader"):
        assert text not in sealed
        assert text.encode() not in raw


def test_a_repr_of_the_session_never_shows_the_keys():
    assert "very-secret-value" not in repr(ACCOUNT) and "AKIA-TEST" not in repr(ACCOUNT)


def test_a_tampered_cookie_is_no_session(session_key_file):
    sealed = seal(fresh(), PLAIN_COOKIE)
    flipped = sealed[:20] + ("A" if sealed[20] != "A" else "B") + sealed[21:]
    assert unseal(flipped, PLAIN_COOKIE) is None
    assert unseal(sealed[:-2], PLAIN_COOKIE) is None
    assert unseal("not base64 at all!", PLAIN_COOKIE) is None


def test_an_expired_cookie_is_no_session(session_key_file, settings):
    settings.HTRFLOW_SESSION_HOURS = 8
    issued = int(time.time()) - 8 * 3600 - 5
    assert unseal(seal(fresh(issued_at=issued), PLAIN_COOKIE), PLAIN_COOKIE) is None
    recent = int(time.time()) - 7 * 3600
    assert unseal(seal(fresh(issued_at=recent), PLAIN_COOKIE), PLAIN_COOKIE) is not None


def test_a_cookie_sealed_with_another_key_is_no_session(session_key_file):
    sealed = seal(fresh(), PLAIN_COOKIE)
    session_key_file.write_text(session.new_key_text())
    assert unseal(sealed, PLAIN_COOKIE) is None


def test_a_cookie_presented_under_another_name_is_no_session(session_key_file):
    sealed = seal(fresh(), PLAIN_COOKIE)
    assert unseal(sealed, SECURE_COOKIE) is None


def test_over_https_only_the_host_prefixed_cookie_counts(session_key_file):
    factory = RequestFactory()
    unprefixed = seal(fresh(), PLAIN_COOKIE)
    request = factory.get("/", secure=True)
    request.COOKIES[PLAIN_COOKIE] = unprefixed
    assert session.session_from_request(request) is None
    request.COOKIES[SECURE_COOKIE] = seal(fresh(), SECURE_COOKIE)
    assert session.session_from_request(request).user == "full-reader"


@pytest.mark.parametrize(
    "content, words",
    [
        (None, "cannot be read"),
        ("not base64 ***", "not base64"),
        (base64.b64encode(b"short").decode(), "holds 5 bytes"),
    ],
)
def test_a_missing_or_bad_key_file_is_one_clear_sentence(tmp_path, settings, content, words):
    path = tmp_path / "key"
    if content is not None:
        path.write_text(content)
    settings.HTRFLOW_SESSION_KEY_FILE = str(path)
    with pytest.raises(session.SessionKeyError) as caught:
        session.load_key()
    assert words in str(caught.value)
    assert "HTRFLOW_SESSION_KEY_FILE" in str(caught.value)
    errors = session_key_check()
    assert [error.id for error in errors] == ["results.E001"]
    with pytest.raises(SystemCheckError):
        call_command("check")


def test_a_good_key_file_passes_the_system_check(session_key_file):
    assert session_key_check() == []

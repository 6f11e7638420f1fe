"""Each reader's language (Accept-Language, or the header's switch) and time zone (the browser's, told in the
`tz` cookie, else the site's default): whatever a request carries, a bad value is ignored, never a 500."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

import pytest
from django.test import RequestFactory, override_settings
from django.utils import timezone, translation

from htrbrowser.middleware import ZONE_COOKIE, ReaderZoneMiddleware, reader_zone_name


def zone_seen(cookie: str | None) -> ZoneInfo:
    """The zone a view sees for a request with that `tz` cookie."""
    request = RequestFactory().get("/")
    if cookie is not None:
        request.COOKIES[ZONE_COOKIE] = cookie
    seen = []
    ReaderZoneMiddleware(lambda request: seen.append(timezone.get_current_timezone()))(request)
    return seen[0]


@pytest.fixture(autouse=True)
def _no_zone_left_behind():
    yield
    timezone.deactivate()


@override_settings(HTRFLOW_TIME_ZONE="Europe/Stockholm")
def test_the_browser_s_zone_else_the_site_s():
    assert zone_seen("America/New_York") == ZoneInfo("America/New_York")
    assert zone_seen(None) == ZoneInfo("Europe/Stockholm")
    assert zone_seen("UTC") == ZoneInfo("UTC")


@override_settings(HTRFLOW_TIME_ZONE="Europe/Stockholm")
@pytest.mark.parametrize(
    "cookie",
    ["", "Mars/Olympus_Mons", "../../../etc/passwd", "/etc/localtime", "Europe/Stockholm\x00", "A" * 10_000,
     "America/New_York" + "/x" * 40, "europe/stockholm ", "localtime"],
)
def test_a_zone_the_tz_database_does_not_name_is_ignored(cookie):
    request = RequestFactory().get("/")
    request.COOKIES[ZONE_COOKIE] = cookie
    assert reader_zone_name(request) == "Europe/Stockholm"
    assert zone_seen(cookie) == ZoneInfo("Europe/Stockholm")


@pytest.mark.parametrize("cookie", ["Mars/Olympus_Mons", "../../etc/passwd", "x" * 5000, "%00", '"Europe/Oslo"'])
def test_a_bad_zone_cookie_still_gets_its_page(client, cookie):
    client.cookies[ZONE_COOKIE] = cookie
    for path in ("/login", "/healthz", "/no/such/page"):
        assert client.get(path).status_code < 500, path


def test_the_page_speaks_the_language_the_browser_asks_for(client):
    assert '<html lang="en">' in client.get("/login").content.decode()
    assert '<html lang="sv">' in client.get("/login", HTTP_ACCEPT_LANGUAGE="sv-SE,sv;q=0.9,en;q=0.5").content.decode()
    assert '<html lang="en">' in client.get("/login", HTTP_ACCEPT_LANGUAGE="de-DE").content.decode(), "the default"
    response = client.get("/login", HTTP_ACCEPT_LANGUAGE="sv")
    assert response["Content-Language"] == "sv" and "Accept-Language" in response["Vary"]


def test_the_header_s_switch_is_a_labelled_form_back_to_the_same_page(results_client):
    page = results_client.get("/?q=parish").content.decode()
    form = re.search(r'<form method="post" action="/i18n/setlang/" class="language">.*?</form>', page, re.S).group(0)
    assert '<label for="language-choice">Language</label>' in form
    assert '<select id="language-choice" name="language">' in form
    assert '<option value="sv" lang="sv">Svenska</option>' in form
    assert '<option value="en" lang="en" selected>English</option>' in form
    assert 'name="next"' not in form and "parish" not in form  # no page echoes its own address
    assert 'name="csrfmiddlewaretoken"' in form and '<button type="submit">' in form


def test_switching_to_swedish_goes_back_to_the_page_it_came_from_and_keeps_it_for_the_next_pages(results_client):
    response = results_client.post("/i18n/setlang/", {"language": "sv"}, HTTP_REFERER="http://testserver/?q=parish")
    assert response.status_code == 302 and response["Location"] == "http://testserver/?q=parish"
    assert response.cookies["django_language"].value == "sv"
    assert '<html lang="sv">' in results_client.get("/").content.decode()
    assert '<option value="sv" lang="sv" selected>Svenska</option>' in results_client.get("/").content.decode()
    # Another site's address as `next` is not followed.
    response = results_client.post("/i18n/setlang/", {"language": "en", "next": "https://evil.example/"})
    assert response.status_code == 302 and "evil.example" not in response["Location"]
    translation.deactivate()


def test_every_page_loads_the_zone_script_from_this_site(client):
    page = client.get("/login").content.decode()
    assert re.search(r'<script src="/static/js/zone\.js"></script>', page)

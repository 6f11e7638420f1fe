"""The /login page works without JavaScript: the same checks, a sentence per answer, next honoured."""

import pytest
from django.test import Client

from results.login_views import safe_next
from tests.fixtures.session import TEST_SERVER_ORIGIN

pytestmark = pytest.mark.usefixtures("session_key_file")


def post_form(client, username, password, next_path="/", **extra):
    return client.post(
        "/login",
        {"username": username, "password": password, "next": next_path},
        HTTP_ORIGIN=TEST_SERVER_ORIGIN,
        **extra,
    )


def test_the_page_is_a_real_form_with_a_csrf_token(client):
    response = client.get("/login?next=/campaigns/x")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'method="post" action="/login"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'name="next" value="/campaigns/x"' in html
    assert 'role="alert"' in html
    assert 'hx-post="/login" hx-target="#login-card"' in html
    assert "js/login.js" in html


def test_through_htmx_a_refused_login_answers_the_card_alone_with_its_sentence(client, store):
    response = post_form(client, store.accounts["full"].username, "not-it", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<section id="login-card"')
    assert "Wrong user name or password." in html
    assert 'name="password"' in html and "not-it" not in html
    assert response["Vary"] and "HX-Request" in response["Vary"]


def test_through_htmx_a_good_login_redirects_the_browser_to_next_with_a_session(client, store):
    account = store.accounts["full"]
    response = post_form(client, account.username, account.password, "/campaigns/x", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert response["HX-Redirect"] == "/campaigns/x"
    assert client.get("/results/_session").json() == {"user": account.username}


def test_a_good_login_lands_on_next_with_a_session(client, store):
    account = store.accounts["full"]
    response = post_form(client, account.username, account.password, "/campaigns/x?ns=a")
    assert (response.status_code, response["Location"]) == (303, "/campaigns/x?ns=a")
    assert client.get("/results/_session").json() == {"user": account.username}


def test_a_wrong_password_shows_its_sentence_and_clears_the_password(client, store):
    account = store.accounts["full"]
    response = post_form(client, account.username, "wrong-password-123")
    html = response.content.decode()
    assert response.status_code == 401
    assert "Wrong user name or password." in html
    assert "wrong-password-123" not in html
    assert f'value="{account.username}"' in html


def test_a_too_long_user_name_shows_the_shape_sentence(client, store):
    response = post_form(client, "u" * 300, "p")
    assert response.status_code == 422
    assert "user name of 1 to 256 characters" in response.content.decode()


def test_a_foreign_origin_shows_what_an_operator_must_pass_on(client, store):
    response = client.post("/login", {"username": "u", "password": "p"}, HTTP_ORIGIN="https://elsewhere.example")
    assert response.status_code == 403
    assert "X-Forwarded-Host" in response.content.decode()


def test_a_post_without_the_csrf_token_is_refused_with_a_sentence(store):
    strict = Client(enforce_csrf_checks=True)
    account = store.accounts["full"]
    response = strict.post("/login", {"username": account.username, "password": account.password})
    assert response.status_code == 403
    assert "reload the page" in response.content.decode()
    assert "htrflow_session" not in response.cookies


def test_a_form_with_its_csrf_token_logs_in_under_csrf_checks(store):
    strict = Client(enforce_csrf_checks=True)
    page = strict.get("/login")
    token = page.context["csrf_token"] if page.context else strict.cookies["csrftoken"].value
    account = store.accounts["full"]
    response = strict.post(
        "/login",
        {"username": account.username, "password": account.password, "csrfmiddlewaretoken": str(token)},
        HTTP_ORIGIN=TEST_SERVER_ORIGIN,
    )
    assert response.status_code == 303


def test_rate_limits_show_which_limit_and_how_long(client, store, settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (2, 300)
    for _ in range(2):
        post_form(client, "someone", "wrong")
    response = post_form(client, "someone", "wrong")
    assert response.status_code == 429
    assert 280 <= int(response["Retry-After"]) <= 300  # the window started with the first failure, seconds ago
    assert "Too many failed logins for this user name from your address; wait 5 minutes" in response.content.decode()


def test_a_stopped_store_is_worded_on_the_page(client, store, settings, closed_port_endpoint):
    settings.S3_ENDPOINT = closed_port_endpoint
    response = post_form(client, "u", "p")
    assert response.status_code == 502
    assert "could not be reached" in response.content.decode()


@pytest.mark.parametrize(
    "value, expected",
    [
        ("/campaigns/x?a=1", "/campaigns/x?a=1"),
        ("//evil.example/x", "/"),
        ("/\\evil.example", "/"),
        ("https://evil.example/", "/"),
        ("javascript:alert(1)", "/"),
        ("/login", "/"),
        ("/login?next=/x", "/"),
        ("/logout", "/"),
        ("/results/_login", "/"),
        ("campaigns", "/"),
        ("/ /evil", "/"),
        (None, "/"),
    ],
)
def test_next_is_honoured_only_for_a_same_site_path(value, expected):
    assert safe_next(value) == expected


def test_a_hostile_next_is_inert_in_the_page(client):
    response = client.get('/login?next=/x"><script>alert(1)</script>')
    assert "<script>alert(1)</script>" not in response.content.decode()


def test_a_form_body_over_16_kib_is_413_before_it_is_parsed(client, store):
    response = post_form(client, "u", "p" * 17000)
    assert response.status_code == 413
    assert "too long" in response.content.decode()


def test_a_login_form_without_its_token_says_so_in_the_sites_words(client, store, store_calls):
    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/login", {"username": "u", "password": "p"}, HTTP_ORIGIN=TEST_SERVER_ORIGIN)
    assert response.status_code == 403
    assert "This form came from another site or an old page; reload the page and try again." in (
        response.content.decode()
    )
    assert store_calls == []


@pytest.mark.parametrize(
    "next_path, location",
    [
        ("/campaigns/htr-batch/arkiv-\u00e5r", "/campaigns/htr-batch/arkiv-%C3%A5r"),
        ("/campaigns/x?q=\u65e5\u672c", "/campaigns/x?q=%E6%97%A5%E6%9C%AC"),
        ("/campaigns/x\u2028y", "/campaigns/x%E2%80%A8y"),
        ("/campaigns/x%20y?q=a%26b", "/campaigns/x%20y?q=a%26b"),
    ],
)
def test_a_next_beyond_latin_1_becomes_a_url_encoded_local_address(client, store, next_path, location):
    account = store.accounts["full"]
    through_htmx = post_form(client, account.username, account.password, next_path, HTTP_HX_REQUEST="true")
    assert through_htmx.status_code == 200
    assert through_htmx["HX-Redirect"] == location
    plain = post_form(Client(), account.username, account.password, next_path)
    assert (plain.status_code, plain["Location"]) == (303, location)

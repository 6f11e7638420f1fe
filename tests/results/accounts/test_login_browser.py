"""The login page in Chromium: each kind of wrong input shows its own sentence, a good login lands
on `next`, and logging out ends access to pages and files."""

import re

import pytest
from playwright.sync_api import expect

from tests.fixtures.session import browser_login

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("session_key_file")]


def try_login(page, base_url, username, password):
    page.goto(f"{base_url}/login")
    page.fill("#login-username", username)
    page.fill("#login-password", password)
    page.click("#login-form button[type=submit]")


def expect_sentence(page, words):
    alert = page.locator("#login-alert[role=alert]")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text(words)
    # The password is cleared after every try.
    expect(page.locator("#login-password")).to_have_value("")


def test_a_wrong_password_says_so(page, live_server, store):
    try_login(page, live_server.url, store.accounts["full"].username, "not-it")
    expect_sentence(page, "Wrong user name or password.")


def test_a_too_long_user_name_says_what_is_allowed(page, live_server, store):
    try_login(page, live_server.url, "x" * 300, "p")
    expect_sentence(page, "a user name of 1 to 256 characters")


def test_a_page_not_at_the_sites_own_address_says_what_an_operator_must_pass_on(page, live_server, store, settings):
    # Behind one trusted proxy that reports another public address than the one the browser used.
    settings.TRUSTED_HOPS = 1
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "htr.elsewhere.example"]
    page.set_extra_http_headers({"X-Forwarded-Host": "htr.elsewhere.example"})
    try_login(page, live_server.url, "u", "p")
    expect_sentence(page, "not opened at the site's own address")
    expect(page.locator("#login-alert")).to_contain_text("X-Forwarded-Host")


def test_too_many_attempts_say_how_long_to_wait(page, live_server, store, settings):
    settings.HTRFLOW_LOGIN_USER_LIMIT = (2, 300)
    for _ in range(2):
        try_login(page, live_server.url, "someone", "wrong")
        expect_sentence(page, "Wrong user name or password.")
    try_login(page, live_server.url, "someone", "wrong")
    expect_sentence(page, "Too many failed logins for this user name from your address; wait 5 minutes")


def test_an_unreachable_store_says_so(page, live_server, store, settings, closed_port_endpoint):
    settings.S3_ENDPOINT = closed_port_endpoint
    try_login(page, live_server.url, "u", "p")
    expect_sentence(page, "The results store could not be reached")


def test_a_store_without_a_reason_points_at_bucket_or_namespace(page, live_server, store, settings, bare_403_endpoint):
    settings.S3_ENDPOINT = bare_403_endpoint
    try_login(page, live_server.url, "u", "p")
    expect_sentence(page, "bucket or namespace")


def test_a_store_that_times_out_says_so(page, live_server, store, settings, hung_endpoint):
    settings.S3_ENDPOINT = hung_endpoint
    settings.HTRFLOW_S3_TIMEOUT = 0.3
    try_login(page, live_server.url, "u", "p")
    expect_sentence(page, "did not answer in time")


def test_a_results_service_that_does_not_answer_says_so(page, live_server, store):
    # The page loads; its login POST never gets an answer.
    page.route("**/login", lambda route: route.abort() if route.request.method == "POST" else route.continue_())
    try_login(page, live_server.url, "u", "p")
    expect_sentence(page, "The results service did not answer")


def test_a_good_login_lands_on_next(page, live_server, store, store_prefix):
    key = store_prefix + "landing.json"
    store.put(key, b'{"landed": true}', "application/json")
    browser_login(page, live_server.url, store.accounts["full"], next_path=f"/results/{key}")
    assert page.url == f"{live_server.url}/results/{key}"
    assert '"landed": true' in page.content()


def test_without_javascript_the_form_still_logs_in(browser, live_server, store, store_prefix):
    key = store_prefix + "nojs.json"
    store.put(key, b'{"nojs": true}', "application/json")
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/login?next=/results/{key}")
        page.fill("#login-username", store.accounts["full"].username)
        page.fill("#login-password", "wrong")
        page.click("#login-form button[type=submit]")
        expect(page.locator("#login-alert")).to_contain_text("Wrong user name or password.")
        expect(page.locator("#login-password")).to_have_value("")
        page.fill("#login-password", store.accounts["full"].password)
        page.click("#login-form button[type=submit]")
        page.wait_for_url(f"{live_server.url}/results/{key}")
        assert '"nojs": true' in page.content()
    finally:
        context.close()


def test_logout_ends_access_to_pages_and_files(page, live_server, store, store_prefix):
    key = store_prefix + "private.json"
    store.put(key, b'{"private": true}', "application/json")
    browser_login(page, live_server.url, store.accounts["full"])
    assert page.goto(f"{live_server.url}/results/{key}").status == 200
    page.goto(f"{live_server.url}/logout")
    expect(page.locator("main")).to_contain_text(store.accounts["full"].username)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{live_server.url}/login?logged_out=1")
    expect(page.get_by_role("status")).to_have_text(re.compile("You are logged out"))
    answer = page.goto(f"{live_server.url}/results/{key}")
    assert answer.status == 401
    page.goto(f"{live_server.url}/")
    assert page.url.startswith(f"{live_server.url}/login?next=")

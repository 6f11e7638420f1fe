"""The htmx login served by the Dockerfile's gunicorn, with a next address no header can carry as it is."""

import re

import requests


def htmx_login(base, account, next_path):
    with requests.Session() as browser:
        page = browser.get(base + "/login", timeout=10)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        return browser.post(
            base + "/login",
            data={"csrfmiddlewaretoken": token, "username": account.username, "password": account.password,
                  "next": next_path},
            headers={"HX-Request": "true", "Origin": base, "Referer": base + "/login"},
            allow_redirects=False,
            timeout=10,
        )


def test_an_htmx_login_whose_next_holds_a_line_separator_logs_in_through_gunicorn(plain_gunicorn, store):
    base = plain_gunicorn  # plain http, against the store double
    answer = htmx_login(base, store.accounts["full"], "/campaigns/htr-batch/a\u2028b")
    assert answer.status_code == 200, answer.text[:300]
    assert answer.headers["HX-Redirect"] == "/campaigns/htr-batch/a%E2%80%A8b"
    assert "htrflow_session" in answer.cookies

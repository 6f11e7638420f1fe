"""Every page and the read API need a results session; the login, static files and health do not."""

import pytest

from tests.fixtures.session import TEST_SERVER_ORIGIN


@pytest.fixture(autouse=True)
def key_file(session_key_file):
    return session_key_file


def test_a_page_without_a_session_redirects_to_login_with_next(client):
    response = client.get("/?namespace=htr-batch")
    assert response.status_code == 302
    assert response["Location"] == "/login?next=/%3Fnamespace%3Dhtr-batch"


def test_the_read_api_without_a_session_answers_401_json(client):
    response = client.get("/api/campaigns")
    assert response.status_code == 401
    assert "Log in" in response.json()["detail"]


def test_an_htmx_request_without_a_session_is_sent_to_the_login_page(client):
    response = client.get("/campaigns/x/card", HTTP_HX_REQUEST="true")
    assert response.status_code == 401
    assert response["HX-Redirect"] == "/login?next=/campaigns/x/card"
    assert response.content == b""


@pytest.mark.parametrize("path", ["/login", "/healthz", "/results/_session", "/static/css/app.css"])
def test_exempt_paths_are_not_redirected(client, path):
    response = client.get(path)
    assert response.status_code != 302


def test_with_a_session_pages_are_served_and_show_who_is_logged_in(results_client, settings, store):
    settings.TEMPLATES = [
        {
            **settings.TEMPLATES[0],
            "OPTIONS": {
                "context_processors": [
                    *settings.TEMPLATES[0]["OPTIONS"]["context_processors"],
                    "results.accounts.context.results_user",
                ]
            },
        }
    ]
    response = results_client.get("/logout")
    assert response.status_code == 200
    assert store.accounts["full"].username in response.content.decode()


def test_a_cookie_that_no_longer_opens_is_cleared_on_the_redirect(client):
    client.cookies["htrflow_session"] = "forged-value"
    response = client.get("/")
    assert response.status_code == 302
    assert response.cookies["htrflow_session"]["max-age"] == 0


def test_logging_out_through_the_page_ends_access_to_pages_and_files(results_client, store, store_prefix):
    key = store_prefix + "p.json"
    store.put(key, b"{}", "application/json")
    assert results_client.get(f"/results/{key}").status_code == 200
    response = results_client.post("/logout", HTTP_ORIGIN=TEST_SERVER_ORIGIN)
    assert (response.status_code, response["Location"]) == (303, "/login?logged_out=1")
    assert b"You are logged out." in results_client.get(response["Location"]).content
    assert results_client.get("/").status_code == 302
    assert results_client.get(f"/results/{key}").status_code == 401


def test_the_login_page_says_logged_out_only_after_a_logout(client):
    assert b"You are logged out." not in client.get("/login").content


def test_a_page_whose_reads_found_the_session_ended_clears_the_cookie(results_client, store, settings):
    from django.http import HttpResponse
    from django.test import RequestFactory

    from results.accounts.middleware import ResultsSessionMiddleware

    def page_that_reads(request):
        request.results_session_ended = True  # what ResultsReader does on SESSION_ENDED
        return HttpResponse("card")

    request = RequestFactory().get("/")
    request.COOKIES["htrflow_session"] = results_client.cookies["htrflow_session"].value
    response = ResultsSessionMiddleware(page_that_reads)(request)
    assert request.results_session.user == store.accounts["full"].username
    assert response.cookies["htrflow_session"]["max-age"] == 0


def test_the_context_processor_names_the_user_or_nothing():
    from types import SimpleNamespace

    from results.accounts.context import results_user

    assert results_user(SimpleNamespace(results_session=None)) == {"results_user": ""}
    assert results_user(SimpleNamespace(results_session=SimpleNamespace(user="ann"))) == {"results_user": "ann"}


# --- caching of private pages, and headers on early answers ----------------------------------


def test_with_a_session_every_answer_is_kept_out_of_caches(results_client):
    response = results_client.get("/no/such/page")
    assert response.status_code == 404
    assert response["Cache-Control"] == "private, no-store"


def test_with_a_session_an_answer_that_sets_its_own_caching_keeps_it(results_client, store, store_prefix):
    from django.http import HttpResponse
    from django.test import RequestFactory

    from results.accounts import session
    from results.accounts.middleware import ResultsSessionMiddleware

    key = store_prefix + "cached.json"
    store.put(key, b"{}", "application/json")
    assert results_client.get(f"/results/{key}")["Cache-Control"] == "private, no-cache"

    def own_policy(request):
        response = HttpResponse("x")
        response["Cache-Control"] = "max-age=60"
        return response

    request = RequestFactory().get("/somewhere")
    request.COOKIES[session.PLAIN_COOKIE] = results_client.cookies[session.PLAIN_COOKIE].value
    assert ResultsSessionMiddleware(own_policy)(request)["Cache-Control"] == "max-age=60"


def test_without_a_session_public_answers_are_left_alone(client):
    assert not client.get("/healthz").has_header("Cache-Control")


@pytest.mark.parametrize(
    ("path", "extra", "status"),
    [
        ("/", {}, 302),
        ("/api/v1/jobs", {}, 401),
        ("/campaigns/x/y/card", {"HTTP_HX_REQUEST": "true"}, 401),
    ],
)
def test_answers_refused_for_want_of_a_session_carry_the_page_headers(client, path, extra, status):
    response = client.get(path, **extra)
    assert response.status_code == status
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert response["Cache-Control"] == "private, no-store"

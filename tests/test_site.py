"""Site-wide pages: health check, error pages and security headers."""


def test_healthz_answers_ok_without_a_session(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok\n"


def test_an_unknown_address_asks_for_a_login_first(client):
    response = client.get("/no/such/page")
    assert response.status_code == 302
    assert response["Location"] == "/login?next=/no/such/page"


def test_an_unknown_address_is_a_sentence_not_a_traceback(results_client):
    response = results_client.get("/no/such/page")
    assert response.status_code == 404
    assert b"There is nothing at this address" in response.content


def test_pages_carry_a_content_security_policy(client):
    response = client.get("/healthz")
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert response["X-Content-Type-Options"] == "nosniff"


CSRF_SENTENCE = "This form came from another site or an old page; reload the page and try again."


def test_a_logout_without_a_valid_form_token_is_a_sentence_in_our_words(results_client):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.cookies = results_client.cookies
    response = strict.post("/logout")
    assert response.status_code == 403
    html = response.content.decode()
    assert CSRF_SENTENCE in html
    assert "CSRF verification failed" not in html
    assert "default-src 'self'" in response["Content-Security-Policy"]
    # The session was not ended by the refused form.
    assert strict.get("/results/_session").status_code == 200


def test_the_csrf_failure_page_says_nothing_about_the_reason_to_a_stranger(client):
    from django.test import Client

    response = Client(enforce_csrf_checks=True).post("/logout", HTTP_ORIGIN="https://evil.example")
    assert response.status_code == 403
    assert CSRF_SENTENCE in response.content.decode()
    assert "evil.example" not in response.content.decode()

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

"""Requests Django refuses before a view reads them (a foreign Host, too many query parameters) get a sentence
of the product's own on its own page (JSON in the read API), never Django's bare "Bad Request (400)"."""

import pytest

MANY_PARAMETERS = "&".join(f"p{number}=1" for number in range(1_001))


def test_a_foreign_host_is_told_in_one_sentence_without_its_host_name_echoed(client):
    answer = client.get("/login", HTTP_HOST="evil.example")
    page = answer.content.decode()
    assert answer.status_code == 400
    assert "This site does not answer to the host name this request was sent to" in page
    assert "evil.example" not in page
    assert answer["Cache-Control"] == "no-store"


@pytest.mark.parametrize("path", ["/login", "/", "/log", "/alto"])
def test_too_many_query_parameters_are_told_in_one_sentence(results_client, path):
    answer = results_client.get(f"{path}?{MANY_PARAMETERS}")
    assert answer.status_code == 400
    assert "more than 1000 query parameters or form fields" in answer.content.decode()
    assert "Bad Request (400)" not in answer.content.decode()


def test_a_thousand_query_parameters_are_still_read(results_client):
    assert results_client.get("/login?" + "&".join(f"p{number}=1" for number in range(1_000))).status_code == 200


def test_the_read_api_says_it_in_json(results_client):
    answer = results_client.get(f"/api/v1/jobs?{MANY_PARAMETERS}")
    assert answer.status_code == 400
    assert "more than 1000 query parameters" in answer.json()["detail"]

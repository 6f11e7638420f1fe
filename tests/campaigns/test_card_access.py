"""HTRFLOW_CARDS_FOR: an account that may read nothing under the namespace sees no campaign.

The cluster is the API double and logins are proven against the store double, whose
``outsider`` is an account the store accepts that may read nothing.
"""

from __future__ import annotations

import pytest

from tests.campaigns.test_views import add_campaign, prepared_cluster
from tests.fixtures.session import login_as

CAMPAIGN = "parish-records-1870"
PAGES = ["/", f"/campaigns/htr-batch/{CAMPAIGN}"]
SENTENCE = (
    "Your store account may not read this site&#x27;s results (under htr-batch/), so this site shows you no "
    "campaigns. Ask an operator to let your account read htr-batch/, or log in with another account."
)


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


@pytest.fixture
def one_campaign(cluster):
    add_campaign(cluster, CAMPAIGN, volume_ids=["C1", "C2"], completed="0", active=1)
    return cluster


def logged_in(client, store, account_name, settings, cards_for):
    settings.HTRFLOW_CARDS_FOR = cards_for
    login_as(client, store.accounts[account_name])
    return client


def test_the_default_is_namespace_readers():
    from htrbrowser import settings as product_settings

    assert product_settings.HTRFLOW_CARDS_FOR == "namespace-readers"


def test_an_outsider_sees_no_campaign_on_any_page(one_campaign, client, store, session_key_file, settings):
    logged_in(client, store, "outsider", settings, "namespace-readers")
    for path in PAGES:
        response = client.get(path)
        html = response.content.decode()
        assert response.status_code == 403, path
        assert SENTENCE in html
        assert CAMPAIGN not in html and ">C1<" not in html and "C1\t" not in html
        assert response["Cache-Control"] == "private, no-store"


def test_an_outsiders_card_poll_reloads_the_page_into_the_sentence(one_campaign, client, store, session_key_file,
                                                                    settings):
    logged_in(client, store, "outsider", settings, "namespace-readers")
    for path in (f"/campaigns/htr-batch/{CAMPAIGN}/card", "/?watch=1"):
        response = client.get(path, headers={"HX-Request": "true"})
        assert response.status_code == 403
        assert response["HX-Refresh"] == "true"
        assert CAMPAIGN not in response.content.decode()
        assert "may not read this site's results" in response.content.decode()


def test_an_outsider_gets_403_json_with_a_sentence_from_the_read_api(one_campaign, client, store, session_key_file,
                                                                      settings):
    logged_in(client, store, "outsider", settings, "namespace-readers")
    for path in ("/api/v1/jobs", f"/api/v1/jobs/htr-batch/{CAMPAIGN}"):
        response = client.get(path)
        assert response.status_code == 403
        assert response.json()["detail"].startswith("Your store account may not read this site's results")
        assert CAMPAIGN not in response.content.decode()
    assert client.get("/api/v1/version").status_code == 200


@pytest.mark.parametrize("account", ["full", "limited"])
def test_namespace_readers_see_the_campaigns(one_campaign, client, store, session_key_file, settings, account):
    logged_in(client, store, account, settings, "namespace-readers")
    for path in PAGES:
        response = client.get(path)
        assert response.status_code == 200
        assert CAMPAIGN in response.content.decode()
    assert [job["name"] for job in client.get("/api/v1/jobs").json()] == [CAMPAIGN]


def test_with_store_accounts_the_outsider_sees_campaigns_as_before(one_campaign, client, store, session_key_file,
                                                                   settings):
    logged_in(client, store, "outsider", settings, "store-accounts")
    for path in PAGES:
        response = client.get(path)
        assert response.status_code == 200
        assert CAMPAIGN in response.content.decode()
    assert [job["name"] for job in client.get("/api/v1/jobs").json()] == [CAMPAIGN]


def test_a_login_not_checked_for_reading_is_asked_to_log_in_again(one_campaign, client, store, session_key_file,
                                                                  settings):
    logged_in(client, store, "outsider", settings, "store-accounts")
    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    response = client.get("/")
    assert response.status_code == 403
    assert "was not checked for that: log out and log in again." in response.content.decode()
    # Logging in again under the new rule settles it.
    login_as(client, store.accounts["outsider"])
    assert SENTENCE in client.get("/").content.decode()


def test_the_store_tells_who_may_read_the_namespace(store, settings):
    from results import store as store_module

    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    outsider, full = store.accounts["outsider"], store.accounts["full"]
    assert store_module.prove_account(outsider.access_key, outsider.secret_key, ask_listing=True) is False
    assert store_module.prove_account(outsider.access_key, outsider.secret_key) is None
    assert store_module.prove_account(full.access_key, full.secret_key, ask_listing=True) is True

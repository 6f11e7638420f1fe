"""What each account sees of the campaigns: results/store/access.py behind the one gate (campaigns/web/gate.py).

The cluster is the API double and every proof is asked of the store double, whose ``outsider`` is an
account the store accepts that may read nothing, and whose ``project`` may read one pipeline only.
"""

from __future__ import annotations

import pytest

from campaigns.web.gate import campaign_view
from devstack.store import PROJECT_PIPELINE, project_prefixes
from results.store import access, budget
from tests.campaigns.web.test_views import add_campaign, failed_pod, prepared_cluster
from tests.fixtures.kube import settled
from tests.fixtures.session import login_as
from tests.fixtures.waiting import wait_until

CAMPAIGN = "parish-records-1870"
PROJECT_CAMPAIGN = "kansli-v3"
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


@pytest.fixture
def two_pipelines(cluster):
    """One campaign the project account may read (its pipeline) and one it may not."""
    add_campaign(cluster, CAMPAIGN, volume_ids=["C1", "C2"], completed="0", failed="1")
    cluster.put(failed_pod(CAMPAIGN, 1, "OOMKilled while segmenting C2"))
    add_campaign(cluster, PROJECT_CAMPAIGN, volume_ids=["K1", "K2"], completed="0", active=1,
                 pipeline=PROJECT_PIPELINE)
    return cluster


@pytest.fixture
def clock(monkeypatch):
    """The proofs' clock, moved on by hand."""
    now = [access._clock()]
    monkeypatch.setattr(access, "_clock", lambda: now[0])
    return now


def logged_in(client, store, account_name, settings, cards_for):
    settings.HTRFLOW_CARDS_FOR = cards_for
    login_as(client, store.accounts[account_name])
    return client


def test_the_default_is_namespace_readers_proved_again_every_five_minutes():
    from htrbrowser import settings as product_settings

    assert product_settings.HTRFLOW_CARDS_FOR == "namespace-readers"
    assert product_settings.HTRFLOW_ACCESS_SECONDS == 300


def test_every_campaign_view_is_behind_the_gate():
    from django.urls import get_resolver

    from campaigns import urls

    gated = {p.name for p in urls.urlpatterns if getattr(p.callback, "campaign_gate", False)}
    # api_version and api_openapi (the read API's description) name no campaign; the feed by token has no
    # session, and its token's remembered rights are its gate (campaigns/web/feed_views.py,
    # tests/campaigns/web/test_feed.py)
    assert gated == {p.name for p in urls.urlpatterns} - {"api_version", "api_openapi", "campaign_feed_by_token"}
    assert {p.name for p in get_resolver().url_patterns[2].url_patterns} == {p.name for p in urls.urlpatterns}
    assert campaign_view(lambda request: None).campaign_gate is True


def test_an_outsider_sees_no_campaign_on_any_page(one_campaign, client, store, session_key_file, settings):
    logged_in(client, store, "outsider", settings, "namespace-readers")
    for path in [*PAGES, f"/campaigns/htr-batch/{CAMPAIGN}/rerun.yaml"]:
        response = client.get(path)
        html = response.content.decode()
        assert response.status_code == 403, path
        assert SENTENCE in html
        assert ">C1<" not in html and "C1\t" not in html
        assert response["Cache-Control"] == "private, no-store"


def test_an_outsiders_card_poll_reloads_the_page_into_the_sentence(one_campaign, client, store, session_key_file,
                                                                    settings):
    logged_in(client, store, "outsider", settings, "namespace-readers")
    for path in (f"/campaigns/htr-batch/{CAMPAIGN}/card", "/changes"):
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


def test_a_login_made_under_another_rule_is_proved_on_its_next_request(one_campaign, client, store, session_key_file,
                                                                       settings):
    logged_in(client, store, "outsider", settings, "store-accounts")
    assert client.get("/").status_code == 200
    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    response = client.get("/")
    assert response.status_code == 403
    assert SENTENCE in response.content.decode()


def test_an_account_below_the_namespace_sees_exactly_its_pipelines_campaigns(two_pipelines, client, store,
                                                                            session_key_file, settings):
    logged_in(client, store, "project", settings, "namespace-readers")
    listing = client.get("/").content.decode()
    assert PROJECT_CAMPAIGN in listing and CAMPAIGN not in listing and "OOMKilled" not in listing
    assert [job["name"] for job in client.get("/api/v1/jobs").json()] == [PROJECT_CAMPAIGN]
    assert client.get(f"/campaigns/htr-batch/{PROJECT_CAMPAIGN}").status_code == 200
    assert client.get(f"/api/v1/jobs/htr-batch/{PROJECT_CAMPAIGN}").json()["name"] == PROJECT_CAMPAIGN
    # The devstack's project account reads its pipeline's results and run logs.
    assert project_prefixes("htr-batch") == [
        f"htr-batch/{PROJECT_PIPELINE}/",
        f"htr-batch/status/logs/{PROJECT_PIPELINE}/",
    ]


@pytest.mark.parametrize(
    "path",
    [
        "/campaigns/htr-batch/{name}",
        "/campaigns/htr-batch/{name}/card",
        "/campaigns/htr-batch/{name}/rerun.yaml",
        "/api/v1/jobs/htr-batch/{name}",
    ],
)
@pytest.mark.parametrize("htmx", [False, True])
def test_a_campaign_it_may_not_read_answers_as_an_invented_name(two_pipelines, client, store, session_key_file,
                                                                settings, path, htmx):
    logged_in(client, store, "project", settings, "namespace-readers")
    headers = {"HX-Request": "true"} if htmx else {}
    real = client.get(path.format(name=CAMPAIGN), headers=headers)
    invented = client.get(path.format(name="parish-records-1871"), headers=headers)
    assert real.status_code == invented.status_code
    assert real.status_code in (200, 404)
    assert normalised(real, CAMPAIGN) == normalised(invented, "parish-records-1871")
    shown = normalised(real, CAMPAIGN)  # without the CSRF token, whose random letters may spell "C2"
    assert ">C2<" not in shown and "C2\t" not in shown and "OOMKilled" not in shown


def normalised(response, name: str) -> str:
    import re

    text = response.content.decode().replace(name, "NAME")
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", text)


def test_revoking_an_accounts_rights_hides_campaigns_from_its_open_session_within_the_interval(
    one_campaign, client, store, session_key_file, settings, clock
):
    settings.HTRFLOW_ACCESS_SECONDS = 60
    logged_in(client, store, "full", settings, "namespace-readers")
    assert client.get("/").status_code == 200
    store.allow_only("full", [])
    try:
        clock[0] += 29  # within half the interval: the last proof stands, nothing is asked
        assert client.get("/").status_code == 200
        clock[0] += 31  # the whole interval has passed: this request waits for a new proof
        response = client.get("/")
        assert response.status_code == 403
        assert CAMPAIGN not in response.content.decode()
        assert client.get("/api/v1/jobs").status_code == 403
    finally:
        store.restore("full")
    clock[0] += 61
    assert client.get("/").status_code == 200  # rights given back are seen as soon


def test_past_half_the_interval_the_proof_is_renewed_in_the_background(one_campaign, client, store, session_key_file,
                                                                      settings, clock):
    settings.HTRFLOW_ACCESS_SECONDS = 60
    logged_in(client, store, "project", settings, "namespace-readers")
    assert client.get("/").status_code == 403  # proved: it may read no campaign of this pipeline
    store.allow_only("project", ["htr-batch/swe-lines-v2/"])  # add_campaign's pipeline
    try:
        clock[0] += 29
        assert client.get("/").status_code == 403  # within half the interval: nothing is asked
        clock[0] += 2
        assert client.get("/").status_code == 403  # answered from the last proof, renewed behind it
        wait_until(lambda: client.get("/").status_code == 200, what="the list page answered from the renewed proof")
    finally:
        store.restore("project")


def test_proving_forty_campaigns_stays_within_the_persons_store_budget(cluster, client, store, session_key_file,
                                                                      settings):
    for number in range(40):
        add_campaign(cluster, f"campaign-{number:02d}", volume_ids=["V1"], pipeline=f"pipeline-{number:02d}")
    add_campaign(cluster, PROJECT_CAMPAIGN, volume_ids=["K1"], pipeline=PROJECT_PIPELINE)
    logged_in(client, store, "project", settings, "namespace-readers")
    calls = count_store_calls(store.accounts["project"])
    response = client.get("/api/v1/jobs")
    assert [job["name"] for job in response.json()] == [PROJECT_CAMPAIGN]
    # 41 results prefixes: the namespace (a GET and a listing), its own (one GET), 40 others (a GET and a listing).
    assert calls == [2 + 1 + 2 * 40]
    assert calls[0] <= budget.BUDGET_READS
    print(f"\nstore calls to prove 41 campaigns' prefixes for one account: {calls[0]} "
          f"(budget {budget.BUDGET_READS} per {budget.BUDGET_SECONDS:g} s)")


def count_store_calls(account) -> list[int]:
    """Count the S3 calls made with ``account``'s client from now on (one counter in a list)."""
    from results.store import s3 as store_module

    client = store_module.client_for(account.access_key, account.secret_key)
    counted = [0]

    def count(**_):
        counted[0] += 1

    client.meta.events.register("before-call.s3", count)
    return counted


def test_a_store_that_does_not_answer_is_not_taken_for_a_refusal(one_campaign, client, store, session_key_file,
                                                                 settings, clock):
    """With no proof yet and the store gone, a namespace reader is shown what its login proved, and an
    account whose login proved nothing is told the check could not be made (503), never that it may read nothing."""
    settings.HTRFLOW_S3_TIMEOUT = 0.5
    for account, status in (("full", 200), ("project", 503)):
        logged_in(client, store, account, settings, "namespace-readers")
        access.clear_cache()
        settings.S3_ENDPOINT = "http://127.0.0.1:9"  # nothing listens there
        try:
            response = client.get("/")
            assert response.status_code == status, account
            if status == 503:
                assert "could not be checked" in response.content.decode()
                assert response["Retry-After"] == "30"
                assert client.get("/api/v1/jobs").json()["reason"] == "access_not_checked"
        finally:
            settings.S3_ENDPOINT = store.endpoint


def test_an_account_that_may_list_everything_but_read_one_pipeline_sees_only_that_pipeline(
    cluster, client, store, session_key_file, settings
):
    """S3 answers "no such key" to an account that may list, so the namespace's missing key proves no
    reading: objects known to exist settle it."""
    add_campaign(cluster, CAMPAIGN, volume_ids=["C1", "C2"], completed="0", active=1)
    add_campaign(cluster, PROJECT_CAMPAIGN, volume_ids=["K1"], completed="0", pipeline=PROJECT_PIPELINE)
    store.put("htr-batch/swe-lines-v2/C1/progress.json", '{"stage": "done"}', "application/json")
    store.put(f"htr-batch/{PROJECT_PIPELINE}/K1/progress.json", '{"stage": "done"}', "application/json")
    policy = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": [f"arn:aws:s3:::{store.bucket}"]},
        {"Effect": "Allow", "Action": ["s3:GetObject"],
         "Resource": [f"arn:aws:s3:::{store.bucket}/htr-batch/{PROJECT_PIPELINE}/*"]},
    ]}
    store.set_policy("project", policy)
    try:
        logged_in(client, store, "project", settings, "namespace-readers")
        assert [job["name"] for job in client.get("/api/v1/jobs").json()] == [PROJECT_CAMPAIGN]
    finally:
        store.restore("project")


def test_the_re_run_name_does_not_show_a_hidden_campaigns_name(two_pipelines, client, store, session_key_file,
                                                              settings):
    add_campaign(two_pipelines, PROJECT_CAMPAIGN + "-failing", volume_ids=["K7"], completed="", failed="0",
                 pipeline=PROJECT_PIPELINE)
    two_pipelines.put(failed_pod(PROJECT_CAMPAIGN + "-failing", 0, "OOMKilled"))
    logged_in(client, store, "project", settings, "namespace-readers")
    path = f"/campaigns/htr-batch/{PROJECT_CAMPAIGN}-failing/rerun.yaml"
    before = client.get(path)
    assert before.status_code == 200, before.content[:300]
    add_campaign(two_pipelines, PROJECT_CAMPAIGN + "-failing-rerun-1", volume_ids=["X1"], completed="0")  # hidden
    assert PROJECT_CAMPAIGN + "-failing-rerun-1" in {c.name for c in settled().campaigns}
    after = client.get(path)
    assert after["Content-Disposition"] == before["Content-Disposition"]
    assert "-failing-rerun-1.yaml" in after["Content-Disposition"]

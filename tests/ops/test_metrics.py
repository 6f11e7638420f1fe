"""The metrics after a demo-like visit, read with the Prometheus client's own parser."""

from __future__ import annotations

import json
import re

import pytest
from prometheus_client.parser import text_string_to_metric_families

from campaigns.cluster import reading, status_records
from core import metrics
from results.accounts import ratelimit
from tests.campaigns.cluster.test_kube import NS
from tests.campaigns.web.test_views import add_campaign, prepared_cluster
from tests.fixtures.session import TEST_SERVER_ORIGIN, login_as


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


def scrape() -> dict[str, dict[tuple, float]]:
    """{sample name: {sorted label pairs: value}} from the exposition, parsed by prometheus_client."""
    text, content_type = metrics.exposition()
    assert content_type.startswith("text/plain")
    samples: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(text.decode()):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def value(samples, name, **labels) -> float:
    return samples.get(name, {}).get(tuple(sorted(labels.items())), 0.0)


def wrong_login(client, account):
    return client.post(
        "/results/_login",
        data=json.dumps({"username": account.username, "password": "not-the-password"}),
        content_type="application/json",
        HTTP_ORIGIN=TEST_SERVER_ORIGIN,
    )


def test_a_page_view_shows_every_figure(cluster, client, store, session_key_file, settings):
    settings.HTRFLOW_WRITE_STATUS = True
    settings.HTRFLOW_LOGIN_USER_LIMIT = (1, 600)
    status_records.forget()
    add_campaign(cluster, "counted", volume_ids=["A1", "A2"], completed="0", active=1)
    before = scrape()
    login_as(client, store.accounts["full"])
    assert wrong_login(client, store.accounts["limited"]).status_code == 401
    assert wrong_login(client, store.accounts["limited"]).status_code == 429  # the limit of one is spent
    assert client.get("/").status_code == 200
    card = "/campaigns/htr-batch/counted/card"
    client.get(card, headers={"HX-Request": "true"})
    reading.clear_cache()
    client.get(card, headers={"HX-Request": "true"})  # same cluster, same answer: nothing changed
    after = scrape()

    def grew(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("htrbrowser_kube_calls_total", outcome="ok", cause="none") >= 6
    assert grew("htrbrowser_kube_read_bytes_total") > 0
    assert value(after, "htrbrowser_snapshot_bytes", namespace=NS) > 0
    assert grew("htrbrowser_snapshot_refresh_seconds_count", namespace=NS) >= 2
    assert 0 <= value(after, "htrbrowser_snapshot_age_seconds", namespace=NS) < 3600
    store_calls = sum(after.get("htrbrowser_store_calls_total", {}).values()) - sum(
        before.get("htrbrowser_store_calls_total", {}).values()
    )
    assert store_calls >= 3  # each login proves its account once; the card reads a progress file
    assert grew("htrbrowser_store_calls_total", outcome="not_found") >= 1
    assert grew("htrbrowser_logins_total", outcome="accepted") == 1
    assert grew("htrbrowser_logins_total", outcome="wrong") == 1
    assert grew("htrbrowser_logins_total", outcome="rate_limited") == 1
    assert grew("htrbrowser_login_rate_limit_refusals_total", limit="user") == 1
    assert grew("htrbrowser_status_writes_total", outcome="created") == 1
    assert grew("htrbrowser_polls_total", kind="card", changed="false") == 1
    ratelimit.reset()


def test_a_refused_kube_call_is_counted_by_its_status(cluster, client, store, session_key_file):
    login_as(client, store.accounts["full"])
    cluster.inject_fault(r"/jobs", status=403)
    before = value(scrape(), "htrbrowser_kube_calls_total", outcome="http_403", cause="refused")
    client.get("/")
    assert value(scrape(), "htrbrowser_kube_calls_total", outcome="http_403", cause="refused") > before


def test_a_list_poll_that_brings_nothing_new_counts_as_unchanged(cluster, client, store, session_key_file):
    login_as(client, store.accounts["full"])
    add_campaign(cluster, "watched", volume_ids=["A1"], completed="")
    page = client.get("/").content.decode()
    shown = re.findall(r'name="shown" value="([^"]+)"', page)
    before = value(scrape(), "htrbrowser_polls_total", kind="list", changed="false")
    answer = client.get("/changes", {"shown": shown}, headers={"HX-Request": "true"})
    assert answer.status_code == 204
    assert value(scrape(), "htrbrowser_polls_total", kind="list", changed="false") == before + 1


def test_the_site_itself_has_no_metrics_path(client):
    assert client.get("/metrics").status_code in (302, 404)


def test_campaign_findings_count_campaigns_by_code_across_namespaces():
    metrics.campaign_findings("ns-a", {"test.one": 1, "test.two": 0})
    metrics.campaign_findings("ns-b", {"test.one": 2})
    samples = scrape()
    assert value(samples, "htrbrowser_campaign_findings", code="test.one") == 3
    assert ("code", "test.two") in dict(samples["htrbrowser_campaign_findings"]) or value(
        samples, "htrbrowser_campaign_findings", code="test.two") == 0
    metrics.campaign_findings("ns-a", {"test.one": 0, "test.two": 0})  # the cause went away there
    assert value(scrape(), "htrbrowser_campaign_findings", code="test.one") == 2


def test_a_reading_counts_its_campaigns_findings(cluster, client, store, session_key_file, settings):
    settings.HTRFLOW_RESULTS_URL = "https://htr.example.org/results"
    add_campaign(cluster, "published-elsewhere", volume_ids=["A1"], active=1)
    job = cluster.get("batch/v1", "Job", NS, "published-elsewhere")
    job["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "RESULTS_URL", "value": "https://old-htr.example.org/results"}  # not where this site reads
    ]
    cluster.put(job)
    reading.clear_cache()
    login_as(client, store.accounts["full"])
    assert client.get("/").status_code == 200
    samples = scrape()
    assert value(samples, "htrbrowser_campaign_findings", code="results.other_address") >= 1
    assert ("code", "kueue.down") in {pair for labels in samples["htrbrowser_campaign_findings"] for pair in labels}
    assert value(samples, "htrbrowser_campaign_findings", code="kueue.down") == 0

"""A finding reads the same wherever it is shown: the archivist's sentence on the card, its evidence and fix
under Operator details, and the same code, sentence and fix in the read API."""

from __future__ import annotations

import json

import pytest

from tests.campaigns.cluster.test_kube import NS
from tests.campaigns.web.test_views import add_campaign, card_html, page_text, prepared_cluster

ELSEWHERE = "https://old-htr.example.org/results"


@pytest.fixture
def cluster(kube, settings):
    settings.HTRFLOW_RESULTS_URL = "https://htr.example.org/results"
    yield from prepared_cluster(kube, settings)


def publishing_elsewhere(cluster, name="parish-moves-1830"):
    add_campaign(cluster, name, volume_ids=["A1", "A2"], active=1)
    job = cluster.get("batch/v1", "Job", NS, name)
    job["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "RESULTS_URL", "value": ELSEWHERE}]
    cluster.put(job)
    return name


def test_the_card_says_the_finding_plainly_and_the_operator_details_give_evidence_and_fix(cluster, results_client):
    name = publishing_elsewhere(cluster)
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/{name}"})), name)
    line = card.split('class="reason finding')[1].split("</p>")[0]
    assert f"publishes its results under {ELSEWHERE}" in line and "An operator has to" in line
    details = card.split('class="ops"')[1]
    assert "results.other_address" in details
    assert ELSEWHERE in details and "RESULTS_URL" in details


def test_the_read_api_carries_the_finding_as_data_beside_the_same_sentence(cluster, results_client):
    name = publishing_elsewhere(cluster)
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/{name}"})), name)
    answer = json.loads(results_client.get(f"/api/v1/jobs/{NS}/{name}").content)
    [finding] = [f for f in answer["findings"] if f["code"] == "results.other_address"]
    assert finding["actor"] == "operator"
    assert finding["values"]["campaign_address"] == ELSEWHERE
    assert finding["values"]["site_address"] == "https://htr.example.org/results"
    assert {"object": f"Job/{name}", "field": "spec.template.spec.containers[wrapper].env[RESULTS_URL]",
            "value": ELSEWHERE} in finding["evidence"]
    assert [step["step"] for step in finding["fix"]][:1] == ["converter.results_url"]
    assert finding["sentence"].split(" publishes")[0] in card  # the card says the same sentence
    assert answer["inTrouble"] is True  # a person has to act


def test_a_campaign_the_product_found_nothing_wrong_with_has_no_findings(cluster, results_client):
    add_campaign(cluster, "calm-1900", volume_ids=["A1"], active=1)
    answer = json.loads(results_client.get(f"/api/v1/jobs/{NS}/calm-1900").content)
    assert answer["findings"] == []

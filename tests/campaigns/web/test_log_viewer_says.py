"""The run log of a volume says what its campaign's page says of it: the row's sentence and the findings
about it, word for word, with the operator's detail a click away; nothing for a person who may not see
the campaign."""

from __future__ import annotations

import json

import pytest

from campaigns.cluster import reading
from tests.campaigns.cluster.test_kube import NS
from tests.campaigns.web.test_views import add_campaign, card_html, failed_pod, page_text, prepared_cluster
from tests.fixtures.session import login_as

LOG_KEY = f"{NS}/status/logs/swe-lines-v2/C2.txt"
ERROR = json.dumps({"stage": "stream", "permanent": True, "error": "CUDA error: device-side assert triggered"})


@pytest.fixture
def cluster(kube, settings):
    settings.HTRFLOW_RESULTS_URL = "http://testserver/results"
    yield from prepared_cluster(kube, settings)


@pytest.fixture
def failed_volume(cluster, store):
    add_campaign(cluster, "court-rolls-1711", volume_ids=["C1", "C2"], failed="1", completed="0")
    cluster.put(failed_pod("court-rolls-1711", 1, ERROR))
    store.put(LOG_KEY, "2026-12-02 10:00:01,000 ERROR w: [C2] CUDA error: device-side assert triggered\n")
    reading.clear_cache()


def viewer(client) -> str:
    return page_text(client.get("/log", {"log": f"http://testserver/results/{LOG_KEY}"}))


def test_the_run_log_says_what_the_row_says_with_the_error_for_operators(failed_volume, results_client):
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/court-rolls-1711"})), "court-rolls-1711")
    row = card.split('class="vol-sentence">')[1].split("</span>")[0].strip()
    assert "stopped for good while processing pages" in row and "An operator" in row
    page = viewer(results_client)
    said = page.split('id="volume-said"')[1].split("</section>")[0]
    assert row in said  # the same words as the row, not a second account
    operator = said.split('class="said-ops"')[1]
    assert "CUDA error: device-side assert triggered" in operator  # the error as the pod gave it
    assert "CUDA error" not in said.split('class="said-ops"')[0]  # not in the archivist's sentence


def test_a_person_who_may_not_see_the_campaign_reads_the_log_without_it(failed_volume, client, store, session_key_file):
    login_as(client, store.accounts["outsider"])
    assert 'id="volume-said"' not in viewer(client)


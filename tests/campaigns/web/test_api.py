"""The read API under /api/v1/: field names of the existing API, limits, and errors as sentences."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.campaigns.cluster.test_kube import NS, campaign_job, campaign_pod, campaign_record
from tests.campaigns.web.test_views import add_campaign, failed_pod, prepared_cluster

SUMMARY_FIELDS = {
    "namespace",
    "name",
    "campaign",
    "pipeline",
    "phase",
    "counts",
    "suspended",
    "createdAt",
    "startedAt",
    "finishedAt",
    "resultsBase",
    "warmup",
    "jobGone",
}
DETAIL_FIELDS = SUMMARY_FIELDS | {
    "pipelineSteps",
    "pipelineYaml",
    "latest",
    "failures",
    "volumes",
    "pagesDone",
    "pagesTotal",
    "pagesFailed",
}
VOLUME_FIELDS = {
    "index",
    "id",
    "state",
    "manifestUrl",
    "iiifUrl",
    "altoPrefix",
    "logUrl",
    "sourceUrl",
    "progress",
    "forbidden",
}


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


def status_record(name, phase="Succeeded", finished="2026-09-12T04:47:30Z"):
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"campaign-{name}-status",
            "namespace": NS,
            "labels": {
                "htrflow.riksarkivet.se/managed-by": "converter",
                "htrflow.riksarkivet.se/campaign": name,
                "htrflow.riksarkivet.se/pipeline": "swe-lines-v2",
                "htrflow.riksarkivet.se/kind": "status",
            },
        },
        "data": {
            "phase": phase,
            "volumesTotal": "2",
            "volumesDone": "2",
            "volumesFailed": "0",
            "startedAt": "2026-09-10T13:02:51Z",
            "finishedAt": finished,
            "resultsBase": "",
            "jobUid": str(uuid.uuid4()),
        },
    }


def test_version(results_client):
    response = results_client.get("/api/v1/version")
    assert response.status_code == 200
    assert response.json()["api"] == "v1"
    assert response["Cache-Control"] == "private, no-store"


def test_jobs_lists_summaries_with_the_existing_field_names(cluster, results_client):
    add_campaign(cluster, "parish-records-1870", volume_ids=["C1", "C2", "C3"], completed="0", active=1)
    response = results_client.get("/api/v1/jobs")
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    assert response["X-Reaped-Total"] == "0"
    (summary,) = response.json()
    assert SUMMARY_FIELDS <= set(summary)
    assert summary["name"] == "parish-records-1870"
    assert summary["phase"] == "Running"
    assert summary["counts"] == {"total": 3, "active": 1, "done": 1, "failed": 0}
    assert summary["jobGone"] is False
    assert summary["resultsBase"].endswith("/results/htr-batch/swe-lines-v2")


def test_campaigns_whose_job_is_gone_are_limited_by_reaped(cluster, results_client):
    for number in range(5):
        cluster.put(status_record(f"old-{number}", finished=f"2026-09-1{number}T04:47:30Z"))
    add_campaign(cluster, "live-one", volume_ids=["C1"], active=1)
    response = results_client.get("/api/v1/jobs", {"reaped": "2"})
    names = [s["name"] for s in response.json()]
    assert response["X-Reaped-Total"] == "5"
    assert "live-one" in names
    assert [n for n in names if n.startswith("old-")] == ["old-4", "old-3"]
    gone = [s for s in response.json() if s["name"] == "old-4"][0]
    assert gone["jobGone"] is True


@pytest.mark.parametrize("value", ["-1", "lots", "1.5"])
def test_a_bad_reaped_is_a_400_sentence(cluster, results_client, value):
    response = results_client.get("/api/v1/jobs", {"reaped": value})
    assert response.status_code == 400
    assert "reaped" in response.json()["detail"]


def test_detail_adds_volumes_failures_and_pipeline(cluster, results_client):
    add_campaign(cluster, "with-failure", volume_ids=["C1", "bouppteckning-1871", "C3"], completed="0", failed="1")
    message = json.dumps({"stage": "setup", "permanent": True, "error": "manifest fetch failed: HTTP 404"})
    cluster.put(failed_pod("with-failure", 1, message))
    response = results_client.get("/api/v1/jobs/htr-batch/with-failure")
    assert response.status_code == 200
    data = response.json()
    assert DETAIL_FIELDS <= set(data)
    assert [v["id"] for v in data["volumes"]] == ["C1", "bouppteckning-1871", "C3"]
    assert all(VOLUME_FIELDS <= set(v) for v in data["volumes"])
    failed = data["volumes"][1]
    assert failed["state"] == "failed"
    assert failed["reason"] == {"stage": "setup", "permanent": True, "error": "manifest fetch failed: HTTP 404"}
    assert failed["logUrl"] == "/results/htr-batch/status/logs/swe-lines-v2/bouppteckning-1871.txt"
    assert failed["sourceUrl"] == "https://iiif.example.se/bouppteckning-1871/manifest"
    assert data["failures"][0]["id"] == "bouppteckning-1871"
    assert data["volumes"][0]["manifestUrl"] == "/results/htr-batch/swe-lines-v2/C1/manifest.json"


def test_detail_pages_volumes_with_offset_and_limit(cluster, results_client):
    add_campaign(cluster, "many", volume_ids=[f"V{i:04d}" for i in range(30)])
    data = results_client.get("/api/v1/jobs/htr-batch/many", {"offset": "10", "limit": "5"}).json()
    assert [v["index"] for v in data["volumes"]] == [10, 11, 12, 13, 14]
    assert results_client.get("/api/v1/jobs/htr-batch/many", {"limit": "5000"}).json()["limit"] == 1000


def test_detail_progress_and_pages_come_from_progress_json(cluster, results_client, store):
    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "live-one", volume_ids=["C0074519"], pipeline=pipeline, active=1)
    cluster.put(campaign_pod("live-one", 0))
    progress = {
        "stage": "stream",
        "pages_total": 412,
        "pages_done": 137,
        "pages_failed": 1,
        "last_page": "0138",
        "updated_at": "2026-09-24T08:31:47+00:00",
    }
    store.put(f"{NS}/{pipeline}/C0074519/progress.json", json.dumps(progress))
    data = results_client.get("/api/v1/jobs/htr-batch/live-one").json()
    volume = data["volumes"][0]
    assert volume["progress"]["done"] == 137 and volume["progress"]["total"] == 412
    assert volume["progress"]["lastPage"] == "0138"
    assert volume["forbidden"] is False
    assert (data["pagesDone"], data["pagesTotal"], data["pagesFailed"]) == (137, 412, 1)


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/jobs/htr-batch/no-such-campaign",
        "/api/v1/jobs/htr-batch/Bad_Name",
        "/api/v1/jobs/elsewhere/anything",
    ],
)
def test_unknown_and_malformed_campaigns_are_404_json(cluster, results_client, path):
    response = results_client.get(path)
    assert response.status_code == 404
    assert response.json()["detail"]


def test_a_job_that_is_not_a_campaign_is_404(cluster, results_client):
    job = campaign_job("someone-elses", str(uuid.uuid4()))
    job["metadata"]["labels"] = {"app": "something-else"}
    cluster.put(job)
    assert results_client.get("/api/v1/jobs/htr-batch/someone-elses").status_code == 404


def test_a_cluster_that_cannot_be_read_is_502_with_a_sentence(cluster, results_client):
    cluster.inject_fault(r".*", status=503)
    response = results_client.get("/api/v1/jobs")
    assert response.status_code == 502
    assert "cluster" in response.json()["detail"].lower()
    assert results_client.get("/api/v1/jobs/htr-batch/anything").status_code == 502


def test_other_methods_are_405(cluster, results_client):
    for path in ("/api/v1/jobs", "/api/v1/version", "/api/v1/jobs/htr-batch/x"):
        response = results_client.post(path)
        assert response.status_code == 405
        assert response["Allow"] == "GET, HEAD"


def test_without_a_session_the_api_answers_401_json(client, session_key_file):
    response = client.get("/api/v1/jobs")
    assert response.status_code == 401
    assert response.json()["detail"]


def test_hostile_text_in_json_cannot_be_read_as_markup(cluster, results_client):
    add_campaign(cluster, "hostile", volume_ids=["C1"], failed="0")
    message = json.dumps({"stage": "stream", "permanent": True, "error": "<script>alert(1)</script>"})
    cluster.put(failed_pod("hostile", 0, message))
    record = campaign_record("hostile", ["C1"])
    cluster.put(record)
    response = results_client.get("/api/v1/jobs/htr-batch/hostile")
    assert b"<script>" not in response.content
    assert response.json()["volumes"][0]["reason"]["error"] == "<script>alert(1)</script>"


def test_answers_from_an_old_reading_say_how_old_in_a_field_and_a_header(cluster, results_client):
    from tests.fixtures.kube import cluster_goes_down

    add_campaign(cluster, "still-going", volume_ids=["A1", "A2"], completed="0", active=1)
    fresh = results_client.get("/api/v1/jobs")
    assert fresh["X-Snapshot-Age"] == "0" and fresh.json()[0]["snapshot"]["stale"] is False
    cluster_goes_down(cluster, status=429)
    stale = results_client.get("/api/v1/jobs")
    assert stale.status_code == 200
    assert "X-Snapshot-Stale-Since" in stale
    snapshot = stale.json()[0]["snapshot"]
    assert snapshot["stale"] is True and snapshot["ageSeconds"] >= 0
    assert "turning this site's reads away" in snapshot["sentence"]
    detail = results_client.get(f"/api/v1/jobs/{NS}/still-going")
    assert detail.json()["snapshot"]["stale"] is True and "X-Snapshot-Age" in detail

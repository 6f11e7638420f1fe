"""The read API's contract with scripts written for the existing /api/v1: every field, its name and shape.

Each answer is checked against a schema of the existing JobSummary, JobDetail and VolumeView
(contracts §7). A schema is a type, a tuple of types (one of them), a dict (these keys, each of
its shape; further keys are allowed) or a one-item list (every item of that shape).
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from campaigns.domain.ranges import parse_ranges
from devstack.kube_samples import PIPELINE_YAML_V2, pipeline_configmap
from tests.campaigns.cluster.test_kube import NS, campaign_job, campaign_pod, campaign_record, workload
from tests.campaigns.web.test_views import add_campaign, failed_pod, prepared_cluster

NULL = type(None)
NUMBER = (int, float)
QUALITY_STEP_YAML = PIPELINE_YAML_V2 + (
    "- step: QualityPrediction\n  settings:\n    model_settings:\n"
    "      model: Riksarkivet/htr-quality-estimator-1\n      revision: 5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928\n"
)

REASON = {"stage": (str, NULL), "permanent": (bool, NULL), "error": str}
JOB_SUMMARY = {
    "namespace": str,
    "name": str,
    "campaign": str,
    "pipeline": str,
    "phase": str,
    "counts": {"total": int, "active": int, "done": int, "failed": int},
    "suspended": bool,
    "createdAt": (str, NULL),
    "startedAt": (str, NULL),
    "finishedAt": (str, NULL),
    "resultsBase": str,
    "warmup": ({"phase": str}, NULL),
    "jobGone": bool,
    "qualityPrediction": bool,
    # issue 21: pace, forecast and stall (null where the board has none)
    "pace": (
        {
            "volumesPerHourSinceStart": (*NUMBER, NULL),
            "volumesPerHourRecent": (*NUMBER, NULL),
            "recentSeconds": int,
            "volumeSeconds": (*NUMBER, NULL),
            "pagesPerHour": (*NUMBER, NULL),
        },
        NULL,
    ),
    "forecast": (
        {
            "earliest": str,
            "latest": str,
            "basis": {
                "pace": str,
                "volumesPerHour": NUMBER,
                "remainingVolumes": int,
                "assumes": [str],
                "parallelism": int,
            },
        },
        NULL,
    ),
    "stalledSince": (str, NULL),
}
VOLUME_QUALITY = {
    "mean": (float, NULL),
    "min": (float, NULL),
    "scored": (int, NULL),
    "model": (str, NULL),
    "revision": (str, NULL),
    "lowest": [{"page": str, "quality": float, "canvas": (str, NULL)}],
}
PROGRESS = {
    "done": int,
    "total": int,
    "failed": int,
    "lastPage": (str, NULL),
    "stage": str,
    "updatedAt": (str, NULL),
    "ageSeconds": (*NUMBER, NULL),
    "lastError": ({"page": str, "error": str}, NULL),
    "errors": int,
    "viewerPublished": bool,
    "quality": (VOLUME_QUALITY, NULL),
}
VOLUME_VIEW = {
    "index": int,
    "id": str,
    "state": str,
    "manifestUrl": str,
    "iiifUrl": str,
    "altoPrefix": str,
    "logUrl": str,
    "sourceUrl": (str, NULL),
    "forbidden": bool,
    "progress": (PROGRESS, NULL),
}
CAMPAIGN_QUALITY = {
    "mean": (float, NULL),
    "min": (float, NULL),
    "scored": int,
    "volumes": int,
    "lowest": [{"volume": str, "page": str, "quality": float, "canvas": (str, NULL), "iiifUrl": (str, NULL)}],
}
JOB_DETAIL = {
    **JOB_SUMMARY,
    "pipelineSteps": [{"step": str}],
    "pipelineYaml": str,
    "latest": (PROGRESS, NULL),
    "failures": [{"index": int, "id": str, "reason": (REASON, NULL)}],
    "volumes": [VOLUME_VIEW],
    "pagesDone": int,
    "pagesTotal": int,
    "pagesFailed": int,
    "errors": int,
    "pagesCoverage": {"counted": int, "of": int},
    "lastError": ({"page": (str, NULL), "error": str, "volume": str, "logUrl": str}, NULL),
    "quality": (CAMPAIGN_QUALITY, NULL),
}
ERROR = {"detail": str}


def mismatches(value, schema, path="$") -> list[str]:
    """Where ``value`` differs from ``schema``: one line per difference (empty when it fits)."""
    if isinstance(schema, tuple):
        tried = [mismatches(value, option, path) for option in schema]
        return [] if any(not found for found in tried) else [f"{path}: {value!r:.80} is none of the shapes allowed"]
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return [f"{path}: expected an object, got {value!r:.80}"]
        found = []
        for key, inner in schema.items():
            if key not in value:
                found.append(f"{path}: missing {key}")
            else:
                found.extend(mismatches(value[key], inner, f"{path}.{key}"))
        return found
    if isinstance(schema, list):
        if not isinstance(value, list):
            return [f"{path}: expected a list, got {value!r:.80}"]
        return [line for i, item in enumerate(value) for line in mismatches(item, schema[0], f"{path}[{i}]")]
    if schema is float and isinstance(value, int) and not isinstance(value, bool):
        return []  # JSON has one kind of number
    if schema is int and isinstance(value, bool):
        return [f"{path}: expected a whole number, got {value!r}"]
    return [] if isinstance(value, schema) else [f"{path}: expected {schema.__name__}, got {value!r:.80}"]


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


def test_the_schema_check_itself_finds_a_missing_key_a_wrong_type_and_a_bad_item():
    assert mismatches({"a": 1, "b": [{"c": "x"}]}, {"a": int, "b": [{"c": str}]}) == []
    assert mismatches({"b": []}, {"a": int}) == ["$: missing a"]
    assert mismatches({"a": "1"}, {"a": (int, NULL)}) == ["$.a: '1' is none of the shapes allowed"]
    assert mismatches({"b": [{"c": 2}]}, {"b": [{"c": str}]}) == ["$.b[0].c: expected str, got 2"]
    assert mismatches(True, int) == ["$: expected a whole number, got True"]


def progress_json(**fields):
    record = {
        "stage": "stream",
        "pages_total": 40,
        "pages_done": 12,
        "pages_failed": 0,
        "last_page": "0012",
        "last_error": None,
        "errors": 0,
        "viewer_published": True,
        "started_at": "2026-09-24T08:02:11+00:00",
        "updated_at": "2026-09-24T08:31:47+00:00",
    }
    record.update(fields)
    return json.dumps(record)


def scored(mean, scored_pages, lowest):
    return {
        "mean": mean,
        "min": min(q for _, q in lowest),
        "scored": scored_pages,
        "model": "Riksarkivet/htr-quality-estimator-1",
        "revision": "5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928",
        "target": "bow_f1",
        "lowest": [{"page": page, "quality": q, "canvas": f"https://iiif.example.se/c/{page}"} for page, q in lowest],
    }


def scored_campaign(cluster, store, name="scored-one"):
    """Three volumes: one done and scored, one running and scored with a page error, one pending."""
    pipeline = "q-" + uuid.uuid4().hex[:8]
    cluster.put(pipeline_configmap(pipeline, QUALITY_STEP_YAML))
    add_campaign(cluster, name, volume_ids=["V1", "V2", "V3"], pipeline=pipeline, completed="0", active=1)
    cluster.put(campaign_pod(name, 1))
    done = scored(0.9, 30, [("0007", 0.41), ("0012", 0.66)])
    store.put(
        f"{NS}/{pipeline}/V1/progress.json", progress_json(stage="done", pages_total=30, pages_done=30, quality=done)
    )
    error = {"page": "0009", "error": "image fetch failed: HTTP 404"}
    running = scored(0.7, 10, [("0003", 0.52)])
    store.put(
        f"{NS}/{pipeline}/V2/progress.json",
        progress_json(pages_failed=1, last_error=error, errors=2, quality=running),
    )
    return pipeline


def test_every_summary_field_has_its_shape_with_and_without_a_quality_step(cluster, store, results_client):
    scored_campaign(cluster, store)
    add_campaign(cluster, "plain-one", volume_ids=["P1"], active=1)
    summaries = {s["name"]: s for s in results_client.get("/api/v1/jobs").json()}
    for summary in summaries.values():
        assert mismatches(summary, JOB_SUMMARY) == []
    assert summaries["scored-one"]["qualityPrediction"] is True
    assert summaries["plain-one"]["qualityPrediction"] is False
    assert summaries["plain-one"]["finishedAt"] is None


def started(cluster, name, volume_ids, *, minutes_ago, completed="", active=0):
    """A campaign whose Job started `minutes_ago` (the samples start months back), with its running pods."""
    uid = str(uuid.uuid4())
    job = campaign_job(name, uid, volumes=len(volume_ids), completed=completed, active=active)
    start = datetime.now(UTC) - timedelta(minutes=minutes_ago)
    job["status"]["startTime"] = start.strftime("%Y-%m-%dT%H:%M:%SZ")
    cluster.put(job)
    cluster.put(campaign_record(name, volume_ids))
    cluster.put(workload(name, uid, admitted=True))
    done = parse_ranges(completed)
    for index in [i for i in range(len(volume_ids)) if i not in done][:active]:
        cluster.put(campaign_pod(name, index))
    return job["status"]["startTime"]


def test_pace_forecast_and_stall_have_their_shape_and_say_what_the_board_saw(cluster, results_client):
    started(cluster, "moving-one", [f"M{i}" for i in range(10)], minutes_ago=60, completed="0-4", active=2)
    stuck_start = started(cluster, "stuck-one", ["S1", "S2", "S3"], minutes_ago=180, active=2)
    add_campaign(cluster, "waiting-one", volume_ids=["W1"], suspend=True)
    asked_at = datetime.now(UTC)
    summaries = {s["name"]: s for s in results_client.get("/api/v1/jobs").json()}
    for summary in summaries.values():
        assert mismatches(summary, JOB_SUMMARY) == []
    moving = summaries["moving-one"]
    assert moving["stalledSince"] is None and moving["inTrouble"] is False
    earliest = datetime.fromisoformat(moving["forecast"]["earliest"])
    latest = datetime.fromisoformat(moving["forecast"]["latest"])
    assert asked_at - timedelta(seconds=2) < earliest < latest
    # 5 of 10 in an hour since start, at parallelism 2: about an hour to go, said as a range around it
    assert earliest < asked_at + timedelta(hours=1) < latest
    assert moving["forecast"]["basis"]["pace"] == "since_start"
    assert moving["forecast"]["basis"]["remainingVolumes"] == 5
    assert 4.5 < moving["pace"]["volumesPerHourSinceStart"] < 5.5
    stuck = summaries["stuck-one"]
    assert stuck["stalledSince"] == stuck_start and stuck["inTrouble"] is True and stuck["forecast"] is None
    waiting = summaries["waiting-one"]
    assert waiting["forecast"] is None and waiting["stalledSince"] is None


def test_detail_of_a_scored_campaign_pins_quality_last_error_errors_and_coverage(cluster, store, results_client):
    pipeline = scored_campaign(cluster, store)
    response = results_client.get("/api/v1/jobs/htr-batch/scored-one")
    data = response.json()
    assert mismatches(data, JOB_DETAIL) == []
    # the mean is weighted by scored pages: (0.9 × 30 + 0.7 × 10) / 40
    assert data["quality"]["mean"] == 0.85
    assert (data["quality"]["min"], data["quality"]["scored"], data["quality"]["volumes"]) == (0.41, 40, 2)
    assert [(p["volume"], p["page"], p["quality"]) for p in data["quality"]["lowest"]] == [
        ("V1", "0007", 0.41),
        ("V2", "0003", 0.52),
        ("V1", "0012", 0.66),
    ]
    assert data["quality"]["lowest"][0]["iiifUrl"] == f"/results/{NS}/{pipeline}/V1/iiif.json"
    assert data["quality"]["lowest"][0]["canvas"] == "https://iiif.example.se/c/0007"
    assert data["lastError"] == {
        "page": "0009",
        "error": "image fetch failed: HTTP 404",
        "volume": "V2",
        "logUrl": f"/results/{NS}/status/logs/{pipeline}/V2.txt",
    }
    assert data["errors"] == 2
    assert data["pagesCoverage"] == {"counted": 2, "of": 2}
    by_id = {v["id"]: v for v in data["volumes"]}
    assert by_id["V1"]["progress"]["quality"]["lowest"][0] == {
        "page": "0007",
        "quality": 0.41,
        "canvas": "https://iiif.example.se/c/0007",
    }
    assert by_id["V1"]["progress"]["quality"]["model"] == "Riksarkivet/htr-quality-estimator-1"
    assert by_id["V3"]["progress"] is None


def test_detail_without_scores_has_null_quality_and_last_error(cluster, store, results_client):
    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "plain-one", volume_ids=["P1", "P2"], pipeline=pipeline, active=1)
    cluster.put(campaign_pod("plain-one", 0))
    store.put(f"{NS}/{pipeline}/P1/progress.json", progress_json())
    data = results_client.get("/api/v1/jobs/htr-batch/plain-one").json()
    assert mismatches(data, JOB_DETAIL) == []
    assert data["qualityPrediction"] is False
    assert data["quality"] is None
    assert data["lastError"] is None
    assert data["errors"] == 0
    assert data["pagesCoverage"] == {"counted": 1, "of": 1}
    assert data["volumes"][0]["progress"]["quality"] is None
    assert data["volumes"][0]["progress"]["lastError"] is None


def test_a_quality_step_with_nothing_scored_yet_is_an_empty_quality_not_null(cluster, store, results_client):
    pipeline = "q-" + uuid.uuid4().hex[:8]
    cluster.put(pipeline_configmap(pipeline, QUALITY_STEP_YAML))
    add_campaign(cluster, "not-yet", volume_ids=["N1"], pipeline=pipeline, active=1)
    cluster.put(campaign_pod("not-yet", 0))
    data = results_client.get("/api/v1/jobs/htr-batch/not-yet").json()
    assert mismatches(data, JOB_DETAIL) == []
    assert data["qualityPrediction"] is True
    assert data["quality"]["mean"] is None and data["quality"]["scored"] == 0 and data["quality"]["lowest"] == []
    assert data["pagesCoverage"] == {"counted": 0, "of": 1}  # no progress.json yet


def test_a_failed_volume_keeps_its_reason_in_the_view(cluster, results_client):
    add_campaign(cluster, "with-failure", volume_ids=["C1", "C2"], completed="0", failed="1")
    message = json.dumps({"stage": "setup", "permanent": True, "error": "manifest fetch failed: HTTP 404"})
    cluster.put(failed_pod("with-failure", 1, message))
    data = results_client.get("/api/v1/jobs/htr-batch/with-failure").json()
    assert mismatches(data, JOB_DETAIL) == []
    assert mismatches(data["volumes"][1], {**VOLUME_VIEW, "reason": REASON}) == []


@pytest.mark.parametrize(
    "path, status",
    [
        ("/api/v1/jobs/htr-batch/no-such-campaign", 404),
        ("/api/v1/jobs/elsewhere/anything", 404),
        ("/api/v1/no-such-thing", 404),
        ("/api/v1/jobs?reaped=lots", 400),
    ],
)
def test_errors_are_detail_sentences(cluster, results_client, path, status):
    response = results_client.get(path)
    assert response.status_code == status
    assert mismatches(response.json(), ERROR) == []
    assert response.json()["detail"].endswith(".")


def test_other_methods_and_an_unreadable_cluster_answer_detail(cluster, results_client):
    # The cluster fails before anything was read (once read, an outage shows the last reading, aged).
    cluster.inject_fault(r".*", status=503)
    response = results_client.get("/api/v1/jobs")
    assert response.status_code == 502 and mismatches(response.json(), ERROR) == []
    response = results_client.post("/api/v1/jobs")
    assert response.status_code == 405 and mismatches(response.json(), ERROR) == []


def test_without_a_session_the_answer_is_401_detail(client, session_key_file):
    response = client.get("/api/v1/jobs/htr-batch/anything")
    assert response.status_code == 401
    assert mismatches(response.json(), ERROR) == []
    assert response["Cache-Control"] == "private, no-store"


def test_version_names_the_web_version(results_client):
    assert mismatches(results_client.get("/api/v1/version").json(), {"version": str, "web": str}) == []

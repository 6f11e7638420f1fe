"""The "Re-run N failed volumes" file: exactly the failed volumes as the campaign record holds them, and
plain words on what an apply does with it (the facts from campaigns/domain/rerun.py, the words from
campaigns/wording/rerun.py), on the campaign page and as a download."""

from __future__ import annotations

import uuid

import pytest
import yaml

from campaigns.cluster import reading
from campaigns.domain import rerun
from campaigns.domain.projection import parse_volumes_txt, project
from campaigns.wording import rerun as rerun_words
from devstack import kube_samples as objects
from tests.campaigns.cluster.test_kube import campaign_job, workload
from tests.campaigns.web.test_views import failed_pod, page_text, prepared_cluster

VOLUMES = [
    ("C0074512", "https://iiif.arkiv.example.se/arkis!C0074512/manifest"),
    ("1871", "https://iiif.example.se/manifests/1871/manifest.json"),  # an id YAML would read as a number
    ("C0074514", "https://iiif.arkiv.example.se/arkis!C0074514/manifest"),
    ("loose-scans-0042", "images:https://images.example.se/0042/p001.jpg https://images.example.se/0042/p002.jpg"),
    ("old-render", "images:https://images.example.se/old/1.jpg,https://images.example.se/old/2.jpg"),
    ("C0074517", "https://iiif.arkiv.example.se/arkis!C0074517/manifest"),
]
FAILED = "1,3-4"
TRANSIENT = objects.wrapper_message("stream", False, "upload failed: UploadOutage (503)")
PERMANENT_SETUP = objects.wrapper_message("setup", True, "manifest fetch failed: HTTP 404")


def scene_with(job: dict, volumes=VOLUMES, pods=()) -> objects.Snapshot:
    return objects.scene(
        jobs=[job],
        records=[objects.campaign_record(job["metadata"]["name"], volumes)],
        status_records=[],
        workloads=[],
        pods=list(pods),
    )


def failed_pods(job_name: str) -> list[dict]:
    return [
        objects.failed_wrapper_pod(job_name, 1, PERMANENT_SETUP, suffix="p1"),
        objects.failed_wrapper_pod(job_name, 3, TRANSIENT, exit_code=1, suffix="p3", failure_count=3),
        objects.failed_wrapper_pod(job_name, 4, TRANSIENT, exit_code=1, suffix="p4", failure_count=3),
    ]


def running_campaign():
    job = objects.campaign_job(
        "parish", "uid-parish", completions=6, completed="0", failed=FAILED, active=1, priority_class="htr-bulk"
    )
    [campaign] = project(scene_with(job, pods=failed_pods("parish")), objects.NOW)
    return campaign


def finished_campaign():
    job = objects.finished_job("parish", "uid-parish", completed="0,2,5", failed=FAILED, completions=6)
    [campaign] = project(scene_with(job, pods=failed_pods("parish")), objects.NOW)
    return campaign


def entries_of(text: str) -> list:
    return yaml.safe_load(text)["volumes"]


def test_the_file_lists_exactly_the_failed_volumes_in_their_original_form():
    campaign = running_campaign()
    plan = rerun.plan_rerun(campaign)
    document = yaml.safe_load(rerun.campaign_file(plan))
    assert document["pipeline"] == "swe-lines-v2"
    assert document["priority"] == "htr-bulk"
    assert document["window"] == 4
    assert document["volumes"] == [
        {"id": "1871", "manifest": "https://iiif.example.se/manifests/1871/manifest.json"},
        {
            "id": "loose-scans-0042",
            "images": ["https://images.example.se/0042/p001.jpg", "https://images.example.se/0042/p002.jpg"],
        },
        {"id": "old-render", "images": ["https://images.example.se/old/1.jpg", "https://images.example.se/old/2.jpg"]},
    ]
    # Rendered back the way the CLI renders volumes.txt, each entry is the record's line again.
    original = {vid: source for vid, source in VOLUMES}
    for entry in document["volumes"]:
        source = entry.get("manifest") or "images:" + " ".join(entry["images"])
        assert source == original[entry["id"]].replace(",", " ")


def test_the_file_is_named_after_the_campaign_with_the_first_free_rerun_number():
    campaign = running_campaign()
    assert rerun.plan_rerun(campaign).path == "campaigns/parish-rerun-1.yaml"
    assert rerun.plan_rerun(campaign, {"parish-rerun-1", "parish-rerun-2"}).file_name == "parish-rerun-3"
    assert rerun.rerun_name("parish-rerun-2") == "parish-rerun-3"
    assert rerun.rerun_name("parish-rerun-2", {"parish-rerun-3"}) == "parish-rerun-4"


def said(plan: rerun.RerunPlan) -> rerun_words.OutlookWords:
    return rerun_words.outlook_words(plan, rerun.outlook(plan))


def test_same_pipeline_while_the_campaign_runs_is_held_back_and_resumes():
    facts = rerun.outlook(rerun.plan_rerun(running_campaign()))
    assert (facts.start, facts.same_pipeline) == ("held_back", True)
    outlook = said(rerun.plan_rerun(running_campaign()))
    assert outlook.start.startswith("Held back while parish still runs")
    assert "same pipeline id (swe-lines-v2)" in outlook.start
    assert "resumes from the pages it already finished under `htr-batch/swe-lines-v2/`" in outlook.resume


def test_same_pipeline_after_the_campaign_finished_starts_at_once():
    assert rerun.outlook(rerun.plan_rerun(finished_campaign())).start == "at_once"
    outlook = said(rerun.plan_rerun(finished_campaign()))
    assert outlook.start.startswith("Starts at once")
    assert "parish has finished" in outlook.start
    assert "Held back" not in outlook.start


def test_a_new_pipeline_id_starts_at_once_even_while_the_campaign_runs_and_starts_pages_over():
    plan = rerun.plan_rerun(running_campaign(), pipeline="swe-lines-v3")
    assert yaml.safe_load(rerun.campaign_file(plan))["pipeline"] == "swe-lines-v3"
    assert (rerun.outlook(plan).start, rerun.outlook(plan).same_pipeline) == ("new_pipeline", False)
    outlook = said(plan)
    assert outlook.start.startswith("Starts at once (when the queue has room), even while parish still runs")
    assert "`pipelines/swe-lines-v3.yaml` must exist" in outlook.start
    assert "every page is processed again" in outlook.resume and "swe-lines-v2" in outlook.resume


def test_failures_a_rerun_cannot_fix_come_first_and_the_rest_are_said_to_pass():
    assert rerun.outlook(rerun.plan_rerun(running_campaign())).fix_first == [("setup_permanent", ["1871"])]
    outlook = said(rerun.plan_rerun(running_campaign()))
    assert [ids for _words, ids in outlook.fix_first] == [["1871"]]
    assert "manifest could not be read" in outlook.fix_first[0][0]
    assert sorted(outlook.should_pass) == ["loose-scans-0042", "old-render"]
    assert "fix first" in rerun.campaign_file(rerun.plan_rerun(running_campaign())).split("1871")[1].split("\n")[0]


def test_a_bad_pipeline_id_is_refused_with_a_sentence():
    with pytest.raises(rerun.RerunRefused) as refused:
        rerun.plan_rerun(running_campaign(), pipeline="../etc")
    assert refused.value.code == "pipeline_id"
    assert "file stem in pipelines/" in rerun_words.refusal(refused.value.code)


def test_a_line_too_long_to_copy_is_left_out_and_said():
    long_images = "images:" + " ".join(f"https://images.example.se/{n:05d}.jpg" for n in range(200))
    volumes = [*VOLUMES[:3], ("huge", long_images), *VOLUMES[4:]]
    job = objects.campaign_job("parish", "uid-parish", completions=6, completed="0", failed=FAILED, active=1)
    [campaign] = project(scene_with(job, volumes, failed_pods("parish")), objects.NOW)
    plan = rerun.plan_rerun(campaign)
    assert [e.id for e in plan.entries] == ["1871", "old-render"]
    assert plan.left_out == [("huge", "too_long")]
    assert "too long" in said(plan).left_out[0][1]
    text = rerun.campaign_file(plan)
    assert [e["id"] for e in entries_of(text)] == ["1871", "old-render"]
    assert "# left out: huge: its line in the campaign record is too long" in text
    assert parse_volumes_txt("huge\t" + long_images + "\n")[0].source.endswith("…")


# --- on the campaign page and as a download ----------------------------------------------------------


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


def put_campaign(double, name="parish", *, failed=FAILED, completed="0", active=1):
    uid = str(uuid.uuid4())
    double.put(campaign_job(name, uid, volumes=len(VOLUMES), completed=completed, failed=failed, active=active))
    double.put(objects.campaign_record(name, VOLUMES))
    double.put(workload(name, uid))
    double.put(failed_pod(name, 1, PERMANENT_SETUP))


def test_the_campaign_page_offers_the_file_and_the_download_gives_the_same_text(cluster, results_client):
    put_campaign(cluster)
    html = page_text(results_client.get("/campaigns/htr-batch/parish"))
    assert "Re-run 3 failed volumes</h2>" in html
    assert "campaigns/parish-rerun-1.yaml" in html
    assert "Held back while parish still runs" in html
    response = results_client.get("/campaigns/htr-batch/parish/rerun.yaml")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="parish-rerun-1.yaml"'
    text = response.content.decode()
    assert [e["id"] for e in entries_of(text)] == ["1871", "loose-scans-0042", "old-render"]
    shown = html.split('<pre id="rerun-file"')[1].split(">", 1)[1].split("</pre>")[0]
    assert shown.replace("&quot;", '"').replace("&#x27;", "'") == text


def test_a_taken_rerun_name_moves_the_number_on(cluster, results_client):
    put_campaign(cluster)
    cluster.put(objects.campaign_record("parish-rerun-1", VOLUMES[:1]))
    response = results_client.get("/campaigns/htr-batch/parish/rerun.yaml")
    assert response["Content-Disposition"] == 'attachment; filename="parish-rerun-2.yaml"'


def test_the_download_for_another_pipeline_and_its_refusals(cluster, results_client):
    put_campaign(cluster)
    other = results_client.get("/campaigns/htr-batch/parish/rerun.yaml?pipeline=swe-lines-v3")
    assert yaml.safe_load(other.content)["pipeline"] == "swe-lines-v3"
    bad = results_client.get("/campaigns/htr-batch/parish/rerun.yaml?pipeline=%3Cscript%3E")
    assert bad.status_code == 400 and "file stem in pipelines/" in page_text(bad)
    assert "<script>" not in page_text(bad)
    missing = results_client.get("/campaigns/htr-batch/nobody/rerun.yaml")
    assert missing.status_code == 404 and "no campaign named nobody" in page_text(missing)


def test_a_campaign_without_failed_volumes_has_no_panel(cluster, results_client):
    put_campaign(cluster, name="fine", failed="", completed="0-2")
    assert "Re-run" not in page_text(results_client.get("/campaigns/htr-batch/fine"))
    assert results_client.get("/campaigns/htr-batch/fine/rerun.yaml").status_code == 404


# --- in Chromium, on the demo scene ------------------------------------------------------------------


@pytest.mark.browser
def test_the_panel_copies_the_file_it_offers_for_download(scene, live_server, page, settings, session_key_file):
    from django.core.cache import cache

    from tests.fixtures.session import browser_login

    settings.HTRFLOW_WRITE_STATUS = False
    reading.clear_cache()
    cache.clear()
    browser_login(page, live_server.url, scene.store.accounts["full"])
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    campaign = scene.scene.campaign_of("verify_missing_pages")
    page.goto(f"{live_server.url}/campaigns/{scene.scene.where.namespace}/{campaign.name}")
    panel = page.locator("#rerun")
    heading = panel.locator("h2").inner_text()
    count = int(heading.split()[1])
    page.focus("#rerun .copy-button")
    page.keyboard.press("Enter")
    page.locator("#rerun .copy-status").filter(has_text="Copied").wait_for()
    copied = page.evaluate("navigator.clipboard.readText()")
    with page.expect_download() as download:
        page.focus("#rerun-download")
        page.keyboard.press("Enter")
    saved = download.value
    assert saved.suggested_filename == f"{campaign.name}-rerun-1.yaml"
    text = open(saved.path(), encoding="utf-8").read()
    assert copied == text
    assert len(yaml.safe_load(text)["volumes"]) == count

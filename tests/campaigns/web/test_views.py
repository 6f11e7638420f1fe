"""Campaign pages through Django's test client: the cluster is the API double, results the store double."""

from __future__ import annotations

import gc
import json
import re
import uuid
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.utils import timezone

from campaigns.cluster import reading
from campaigns.presentation.overview import short_key
from campaigns.store import progress as progress_module
from campaigns.web import list_views
from tests.campaigns.cluster.test_kube import NS, campaign_job, campaign_pod, campaign_record, load_campaigns, workload
from tests.fixtures.kube import cluster_goes_down, settled
from tests.fixtures.waiting import wait_until

HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


@pytest.fixture
def cluster(kube, settings):
    """The emptied API double, one namespace served, a fresh snapshot on every request."""
    yield from prepared_cluster(kube, settings)


def prepared_cluster(kube, settings):
    settings.HTRFLOW_NAMESPACES = [NS]
    settings.HTRFLOW_RESULTS_NAMESPACE = NS
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0
    settings.HTRFLOW_KUBE_TIMEOUT = 1.0
    settings.HTRFLOW_WRITE_STATUS = False
    reading.clear_cache()
    progress_module.clear_cache()
    yield kube
    reading.clear_cache()


def failed_pod(job_name, index, message, *, exit_code=13):
    pod = campaign_pod(job_name, index, phase="Failed")
    pod["status"]["containerStatuses"] = [
        {"name": "wrapper", "state": {"terminated": {"exitCode": exit_code, "reason": "Error", "message": message}}}
    ]
    return pod


def add_campaign(double, name, *, volume_ids, pipeline="swe-lines-v2", **job):
    uid = str(uuid.uuid4())
    double.put(campaign_job(name, uid, volumes=len(volume_ids), pipeline=pipeline, **job))
    double.put(campaign_record(name, volume_ids, pipeline=pipeline))
    double.put(workload(name, uid, admitted=not job.get("suspend")))
    return uid


# A volume row's header: its id, linked to the volume's page.
ROW_HEADER = r'<th scope="row" role="rowheader" class="mono vol-id">(?:<a [^>]*>)?(\w+)(?:</a>)?</th>'


def page_text(response) -> str:
    return response.content.decode()


# --- the list ---------------------------------------------------------------------------------------


def test_the_list_shows_a_line_per_campaign_with_its_state_and_counts(cluster, results_client):
    add_campaign(cluster, "parish-records-1870", volume_ids=["C1", "C2", "C3", "C4"], completed="0-1", active=1)
    cluster.put(campaign_pod("parish-records-1870", 2))
    response = results_client.get("/")
    assert response.status_code == 200
    html = page_text(response)
    line = row_html(html, "parish-records-1870")
    assert "Running" in line
    assert re.search(r"<strong>2</strong> of 4 volumes done", line)
    assert 'href="/campaigns/htr-batch/parish-records-1870"' in line
    assert 'id="card-htr-batch--parish-records-1870"' not in html  # calm: a line, not a full card


def test_the_list_polls_once_for_the_whole_page_and_a_campaign_page_polls_its_card(cluster, results_client):
    add_campaign(cluster, "still-going", volume_ids=["A1", "A2"], completed="0", active=1)
    done = campaign_job("all-done", str(uuid.uuid4()), volumes=1, completed="0")
    done["status"]["conditions"] = [{"type": "Complete", "status": "True"}]
    done["status"]["completionTime"] = "2026-09-24T09:00:00Z"
    cluster.put(done)
    cluster.put(campaign_record("all-done", ["B1"]))
    html = page_text(results_client.get("/", {"open": [f"{NS}/still-going", f"{NS}/all-done"]}))
    assert html.count("hx-trigger=") == 1 and 'id="list-poll"' in html
    running = page_text(results_client.get(f"/campaigns/{NS}/still-going"))
    finished = page_text(results_client.get(f"/campaigns/{NS}/all-done"))
    # the campaign page's one poll is its card's, and it brings the volume rows along
    assert 'hx-get="/campaigns/htr-batch/still-going/card?rows=1&amp;offset=0"' in card_html(running, "still-going")
    assert 'hx-include="#volume-shown"' in card_html(running, "still-going")
    assert "hx-trigger" not in card_html(finished, "all-done").split(">")[0]


def test_a_poll_of_a_finished_campaign_stops_polling_with_286(cluster, results_client):
    done = campaign_job("all-done", str(uuid.uuid4()), volumes=1, completed="0")
    done["status"]["conditions"] = [{"type": "Complete", "status": "True"}]
    cluster.put(done)
    cluster.put(campaign_record("all-done", ["B1"]))
    response = results_client.get("/campaigns/htr-batch/all-done/card", headers={"HX-Request": "true"})
    assert response.status_code == 286
    assert "Succeeded" in page_text(response)


def test_a_poll_of_a_running_campaign_returns_the_same_card_fragment(cluster, results_client):
    add_campaign(cluster, "still-going", volume_ids=["A1", "A2"], completed="0", active=1)
    response = results_client.get("/campaigns/htr-batch/still-going/card", headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = page_text(response)
    assert html.lstrip().startswith('<article id="card-htr-batch--still-going"')
    assert "<html" not in html


def test_a_campaign_page_poll_brings_its_volume_rows_from_the_same_reading_as_its_card(cluster, results_client):
    uid = add_campaign(cluster, "moving-on", volume_ids=["A1", "A2", "A3"], completed="0", active=1)
    cluster.put(campaign_pod("moving-on", 1))
    page = page_text(results_client.get("/campaigns/htr-batch/moving-on?state=active"))
    assert re.findall(r'<tr class="vol vol-(\w+)" role="row" id="vol-(\w+)"', page) == [("active", "A2")]
    # A2 finishes and A3 starts: the card and the rows it polls for move on together
    cluster.put(campaign_job("moving-on", uid, volumes=3, completed="0-1", active=1))
    cluster.put(campaign_pod("moving-on", 2))
    url = "/campaigns/htr-batch/moving-on/card?rows=1&state=active&offset=0&rows_shown=200"
    settled()
    answer = page_text(results_client.get(url, headers={"HX-Request": "true"}))
    card, rest = answer.split("</article>", 1)
    assert re.search(r"<strong>2</strong> of 3 done", card)
    assert '<template><tbody id="volume-rows" role="rowgroup" hx-swap-oob="true" data-window="200">' in rest
    assert re.findall(r'<tr class="vol vol-(\w+)" role="row" id="vol-(\w+)"', rest) == [("active", "A3")]
    assert '<div id="volume-count" hx-swap-oob="true">' in rest and "1 volume matches" in rest
    # the row links keep their ids across polls, so a person's focus stays where it was
    assert 'id="log-of-A3"' in rest


def test_a_campaign_page_poll_refreshes_as_many_rows_as_the_page_shows(cluster, results_client):
    ids = [f"V{i:04d}" for i in range(450)]
    add_campaign(cluster, "big-one", volume_ids=ids, completed="0-299", active=0)
    base = "/campaigns/htr-batch/big-one/card?rows=1&offset=0"
    widened = page_text(results_client.get(base + "&rows_shown=400", headers={"HX-Request": "true"}))
    assert widened.count('<tr class="vol ') == 400 and 'data-window="400"' in widened
    # "Load more" in rows a poll brought still loads from the campaign page, not from the card's address
    more = re.search(r'id="volume-rows-more" class="button" href="([^"]+)" hx-get="([^"]+)"', widened)
    assert more.groups() == (
        "/campaigns/htr-batch/big-one?offset=400",
        "/campaigns/htr-batch/big-one?offset=400&amp;fragment=rows",
    )
    nonsense = page_text(results_client.get(base + "&rows_shown=-5", headers={"HX-Request": "true"}))
    assert nonsense.count('<tr class="vol ') == 200  # never less than a page
    everything = page_text(results_client.get(base + "&rows_shown=2000", headers={"HX-Request": "true"}))
    assert everything.count('<tr class="vol ') == 450 and 'id="volume-rows-more"' not in everything
    # more rows shown than a poll refreshes: the card moves on, the rows are left as they are
    huge = page_text(results_client.get(base + "&rows_shown=99999", headers={"HX-Request": "true"}))
    assert '<article id="card-htr-batch--big-one"' in huge and 'id="volume-rows"' not in huge


def test_a_campaign_page_with_no_matching_row_yet_has_a_table_its_poll_can_fill(cluster, results_client):
    uid = add_campaign(cluster, "nothing-failed", volume_ids=["A1", "A2"], completed="0", active=1)
    page = page_text(results_client.get("/campaigns/htr-batch/nothing-failed?state=failed"))
    assert '<tbody id="volume-rows" role="rowgroup">' in page and "No volume matches." in page
    cluster.put(campaign_job("nothing-failed", uid, volumes=2, completed="0", failed="1"))
    settled()
    url = "/campaigns/htr-batch/nothing-failed/card?rows=1&state=failed&offset=0&rows_shown=0"
    answer = page_text(results_client.get(url, headers={"HX-Request": "true"}))
    assert re.findall(r'<tr class="vol vol-(\w+)" role="row" id="vol-(\w+)"', answer) == [("failed", "A2")]
    assert "No volume matches." not in answer


def test_a_failed_volume_has_its_sentence_and_run_log_link_on_one_row(cluster, results_client):
    add_campaign(cluster, "with-failure", volume_ids=["C1", "bouppteckning-1871", "C3"], completed="0", failed="1")
    message = json.dumps({"stage": "setup", "permanent": True, "error": "manifest fetch failed: HTTP 404"})
    cluster.put(failed_pod("with-failure", 1, message))
    html = page_text(results_client.get("/"))  # in trouble: shown as a full card without asking
    rows = re.findall(r'<li class="problem[^"]*">(.*?)</li>', html, re.S)
    assert len(rows) == 1
    row = rows[0]
    assert "bouppteckning-1871" in row
    assert "/log?log=%2Fresults%2Fhtr-batch%2Fstatus%2Flogs%2Fswe-lines-v2%2Fbouppteckning-1871.txt" in row
    assert "live=1" not in row  # failed for good: nothing runs it again


def test_hostile_ids_and_messages_are_escaped_and_bounded(cluster, results_client):
    long_hostile = HOSTILE + "x" * 20000
    add_campaign(cluster, "hostile", volume_ids=["C1", "C2"], failed="0", completed="1")
    cluster.put(failed_pod("hostile", 0, json.dumps({"stage": "stream", "permanent": True, "error": long_hostile})))
    record = campaign_record("hostile", ["C1", "C2"])
    record["data"]["volumes.txt"] = f"{HOSTILE}\thttps://x.example/m\nC2\thttps://x.example/m2\n"
    cluster.put(record)
    for url in ("/", "/campaigns/htr-batch/hostile", "/campaigns/htr-batch/hostile?state=failed"):
        response = results_client.get(url)
        assert response.status_code == 200
        html = page_text(response)
        assert "<script>alert(2)" not in html
        assert "<img src=x" not in html
        assert "x" * 5000 not in html


def test_an_unknown_campaign_is_a_404_with_a_sentence(cluster, results_client):
    response = results_client.get("/campaigns/htr-batch/no-such-campaign")
    assert response.status_code == 404
    assert "There is no campaign named" in page_text(response)


@pytest.mark.parametrize(
    "path",
    [
        "/campaigns/htr-batch/Not_A_Label",
        "/campaigns/htr-batch/" + "a" * 64,
        "/campaigns/other-namespace/anything",
        "/campaigns/htr-batch/%3Cscript%3E",
    ],
)
def test_malformed_names_and_unserved_namespaces_are_404(cluster, results_client, path):
    response = results_client.get(path)
    assert response.status_code == 404
    assert "<script>" not in page_text(response)


def test_a_job_with_missing_fields_still_renders(cluster, results_client):
    cluster.put(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": "bare-job",
                "namespace": NS,
                "labels": {"app": "htrflow-batch", "htrflow.riksarkivet.se/managed-by": "converter"},
            },
        }
    )
    response = results_client.get("/")
    assert response.status_code == 200
    assert "bare-job" in page_text(response)
    assert results_client.get("/campaigns/htr-batch/bare-job").status_code == 200


def test_with_the_cluster_down_and_nothing_read_the_page_says_so(cluster, results_client):
    cluster.inject_fault(r".*", status=503)
    response = results_client.get("/")
    assert response.status_code == 200
    assert "cluster" in page_text(response).lower()
    assert 'class="banner bad"' in page_text(response)


def test_with_the_cluster_down_after_a_good_read_the_last_state_shows_with_a_banner(
    cluster, results_client, settings
):
    add_campaign(cluster, "still-going", volume_ids=["A1", "A2"], completed="0", active=1)
    assert results_client.get("/").status_code == 200
    cluster_goes_down(cluster)
    html = page_text(results_client.get("/"))
    assert "The cluster has been answering with errors since" in html
    assert 'id="row-htr-batch--still-going"' in html
    # the page's poll slows down while the cluster cannot be read
    assert 'hx-trigger="every 30s' in html


def test_the_campaign_page_filters_searches_and_pages_volumes(cluster, results_client):
    ids = [f"V{i:04d}" for i in range(450)]
    add_campaign(cluster, "big-one", volume_ids=ids, completed="0-299", active=0)
    html = page_text(results_client.get("/campaigns/htr-batch/big-one"))
    assert html.count('<tr class="vol ') == 200
    assert "Load more volumes" in html
    assert 'href="/campaigns/htr-batch/big-one?offset=200"' in html
    more = results_client.get("/campaigns/htr-batch/big-one?offset=400&fragment=rows", headers={"HX-Request": "true"})
    assert page_text(more).count('<tr class="vol ') == 50
    assert "Load more" not in page_text(more)
    done = page_text(results_client.get("/campaigns/htr-batch/big-one?state=pending"))
    assert done.count('<tr class="vol vol-pending') == 150
    found = page_text(results_client.get("/campaigns/htr-batch/big-one?q=V0123"))
    assert found.count('<tr class="vol ') == 1 and "V0123" in found


def poll(client, page_html: str, **params):
    """What the page's one poll would get: its URL and the fingerprints the page holds."""
    url = re.search(r'id="list-poll" class="list-poll" hx-get="([^"]+)"', page_html).group(1).replace("&amp;", "&")
    shown = re.findall(r'name="shown" value="([^"]+)"', page_html)
    return client.get(url, {"shown": shown, **params}, headers={"HX-Request": "true"})


def test_a_poll_when_nothing_changed_answers_204_without_a_body(cluster, results_client):
    add_campaign(cluster, "steady", volume_ids=["A1", "A2"], completed="0", active=1)
    html = page_text(results_client.get("/"))
    answer = poll(results_client, html)
    assert answer.status_code == 204 and answer.content == b""


def test_a_poll_sends_only_the_line_that_changed(cluster, results_client):
    add_campaign(cluster, "moving", volume_ids=["A1", "A2", "A3"], completed="0", active=1)
    add_campaign(cluster, "steady", volume_ids=["B1", "B2"], completed="0", active=1)
    html = page_text(results_client.get("/"))
    cluster.patch("batch/v1", "Job", NS, "moving", {"status": {"completedIndexes": "0-1"}})
    settled()
    answer = page_text(poll(results_client, html))
    assert 'id="row-htr-batch--moving" class="overview-row' in answer and 'hx-swap-oob="true"' in answer
    assert re.search(r"<strong>2</strong> of 3 volumes done", answer)
    assert "row-htr-batch--steady" not in answer.replace('value="row:htr-batch/steady', "")
    assert 'id="list-shown" hidden hx-swap-oob="true"' in answer  # the new fingerprints


def test_a_lines_fingerprint_is_kept_only_while_its_campaign_is_in_the_reading(cluster, results_client):
    add_campaign(cluster, "moving", volume_ids=["A1", "A2", "A3"], completed="0", active=1)
    for name in ("leaving-1", "leaving-2"):
        add_campaign(cluster, name, volume_ids=["B1", "B2"], completed="0", active=1)
    list_views._rows.clear()
    html = page_text(results_client.get("/"))
    assert len(list_views._rows) == 3
    for name in ("leaving-1", "leaving-2"):
        cluster.delete("batch/v1", "Job", NS, name)
        cluster.delete("v1", "ConfigMap", NS, f"campaign-{name}")
    cluster.patch("batch/v1", "Job", NS, "moving", {"status": {"completedIndexes": "0-1"}})
    settled()
    assert f'data-key="{short_key(f"{NS}/leaving-1")}"' in page_text(poll(results_client, html))
    gc.unfreeze()  # as the collector's pass every THAW_SECONDS: a request's reference cycles may be set aside
    gc.collect()
    assert len(list_views._rows) == 1  # the gone campaigns' lines and the moving one's old line went with them


def test_cards_rendered_in_an_earlier_second_are_not_kept(cluster, results_client, monkeypatch):
    for name in ("broken-1", "broken-2"):
        add_campaign(cluster, name, volume_ids=["A1", "A2", "A3"], completed="0", failed="1", active=1)
    page_text(results_client.get("/"))
    assert set(list_views._cards) == {("en", "UTC", f"{NS}/broken-1"), ("en", "UTC", f"{NS}/broken-2")}
    cluster.delete("batch/v1", "Job", NS, "broken-2")
    cluster.delete("v1", "ConfigMap", NS, "campaign-broken-2")
    settled()
    later = timezone.now() + timedelta(seconds=2)
    monkeypatch.setattr(list_views.timezone, "now", lambda: later)
    page_text(results_client.get("/"))
    # the gone campaign's card, and its campaign, let go
    assert set(list_views._cards) == {("en", "UTC", f"{NS}/broken-1")}


def test_a_poll_adds_new_campaigns_and_marks_removed_ones(cluster, results_client):
    add_campaign(cluster, "old-one", volume_ids=["A1"], active=1)
    add_campaign(cluster, "leaving", volume_ids=["C1"], active=1)
    html = page_text(results_client.get("/"))
    add_campaign(cluster, "new-one", volume_ids=["B1"], active=1)
    cluster.delete("batch/v1", "Job", NS, "leaving")
    cluster.delete("v1", "ConfigMap", NS, "campaign-leaving")
    settled()
    answer = page_text(poll(results_client, html))
    assert 'hx-swap-oob="beforeend:#overview-rows"' in answer and 'id="row-htr-batch--new-one"' in answer
    # The poll names no campaign it cannot find among those the person may see: the tab's line is found by
    # the key the tab itself sent (tests/campaigns/web/test_hidden_answers.py).
    key = short_key(f"{NS}/leaving")
    selector = f"#overview-rows > li[data-key='{key}']"
    gone = f'class="overview-row row-gone" data-key="{key}" hx-swap-oob="outerHTML:{selector}"'
    assert gone in answer and "row-htr-batch--leaving" not in answer
    assert 'id="row-htr-batch--old-one"' not in answer  # lines already shown stay where they are
    assert poll(results_client, answer).status_code == 204  # said once


def test_a_line_said_gone_by_a_reading_that_lagged_comes_back_when_the_campaign_is_found(cluster, results_client):
    """Another worker whose reading had not yet seen a campaign said its line gone: the tab keeps the line
    as gone (with its key), and the next poll that finds the campaign brings the line back in its place."""
    add_campaign(cluster, "steady", volume_ids=["A1"], active=1)
    add_campaign(cluster, "late", volume_ids=["B1"], active=1)
    settled()
    key = short_key(f"{NS}/late")
    html = page_text(results_client.get("/"))
    said_gone = re.sub(rf'value="(p1\.[^"]*)[rR]{key}[\w-]{{8}}', rf'value="\g<1>g{key}--gone--', html)
    assert said_gone != html
    answer = page_text(poll(results_client, said_gone))
    selector = f"#overview-rows > li[data-key='{key}']"
    swapped = f'data-key="{key}" hx-swap-oob="outerHTML:{selector}"'
    assert re.search(rf'<li id="row-htr-batch--late" class="[^"]*" {re.escape(swapped)}', answer)
    assert "row-gone" not in answer and "row-htr-batch--steady" not in answer
    assert poll(results_client, answer).status_code == 204


def test_a_campaign_newly_in_trouble_is_said_once_and_its_line_changes_in_place(cluster, results_client):
    add_campaign(cluster, "calm-then-not", volume_ids=["A1", "A2", "A3"], completed="0", active=1)
    html = page_text(results_client.get("/"))
    assert 'id="card-htr-batch--calm-then-not"' not in html
    cluster.patch("batch/v1", "Job", NS, "calm-then-not", {"status": {"failedIndexes": "1-2"}})
    settled()
    answer = page_text(poll(results_client, html))
    assert 'id="card-htr-batch--calm-then-not"' not in answer  # no card pushes the page down meanwhile
    assert "Needs attention" in row_html(answer, "calm-then-not")
    announced = re.search(r'<div id="list-announce" hx-swap-oob="innerHTML"><p>(.*?)</p></div>', answer).group(1)
    assert announced == "calm-then-not now needs attention: 2 volumes failed."
    assert "<title>(1 needs attention) Campaigns" in answer
    again = poll(results_client, answer.replace('hx-swap-oob="true"', ""))
    assert again.status_code == 204  # said once, not on every poll


def test_a_line_the_filter_no_longer_keeps_is_updated_in_place(cluster, results_client):
    add_campaign(cluster, "was-running", volume_ids=["A1", "A2"], completed="0", active=1)
    html = page_text(results_client.get("/", {"state": "running"}))
    assert 'id="row-htr-batch--was-running"' in html
    job = cluster.get("batch/v1", "Job", NS, "was-running")
    job["status"].update(completedIndexes="0-1", active=0, conditions=[{"type": "Complete", "status": "True"}])
    cluster.put(job)
    settled()
    answer = page_text(poll(results_client, html))
    assert 'id="row-htr-batch--was-running"' in answer and "Succeeded" in answer
    assert "row-gone" not in answer


def test_the_state_filter_and_the_search_keep_what_they_ask_for(cluster, results_client):
    add_campaign(cluster, "parish-a", volume_ids=["P-0001", "P-0002"], completed="0", active=1)
    add_campaign(cluster, "held-back", volume_ids=["Q-0001"], suspend=True)
    running = page_text(results_client.get("/", {"state": "running"}))
    assert "row-htr-batch--parish-a" in running and "row-htr-batch--held-back" not in running
    assert 'aria-current="page"' in running and 'id="state-running"' in running
    found = page_text(results_client.get("/", {"q": "p-0002"}))
    assert "row-htr-batch--held-back" not in found
    hit = re.search(r'<a id="row-htr-batch--parish-a-hit-1" class="mono" href="([^"]+)">P-0002</a>', found)
    assert hit and hit.group(1) == "/campaigns/htr-batch/parish-a/volumes/P-0002"  # the volume's own page
    nothing = page_text(results_client.get("/", {"q": "no-such-volume"}))
    assert "No campaign or volume matches “no-such-volume”" in nothing


def test_a_search_keeps_hostile_words_inert(cluster, results_client):
    add_campaign(cluster, "parish-a", volume_ids=["P-0001"], completed="0", active=1)
    html = page_text(results_client.get("/", {"q": HOSTILE, "state": "<b>"}))
    assert "<script>alert(2)" not in html and "<img src=x" not in html


def test_the_list_page_is_compressed_for_clients_that_accept_it(cluster, results_client):
    add_campaign(cluster, "parish-a", volume_ids=["P-0001"], completed="0", active=1)
    response = results_client.get("/", headers={"Accept-Encoding": "gzip"})
    assert response["Content-Encoding"] == "gzip"


def test_progress_of_a_running_volume_is_read_with_the_persons_session(cluster, results_client, store):
    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "live-one", volume_ids=["C0074519"], pipeline=pipeline, active=1)
    cluster.put(campaign_pod("live-one", 0))
    progress = {"stage": "stream", "pages_total": 412, "pages_done": 137, "pages_failed": 1, "last_page": "0138"}
    store.put(f"{NS}/{pipeline}/C0074519/progress.json", json.dumps(progress))
    html = page_text(results_client.get("/", {"open": f"{NS}/live-one"}))
    assert '<progress max="412" value="137"' in html
    assert "137 of 412" in html


def test_a_volume_the_account_may_not_read_says_so(cluster, client, store, session_key_file):
    from tests.fixtures.session import login_as

    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "secret-one", volume_ids=["C1", "C2"], pipeline=pipeline, completed="1", active=1)
    cluster.put(campaign_pod("secret-one", 0))
    store.put(f"{NS}/{pipeline}/C1/progress.json", json.dumps({"stage": "stream", "pages_total": 3}))
    store.put(f"{NS}/{pipeline}/C2/progress.json", json.dumps({"stage": "done", "pages_total": 3}))
    # One volume, not its pipeline: the campaign stays visible (its other results may be read).
    store.deny_limited(f"{NS}/{pipeline}/C1/")
    login_as(client, store.accounts["limited"])
    html = page_text(client.get("/", {"open": f"{NS}/secret-one"}))
    said = "Your account may not read these volumes&#x27; results, so their progress, run logs and pages are not shown."
    assert said in html
    assert html.count("may not read these volumes") == 1  # said once for the card, not on every row
    assert "your account may not read 1." in html  # the page tally counts the one it could not read
    assert "no access" in html


def test_a_row_the_account_may_not_read_offers_no_link_it_would_be_refused(cluster, client, store, session_key_file):
    """Issue 39: a "no access" row links to no run log, pages or IIIF; every link the page and the card
    show answers the person without a 403."""
    from html import unescape

    from tests.fixtures.session import login_as

    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "secret-two", volume_ids=["C1", "C2"], pipeline=pipeline, completed="1", active=1)
    cluster.put(campaign_pod("secret-two", 0))
    store.put(f"{NS}/{pipeline}/C1/progress.json", json.dumps({"stage": "stream", "pages_total": 3}))
    store.put(f"{NS}/{pipeline}/C2/progress.json", json.dumps({"stage": "done", "pages_total": 3}))
    store.deny_limited(f"{NS}/{pipeline}/C1/")
    login_as(client, store.accounts["limited"])
    for page in (f"/campaigns/{NS}/secret-two", f"/?open={NS}/secret-two"):
        html = page_text(client.get(page))
        assert html.count("so their progress, run logs and pages are not shown.") == 1
        assert 'id="log-of-C1"' not in html and 'id="pages-of-C1"' not in html and 'id="iiif-of-C1"' not in html
        links = {unescape(href) for href in re.findall(r'href="([^"#]+)"', html)}
        if page.startswith("/campaigns/"):
            assert any("C2" in link for link in links), "the readable volume keeps its links"
        for link in sorted(links):
            if link.startswith("/") and not link.startswith("/static/"):
                assert client.get(link).status_code != 403, link


def test_an_unreachable_store_gets_its_own_sentence_on_the_card(cluster, results_client, settings):
    add_campaign(cluster, "live-one", volume_ids=["C1"], active=1)
    cluster.put(campaign_pod("live-one", 0))
    settings.S3_ENDPOINT = "http://127.0.0.1:9"  # nothing listens there
    html = page_text(results_client.get("/", {"open": f"{NS}/live-one"}))
    assert str(progress_module.CARD_SENTENCES[progress_module.UNREACHABLE]) in html


def test_without_a_session_the_page_sends_people_to_log_in(cluster, client, session_key_file):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login")


def test_other_methods_are_refused(cluster, results_client):
    assert results_client.post("/").status_code in (403, 405)


def test_the_number_of_api_calls_per_page_does_not_depend_on_the_campaigns(cluster, results_client):
    counts = []
    for campaigns in (2, 12):
        cluster.reset()
        load_campaigns(cluster, campaigns)
        reading.clear_cache()
        results_client.get("/")
        results_client.get("/")
        counts.append(len([c for c in cluster.calls if c[0] == "GET" and not c[2].get("watch")]))
    assert counts[0] == counts[1]

def status_writes(double):
    return [(method, path) for method, path, _query in double.calls if method in ("POST", "PATCH", "PUT")]


def test_a_page_keeps_the_status_record_current_once_per_snapshot(cluster, results_client, settings):
    from campaigns.cluster import status_records

    settings.HTRFLOW_WRITE_STATUS = True
    settings.HTRFLOW_SNAPSHOT_SECONDS = 60
    status_records.forget()
    add_campaign(cluster, "recorded", volume_ids=["A1", "A2"], completed="0", active=1)
    results_client.get("/")
    stored = cluster.get("v1", "ConfigMap", NS, "campaign-recorded-status")
    assert stored is not None
    assert stored["data"]["volumesDone"] == "1" and stored["data"]["phase"] == "Running"
    assert stored["metadata"]["labels"]["htrflow.riksarkivet.se/kind"] == "status"
    writes = len(status_writes(cluster))
    results_client.get("/")
    assert len(status_writes(cluster)) == writes  # same snapshot: nothing written again


def test_status_records_are_not_written_when_turned_off(cluster, results_client, settings):
    from campaigns.cluster import status_records

    settings.HTRFLOW_WRITE_STATUS = False
    status_records.forget()
    add_campaign(cluster, "recorded", volume_ids=["A1"], completed="0")
    results_client.get("/")
    assert status_writes(cluster) == []
    assert cluster.get("v1", "ConfigMap", NS, "campaign-recorded-status") is None


def test_a_refused_status_write_is_logged_not_shown(cluster, results_client, settings, caplog):
    from campaigns.cluster import status_records

    settings.HTRFLOW_WRITE_STATUS = True
    status_records.forget()
    add_campaign(cluster, "recorded", volume_ids=["A1"], completed="0")
    cluster.inject_fault(r"/configmaps", status=403, method="POST")
    response = results_client.get("/")
    assert response.status_code == 200
    assert "refused" not in page_text(response)
    assert any("not written" in record.getMessage() for record in caplog.records)


def test_volume_rows_link_the_run_log_and_the_page_viewer(cluster, results_client):
    add_campaign(cluster, "linked", volume_ids=["C1", "C2"], completed="0")
    html = page_text(results_client.get("/campaigns/htr-batch/linked"))
    assert "/alto?src=%2Fresults%2Fhtr-batch%2Fswe-lines-v2%2FC1%2Falto%2F0001.xml" in html
    assert "manifest=%2Fresults%2Fhtr-batch%2Fswe-lines-v2%2FC1%2Fmanifest.json" in html


# --- progress reads, with a stand-in reader --------------------------------------------------------


class CountingReader:
    """Answers progress.json from a dict; a key mapped to an Outcome raises it as the store would."""

    def __init__(self, answers):
        self.answers = answers
        self.asked = []

    def get_json(self, key, max_bytes=None):
        from results.store.outcomes import Outcome, StoreError

        self.asked.append(key)
        answer = self.answers.get(key, Outcome.NOT_FOUND)
        if isinstance(answer, Outcome):
            raise StoreError(answer)
        return answer


@pytest.fixture
def fake_reader(monkeypatch, settings):
    progress_module.clear_cache()
    settings.HTRFLOW_S3_TIMEOUT = 0.5
    holder = {}

    def install(answers):
        holder["reader"] = CountingReader(answers)
        monkeypatch.setattr(progress_module, "_reader", lambda request: holder["reader"])
        return holder["reader"]

    return install


class PersonRequest:
    def __init__(self, user="someone"):
        from results.accounts.session import ResultsSession

        self.results_session = ResultsSession(user=user, access_key="k", secret_key="s")


def test_progress_reads_are_capped_per_request(fake_reader):
    from django.utils import timezone

    reader = fake_reader({})
    keys = [f"htr-batch/p/V{i}/progress.json" for i in range(30)]
    report = progress_module.read_progress(PersonRequest(), keys, timezone.now())
    assert len(reader.asked) == progress_module.READS_PER_REQUEST
    assert report.get(keys[-1]).outcome == progress_module.NOT_ASKED


def test_done_volumes_cost_a_few_reads_after_the_running_ones_and_nothing_once_cached(fake_reader):
    from django.utils import timezone

    done = {f"htr-batch/p/D{i}/progress.json": {"stage": "done", "pages_total": 5, "pages_done": 5} for i in range(20)}
    reader = fake_reader(done)
    running = ["htr-batch/p/R1/progress.json"]
    first = progress_module.read_progress(PersonRequest(), running, timezone.now(), extra_keys=list(done))
    assert reader.asked[0] == running[0]
    assert len(reader.asked) == 1 + progress_module.EXTRA_READS_PER_REQUEST
    assert sum(1 for key in done if first.get(key).progress is not None) == progress_module.EXTRA_READS_PER_REQUEST
    for _ in range(3):
        progress_module.read_progress(PersonRequest(), [], timezone.now(), extra_keys=list(done))
    assert len(set(reader.asked)) == 1 + len(done)  # each done volume read once, then from the cache


def test_progress_is_cached_per_person_and_key(fake_reader):
    from django.utils import timezone

    key = "htr-batch/p/V1/progress.json"
    reader = fake_reader({key: {"stage": "stream", "pages_total": 10, "pages_done": 4}})
    first = progress_module.read_progress(PersonRequest("anna"), [key], timezone.now())
    second = progress_module.read_progress(PersonRequest("anna"), [key], timezone.now())
    assert first.get(key).progress.done == 4 and second.get(key).progress.done == 4
    assert reader.asked == [key]
    progress_module.read_progress(PersonRequest("bertil"), [key], timezone.now())
    assert reader.asked == [key, key]  # another person asks the store with their own account


def test_an_aged_running_answer_is_shown_once_while_it_is_read_again_in_the_background(fake_reader):
    from django.utils import timezone

    key = "htr-batch/p/V1/progress.json"
    answers = {key: {"stage": "stream", "pages_total": 10, "pages_done": 4}}
    reader = fake_reader(answers)
    progress_module.read_progress(PersonRequest("anna"), [key], timezone.now())
    progress_module._answers.delete(progress_module._cache_key(progress_module._person(PersonRequest("anna")), key))
    answers[key] = {"stage": "stream", "pages_total": 10, "pages_done": 7}
    aged = progress_module.read_progress(PersonRequest("anna"), [key], timezone.now())
    assert aged.get(key).progress.done == 4  # what the store said a moment ago, without waiting for it
    assert aged.reads == 1  # and the read again costs the same budget as a read
    wait_until(lambda: len(reader.asked) == 2 and not progress_module._in_flight, what="the second read landed")
    assert reader.asked == [key, key]
    fresh = progress_module.read_progress(PersonRequest("anna"), [key], timezone.now())
    assert fresh.get(key).progress.done == 7 and reader.asked == [key, key]  # the next poll has the new answer
    # a read again that the store refuses replaces the last answer: the next poll says so
    progress_module._answers.delete(progress_module._cache_key(progress_module._person(PersonRequest("anna")), key))
    from results.store.outcomes import Outcome

    answers[key] = Outcome.UNREACHABLE
    assert progress_module.read_progress(PersonRequest("anna"), [key], timezone.now()).get(key).progress.done == 7
    wait_until(lambda: len(reader.asked) == 3 and not progress_module._in_flight, what="the third read landed")
    refused = progress_module.read_progress(PersonRequest("anna"), [key], timezone.now())
    assert refused.card_outcome == progress_module.UNREACHABLE and refused.get(key).progress is None
    # said while the store is asked again behind it, without a wait
    wait_until(lambda: len(reader.asked) == 4 and not progress_module._in_flight, what="the fourth read landed")
    answers[key] = {"stage": "stream", "pages_total": 10, "pages_done": 7}
    # someone else never sees anna's last answer: their first read waits for the store
    other = progress_module.read_progress(PersonRequest("bertil"), [key], timezone.now())
    assert other.get(key).progress.done == 7 and reader.asked == [key] * 5


def test_a_volume_that_finished_keeps_only_its_final_answer(fake_reader):
    key = "htr-batch/p/V1/progress.json"
    answers = {key: {"stage": "stream", "pages_total": 10, "pages_done": 4}}
    fake_reader(answers)
    marker = progress_module._cache_key(progress_module._person(PersonRequest("anna")), key)
    progress_module.read_progress(PersonRequest("anna"), [key], timezone.now())
    assert progress_module._last.has_key(marker)
    progress_module._answers.delete(marker)
    answers[key] = {"stage": "done", "pages_total": 10, "pages_done": 10}

    def finished() -> bool:
        progress = progress_module.read_progress(PersonRequest("anna"), [key], timezone.now()).get(key).progress
        return progress is not None and progress.done == 10

    wait_until(finished, what="the final answer read")
    assert not progress_module._last.has_key(marker)  # the running answer it stood in for is not held an hour more


def test_an_ended_session_and_a_forbidden_volume_each_have_their_words(fake_reader):
    from django.utils import timezone

    from results.store.outcomes import Outcome

    fake_reader({"ns/p/A/progress.json": Outcome.FORBIDDEN, "ns/p/B/progress.json": Outcome.SESSION_ENDED})
    report = progress_module.read_progress(
        PersonRequest(), ["ns/p/A/progress.json", "ns/p/B/progress.json"], timezone.now()
    )
    assert report.get("ns/p/A/progress.json").forbidden
    assert report.get("ns/p/A/progress.json").note == "Your account may not read this volume."
    assert report.card_outcome == progress_module.SESSION_ENDED
    assert "log in again" in report.card_sentence


def test_a_slow_store_costs_one_short_wait_and_its_answers_land_for_the_next_poll(fake_reader, monkeypatch, settings):
    import threading

    from django.utils import timezone

    from tests.fixtures.waiting import wait_until

    settings.HTRFLOW_STORE_WAIT_SECONDS = 0.2
    reader = fake_reader({})
    answer = threading.Event()

    def slow(key, max_bytes=None):
        reader.asked.append(key)
        answer.wait(10)
        return {"stage": "stream", "pages_total": 10, "pages_done": 3}

    monkeypatch.setattr(reader, "get_json", slow)
    keys = [f"ns/p/S{i}/progress.json" for i in range(4)]
    report = progress_module.read_progress(PersonRequest(), keys, timezone.now())
    assert {report.get(k).outcome for k in keys} == {progress_module.PENDING}
    assert report.get(keys[0]).note == "Progress not known yet: the results store is still answering."
    assert "slow to answer" in report.card_sentence and "did not answer in time" not in report.card_sentence
    again = progress_module.read_progress(PersonRequest(), keys, timezone.now())
    assert {again.get(k).outcome for k in keys} == {progress_module.PENDING}
    assert again.reads == 0 and len(reader.asked) == 4  # one read per key in flight, paid for once
    answer.set()
    wait_until(
        lambda: all(progress_module.read_progress(PersonRequest(), keys, timezone.now()).get(k).progress for k in keys),
        what="every answer landed",
    )
    landed = progress_module.read_progress(PersonRequest(), keys, timezone.now())
    assert [landed.get(k).progress.done for k in keys] == [3] * 4 and landed.card_sentence == ""
    assert len(reader.asked) == 4


def test_several_namespaces_name_the_namespace_on_each_card(cluster, results_client, settings):
    settings.HTRFLOW_NAMESPACES = [NS, "htr-other"]
    add_campaign(cluster, "named", volume_ids=["A1"], completed="0")
    html = page_text(results_client.get("/"))
    assert '<span class="ns">in htr-batch</span>' in html


def test_a_job_with_fields_of_the_wrong_shape_still_renders(cluster, results_client):
    job = campaign_job("odd-shapes", str(uuid.uuid4()), volumes=2)
    job["spec"]["completions"] = "many"
    job["spec"]["parallelism"] = None
    job["status"] = {"completedIndexes": 7, "failedIndexes": ["1"], "active": "two", "conditions": "none"}
    job["metadata"]["creationTimestamp"] = "yesterday"
    cluster.put(job)
    cluster.put(campaign_record("odd-shapes", ["A1", "A2"]))
    for url in ("/", "/campaigns/htr-batch/odd-shapes", "/api/v1/jobs", "/api/v1/jobs/htr-batch/odd-shapes"):
        response = results_client.get(url)
        assert response.status_code == 200, url
    assert "odd-shapes" in page_text(results_client.get("/"))


def card_html(html: str, name: str) -> str:
    return html[html.index(f'id="card-{NS}--{name}"') :].split("</article>")[0]


def row_html(html: str, name: str) -> str:
    return html[html.index(f'id="row-{NS}--{name}"') :].split("</li>")[0]


def test_the_volumes_bar_stacks_done_and_failed_with_the_counts_beside_it(cluster, results_client):
    add_campaign(cluster, "mixed", volume_ids=["C1", "C2", "C3", "C4"], completed="0-1", failed="2", active=1)
    cluster.put(campaign_pod("mixed", 3))
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/mixed"})), "mixed")
    assert re.search(r'<rect class="stack-done" width="50\.00"', card)
    assert re.search(r'<rect class="stack-failed" x="50\.00" width="25\.00"', card)
    assert 'data-done="2" data-failed="1" data-total="4"' in card
    assert re.search(r"1 failed</span>", card)  # the words, not only the colour


def test_the_bar_of_a_campaign_without_failures_has_no_failed_segment(cluster, results_client):
    add_campaign(cluster, "clean", volume_ids=["C1", "C2"], completed="0", active=1)
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/clean"})), "clean")
    assert "stack-done" in card and "stack-failed" not in card


def test_pages_add_up_done_and_running_volumes_and_say_what_they_cover(cluster, results_client, store):
    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "paged", volume_ids=["D1", "R1", "P1"], pipeline=pipeline, completed="0", active=1)
    cluster.put(campaign_pod("paged", 1))
    store.put(f"{NS}/{pipeline}/D1/progress.json", json.dumps({"stage": "done", "pages_total": 40, "pages_done": 40}))
    running = {"stage": "stream", "pages_total": 10, "pages_done": 4, "pages_failed": 1}
    store.put(f"{NS}/{pipeline}/R1/progress.json", json.dumps(running))
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/paged"})), "paged")
    assert re.search(r"<strong>44</strong> of 50 done", card)
    assert "In all 2 volumes done or running." in card
    detail = results_client.get(f"/api/v1/jobs/{NS}/paged").json()
    assert (detail["pagesDone"], detail["pagesTotal"], detail["pagesFailed"]) == (44, 50, 1)
    assert detail["pagesCounted"]["volumes"] == 2


def test_pages_say_which_volumes_could_not_be_counted(cluster, results_client, store):
    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "half-read", volume_ids=["D1", "D2"], pipeline=pipeline, completed="0-1")
    store.put(f"{NS}/{pipeline}/D1/progress.json", json.dumps({"stage": "done", "pages_total": 7, "pages_done": 7}))
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/half-read"})), "half-read")
    assert "Counted in 1 of 2 volumes done; 1 not read yet." in card


def test_a_repeated_failure_sentence_points_to_the_first_row(cluster, results_client):
    add_campaign(cluster, "same-cause", volume_ids=["C1", "C2", "C3"], failed="0-2")
    message = json.dumps({"stage": "setup", "permanent": True, "error": "manifest fetch failed: HTTP 404"})
    for index in range(3):
        cluster.put(failed_pod("same-cause", index, message))
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/same-cause"})), "same-cause")
    rows = re.findall(r'<li class="problem[^"]*">(.*?)</li>', card, re.S)
    assert len(rows) == 3
    assert "IIIF manifest) could not be read" in rows[0]
    for row in rows[1:]:
        assert 'Same cause as <span class="mono">C1</span> above.' in row
        assert "log-link" in row  # each row keeps its own run log


def test_the_campaign_page_does_not_link_to_itself(cluster, results_client):
    add_campaign(cluster, "self-link", volume_ids=["C1", "C2"], completed="0", active=1)
    listed = card_html(page_text(results_client.get("/", {"open": f"{NS}/self-link"})), "self-link")
    assert "All 2 volumes" in listed
    detail = page_text(results_client.get(f"/campaigns/{NS}/self-link"))
    assert "All 2 volumes" not in detail


def test_backticked_names_show_as_code_and_everything_else_stays_escaped():
    from campaigns.templatetags.campaign_text import with_code

    assert with_code("remove `suspend: true` and apply") == "remove <code>suspend: true</code> and apply"
    assert with_code("`<b>` and <i>") == "<code>&lt;b&gt;</code> and &lt;i&gt;"
    assert with_code("an odd ` backtick") == "an odd ` backtick"
    assert with_code(None) == ""


def test_operator_commands_start_with_those_for_what_is_wrong(cluster, results_client):
    cluster.put(campaign_job("no-kueue", str(uuid.uuid4()), volumes=2, suspend=True))
    cluster.put(campaign_record("no-kueue", ["C1", "C2"]))
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/no-kueue"})), "no-kueue")
    commands = re.findall(r'<code id="card-htr-batch--no-kueue-cmd-(\d+)"[^>]*>([^<]*)</code>', card)
    # Kueue's namespace holds no controller here (kueue.missing): the first line looks where it should run
    assert commands[0][1] == "kubectl -n kueue-system get deployments,pods"
    assert "kubectl -n htr-batch get job no-kueue" in [line for _, line in commands]
    assert len(commands) == len({line for _, line in commands})
    # each line gets its own copy button (made by copy.js) naming the line it copies
    for number, _ in commands:
        assert f'id="card-htr-batch--no-kueue-cmd-{number}" data-copy-label="Copy kubectl line {number}"' in card
    assert 'data-copy-label="Copy the campaign file"' in card  # names and paths an operator pastes


def test_each_pod_line_names_its_volume_and_every_id_gets_a_copy_button(cluster, results_client):
    """Issue 39: the kubectl lines about a failed volume's pod say which volume (index and id) they are for;
    the Job uid is copied like the other ids."""
    uid = add_campaign(cluster, "pods-said", volume_ids=["C1", "C2", "C3"], completed="0", failed="1,2", active=0)
    message = json.dumps({"stage": "setup", "permanent": True, "error": "manifest 404"})
    cluster.put(failed_pod("pods-said", 1, message))
    cluster.put(failed_pod("pods-said", 2, message))
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/pods-said"})), "pods-said")
    items = re.findall(r"<li>(.*?)</li>", card.split('-commands"')[1].split("</ul>")[0], re.S)
    pod_lines = [item for item in items if "pods-said-1-" in item or "pods-said-2-" in item or " pod " in item]
    assert pod_lines, items
    for item in pod_lines:
        index, volume = re.search(r'Volume (\d+) · <span class="mono">(\w+)</span>:', item).groups()
        assert volume == f"C{int(index) + 1}"
        pod = re.search(r"kubectl -n htr-batch (?:logs|describe pod) (\S+)", item).group(1)
        assert f"-{index}-" in pod  # the line is about that volume's own pod
    assert {"Volume 1 · ", "Volume 2 · "} <= {re.search(r"Volume \d+ · ", item).group() for item in pod_lines}
    assert uid in card and 'data-copy-label="Copy the job uid"' in card


def test_an_ended_results_login_offers_a_link_to_log_in_again(cluster, results_client, monkeypatch):
    add_campaign(cluster, "live-one", volume_ids=["C1"], active=1)
    cluster.put(campaign_pod("live-one", 0))
    monkeypatch.setattr(progress_module, "_reader", lambda request: None)  # no results session
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/live-one"})), "live-one")
    assert str(progress_module.CARD_SENTENCES[progress_module.NO_SESSION]) in card
    assert 'href="/login?next=/campaigns/htr-batch/live-one">Log in</a>' in card


# --- after the product review ----------------------------------------------------------------------


def finished_campaign(double, name, volume_ids, pipeline):
    last = len(volume_ids) - 1
    job = campaign_job(name, str(uuid.uuid4()), volumes=len(volume_ids), completed=f"0-{last}", pipeline=pipeline)
    job["status"]["conditions"] = [{"type": "Complete", "status": "True"}]
    job["status"]["completionTime"] = "2026-09-24T09:00:00Z"
    double.put(job)
    double.put(campaign_record(name, volume_ids, pipeline=pipeline))


def done_progress(total, failed=0):
    return json.dumps({"stage": "done", "pages_total": total, "pages_done": total - failed, "pages_failed": failed})


def test_a_finished_campaign_names_its_failed_pages_and_links_that_run_log(cluster, results_client, store):
    pipeline = "p-" + uuid.uuid4().hex[:8]
    finished_campaign(cluster, "registers", ["D1", "D2"], pipeline)
    store.put(f"{NS}/{pipeline}/D1/progress.json", done_progress(9))
    store.put(f"{NS}/{pipeline}/D2/progress.json", done_progress(12, failed=3))
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/registers"})), "registers")
    assert "Finished: all 2 volumes done. " in card
    assert "3 pages failed in D2; see its run log." in card
    link = re.search(r'<a href="([^"]+)" id="card-htr-batch--registers-pages-log">', card).group(1)
    assert "D2.txt" in link and "&amp;manifest=" in link and "D2%2Fmanifest.json" in link
    assert "live=1" not in link
    detail = page_text(results_client.get(f"/campaigns/{NS}/registers"))
    rows = dict(re.findall(ROW_HEADER + r"(.*?)</tr>", detail, re.S))
    assert "Done, 3 pages failed" in rows["D2"] and "manifest=" in rows["D2"]
    assert "pages failed" not in rows["D1"] and "Done." in rows["D1"]


def test_a_finished_card_is_brought_up_to_date_by_the_page_poll_once_its_counts_are_read(
    cluster, results_client, store, monkeypatch
):
    monkeypatch.setattr(progress_module, "EXTRA_READS_PER_REQUEST", 1)
    pipeline = "p-" + uuid.uuid4().hex[:8]
    finished_campaign(cluster, "late-count", ["D1", "D2"], pipeline)
    store.put(f"{NS}/{pipeline}/D1/progress.json", done_progress(5))
    store.put(f"{NS}/{pipeline}/D2/progress.json", done_progress(6, failed=2))
    html = page_text(results_client.get("/", {"open": f"{NS}/late-count"}))
    assert "2 pages failed in D2" not in card_html(html, "late-count")  # one of two done volumes read so far
    answer = page_text(poll(results_client, html, open=f"{NS}/late-count"))
    card = card_html(answer, "late-count")
    assert "2 pages failed in D2" in card
    assert re.search(r"<strong>9</strong> of 11 done", card)


def test_a_volume_running_again_is_shown_running_not_as_a_problem(cluster, results_client):
    add_campaign(cluster, "again", volume_ids=["C1", "C2"], completed="0", active=1)
    earlier = failed_pod("again", 1, json.dumps({"stage": "stream", "permanent": False, "error": "upload failed"}))
    cluster.put(earlier)
    now_running = campaign_pod("again", 1)
    now_running["metadata"]["name"] = "again-1-second"
    now_running["metadata"]["creationTimestamp"] = "2026-09-24T09:00:00Z"
    now_running["metadata"]["annotations"] = {"batch.kubernetes.io/job-index-failure-count": "1"}
    cluster.put(now_running)
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/again"})), "again")
    assert 'class="problems"' not in card
    running = card[card.index("Running now") :]
    assert "Running again (attempt 2 of 4): the previous attempt failed while processing pages" in running
    detail = page_text(results_client.get(f"/campaigns/{NS}/again"))
    assert "running again</span>" in detail and ">retrying<" not in detail


def test_a_volume_that_never_started_has_no_run_log_link(cluster, results_client):
    add_campaign(cluster, "slots", volume_ids=["C1", "C2", "C3"], completed="0", active=1)
    cluster.put(campaign_pod("slots", 1))
    detail = page_text(results_client.get(f"/campaigns/{NS}/slots"))
    rows = dict(re.findall(ROW_HEADER + r"(.*?)</tr>", detail, re.S))
    assert "/log?" not in rows["C3"] and "no run log yet" in rows["C3"]
    assert "/log?" in rows["C2"] and "live=1" in rows["C2"]


def test_need_attention_is_a_filter_and_the_card_in_trouble_says_so_in_words(cluster, results_client):
    add_campaign(cluster, "calm", volume_ids=["C1", "C2"], completed="0", active=1)
    add_campaign(cluster, "troubled", volume_ids=["C1", "C2"], completed="0", failed="1")
    html = page_text(results_client.get("/"))
    assert re.search(r'<a id="state-attention" class="chip state-choice tone-attention" href="/\?state=attention">'
                     r'<span class="icon" aria-hidden="true">!</span>Need attention <span class="count">1</span>', html)
    assert "Needs attention" in card_html(html, "troubled")
    assert 'id="card-htr-batch--calm"' not in html and "Needs attention" not in row_html(html, "calm")
    assert "<title>(1 needs attention) Campaigns" in html


def test_volumes_waiting_for_the_model_cache_have_their_own_heading(cluster, results_client):
    add_campaign(cluster, "cold", volume_ids=["C1", "C2"], active=2)
    cluster.put(campaign_pod("cold", 0))
    waiting = campaign_pod("cold", 1, phase="Pending")
    started = {"running": {"startedAt": "2026-09-24T08:00:05Z"}}
    waiting["status"]["initContainerStatuses"] = [{"name": "warmup-wait", "state": started}]
    cluster.put(waiting)
    card = card_html(page_text(results_client.get("/", {"open": f"{NS}/cold"})), "cold")
    cache_part = card[card.index("Started, waiting for the model cache") : card.index("Running now")]
    assert "C2" in cache_part and "C1" not in cache_part
    assert "C1" in card[card.index("Running now") :]


def test_a_long_list_shows_its_first_lines_and_a_link_to_all_of_them(cluster, results_client, monkeypatch):
    monkeypatch.setattr(list_views, "OVERVIEW_ROWS", 2)
    for name in ("first-one", "second-one", "third-one"):
        add_campaign(cluster, name, volume_ids=["A1"], active=1)
    html = page_text(results_client.get("/"))
    assert html.count('class="overview-row ') == 2
    assert 'All campaigns <span class="count">(3)</span>' in html
    link = re.search(r'<a id="overview-all" href="([^"]+)">Show all 3</a>', html)
    everything = page_text(results_client.get(link.group(1).replace("&amp;", "&")))
    assert everything.count('class="overview-row ') == 3 and 'id="overview-all"' not in everything
    assert "rows=all" in re.search(r'id="list-poll" class="list-poll" hx-get="([^"]+)"', everything).group(1)
    url = re.search(r'id="list-poll" class="list-poll" hx-get="([^"]+)"', everything).group(1).replace("&amp;", "&")
    shown = re.findall(r'name="shown" value="([^"]+)"', everything)
    answer = results_client.get(f"{url}&{urlencode([('shown', v) for v in shown])}", headers={"HX-Request": "true"})
    assert answer.status_code == 204  # the poll compares every line the page shows


def test_a_card_stays_the_same_from_poll_to_poll_while_its_running_volumes_only_grow_older(
    cluster, results_client, store, monkeypatch
):
    """A running volume's age is said coarsely, so a card in trouble keeps its fingerprint and a poll
    answers 204 (its rows said "updated 12 s ago" and every poll of every tab sent the card again);
    once the clock's minute turns the card changes, and the poll sends it."""
    from datetime import timedelta

    from django.utils import timezone

    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "ageing", volume_ids=["C1", "C2", "C3"], pipeline=pipeline, failed="0", active=2)
    started = timezone.now().replace(second=5, microsecond=0)  # ages count minutes of the clock
    monkeypatch.setattr(timezone, "now", lambda: started + timedelta(seconds=1))
    for index, volume in ((1, "C2"), (2, "C3")):
        cluster.put(campaign_pod("ageing", index))
        progress = {"stage": "stream", "pages_total": 40, "pages_done": 9, "updated_at": started.isoformat()}
        store.put(f"{NS}/{pipeline}/{volume}/progress.json", json.dumps(progress))
    html = page_text(results_client.get("/"))
    assert card_html(html, "ageing").count("processing pages · progress written under a minute ago") == 2
    monkeypatch.setattr(timezone, "now", lambda: started + timedelta(seconds=40))
    assert poll(results_client, html).status_code == 204
    monkeypatch.setattr(timezone, "now", lambda: started + timedelta(seconds=55))  # the next minute
    card = card_html(page_text(poll(results_client, html)), "ageing")
    assert card.count("processing pages · progress written 1 min ago") == 2

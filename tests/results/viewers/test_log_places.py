"""What the run log page adds around its lines: failed pages linked to their ALTO pages, the find
answer for the whole log, and the campaign a volume ran in (breadcrumbs and kubectl lines)."""

from __future__ import annotations

import json

import pytest

from devstack import kube_samples as objects
from results.formats import runlog
from results.viewers.volume_place import _fill_campaign, place_of_key


def test_failed_and_missing_pages_are_found_in_error_lines_only():
    text = "verify failed: 2 missing, 1 failed of 90 pages: missing=[0012, 0044] failed=[0101]"
    assert [page for _s, _e, page in runlog.page_mentions(text)] == ["0012", "0044", "0101"]
    start, end, page = runlog.page_mentions("[V1] page 0031 failed: bad scan")[0]
    assert "[V1] page 0031 failed"[start:end] == page == "0031"
    lines = runlog.split_lines(
        b"2026-12-02 10:00:00,000 INFO w: [V1] page 0007 ok\n"
        b"2026-12-02 10:00:01,000 ERROR w: [V1] page 0031 failed: bad scan\n"
        b"2026-12-02 10:00:02,000 ERROR w: verify failed: missing=[0012, 0044] failed=[0031]\n",
        0,
        1,
    )
    assert runlog.failed_page_ids(lines) == ["0012", "0031", "0044"]


def test_find_counts_matches_per_line_over_the_whole_log_case_insensitively():
    data = b"alpha Beta beta\nnothing\nBETA\n"
    result = runlog.find(data, "beta")
    assert result.count == 3
    assert result.lines == [(1, 0, 2), (3, 24, 1)]
    assert runlog.find(data, "   ").count == 0
    assert runlog.find(data, "beta", limit=1).truncated


def test_keys_name_their_volume_and_other_shapes_name_none():
    place = place_of_key("htr-batch/status/logs/swe-lines-v2/C0074519.txt")
    assert (place.namespace, place.pipeline, place.volume) == ("htr-batch", "swe-lines-v2", "C0074519")
    assert place_of_key("htr-batch/swe-lines-v2/C0074519/alto/0012.xml").prefix == "htr-batch/swe-lines-v2/C0074519"
    assert place_of_key("htr-batch/t-1/p/V1.txt") is None
    assert place_of_key("htr-batch/status/x/y.json") is None


def test_the_newest_campaign_record_listing_the_volume_gives_the_campaign_and_kubectl_lines():
    place = place_of_key("htr-batch/status/logs/swe-lines-v2/C0074519.txt")
    older = objects.campaign_record("parish-records-1870")
    newer = objects.campaign_record("parish-rerun-1-part2", [("C0074519", "https://x/m")], campaign="parish-rerun-1")
    newer["metadata"]["creationTimestamp"] = "2026-10-01T00:00:00Z"
    other_pipeline = objects.campaign_record("elsewhere", [("C0074519", "https://x/m")], pipeline="swe-lines-v3")
    other_pipeline["metadata"]["creationTimestamp"] = "2027-01-01T00:00:00Z"
    _fill_campaign(place, [older, newer, other_pipeline])
    assert place.campaign == "parish-rerun-1" and place.job == "parish-rerun-1-part2" and place.index == 0
    assert place.row_url == "/campaigns/htr-batch/parish-rerun-1?q=C0074519#vol-C0074519"
    label = "batch.kubernetes.io/job-name=parish-rerun-1-part2,batch.kubernetes.io/job-completion-index=0"
    assert place.commands[1] == f"kubectl -n htr-batch logs -l {label} -c wrapper --tail=200"
    place = place_of_key("htr-batch/status/logs/swe-lines-v2/C0074519.txt")
    _fill_campaign(place, [older])
    assert (place.campaign, place.index) == ("parish-records-1870", 8)


@pytest.fixture
def log_of_volume(store, store_prefix, settings):
    settings.HTRFLOW_RESULTS_URL = "http://testserver/results"
    namespace, pipeline = store_prefix.strip("/").split("/")
    key = f"{namespace}/status/logs/{pipeline}/V1.txt"
    store.put(key, "2026-12-02 10:00:01,000 ERROR w: [V1] page 0031 failed: <b>bad</b>\nok Bad BAD\n")
    return {"log": f"http://testserver/results/{key}", "alto": f"{namespace}%2F{pipeline}%2FV1%2Falto%2F0031.xml"}


def test_the_log_page_links_its_failed_pages_and_escapes_the_line_around_them(results_client, log_of_volume):
    html = results_client.get("/log", {"log": log_of_volume["log"]}).content.decode()
    nav = html.split('id="failed-pages-nav"')[1].split("</nav>")[0]
    assert log_of_volume["alto"] in nav and ">0031</a>" in nav
    line = html.split('id="L1"')[1].split("</div>")[0]
    assert 'class="page-link" tabindex="-1"' in line and "&lt;b&gt;bad&lt;/b&gt;" in line
    assert 'class="ln" href="#L1" tabindex="-1"' in line


def test_the_find_answer_covers_the_whole_log(results_client, log_of_volume):
    response = results_client.get("/log/find", {"log": log_of_volume["log"], "q": "bad"})
    assert response.status_code == 200 and response["Cache-Control"] == "private, no-store"
    answer = json.loads(response.content)
    assert answer["count"] == 3
    assert answer["lines"] == [{"n": 1, "at": 0, "hits": 1}, {"n": 2, "at": 67, "hits": 2}]


def test_the_find_answer_for_a_missing_log_is_a_sentence(results_client, store_prefix, settings, store):
    settings.HTRFLOW_RESULTS_URL = "http://testserver/results"
    response = results_client.get("/log/find", {"log": f"http://testserver/results/{store_prefix}none.txt", "q": "x"})
    assert response.status_code == 404
    assert "There is no run log at this address yet" in json.loads(response.content)["detail"]

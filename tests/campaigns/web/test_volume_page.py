"""The volume page (issue 38, item 1) on the demo scene's realistic objects: each state as the full
reader, the limited reader refused a volume's results, the outsider refused everything; a volume or a
campaign that does not exist; the poll's 204/286; the links to the page from the rows and the read API."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from campaigns.cluster import reading
from campaigns.presentation.volume_page import optional_url
from campaigns.store import progress as progress_module
from campaigns.wording.volumes import volume_sentence
from tests.fixtures.session import login_as

NS = "htr-batch"
PARISH = "parish-records-1870"


@pytest.fixture
def parish(scene, settings, session_key_file):
    """The demo scene's running campaign, read afresh: its volumes in every state."""
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0
    settings.HTRFLOW_WRITE_STATUS = False
    reading.clear_cache()
    progress_module.clear_cache()
    yield scene
    reading.clear_cache()


def as_account(client, scene, name):
    login_as(client, scene.store.accounts[name])
    return client


def volume_id(scene, index: int) -> str:
    return scene.scene.campaigns[PARISH].volumes[index].id


def projected(volume: str):
    """The volume as the projection has it now (the row's object)."""
    campaign = reading.read_namespace(NS).find(PARISH)
    return next(v for v in campaign.volumes.find(volume) if v.id == volume)


def page_of(client, volume: str, **headers):
    return client.get(reverse("campaign_volume", args=[NS, PARISH, volume]), headers=headers)


def text_of(response) -> str:
    return html.unescape(response.content.decode())


# index in the scene's parish campaign -> (the state the page says, what it must show besides)
STATES = {
    "waiting": 30,
    "running": 25,
    "retrying": 19,
    "failed for good": 18,
    "done": 0,
}


@pytest.mark.parametrize("state", list(STATES))
def test_each_state_tells_the_volume_s_story_in_the_card_s_words(parish, client, state):
    as_account(client, parish, "full")
    volume = volume_id(parish, STATES[state])
    response = page_of(client, volume)
    assert response.status_code == 200
    text = text_of(response)
    projected_volume = projected(volume)
    said = volume_sentence(projected_volume).text
    assert said and said in text  # exactly the row's sentence
    chip = re.search(r'<span class="state state-[a-z]+[^"]*">([^<]+)</span>', text).group(1)
    rows = text_of(client.get(reverse("campaign_detail", args=[NS, PARISH]), {"q": volume}))
    row = rows[rows.index(f'id="vol-{volume}"'):]
    assert chip == re.search(r'<span class="state state-[a-z]+[^"]*">([^<]+)</span>', row).group(1)
    assert said in row
    # the operator's lines name this volume's pods alone, by its completion index
    assert f"batch.kubernetes.io/job-completion-index={projected_volume.index}" in text
    live = state in ("waiting", "running", "retrying")  # a waiting volume may start at any moment
    assert ('id="volume-poll"' in text and "fragment=live" in text) == live
    if state == "running":
        assert re.search(r"Attempt \d+: running now", text)
    if state == "retrying":
        assert "earlier attempt" in text or "Attempt 1: failed" in text
    if state == "failed for good":
        assert re.search(r"Attempt \d+: failed", text)
        assert text.count(said) == 1  # said once, at the top; its attempt points there
        attempts = text[text.index('id="volume-attempts"'):text.index('id="volume-ops"')]
        counts = [int(n) for n in re.findall(r"\b(\d+) of \d+ attempts? failed so far", attempts)]
        # each earlier attempt counts the failures as they stood after it
        assert len(counts) >= 2 and counts == sorted(set(counts))
        assert "Why it stopped is said at the top of this page." in text
        assert "re-run file" in text
        assert re.search(rf'<pre class="rerun-entry">\s*- id: "?{re.escape(volume)}"?', text)
    if state == "done":
        assert 'id="volume-iiif-link"' in text
        tiles = re.findall(r'<li class="page-tile page-(\w+)', text)
        assert tiles and set(tiles) <= {"ok", "failed"}
        assert 'href="/alto?src=' in text
        assert re.search(r'<img class="page-thumb" src="https?://[^"]+" alt="" loading="lazy"', text)  # thumbnails
        assert "COMPLETE" in text  # the run log's end
    if state == "waiting":
        assert "No pod has run this volume yet." in text


def test_a_done_volume_with_a_failed_page_marks_it_by_more_than_colour(parish, client):
    as_account(client, parish, "full")
    text = text_of(page_of(client, volume_id(parish, 3)))
    failed = re.findall(r'<li class="page-tile page-failed[^"]*"><a id="page-(\d+)"[^>]*aria-label="([^"]+)"', text)
    assert failed and failed[0][1] == f"Page {failed[0][0]}: failed"
    assert "✕" in text


def test_the_limited_account_reads_the_cluster_s_story_but_not_the_refused_results(parish, client):
    as_account(client, parish, "limited")
    denied = parish.scene.volumes["limited_denied"][0]
    text = text_of(page_of(client, denied))
    assert "may not read this volume" in text
    assert 'class="page-tile' not in text and "COMPLETE" not in text
    allowed = parish.scene.volumes["limited_allowed"][0]
    assert 'class="page-tile' in text_of(page_of(client, allowed))


def test_the_outsider_gets_the_refusal_and_no_volume_id(parish, client):
    as_account(client, parish, "outsider")
    volume = volume_id(parish, 18)
    response = page_of(client, volume)
    assert response.status_code == 403
    assert volume not in response.content.decode()


def test_a_volume_or_campaign_that_does_not_exist_is_a_404_with_a_sentence(parish, client):
    as_account(client, parish, "full")
    response = page_of(client, "C9999999")
    assert response.status_code == 404
    assert f"Campaign {PARISH} has no volume C9999999." in text_of(response)
    response = client.get(reverse("campaign_volume", args=[NS, "no-such-campaign", "C1"]))
    assert response.status_code == 404
    assert "There is no campaign named" in text_of(response)


def test_the_poll_answers_204_while_nothing_moved_and_286_once_the_volume_stopped(parish, client):
    as_account(client, parish, "full")
    running = volume_id(parish, 25)
    first = page_of(client, running, HX_Request="true")
    poll = re.search(r'id="volume-poll" hx-get="([^"]+)"', text_of(first)).group(1)
    answer = client.get(poll, headers={"HX-Request": "true"})
    assert answer.status_code in (200, 204)  # 200 only if the minute turned between the two
    if answer.status_code == 200:
        poll = re.search(r'id="volume-poll" hx-get="([^"]+)"', text_of(answer)).group(1)
        answer = client.get(poll, headers={"HX-Request": "true"})
    assert answer.status_code == 204 and answer.content == b""
    changed = client.get(poll.replace("seen=", "seen=x"), headers={"HX-Request": "true"})
    assert changed.status_code == 200
    assert 'id="volume-state" class="volume-state" aria-labelledby="volume-state-title" hx-swap-oob="true"' in (
        changed.content.decode())
    done = volume_id(parish, 0)
    stopped = client.get(reverse("campaign_volume", args=[NS, PARISH, done]) + "?fragment=live&seen=x",
                         headers={"HX-Request": "true"})
    assert stopped.status_code == 286


def test_rows_and_the_read_api_link_to_the_volume_page(parish, client):
    as_account(client, parish, "full")
    volume = volume_id(parish, 18)
    url = reverse("campaign_volume", args=[NS, PARISH, volume])
    assert f'href="{url}"' in client.get(reverse("campaign_detail", args=[NS, PARISH])).content.decode()
    answer = client.get(reverse("api_job_detail", args=[NS, PARISH]), {"state": "failed"}).json()
    pages = [v["pageUrl"] for v in answer["volumes"]]
    assert url in pages
    assert url in [f["pageUrl"] for f in answer["failures"]]
    feed = client.get(reverse("campaign_feed")).content.decode()
    related = re.findall(r'<link rel="related" type="text/html" href="([^"]+)"/>', feed)
    first_failed = next(v for v in reading.read_namespace(NS).find(PARISH).failures if v.state == "failed")
    assert any(link.endswith(reverse("campaign_volume", args=[NS, PARISH, first_failed.id])) for link in related)


def test_the_downloads_are_linked_only_when_their_views_exist(parish, client):
    as_account(client, parish, "full")
    text = text_of(page_of(client, volume_id(parish, 0)))
    for name, anchor in (("volume_text", "volume-text-link"), ("volume_alto_zip", "volume-alto-zip-link")):
        assert (f'id="{anchor}"' in text) == (optional_url(name, NS, PARISH, "C1") is not None)


def test_an_unchanged_poll_reads_neither_the_run_log_nor_the_iiif_manifest(parish, client, monkeypatch):
    from results.store import reader as reader_module  # (patched for this test only)

    as_account(client, parish, "full")
    running = volume_id(parish, 25)
    read: list[str] = []
    for method in ("get", "get_json"):
        original = getattr(reader_module.ResultsReader, method)

        def counted(self, key, *args, _original=original, **kwargs):
            read.append(key)
            return _original(self, key, *args, **kwargs)

        monkeypatch.setattr(reader_module.ResultsReader, method, counted)
    page = text_of(page_of(client, running))
    assert any(key.endswith(f"{running}.txt") for key in read) and any(key.endswith("iiif.json") for key in read)
    poll = re.search(r'id="volume-poll" hx-get="([^"]+)"', page).group(1)
    for _ in range(2):  # the second answers 204 even if the minute turned before the first
        read.clear()
        answer = client.get(poll, headers={"HX-Request": "true"})
        if answer.status_code == 204:
            break
        poll = re.search(r'id="volume-poll" hx-get="([^"]+)"', text_of(answer)).group(1)
    assert answer.status_code == 204
    assert not [key for key in read if key.endswith((".txt", "iiif.json", "manifest.json"))]

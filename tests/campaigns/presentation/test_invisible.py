"""Bidirectional overrides and other invisible characters in campaign text are shown marked (⟨U+202E⟩) on
every page, written as escapes in the re-run file, and kept as they are in the read API's JSON."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from campaigns.domain import rerun
from campaigns.models import VolumeReason
from core.text import reveal_invisible_in_html
from tests.campaigns.cluster.test_kube import NS, campaign_record
from tests.campaigns.domain.test_rerun import running_campaign
from tests.campaigns.web.test_views import add_campaign, failed_pod, page_text, prepared_cluster
from tests.fixtures.attributes import raw_in_attributes

# "C00<RLO>gpj.exe" reads as "C00exe.jpg"; an isolate and a zero-width space hide in it too.
SPOOFED_ID = "C00\u202egpj.exe\u2066x\u200b"
SPOOFED_ID_SHOWN = "C00⟨U+202E⟩gpj.exe⟨U+2066⟩x⟨U+200B⟩"
SPOOFED_ERROR = "manifest fetch failed: \u202efdp.exe\u2069 HTTP 404"
SPOOFED_ERROR_SHOWN = "⟨U+202E⟩fdp.exe⟨U+2069⟩ HTTP 404"
RAW = re.compile("[\u202e\u2066\u2069\u200b]")

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"
CAMPAIGN_CODE = Path(__file__).resolve().parents[3] / "campaigns"


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


@pytest.fixture
def spoofed(cluster):
    """A campaign whose failed volume has an id and a failure message with invisible characters in them."""
    add_campaign(cluster, "spoofed", volume_ids=["C1", "C2", "C3"], completed="0", failed="1", active=1)
    record = campaign_record("spoofed", ["C1", "C2", "C3"])
    record["data"]["volumes.txt"] = f"C1\thttps://x.example/1\n{SPOOFED_ID}\thttps://x.example/2\nC3\thttps://x.example/3\n"
    cluster.put(record)
    message = json.dumps({"stage": "setup", "permanent": True, "error": SPOOFED_ERROR})
    cluster.put(failed_pod("spoofed", 1, message))
    return cluster


def text_of(html: str) -> str:
    """What a person reads of a page: its text, not its tags (whose attribute values keep raw characters,
    so that forms and links carry exactly what they were given)."""
    return re.sub(r"<[^>]*>", " ", html)


def shown_marked(html: str, error: bool = True) -> None:
    """The id (and, where the operator's detail is shown, the error) with its invisible characters marked."""
    assert not RAW.search(text_of(html))
    assert SPOOFED_ID_SHOWN in html
    if error:
        assert SPOOFED_ERROR_SHOWN in html


def test_the_card_on_the_list_and_its_poll_show_the_id_and_the_failure_marked(spoofed, results_client):
    shown_marked(page_text(results_client.get("/")))  # in trouble: a full card
    shown_marked(page_text(results_client.get(f"/campaigns/{NS}/spoofed/card", headers={"HX-Request": "true"})))


def test_the_campaign_page_rows_and_their_poll_show_the_id_and_the_failure_marked(spoofed, results_client):
    html = page_text(results_client.get(f"/campaigns/{NS}/spoofed", {"state": "failed"}))
    rows = html[html.index('id="volume-rows"') :]
    shown_marked(rows)
    shown_marked(html)
    poll = results_client.get(f"/campaigns/{NS}/spoofed/card", {"rows": "1"}, headers={"HX-Request": "true"})
    shown_marked(page_text(poll)[page_text(poll).index('id="volume-rows"') :])


def test_a_search_on_the_list_shows_the_found_id_and_its_failure_marked(spoofed, results_client):
    html = page_text(results_client.get("/", {"q": "gpj"}))
    hits = html[html.index('class="row-hits"') :].split("</ul>")[0]
    shown_marked(hits, error=False)  # a hit says the plain sentence; the error is the operator's, on the card
    assert "/volumes/C00%E2%80%AEgpj.exe" in hits  # the link opens the volume's page, its id as it is
    shown_marked(page_text(results_client.get("/changes", {"q": "gpj"})), error=False)  # the list's poll too


def test_the_read_api_keeps_the_raw_values(spoofed, results_client):
    data = json.loads(page_text(results_client.get(f"/api/v1/jobs/{NS}/spoofed")))
    (failure,) = data["failures"]
    assert failure["id"] == SPOOFED_ID
    assert SPOOFED_ERROR in json.dumps(failure["reason"], ensure_ascii=False)


def test_the_re_run_panel_and_file_mark_what_they_cannot_write_as_data(spoofed, results_client):
    page = page_text(results_client.get(f"/campaigns/{NS}/spoofed"))
    assert not RAW.search(text_of(page)) and "left out: " + SPOOFED_ID_SHOWN in page
    download = results_client.get(f"/campaigns/{NS}/spoofed/rerun.yaml")
    assert not RAW.search(download.content.decode())
    assert "# left out: " + SPOOFED_ID_SHOWN in download.content.decode()
    yaml.safe_load(download.content)


def test_a_re_run_file_writes_ids_as_escapes_that_read_back_as_the_same_id():
    plan = rerun.plan_rerun(running_campaign())
    reason = VolumeReason(stage="stream", permanent=False, error=SPOOFED_ERROR + "\nnext line\x7f", kind="transient")
    volume = replace(plan.entries[0].volume, id=SPOOFED_ID + '"\\\x85\u2028\U000e0041', reason=reason)
    plan.entries[0] = rerun.Entry(volume, manifest="https://x.example/\u202em")
    text = rerun.campaign_file(plan)
    assert not re.search("[\u202e\u2066\u2069\u200b\x85\x7f\u2028\U000e0041]", text)
    line = next(each for each in text.splitlines() if each.startswith("  - id: "))
    assert line.startswith('  - id: "C00\\u202Egpj.exe\\u2066x\\u200B\\"\\\\\\x85\\u2028\\U000E0041"  # ')
    assert line.endswith("failed: manifest fetch failed: ⟨U+202E⟩fdp.exe⟨U+2069⟩ HTTP 404 next line\\x7f")
    assert yaml.safe_load(text)["volumes"][0] == {"id": volume.id, "manifest": "https://x.example/\u202em"}


def _rendered_templates() -> set[str]:
    """Every campaigns/… template the campaign views name."""
    names = set()
    for module in CAMPAIGN_CODE.rglob("*.py"):
        names.update(re.findall(r"[\"'](campaigns/[\w/]+\.html(?:#\w+)?)[\"']", module.read_text()))
    return names


def test_every_template_a_campaign_view_renders_marks_all_it_shows():
    names = _rendered_templates()
    assert {"campaigns/card.html", "campaigns/list.html#overview_row", "campaigns/detail.html#volume_rows"} <= names
    for name in names:
        path, _, partial = name.partition("#")
        source = (TEMPLATES / path).read_text()
        if partial:
            # A fragment rendered alone (template#partial) is marked inside its own definition.
            (body,) = re.findall(r"{% partialdef " + partial + r"(?: inline)? %}(.*?){% endpartialdef %}", source, re.S)
            assert body.startswith("{% filter reveal_invisible %}") and body.endswith("{% endfilter %}"), name
        elif "{% extends" in source:
            # Only blocks reach the page: each one that shows something is marked.
            for block, body in re.findall(r"{% block (\w+) %}(.*?){% endblock %}", source, re.S):
                if "{{" in body or "{% include" in body:
                    assert body.startswith("{% filter reveal_invisible %}"), f"{name}, block {block}"
                    assert body.rstrip().endswith("{% endfilter %}"), f"{name}, block {block}"
        else:
            assert "{% filter reveal_invisible %}" in source and source.rstrip().endswith("{% endfilter %}"), name


def test_the_viewers_show_a_spoofed_volume_id_in_their_address_marked(results_client, store):
    """A crafted link to a run log or ALTO page: the breadcrumb, the title and the operator facts name
    the volume from its address, and show it marked (base.html marks every page's content and title)."""
    from urllib.parse import quote

    key = f"{NS}/status/logs/swe-lines-v2/{SPOOFED_ID}.txt"
    store.put(key, "2026-09-24 08:00:01 INFO started\n", "text/plain")
    alto_key = f"{NS}/swe-lines-v2/{SPOOFED_ID}/alto/0001.xml"
    for path in (f"/log?log={quote('/results/' + key)}", f"/alto?src={quote('/results/' + alto_key)}"):
        html = page_text(results_client.get(path))
        assert not RAW.search(text_of(html)), path
        assert SPOOFED_ID_SHOWN in html, path


def test_form_fields_keep_the_address_they_were_given_so_a_search_finds_the_spoofed_log(results_client, store):
    from urllib.parse import quote

    key = f"{NS}/status/logs/swe-lines-v2/{SPOOFED_ID}.txt"
    store.put(key, "2026-09-24 08:00:01 INFO started\n", "text/plain")
    address = "/results/" + key
    html = page_text(results_client.get(f"/log?log={quote(address)}"))
    encoded = "/results/" + key
    for raw, escaped in (("\u202e", "%E2%80%AE"), ("\u2066", "%E2%81%A6"), ("\u200b", "%E2%80%8B")):
        encoded = encoded.replace(raw, escaped)
    assert f'value="{encoded}"' in html  # percent-encoded in the field: the same address, no raw character
    assert not RAW.search(html)
    # What the field sends back names the same log.
    search = results_client.get("/log", {"log": encoded, "q": "started"})
    assert search.status_code == 200
    assert "started" in page_text(search)


def test_no_attribute_of_a_page_holds_a_raw_invisible_character(spoofed, results_client):
    """Issue 39: tooltips, labels and ids are marked as the text is; no attribute anywhere keeps a raw bidi
    or zero-width control (tests/test_invisible_journey.py walks the demo's journey in the browser)."""
    for path in ("/", f"/?open={NS}/spoofed", f"/campaigns/{NS}/spoofed", "/?q=C00", "/feed"):
        html = page_text(results_client.get(path))
        assert raw_in_attributes(html) == [], path
        assert not RAW.search(html), path


def test_a_tooltip_and_an_address_each_keep_their_meaning():
    html = f'<a href="/log?log=/results/{SPOOFED_ID}.txt" title="{SPOOFED_ID}">{SPOOFED_ID}</a>'
    inert = reveal_invisible_in_html(html)
    assert f'title="{SPOOFED_ID_SHOWN}"' in inert and f">{SPOOFED_ID_SHOWN}</a>" in inert
    assert 'href="/log?log=/results/C00%E2%80%AEgpj.exe%E2%81%A6x%E2%80%8B.txt"' in inert

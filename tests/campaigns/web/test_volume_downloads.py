"""A volume's text and its ALTO files in one download each, and the campaign's volume table as CSV and in the read
API (issue 38, items 2 and 3), against the Kubernetes double and the real local S3 server, read with each
person's own account."""

from __future__ import annotations

import codecs
import csv
import html
import io
import json
import uuid
import zipfile
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from campaigns.store import progress as progress_module
from campaigns.store import volume_figures
from results.store import access
from results.store import s3 as store_module
from tests.campaigns.cluster.test_kube import NS, campaign_pod
from tests.campaigns.web.test_views import add_campaign, prepared_cluster
from tests.fixtures.session import login_as
from tests.fixtures.waiting import wait_until

ALTO = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<alto xmlns="http://www.loc.gov/standards/alto/ns-v4#"><Layout><Page WIDTH="1000" HEIGHT="1000">'
    "<PrintSpace>{blocks}</PrintSpace></Page></Layout></alto>"
)


def alto(*lines: str) -> bytes:
    text_lines = "".join(
        f'<TextLine ID="l{n}" HPOS="10" VPOS="{20 * n}" WIDTH="500" HEIGHT="18">'
        f'<String CONTENT="{line}" WC="0.91"/></TextLine>'
        for n, line in enumerate(lines, start=1)
    )
    return ALTO.format(blocks=f'<TextBlock ID="b1">{text_lines}</TextBlock>').encode()


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


@pytest.fixture(autouse=True)
def settled_store_reads(settings):
    yield
    wait_until(lambda: not progress_module._in_flight and not access._proofs._proving, timeout=30)
    store_module.forget_clients()


@pytest.fixture
def ledger(cluster, store, session_key_file):
    """A finished campaign: D1 done with four pages, of which page 2 failed and page 4 has no ALTO file
    (pipeline, ALTO bytes by page); D2 done and clean; P1 still to run."""
    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "ledger", volume_ids=["D1", "D2", "P1"], pipeline=pipeline, completed="0-1")
    pages = {"0001": alto("Anno 1871 den 3 Mars", "föddes Åsa i Öxabäck"), "0003": alto("Sista raden")}
    for page, body in pages.items():
        store.put(f"{NS}/{pipeline}/D1/alto/{page}.xml", body, content_type="application/xml")
    manifest = {
        "volume": "D1", "pages": 4, "pages_ok": 3, "pages_failed": 1,
        "results": {
            "0001": {"status": "ok", "seconds": 1.2, "quality": 0.9},
            "0002": {"status": "failed", "seconds": 0.4, "error": "ImageDecodeError: truncated JPEG"},
            "0003": {"status": "ok", "seconds": 1.1, "quality": 0.8},
            "0004": {"status": "ok", "seconds": 1.0},
        },
        "quality": {"mean": 0.85, "min": 0.8, "scored": 2},
    }
    store.put(f"{NS}/{pipeline}/D1/manifest.json", json.dumps(manifest))
    store.put(f"{NS}/{pipeline}/D2/manifest.json", json.dumps({"pages": 1, "pages_ok": 1, "pages_failed": 0,
                                                              "results": {"0001": {"status": "ok"}}}))
    store.put(f"{NS}/{pipeline}/D2/alto/0001.xml", alto("En rad"))
    for volume in ("D1", "D2"):  # as the wrapper leaves them: what the access proofs read
        store.put(f"{NS}/{pipeline}/{volume}/progress.json", json.dumps({"stage": "done", "pages_total": 4}))
    return pipeline, pages


def test_the_text_names_each_page_and_says_the_failed_and_missing_ones_in_place(ledger, results_client):
    _pipeline, _pages = ledger
    response = results_client.get(f"/campaigns/{NS}/ledger/volumes/D1/text")
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert 'filename="ledger-D1.txt"' in response["Content-Disposition"]
    text = b"".join(response.streaming_content).decode("utf-8")
    markers = [line for line in text.splitlines() if line.startswith("=== Page")]
    assert markers == [f"=== Page {n} of 4 ({n:04d}.xml) ===" for n in range(1, 5)]
    first, second, third, fourth = (text.split(marker)[1] for marker in markers)
    assert "Anno 1871 den 3 Mars\nföddes Åsa i Öxabäck" in first
    assert "failed" in second and "ImageDecodeError: truncated JPEG" in second and "Anno" not in second
    assert "Sista raden" in third.split("=== Page")[0]
    assert "no ALTO file in the store" in fourth


def test_the_zip_holds_each_alto_file_as_the_store_has_it_and_names_the_pages_left_out(ledger, results_client, store):
    pipeline, pages = ledger
    response = results_client.get(f"/campaigns/{NS}/ledger/volumes/D1/alto.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert archive.testzip() is None
    names = archive.namelist()
    assert names == ["ledger-D1/alto/0001.xml", "ledger-D1/alto/0003.xml", "ledger-D1/pages-not-included.txt"]
    for page in pages:
        assert archive.read(f"ledger-D1/alto/{page}.xml") == store.get(f"{NS}/{pipeline}/D1/alto/{page}.xml")
    left_out = archive.read("ledger-D1/pages-not-included.txt").decode()
    assert left_out.startswith("0002.xml: ") and "truncated JPEG" in left_out
    assert "0004.xml: " in left_out and "0001.xml" not in left_out


def test_a_clean_volume_zips_without_a_list_of_pages_left_out(ledger, results_client):
    response = results_client.get(f"/campaigns/{NS}/ledger/volumes/D2/alto.zip")
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert archive.namelist() == ["ledger-D2/alto/0001.xml"]


def test_a_volume_the_limited_account_may_not_read_is_refused_with_a_sentence(ledger, client, store):
    pipeline, _pages = ledger
    store.deny_limited(f"{NS}/{pipeline}/D1/")  # a prefix this test made up
    login_as(client, store.accounts["limited"])
    for suffix in ("text", "alto.zip"):
        response = client.get(f"/campaigns/{NS}/ledger/volumes/D1/{suffix}")
        assert response.status_code == 403
        assert "may not read this volume's results" in html.unescape(response.content.decode())
    assert client.get(f"/campaigns/{NS}/ledger/volumes/D2/text").status_code == 200


def test_the_outsider_is_refused_every_download(ledger, client, store):
    login_as(client, store.accounts["outsider"])
    for path in ("volumes/D1/text", "volumes/D1/alto.zip", "volumes.csv"):
        response = client.get(f"/campaigns/{NS}/ledger/{path}")
        assert response.status_code == 403
        assert "may not read this site's results" in html.unescape(response.content.decode())
        assert "Anno" not in response.content.decode()


def test_a_volume_or_campaign_that_does_not_exist_and_one_not_started_say_so(ledger, results_client):
    assert "has no volume" in results_client.get(f"/campaigns/{NS}/ledger/volumes/NOPE/text").content.decode()
    assert results_client.get(f"/campaigns/{NS}/ledger/volumes/NOPE/text").status_code == 404
    missing = results_client.get(f"/campaigns/{NS}/no-such-campaign/volumes/D1/alto.zip")
    assert missing.status_code == 404 and "no campaign named" in missing.content.decode()
    pending = results_client.get(f"/campaigns/{NS}/ledger/volumes/P1/text")
    assert pending.status_code == 404 and "has not started" in pending.content.decode()


def test_a_store_that_is_down_is_said_not_a_500(ledger, results_client, settings):
    results_client.get("/api/v1/jobs")  # the account's access proved while the store answers
    settings.S3_ENDPOINT = "http://127.0.0.1:9"  # nothing listens there
    store_module.forget_clients()
    response = results_client.get(f"/campaigns/{NS}/ledger/volumes/D1/text")
    assert response.status_code in (502, 504)
    assert "could not be reached" in response.content.decode() or "in time" in response.content.decode()
    assert response["Retry-After"]


def test_the_campaign_page_links_the_csv_and_each_done_volume_s_text_and_zip(ledger, results_client):
    page = results_client.get(f"/campaigns/{NS}/ledger").content.decode()
    assert f'href="/campaigns/{NS}/ledger/volumes.csv"' in page
    assert f'id="text-of-D1" href="/campaigns/{NS}/ledger/volumes/D1/text"' in page
    assert f'id="alto-zip-of-D2" href="/campaigns/{NS}/ledger/volumes/D2/alto.zip"' in page
    assert 'id="text-of-P1"' not in page


# --- the volume table ----------------------------------------------------------------------------


@pytest.fixture
def mixed(cluster, store, session_key_file):
    """A campaign none of whose progress was ever polled: D1 done (manifest.json), R1 running and F1 failed
    (progress.json), P1 pending."""
    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "mixed", volume_ids=["D1", "R1", "F1", "P1"], pipeline=pipeline, completed="0",
                 failed="2", active=1)
    cluster.put(campaign_pod("mixed", 1))
    store.put(f"{NS}/{pipeline}/D1/manifest.json", json.dumps(
        {"pages": 12, "pages_ok": 11, "pages_failed": 1, "results": {}, "quality": {"mean": 0.875}}))
    store.put(f"{NS}/{pipeline}/R1/progress.json", json.dumps(
        {"stage": "stream", "pages_total": 40, "pages_done": 7, "pages_failed": 2,
         "updated_at": "2026-12-06T10:00:00+00:00", "quality": {"mean": 0.5}}))
    store.put(f"{NS}/{pipeline}/F1/progress.json", json.dumps(
        {"stage": "failed", "pages_total": 9, "pages_done": 3, "updated_at": "2026-12-06T09:30:00+00:00"}))
    progress_module.clear_cache()  # nothing cached: the table reads for itself
    return pipeline


def read_csv(response) -> list[list[str]]:
    body = b"".join(response.streaming_content)
    assert body.startswith(codecs.BOM_UTF8)
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


def test_the_csv_holds_every_volume_with_the_figures_of_the_files_it_was_made_from(mixed, results_client, store):
    pipeline = mixed
    results_client.cookies["tz"] = "Europe/Stockholm"
    response = results_client.get(f"/campaigns/{NS}/mixed/volumes.csv")
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    header, *rows = read_csv(response)
    assert header[:3] == ["Index", "Volume", "State"] and "Mean confidence" in header
    table = {row[1]: dict(zip(header, row, strict=True)) for row in rows}
    assert list(table) == ["D1", "R1", "F1", "P1"]
    d1, r1, f1, p1 = table["D1"], table["R1"], table["F1"], table["P1"]
    assert (d1["State"], d1["Pages"], d1["Pages done"], d1["Failed pages"]) == ("done", "12", "11", "1")
    assert d1["Mean confidence"] == "0.875" and d1["Figures from"] == "manifest.json"
    stored = store.admin_client().head_object(Bucket=store.bucket, Key=f"{NS}/{pipeline}/D1/manifest.json")
    assert datetime.fromisoformat(d1["Last update"]) == stored["LastModified"].replace(microsecond=0)
    assert (r1["State"], r1["Pages"], r1["Pages done"], r1["Failed pages"]) == ("active", "40", "7", "2")
    assert r1["Mean confidence"] == "0.5" and r1["Figures from"] == "progress.json"
    assert r1["Last update"] == "2026-12-06T11:00:00+01:00"  # the reader's offset
    assert datetime.fromisoformat(r1["Last update"]).utcoffset() == ZoneInfo("Europe/Stockholm").utcoffset(
        datetime(2026, 12, 6))
    assert (f1["State"], f1["Pages done"], f1["Last update"]) == ("failed", "3", "2026-12-06T10:30:00+01:00")
    assert (p1["State"], p1["Pages"], p1["Figures from"]) == ("pending", "", "not_started")


def test_the_csv_speaks_the_reader_s_language_and_keeps_its_codes(mixed, results_client):
    results_client.cookies["django_language"] = "sv"
    header, *rows = read_csv(results_client.get(f"/campaigns/{NS}/mixed/volumes.csv", HTTP_ACCEPT_LANGUAGE="sv"))
    assert [row[2] for row in rows] == ["done", "active", "failed", "pending"]  # codes unchanged
    assert len(header) == 12


def test_a_csv_past_its_budget_says_so_in_the_file(mixed, results_client, monkeypatch):
    monkeypatch.setattr(volume_figures, "READS_MOST", 1)
    header, *rows = read_csv(results_client.get(f"/campaigns/{NS}/mixed/volumes.csv"))
    by_id = {row[1]: row for row in rows if row[1]}
    assert by_id["D1"][header.index("Figures from")] == "manifest.json"
    assert by_id["R1"][header.index("Figures from")] == "over_budget"
    assert by_id["R1"][header.index("Pages done")] == ""
    last = rows[-1]
    assert last[1] == "" and last[-1].startswith("Cut short: 2 volumes were not read")


def test_the_read_api_gives_the_csv_s_rows(mixed, results_client):
    data = results_client.get(f"/api/v1/jobs/{NS}/mixed/volumes").json()
    assert data["volumesTotal"] == 4 and data["budget"]["cutShort"] is False
    rows = {row["id"]: row for row in data["volumes"]}
    assert (rows["D1"]["pagesDone"], rows["D1"]["pagesFailed"], rows["D1"]["figuresFrom"]) == (11, 1, "manifest.json")
    assert rows["R1"]["updatedAt"] == "2026-12-06T10:00:00Z" and rows["R1"]["meanConfidence"] == 0.5
    assert rows["P1"]["pagesDone"] is None
    one = results_client.get(f"/api/v1/jobs/{NS}/mixed/volumes", {"offset": 1, "limit": 1}).json()
    assert [row["id"] for row in one["volumes"]] == ["R1"]
    assert results_client.get(f"/api/v1/jobs/{NS}/nothing-here/volumes").status_code == 404

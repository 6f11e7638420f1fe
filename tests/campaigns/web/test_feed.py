"""The campaign feed (campaigns/web/feed_views.py, results/accounts/feeds.py): Atom a real parser reads and
RFC 4287's rules accept, by session and by a revocable feed token, showing only what the person may see.

The cluster is the API double, every proof of rights is asked of the store double, and the feed's shared
state is the pod's counters file (and a real Redis in the test that says so)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import feedparser
import pytest
from django.test import Client

from devstack.store import PROJECT_PIPELINE, prefix_policy, project_prefixes
from results.accounts import feeds
from results.store import access
from tests.campaigns.atom_rules import atom_problems
from tests.campaigns.cluster.test_kube import campaign_job, campaign_record
from tests.campaigns.web.test_views import HOSTILE, add_campaign, failed_pod, prepared_cluster
from tests.fixtures.kube import settled
from tests.fixtures.serving import free_port
from tests.fixtures.session import login_as

TROUBLED = "parish-records-1870"  # swe-lines-v2: a volume failed
FINISHED = "bouppteckning-1871"  # swe-lines-v2: finished an hour ago
OWN = "kansli-v3"  # the project account's pipeline: a volume failed
TOKEN_PATH = "/feed/token.atom"


@pytest.fixture
def cluster(kube, settings):
    feeds.clear_cache()
    yield from prepared_cluster(kube, settings)
    feeds.clear_cache()


@pytest.fixture
def scene(cluster, store, settings):
    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    add_campaign(cluster, TROUBLED, volume_ids=["C1", "C2"], completed="0", failed="1")
    cluster.put(failed_pod(TROUBLED, 1, "OOMKilled while segmenting C2"))
    finished = campaign_job(FINISHED, str(uuid.uuid4()), volumes=1, completed="0")
    finished["status"]["conditions"] = [{"type": "Complete", "status": "True"}]
    finished["status"]["completionTime"] = (datetime.now(UTC) - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    cluster.put(finished)
    cluster.put(campaign_record(FINISHED, ["B1"]))
    add_campaign(cluster, OWN, volume_ids=["K1", "K2"], completed="0", failed="1", pipeline=PROJECT_PIPELINE)
    cluster.put(failed_pod(OWN, 1, "The IIIF manifest answered 404"))
    settled()
    return cluster


def parsed(response):
    assert response.status_code == 200, response.content[:400]
    assert response["Content-Type"] == "application/atom+xml; charset=utf-8"
    body = response.content
    assert atom_problems(body) == []
    feed = feedparser.parse(body)
    assert feed.bozo == 0, feed.get("bozo_exception")
    assert feed.version == "atom10"
    return feed


def titles(feed) -> list[str]:
    return sorted(entry.title for entry in feed.entries)


def feed_address(client) -> str:
    """Make a feed address on the Feed page, as a person would, and read it back from the page."""
    made = client.post("/feed", {"action": "new"})
    assert made.status_code == 303 and made["Location"] == "/feed?done=new"
    page = client.get(made["Location"]).content.decode()
    assert "A new feed address was made" in page
    start = page.index('<code id="feed-address"')
    address = page[page.index(">", start) + 1:page.index("</code>", start)].replace("&amp;", "&")
    assert address.startswith("http://testserver/feed/token.atom?token=")
    return address


def by_token(address, **headers):
    """A feed reader: no cookies, only the address."""
    parts = urlsplit(address)
    return Client().get(parts.path, parse_qs(parts.query), headers=headers)


def test_the_session_feed_is_atom_with_one_entry_per_event(scene, client, store, session_key_file):
    login_as(client, store.accounts["full"])
    feed = parsed(client.get("/feed.atom"))
    assert titles(feed) == [
        f"{FINISHED} finished: succeeded",
        f"{OWN} needs attention",
        f"{TROUBLED} needs attention",
    ]
    troubled = next(e for e in feed.entries if e.title.startswith(TROUBLED))
    assert troubled.summary.startswith("1 volume failed. C2: ")
    assert troubled.link == f"http://testserver/campaigns/htr-batch/{TROUBLED}"
    assert troubled.tags[0].term == "attention"
    finished = next(e for e in feed.entries if e.title.startswith(FINISHED))
    assert finished.summary == "Finished: 1 volume done."  # the list line's own words
    assert finished.tags[0].term == "finished"
    assert feed.feed.links[0].rel == "self" and feed.feed.links[0].href == "http://testserver/feed.atom"


def test_entry_ids_and_times_stay_the_same_and_an_unchanged_feed_answers_304(scene, client, store, session_key_file):
    login_as(client, store.accounts["full"])
    first, again = client.get("/feed.atom"), client.get("/feed.atom")
    ids = {e.id: e.updated for e in parsed(first).entries}
    assert ids == {e.id: e.updated for e in parsed(again).entries}
    assert len(ids) == 3 and all(i.startswith("urn:uuid:") for i in ids)
    assert first["ETag"] == again["ETag"]
    assert client.get("/feed.atom", headers={"If-None-Match": first["ETag"]}).status_code == 304


def test_without_a_session_the_feed_sends_the_browser_to_log_in(scene, client):
    response = client.get("/feed.atom")
    assert response.status_code == 302 and response["Location"].startswith("/login?next=/feed.atom")


def test_a_feed_token_shows_only_the_campaigns_its_person_may_see(scene, client, store, session_key_file, caplog):
    login_as(client, store.accounts["project"])
    address = feed_address(client)
    assert "project-reader" not in address and store.accounts["project"].password not in address
    caplog.set_level("INFO")
    response = by_token(address)
    assert "GET /feed/token.atom 200" in caplog.text
    assert parse_qs(urlsplit(address).query)["token"][0] not in caplog.text  # the request log leaves the query out
    feed = parsed(response)
    assert titles(feed) == [f"{OWN} needs attention"]
    assert TROUBLED not in response.content.decode() and FINISHED not in response.content.decode()
    assert response["Cache-Control"] == "private, no-cache"
    assert "Set-Cookie" not in response


def test_a_new_address_ends_the_old_one_and_turning_it_off_ends_both(scene, client, store, session_key_file):
    login_as(client, store.accounts["full"])
    old = feed_address(client)
    new = feed_address(client)
    assert old != new
    assert parsed(by_token(new)).entries
    refused = by_token(old)
    assert refused.status_code == 410
    assert refused.content.decode().startswith("This feed address was turned off or replaced by a newer one")
    assert refused["Content-Type"] == "text/plain; charset=utf-8"
    assert client.post("/feed", {"action": "off"}).status_code == 303
    assert "Your feed address was turned off" in client.get("/feed?done=off").content.decode()
    assert by_token(new).status_code == 410
    assert 'id="feed-none"' in client.get("/feed").content.decode()


@pytest.mark.parametrize("tamper", ["mac", "number", "person", "garbage", "missing", "huge"])
def test_a_forged_token_is_refused_with_a_sentence(scene, client, store, session_key_file, tamper):
    login_as(client, store.accounts["full"])
    token = parse_qs(urlsplit(feed_address(client)).query)["token"][0]
    person, number, mac = token.split(".")
    flip = {"0": "1"}
    forged = {
        "mac": f"{person}.{number}.{mac[:-1]}{'0' if mac[-1] != '0' else '1'}",
        "number": f"{person}.{int(number, 16) + 1:x}.{mac}",
        "person": f"{''.join(flip.get(c, '0') for c in person)}.{number}.{mac}",
        "garbage": "<script>alert(1)</script>",
        "missing": None,
        "huge": "a" * 100_000,
    }[tamper]
    response = Client().get(TOKEN_PATH, {} if forged is None else {"token": forged})
    assert response.status_code == 403
    assert response.content.decode().startswith("This feed address is not one this site made")
    assert "<script>" not in response.content.decode()


def test_rights_that_shrink_at_a_visit_shrink_the_token_feed(scene, client, store, session_key_file, monkeypatch):
    login_as(client, store.accounts["full"])
    address = feed_address(client)
    assert len(parsed(by_token(address)).entries) == 3
    store.set_policy("full", prefix_policy(store.bucket, project_prefixes(store.namespace)))
    try:
        later = access._clock() + 10 * 3600
        monkeypatch.setattr(access, "_clock", lambda: later)  # the proof is due again: the next visit waits for it
        assert client.get("/api/v1/jobs").status_code == 200  # any campaign view
        assert titles(parsed(by_token(address))) == [f"{OWN} needs attention"]
    finally:
        store.restore("full")


def test_rights_not_checked_for_too_long_pause_the_feed_until_the_next_visit(scene, client, store, session_key_file,
                                                                             settings, monkeypatch):
    settings.HTRFLOW_FEED_RIGHTS_HOURS = 2
    login_as(client, store.accounts["full"])
    address = feed_address(client)
    assert parsed(by_token(address)).entries
    now = feeds._clock()
    monkeypatch.setattr(feeds, "_clock", lambda: now + 2 * 3600 + 5)
    paused = by_token(address)
    assert paused.status_code == 403
    assert paused.content.decode().startswith("This feed is paused: what your store account may see was last "
                                              "checked more than 2 hours ago")
    feeds.clear_cache()  # this process wrote the rights just now: the next visit would not write them again
    assert client.get("/api/v1/jobs").status_code == 200  # any campaign view
    assert len(parsed(by_token(address)).entries) == 3


def test_rights_remembered_while_any_account_saw_everything_count_for_nothing_once_the_site_is_stricter(
    scene, client, store, session_key_file, settings
):
    settings.HTRFLOW_CARDS_FOR = "store-accounts"
    login_as(client, store.accounts["outsider"])
    address = feed_address(client)
    assert len(parsed(by_token(address)).entries) == 3
    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    assert parsed(by_token(address)).entries == []


def test_the_feed_page_is_private_and_never_kept(scene, client, store, session_key_file):
    login_as(client, store.accounts["full"])
    feed_address(client)
    page = client.get("/feed")
    assert page["Cache-Control"] == "private, no-store" and page["Referrer-Policy"] == "same-origin"


def test_an_account_the_store_no_longer_knows_loses_its_feed_at_once(scene, client, store, session_key_file):
    login_as(client, store.accounts["full"])
    address = feed_address(client)
    current = client.get("/feed").wsgi_request.results_session
    feeds.remember(current, access.Access(ended=True))
    assert by_token(address).status_code == 403


def test_hostile_text_is_escaped_and_the_feed_stays_valid(cluster, client, store, session_key_file, settings):
    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    add_campaign(cluster, "hostile", volume_ids=["C1", "C2"], failed="0", completed="1")
    message = HOSTILE + " \x01\x1b[31m \u202egpj.exe & ]]> <![CDATA[ x"
    cluster.put(failed_pod("hostile", 0, message))
    settled()
    login_as(client, store.accounts["full"])
    response = client.get("/feed.atom")
    feed = parsed(response)
    body = response.content.decode()
    assert "<script>" not in body and "<img" not in body and "<![CDATA[" not in body
    assert "\x01" not in body and "\x1b" not in body and "\u202e" not in body
    summary = feed.entries[0].summary  # the error as the pod gave it is the operator's: the feed says plain words
    assert "stopped for good" in summary and "gpj.exe" not in summary


def test_the_feed_page_is_behind_the_gate_and_refuses_an_unknown_button(scene, client, store, session_key_file):
    login_as(client, store.accounts["outsider"])
    assert client.get("/feed").status_code == 403  # may read nothing: the gate's sentence, as every campaign page
    login_as(client, store.accounts["full"])
    response = client.post("/feed", {"action": "<b>delete-everything</b>"})
    assert response.status_code == 400
    assert "That is not something this page can do" in response.content.decode()
    assert "<b>delete" not in response.content.decode()


def test_with_redis_a_token_made_on_one_replica_works_on_another_and_redis_down_is_a_sentence(
    scene, client, store, session_key_file, settings, redis_url
):
    settings.HTRFLOW_REDIS_URL = redis_url
    login_as(client, store.accounts["project"])
    address = feed_address(client)
    feeds.clear_cache()  # another process: nothing of this one's remembered
    assert titles(parsed(by_token(address))) == [f"{OWN} needs attention"]
    settings.HTRFLOW_REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    settings.HTRFLOW_REDIS_TIMEOUT = 0.5
    down = by_token(address)
    assert down.status_code == 503 and down["Retry-After"] == "60"
    assert down.content.decode().startswith("Your feed cannot be shown right now")
    page = client.get("/feed")
    assert page.status_code == 503 and "Your feed cannot be shown right now" in page.content.decode()

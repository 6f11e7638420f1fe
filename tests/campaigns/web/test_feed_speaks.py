"""The feed speaks the language and time zone of the person who made its address (kept with the feed token in
the shared state, so every replica and every restart agrees), whatever the feed reader sends; its entries are
HTML in which the wording's `names` are code, never Markdown backticks shown as text.

A feed reader is a client with no cookie and its own Accept-Language. The times compared are a stall's
("no volume finished since …"), said by core.times: the Job started on 24 September 2026 at 07:58 UTC, which
is 09:58 CEST in Stockholm and 03:58 EDT in New York."""

from __future__ import annotations

import uuid

import pytest

from results.accounts import counters, feeds
from tests.campaigns.cluster.test_kube import campaign_job, campaign_pod, campaign_record, kueue_system, workload
from tests.campaigns.web.test_feed import by_token, cluster, parsed  # noqa: F401 - the fixture
from tests.campaigns.web.test_views import add_campaign
from tests.fixtures.kube import settled
from tests.fixtures.session import login_as

STALLED = "stalled-1880"
LOST = "lost-1890"  # sent to a queue that does not exist: its sentence names the queue as code
ENGLISH_READER = {"Accept-Language": "en-US,en;q=0.9"}
SWEDISH_READER = {"Accept-Language": "sv-SE,sv;q=0.9"}


@pytest.fixture
def scene(cluster, settings):  # noqa: F811 - the fixture imported above
    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    settings.HTRFLOW_STALL_MINUTES = 10
    add_campaign(cluster, STALLED, volume_ids=["S1", "S2"], active=2)
    cluster.put(campaign_pod(STALLED, 0))
    cluster.put(campaign_pod(STALLED, 1))
    kueue_system(cluster)
    uid = str(uuid.uuid4())
    cluster.put(campaign_job(LOST, uid, volumes=1, suspend=True))
    cluster.put(campaign_record(LOST, ["L1"]))
    waiting = workload(LOST, uid, admitted=False)
    waiting["status"]["conditions"][0].update(reason="Inadmissible", message="LocalQueue htr-batch doesn't exist")
    cluster.put(waiting)
    settled()
    return cluster


def make_address(client, language: str, zone: str) -> str:
    """Make a feed address on the Feed page, as a person reading the site in ``language`` in ``zone`` would."""
    client.cookies["tz"] = zone
    made = client.post("/feed", {"action": "new"}, headers={"Accept-Language": language})
    assert made.status_code == 303
    page = client.get("/feed", headers={"Accept-Language": language}).content.decode()
    start = page.index('<code id="feed-address"')
    return page[page.index(">", start) + 1 : page.index("</code>", start)].replace("&amp;", "&")


def stall_summary(feed) -> str:
    [entry] = [entry for entry in feed.entries if entry.link.endswith(f"/{STALLED}")]
    return entry.summary


def test_a_feed_made_in_swedish_in_stockholm_speaks_so_to_a_reader_with_no_cookie_and_another_language(
    scene, client, store, session_key_file
):
    login_as(client, store.accounts["full"])
    address = make_address(client, "sv", "Europe/Stockholm")
    response = by_token(address, **ENGLISH_READER)
    feed = parsed(response)
    assert response["Content-Language"] == "sv" and feed.feed.language == "sv"
    said = stall_summary(feed)
    assert "09:58 CEST" in said and "07:58" not in said and "UTC" not in said

    # A new address made in English in New York: the same reader, asking for Swedish, gets English and New York.
    address = make_address(client, "en", "America/New_York")
    response = by_token(address, **SWEDISH_READER)
    feed = parsed(response)
    assert response["Content-Language"] == "en" and feed.feed.language == "en"
    assert stall_summary(feed) == "Stalled: no volume finished since 24 Sep 03:58 EDT while 2 pods run."


def test_the_session_feed_speaks_the_request_s_own_language_and_zone(scene, client, store, session_key_file):
    login_as(client, store.accounts["full"])
    make_address(client, "sv", "Europe/Stockholm")
    client.cookies["tz"] = "America/New_York"
    feed = parsed(client.get("/feed.atom", headers=ENGLISH_READER))
    assert feed.feed.language == "en" and "03:58 EDT" in stall_summary(feed)


def test_what_a_feed_speaks_is_kept_with_its_token_through_a_restart(scene, client, store, session_key_file):
    login_as(client, store.accounts["full"])
    address = make_address(client, "sv", "Europe/Stockholm")
    counters._opened.clear()  # a new process: the counters file is opened anew, nothing of this one's kept
    feeds.clear_cache()
    feed = parsed(by_token(address, **ENGLISH_READER))
    assert feed.feed.language == "sv" and "09:58 CEST" in stall_summary(feed)


def test_with_redis_another_replica_speaks_as_the_one_the_address_was_made_on(
    scene, client, store, session_key_file, settings, redis_url
):
    settings.HTRFLOW_REDIS_URL = redis_url
    login_as(client, store.accounts["full"])
    address = make_address(client, "sv", "Europe/Stockholm")
    counters._opened.clear()  # another replica: its own connection to the same Redis
    feeds.clear_cache()
    feed = parsed(by_token(address, **ENGLISH_READER))
    assert feed.feed.language == "sv" and "09:58 CEST" in stall_summary(feed)


def test_an_address_made_before_its_language_was_kept_speaks_the_site_s_defaults(
    scene, client, store, session_key_file, settings
):
    login_as(client, store.accounts["full"])
    address = make_address(client, "sv", "Europe/Stockholm")
    counters.counters().delete(f"feed:speaks:{feeds.person_of(store.accounts['full'].username)}")
    settings.HTRFLOW_TIME_ZONE = "America/New_York"
    response = by_token(address, **SWEDISH_READER)
    feed = parsed(response)
    assert response["Content-Language"] == "en" and "03:58 EDT" in stall_summary(feed)


def test_a_refusal_of_a_known_token_is_said_in_its_language(
    scene, client, store, session_key_file, settings, monkeypatch
):
    settings.HTRFLOW_FEED_RIGHTS_HOURS = 2
    login_as(client, store.accounts["full"])
    address = make_address(client, "sv", "Europe/Stockholm")
    later = feeds._clock() + 3 * 3600
    monkeypatch.setattr(feeds, "_clock", lambda: later)  # the remembered rights are too old: paused
    paused = by_token(address, **ENGLISH_READER)
    assert paused.status_code == 403 and paused["Content-Language"] == "sv"


def test_no_entry_shows_a_backtick_the_wording_s_names_are_code(scene, client, store, session_key_file):
    login_as(client, store.accounts["full"])
    response = by_token(make_address(client, "en", "UTC"))
    feed = parsed(response)
    assert len(feed.entries) == 2
    for entry in feed.entries:
        assert entry.summary_detail.type == "text/html"
        assert "`" not in entry.title + entry.summary + entry.tags[0].label
    [lost] = [entry for entry in feed.entries if entry.link.endswith(f"/{LOST}")]
    assert lost.summary == (
        f"Campaign {LOST} cannot start: the queue <code>htr-batch</code> it is sent to does not exist. An operator "
        "has to create it."
    )
    assert "&lt;code&gt;htr-batch&lt;/code&gt;" in response.content.decode()  # HTML, escaped as type="html" says


def test_the_feed_page_says_what_the_address_speaks(scene, client, store, session_key_file):
    login_as(client, store.accounts["full"])
    make_address(client, "sv", "Europe/Stockholm")
    page = client.get("/feed", headers=ENGLISH_READER).content.decode()
    assert "Its entries are written in Svenska, with times in the Europe/Stockholm time zone" in page

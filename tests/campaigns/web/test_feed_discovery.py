"""Feed autodiscovery (issue 39): the list, every campaign page and the Feed page carry
``<link rel="alternate" type="application/atom+xml">`` naming the person's feed, so a browser or a feed reader
finds it; once the person has a feed address (a token), that address, which a reader that cannot log in can
follow; and the address found reads as the feed."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import urlsplit

import feedparser

from tests.campaigns.web.test_feed import OWN, TROUBLED, cluster, scene  # noqa: F401 - its fixtures
from tests.fixtures.session import login_as

LINK = re.compile(r'<link rel="alternate" type="application/atom\+xml" title="([^"]+)" href="([^"]+)">')


def discovered(client, path: str) -> list[tuple[str, str]]:
    html = client.get(path).content.decode()
    head = html.split("</head>")[0]
    return [(unescape(title), unescape(href)) for title, href in LINK.findall(head)]


def test_every_page_the_feed_covers_names_it_in_its_head(scene, client, store, session_key_file):  # noqa: F811
    login_as(client, store.accounts["full"])
    for path in ("/", f"/campaigns/htr-batch/{TROUBLED}", f"/campaigns/htr-batch/{OWN}", "/feed"):
        found = discovered(client, path)
        assert found == [("Your campaigns (Atom feed)", "http://testserver/feed.atom")], path
    feed = feedparser.parse(client.get("/feed.atom").content)
    assert feed.version == "atom10" and feed.entries


def test_once_there_is_a_feed_address_the_pages_name_that_one(scene, client, store, session_key_file):  # noqa: F811
    login_as(client, store.accounts["full"])
    client.post("/feed", {"action": "new"})
    ((_, href),) = discovered(client, "/")
    assert urlsplit(href).path == "/feed/token.atom" and "token=" in href
    # A reader with no session follows it.
    reader = client.__class__()
    address = urlsplit(href)
    feed = feedparser.parse(reader.get(address.path + "?" + address.query).content)
    assert feed.version == "atom10" and TROUBLED in " ".join(entry.title for entry in feed.entries)


def test_the_login_page_names_no_feed(client):
    assert discovered(client, "/login") == []

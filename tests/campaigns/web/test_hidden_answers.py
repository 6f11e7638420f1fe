"""Nothing tells a campaign the person may not see from an invented one (issue 34, item 3).

For every address that takes a campaign's name, its short key (a list poll's ``shown=``) or a results
address of one of its volumes, a campaign hidden from the account answers byte for byte as an invented
one does, once the two names (and keys, and volume ids) are replaced by placeholders and the CSRF
token taken out: the same status, the same headers, the same body.

The accounts are the store double's (devstack/store.py): ``project`` may read one pipeline's results
only, so it may see only that pipeline's campaigns; ``outsider`` may read nothing. Before every
comparison a reader of the whole namespace has been shown the hidden campaign (its list page, the
list's poll, its card and its page), so a memory of what anyone was shown would show through.

``ASKS`` is the table: how each URL of the URL conf asks about one campaign. Every URL is in it or in
``TAKES_NO_CAMPAIGN`` with the reason, and one whose path takes anything (a name, a key) cannot be left
out of the table, so a URL added later fails ``test_every_url_is_in_the_table`` until it is taught here.
Those that take no campaign but show campaigns answer the same whether the hidden campaign exists or not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from campaigns.presentation import overview
from devstack.store import PROJECT_PIPELINE
from results.accounts import feeds
from tests.campaigns.web.test_views import add_campaign, failed_pod, prepared_cluster
from tests.fixtures.kube import settled
from tests.fixtures.session import login_as

NS = "htr-batch"
HIDDEN = "parish-records-1870"  # of PIPELINE, which neither account may read
INVENTED = "parish-records-1879"  # as long as HIDDEN: so is every answer that names it
PIPELINE = "swe-lines-v2"
HIDDEN_VOLUME = "C0099001"
INVENTED_VOLUME = "C0099009"
SECRET_MESSAGE = "OOMKilled while reading the secret ledger"
SECRETS = (HIDDEN, HIDDEN_VOLUME, "C0099003", SECRET_MESSAGE)
OWN = "kansli-v3"  # the project account's own campaign (PROJECT_PIPELINE)
FINGERPRINT = "AAAAAAAA"  # a line's fingerprint as a tab sends it: any eight letters


@dataclass(frozen=True)
class Ask:
    """One request about a campaign: a path with placeholders (see ``fill``), as a poll or not."""

    path: str
    htmx: bool = False


def both(path: str) -> list[Ask]:
    return [Ask(path), Ask(path, htmx=True)]


PROGRESS = "/results/{ns}/{pipeline}/{volume}/progress.json"
ALTO = "/results/{ns}/{pipeline}/{volume}/alto/0001.xml"
MANIFEST = "/results/{ns}/{pipeline}/{volume}/manifest.json"
LOG = "/results/{ns}/status/logs/{pipeline}/{volume}.txt"

# URL name -> how it asks about one campaign.
ASKS: dict[str, list[Ask]] = {
    "campaign_list": [
        *both("/?open={ns}/{name}"),
        Ask("/?q={name}"),
        Ask("/?q={volume}"),
        Ask("/?open={ns}/{name}&state=attention&rows=all"),
    ],
    "campaign_changes": [
        # The tab's own lines and one more, as a page of another person's (or an older page) would send.
        Ask("/changes?shown={tab}r{key}" + FINGERPRINT, htmx=True),
        Ask("/changes?shown={tab}R{key}" + FINGERPRINT, htmx=True),
        Ask("/changes?shown={tab}c{key}" + FINGERPRINT, htmx=True),
        Ask("/changes?shown={tab}C{key}" + FINGERPRINT, htmx=True),
        Ask("/changes?shown=p1.r{key}" + FINGERPRINT),
        Ask("/changes?shown=p1.c{key}" + FINGERPRINT + "&open={ns}/{name}", htmx=True),
        Ask("/changes?shown={tab}&shown=row:{ns}/{name}:" + FINGERPRINT + ":0", htmx=True),
        Ask("/changes?shown={tab}&shown=card:{ns}/{name}:" + FINGERPRINT + ":1", htmx=True),
        Ask("/changes?shown={tab}&open={ns}/{name}", htmx=True),
        Ask("/changes?shown={tab}&q={name}&state=failed", htmx=True),
    ],
    "campaign_detail": [
        *both("/campaigns/{ns}/{name}"),
        Ask("/campaigns/{ns}/{name}?fragment=rows", htmx=True),
        Ask("/campaigns/{ns}/{name}?state=failed&q={volume}&offset=1&check=1"),
    ],
    "campaign_card": [
        *both("/campaigns/{ns}/{name}/card"),
        Ask("/campaigns/{ns}/{name}/card?rows=1&state=active&offset=0&rows_shown=200", htmx=True),
    ],
    "campaign_volume": [
        *both("/campaigns/{ns}/{name}/volumes/{volume}"),
        Ask("/campaigns/{ns}/{name}/volumes/{volume}?fragment=live&seen=x", htmx=True),
    ],
    "volume_text": [Ask("/campaigns/{ns}/{name}/volumes/{volume}/text")],
    "volume_alto_zip": [Ask("/campaigns/{ns}/{name}/volumes/{volume}/alto.zip")],
    "campaign_volumes_csv": [Ask("/campaigns/{ns}/{name}/volumes.csv")],
    "api_job_volumes": [
        Ask("/api/v1/jobs/{ns}/{name}/volumes"),
        Ask("/api/v1/jobs/{ns}/{name}/volumes?offset=1&limit=1"),
    ],
    "campaign_rerun_file": [
        Ask("/campaigns/{ns}/{name}/rerun.yaml"),
        Ask("/campaigns/{ns}/{name}/rerun.yaml?pipeline=swe-lines-v9"),
    ],
    "api_job_detail": [
        Ask("/api/v1/jobs/{ns}/{name}"),
        Ask("/api/v1/jobs/{ns}/{name}?offset=1&limit=1"),
    ],
    "results-file": [Ask(PROGRESS), Ask(ALTO), Ask(MANIFEST), Ask(LOG)],
    "log": [
        *both("/log?log={log}"),
        Ask("/log?log={log}&live=1&q=ERROR"),
        Ask("/log?log={log}&manifest={manifest}"),
    ],
    "log-more": [Ask("/log/more?log={log}&after=0", htmx=True)],
    "log-earlier": [Ask("/log/earlier?log={log}&before=100", htmx=True)],
    "log-find": [Ask("/log/find?log={log}&q=ERROR", htmx=True)],
    "alto": [*both("/alto?src={alto}"), Ask("/alto?src={alto}&goto=2")],
    "alto-text": [Ask("/alto/text?src={alto}")],
}

# URL name -> why it takes no campaign's name, key or results address.
TAKES_NO_CAMPAIGN = {
    "login": "the login page",
    "logout": "ends the session (asked last)",
    "results-login": "the login API",
    "results-logout": "the logout API",
    "results-session": "says who is logged in",
    "api_version": "the product's version",
    "api_openapi": "the read API's description, the same for everyone",
    "api_jobs": "lists the person's campaigns; its one parameter is a count",
    "campaign_feed_page": "the feed's address and its buttons",
    "campaign_feed": "the person's feed, by session",
    "campaign_feed_by_token": "the person's feed, by a token that names the person, not a campaign",
    "set_language": "keeps the reader's language (a POST back to the page it came from)",
    "javascript-catalog": "the scripts' words in the reader's language, the same for everyone",
}

# Of those, the ones that show campaigns: with the hidden campaign there or not, they answer the same.
SHOWING = ["/", "/?rows=all", "/changes?shown={tab}", "/api/v1/jobs", "/api/v1/jobs?reaped=100", "/feed.atom",
           "/feed/token.atom?token={token}", "/feed", "/results/_session"]


@pytest.fixture
def cluster(kube, settings):
    feeds.clear_cache()
    yield from prepared_cluster(kube, settings)
    feeds.clear_cache()


@pytest.fixture
def own_campaign(cluster, store, settings, session_key_file):
    """The project account's own campaign, and what the store holds of the hidden campaign's volume."""
    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    add_campaign(cluster, OWN, volume_ids=["K1", "K2"], completed="0", active=1, pipeline=PROJECT_PIPELINE)
    results = f"{NS}/{PIPELINE}/{HIDDEN_VOLUME}"
    store.put(f"{results}/progress.json", '{"stage": "done"}', "application/json")
    store.put(f"{results}/alto/0001.xml", "<alto/>", "application/xml")
    store.put(f"{results}/manifest.json", '{"items": []}', "application/json")
    store.put(f"{NS}/status/logs/{PIPELINE}/{HIDDEN_VOLUME}.txt", f"ERROR {SECRET_MESSAGE}\n", "text/plain")
    return cluster


def reader_of_everything(store) -> Client:
    reader = Client()
    login_as(reader, store.accounts["full"])
    return reader


def add_hidden(cluster, reader: Client) -> None:
    """The hidden campaign (a volume failed, so it needs attention and may be re-run), shown to a reader of
    the whole namespace: its list page, the page's poll, its card and its page."""
    add_campaign(cluster, HIDDEN, volume_ids=[HIDDEN_VOLUME, "C0099003"], completed="0", failed="1",
                 pipeline=PIPELINE)
    cluster.put(failed_pod(HIDDEN, 1, SECRET_MESSAGE))
    settled()
    page = reader.get("/").content.decode()
    assert f'id="row-{NS}--{HIDDEN}"' in page
    assert reader.get("/changes", {"shown": shown_value(page)}, headers={"HX-Request": "true"}).status_code < 500
    for path in (f"/campaigns/{NS}/{HIDDEN}", f"/campaigns/{NS}/{HIDDEN}/card"):
        assert HIDDEN in reader.get(path).content.decode()


@pytest.fixture
def hidden(own_campaign, store):
    add_hidden(own_campaign, reader_of_everything(store))
    return own_campaign


def shown_value(page: str) -> str:
    """What a page's poll sends of what it shows (the packed value), "p1." for a page that shows none."""
    found = re.search(r'name="shown" value="([^"]+)"', page)
    return found.group(1) if found else overview.PACKED


def fill(path: str, name: str, volume: str, tab: str) -> str:
    key = f"/results/{NS}/{PIPELINE}/{volume}"
    values = {
        "ns": NS,
        "name": name,
        "key": overview.short_key(f"{NS}/{name}"),
        "volume": volume,
        "pipeline": PIPELINE,
        "tab": tab,
        "log": quote(f"/results/{NS}/status/logs/{PIPELINE}/{volume}.txt"),
        "alto": quote(f"{key}/alto/0001.xml"),
        "manifest": quote(f"{key}/manifest.json"),
    }
    return path.format(**values)


def normalised(response, name: str, volume: str) -> tuple[int, dict, str]:
    """Status, headers and body with the campaign's name, key and volume as placeholders, and no token (nor the
    request's own id and cookies; an ETag is of the body, which is compared)."""

    def plain(text: str) -> str:
        text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", text)
        text = re.sub(r'name="shown" value="([^"]*)"', lambda found: f'name="shown" value="{unprinted(found[1])}"',
                      text)
        text = text.replace(name, "NAME").replace(volume, "VOLUME")
        return text.replace(overview.short_key(f"{NS}/{name}"), "KEY")

    headers = {k: plain(v) for k, v in response.headers.items() if k not in ("Set-Cookie", "ETag", "X-Request-ID")}
    return response.status_code, headers, plain(response.content.decode())


def unprinted(packed: str) -> str:
    """A page's packed value with its lines' fingerprints as placeholders (kinds and keys stay): a line's
    fingerprint is a digest of its HTML, whose links carry what the person typed (``open=<name>``), so two
    names typed give two fingerprints, whichever campaigns they name."""
    width = 1 + overview.KEY_CHARS + 8
    body = packed.removeprefix(overview.PACKED)
    entries = [body[start : start + width] for start in range(0, len(body), width)]
    return overview.PACKED + "".join(entry[: 1 + overview.KEY_CHARS] + "FINGERPR" for entry in entries)


def asked(client, ask: Ask, name: str, volume: str, tab: str):
    return client.get(fill(ask.path, name, volume, tab), headers={"HX-Request": "true"} if ask.htmx else {})


def url_patterns(entries=None, prefix=""):
    """(route, pattern) of every URL in the URL conf, includes followed."""
    for entry in get_resolver().url_patterns if entries is None else entries:
        if isinstance(entry, URLResolver):
            yield from url_patterns(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def test_every_url_is_in_the_table():
    routes = {pattern.name: route for route, pattern in url_patterns()}
    assert None not in routes, "every URL has a name, which the table knows it by"
    missing = set(routes) - set(ASKS) - set(TAKES_NO_CAMPAIGN)
    assert not missing, f"teach ASKS (or TAKES_NO_CAMPAIGN, with the reason) how these ask about a campaign: {missing}"
    taking = {name for name, route in routes.items() if "<" in route}
    assert taking <= set(ASKS), f"these take a name or key in their path: {taking - set(ASKS)}"
    assert not (set(ASKS) | set(TAKES_NO_CAMPAIGN)) - set(routes), "the table names a URL that is gone"
    assert not set(ASKS) & set(TAKES_NO_CAMPAIGN)


@pytest.mark.parametrize("account", ["project", "outsider"])
@pytest.mark.parametrize("url_name", sorted(ASKS))
def test_a_hidden_campaign_answers_as_an_invented_one(hidden, client, store, session_key_file, account, url_name):
    login_as(client, store.accounts[account])
    page = client.get("/")
    tab = shown_value(page.content.decode())
    if account == "project":
        assert OWN in page.content.decode() and HIDDEN not in page.content.decode()
    for ask in ASKS[url_name]:
        real = asked(client, ask, HIDDEN, HIDDEN_VOLUME, tab)
        invented = asked(client, ask, INVENTED, INVENTED_VOLUME, tab)
        where = (account, ask)
        assert real.status_code < 500, where
        typed = fill(ask.path, HIDDEN, HIDDEN_VOLUME, tab)
        shown = real.content.decode() + str(real.headers)
        assert [secret for secret in SECRETS if secret in shown and secret not in typed] == [], where
        assert normalised(real, HIDDEN, HIDDEN_VOLUME) == normalised(invented, INVENTED, INVENTED_VOLUME), where


def test_a_poll_marks_a_line_it_cannot_name_gone_by_the_key_the_tab_sent(hidden, client, store, session_key_file):
    """The poll's answer to a key of a hidden campaign is the one it gives to a campaign gone from the cluster."""
    login_as(client, store.accounts["project"])
    tab = shown_value(client.get("/").content.decode())
    key = overview.short_key(f"{NS}/{HIDDEN}")
    answer = client.get("/changes", {"shown": f"{tab}r{key}{FINGERPRINT}"}, headers={"HX-Request": "true"})
    text = answer.content.decode()
    assert answer.status_code == 200
    selector = f"#overview-rows > li[data-key='{key}']"
    assert f'data-key="{key}" hx-swap-oob="outerHTML:{selector}"' in text
    assert "no longer in the cluster" in text and HIDDEN not in text
    again = client.get("/changes", {"shown": shown_value(text)}, headers={"HX-Request": "true"})
    assert again.status_code == 204  # the tab keeps the line as gone, and is not told again


def test_what_shows_campaigns_answers_the_same_with_the_hidden_campaign_there_or_not(
    own_campaign, client, store, session_key_file
):
    reader = reader_of_everything(store)  # first: a login starts from clean counters, the feed's token among them
    login_as(client, store.accounts["project"])
    client.post("/feed", {"action": "new"})
    token = re.search(r"token=([^\"&<\s]+)", client.get("/feed").content.decode()).group(1)
    tab = shown_value(client.get("/").content.decode())
    paths = [path.format(tab=tab, token=token) for path in SHOWING]
    before = [without_times(client.get(path)) for path in paths]
    add_hidden(own_campaign, reader)
    after = [without_times(client.get(path)) for path in paths]
    for path, one, other in zip(paths, before, after, strict=True):
        assert one == other, path


def without_times(response) -> tuple[int, dict, str]:
    """An answer less what says when it was made (a feed with no entry is as new as the request)."""
    assert HIDDEN not in response.content.decode()
    status, headers, body = normalised(response, HIDDEN, HIDDEN_VOLUME)
    return status, headers, re.sub(r"<updated>[^<]*</updated>", "", body)

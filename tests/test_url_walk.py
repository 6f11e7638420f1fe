"""Every URL in the URL conf, driven as an account that may read nothing and as one whose rights start
below the namespace: neither learns a campaign name, volume id or message it may not read, and a real
name it may not read answers exactly as an invented one.

The walk is built from the URL conf itself, so a view added later is walked too (a pattern this module
cannot fill in fails the test until it is taught how).
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from tests.campaigns.web.test_views import add_campaign, failed_pod, prepared_cluster
from tests.fixtures.session import login_as

SECRET_CAMPAIGN = "secret-parish-1871"
INVENTED_CAMPAIGN = "secret-parish-1872"
SECRET_PIPELINE = "swe-lines-v2"
SECRET_VOLUME = "C0099001"
INVENTED_VOLUME = "C0099002"
SECRET_MESSAGE = "OOMKilled while reading the secret ledger"
OWN_CAMPAIGN = "kansli-v3"
# What no account that may not read SECRET_PIPELINE may ever be shown, unless it typed it.
SECRETS = (SECRET_CAMPAIGN, SECRET_VOLUME, SECRET_MESSAGE, "C0099003")


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


@pytest.fixture
def scene(cluster, store):
    add_campaign(cluster, SECRET_CAMPAIGN, volume_ids=[SECRET_VOLUME, "C0099003"], completed="0", failed="1",
                 pipeline=SECRET_PIPELINE)
    cluster.put(failed_pod(SECRET_CAMPAIGN, 1, SECRET_MESSAGE))
    add_campaign(cluster, OWN_CAMPAIGN, volume_ids=["K1", "K2"], completed="0", active=1, pipeline="swe-lines-v4")
    results = f"htr-batch/{SECRET_PIPELINE}/{SECRET_VOLUME}"
    store.put(f"{results}/progress.json", '{"stage": "done"}', "application/json")
    store.put(f"{results}/alto/0001.xml", "<alto/>", "application/xml")
    store.put(f"htr-batch/status/logs/{SECRET_PIPELINE}/{SECRET_VOLUME}.txt", f"ERROR {SECRET_MESSAGE}\n", "text/plain")
    return cluster


def patterns(resolvers=None, prefix=""):
    """(route, pattern) for every URL pattern, includes followed."""
    for entry in resolvers if resolvers is not None else get_resolver().url_patterns:
        if isinstance(entry, URLResolver):
            yield from patterns(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def addresses(route: str, name: str, volume: str) -> list[str]:
    """The URLs that exercise ``route`` about campaign ``name`` and volume ``volume``."""
    key = f"htr-batch/{SECRET_PIPELINE}/{volume}"
    fills = {
        "<str:namespace>": "htr-batch",
        "<str:name>": name,
        "<str:volume>": volume,
        "<str:campaign>": name,  # the volume downloads name their campaign so
        "<path:key>": f"{key}/progress.json",
    }
    path = "/" + route
    for placeholder, value in fills.items():
        path = path.replace(placeholder, value)
    if "<" in path:
        pytest.fail(f"the walk does not know how to fill in {route}: teach it")
    log = quote(f"/results/htr-batch/status/logs/{SECRET_PIPELINE}/{volume}.txt")
    alto = quote(f"/results/{key}/alto/0001.xml")
    queries = {
        "/log": [f"?log={log}", f"?log={log}&live=1", f"?log={log}&q=ERROR"],
        "/log/more": [f"?log={log}&after=0"],
        "/log/earlier": [f"?log={log}&before=100"],
        "/log/find": [f"?log={log}&q=ERROR"],
        "/alto": [f"?src={alto}", f"?src={alto}&goto=2"],
        "/alto/text": [f"?src={alto}"],
        "/": ["", f"?q={name}", f"?q={volume}"],
        "/changes": [""],
        "/api/v1/jobs": ["", "?reaped=100"],
    }
    return [path + query for query in queries.get(path, [""])]


def secrets_in(text: str, typed: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text and secret not in typed]


def normalised(text: str, name: str, volume: str) -> str:
    text = text.replace(name, "NAME").replace(volume, "VOLUME")
    # A feed's <updated> may be when it was rendered: two renders may fall in different seconds (the minute
    # is kept, so a time that comes from a campaign still has to agree).
    text = re.sub(r"(<updated>[0-9-]+T[0-9]{2}:[0-9]{2}):[0-9]{2}(?:\.[0-9]+)?", r"\1:ss", text)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", text)


@pytest.mark.parametrize("account", ["outsider", "project"])
@pytest.mark.parametrize("htmx", [False, True])
def test_no_url_shows_what_the_account_may_not_read(scene, client, store, session_key_file, settings, account, htmx):
    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    login_as(client, store.accounts[account])
    headers = {"HX-Request": "true"} if htmx else {}
    walked = 0
    for route, _pattern in patterns():
        for real, invented in zip(addresses(route, SECRET_CAMPAIGN, SECRET_VOLUME),
                                  addresses(route, INVENTED_CAMPAIGN, INVENTED_VOLUME), strict=True):
            if real.startswith("/logout"):
                continue  # walked last: it ends the session
            shown = client.get(real, headers=headers)
            other = client.get(invented, headers=headers)
            text, other_text = shown.content.decode(), other.content.decode()
            assert shown.status_code < 500, (real, shown.status_code)
            assert not secrets_in(text, real), (real, secrets_in(text, real))
            assert shown.status_code == other.status_code, (real, shown.status_code, other.status_code)
            assert normalised(text, SECRET_CAMPAIGN, SECRET_VOLUME) == normalised(
                other_text, INVENTED_CAMPAIGN, INVENTED_VOLUME
            ), real
            walked += 1
    assert walked >= 25
    if account == "project":
        assert OWN_CAMPAIGN in client.get("/").content.decode()
    assert client.get("/logout").status_code < 500

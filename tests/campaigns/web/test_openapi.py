"""The read API's OpenAPI document (campaigns/web/openapi.yaml, served at /api/v1/openapi.json) against the code.

Every answer asked of the running app here is validated against the document with every object closed
(tests/campaigns/web/openapi_check.py): the demo scene's campaigns, list and detail, in every situation it holds,
and each error a table of situations below makes. A field the code gives that the document lacks fails; so
does a documented field no answer gives, a documented status no situation here makes, and a URL pattern under
api/v1/ that the document lacks (or the reverse). The document's enums and defaults are compared with the
constants the code uses.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.cache import cache
from django.urls import URLPattern, URLResolver, get_resolver
from openapi_spec_validator import validate as validate_openapi

from campaigns import models
from campaigns.cluster import reading
from campaigns.domain.diagnosis import codes
from campaigns.models import findings, pace
from campaigns.store import progress as progress_module
from campaigns.web import api, openapi
from results.accounts import session
from results.store import access
from tests.campaigns.cluster.test_kube import NS
from tests.campaigns.web.openapi_check import Checker
from tests.campaigns.web.test_views import add_campaign, failed_pod, prepared_cluster
from tests.fixtures.kube import cluster_goes_down
from tests.fixtures.scene import start_stack
from tests.fixtures.session import login_as

JOBS = "/api/v1/jobs"
DETAIL = "/api/v1/jobs/{namespace}/{name}"
VOLUMES = "/api/v1/jobs/{namespace}/{name}/volumes"
VERSION = "/api/v1/version"
DOCUMENT = "/api/v1/openapi.json"
CAMPAIGN = "parish-records-1870"
MANY_PARAMETERS = "&".join(f"p{number}=1" for number in range(1_001))


@pytest.fixture(scope="module")
def document():
    return openapi.document()


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


# --- the document itself -----------------------------------------------------------------------------------


def test_the_served_document_is_valid_openapi_3_1_and_is_the_documents_own(results_client, document):
    response = results_client.get(DOCUMENT)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response.json() == document
    validate_openapi(response.json())  # raises at the first thing OpenAPI 3.1 does not allow
    assert nulls(document) == [], "a YAML flow mapping split at a comma: quote the text"


def nulls(node, path="$") -> list[str]:
    """Where the document holds null: nowhere it is meant to, so a key of null is a text cut short."""
    if isinstance(node, dict):
        return [found for key, value in node.items() for found in nulls(value, f"{path}.{key}")]
    if isinstance(node, list):
        return [found for i, value in enumerate(node) for found in nulls(value, f"{path}[{i}]")]
    return [path] if node is None else []


def test_the_finding_codes_are_the_diagnosis_own_list(document):
    enum = document["components"]["schemas"]["FindingCode"]["enum"]
    assert enum == list(codes.ALL)
    assert len(set(enum)) == len(enum)
    assert all(re.fullmatch(r"[a-z]+\.[a-z_]+", code) for code in enum), enum


def test_the_enums_limits_and_names_are_the_codes_own(document):
    schemas = document["components"]["schemas"]

    def enum(schema: str, field: str) -> list:
        return schemas[schema]["properties"][field]["enum"]

    assert enum("JobSummary", "phase") == list(models.RECORD_PHASES.values())
    assert enum("JobDetail", "phase") == list(models.RECORD_PHASES.values())
    assert enum("VolumeView", "state") == list(models.VOLUME_STATES)
    assert enum("Queue", "kind") == list(models.QUEUE_KINDS)
    assert enum("Warmup", "phase") == list(models.WARMUP_STATES)
    assert enum("Finding", "actor") == list(findings.ACTORS)
    assert enum("Check", "outcome") == [findings.EQUAL, findings.DIFFERS, findings.NOT_READ]
    assert set(enum("ForecastBasis", "pace")) == {pace.LAST_HOUR, pace.RECENT, pace.SINCE_START}
    assert schemas["Version"]["properties"]["api"]["const"] == api.API_VERSION
    assert document["info"]["version"] == api.PRODUCT_VERSION
    parameters = {p["name"]: p for op in document["paths"].values() for p in op["get"].get("parameters", [])}
    assert parameters["reaped"]["schema"]["default"] == api.REAPED_DEFAULT
    assert (parameters["limit"]["schema"]["default"], parameters["limit"]["schema"]["maximum"]) == (
        api.LIMIT_DEFAULT, api.LIMIT_MAX)
    assert parameters["name"]["schema"]["pattern"] == reading.DNS_LABEL.pattern
    cookies = {s["name"] for s in document["components"]["securitySchemes"].values()}
    assert cookies == {session.SECURE_COOKIE, session.PLAIN_COOKIE}


def url_patterns(resolvers=None, prefix=""):
    """The route of every URL pattern, includes followed."""
    for entry in resolvers if resolvers is not None else get_resolver().url_patterns:
        if isinstance(entry, URLResolver):
            yield from url_patterns(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern)


def test_the_documents_paths_are_the_url_patterns_under_api_v1(document):
    routes = {"/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route) for route in url_patterns()}
    assert {route for route in routes if route.startswith("/api/v1/")} == set(document["paths"])


def test_the_checker_finds_an_undocumented_field_a_wrong_type_a_missing_header_and_an_unknown_status(document):
    changed = openapi.document()
    del changed["components"]["schemas"]["Version"]["properties"]["web"]
    changed["components"]["schemas"]["Version"]["required"].remove("web")
    changed["components"]["schemas"]["Version"]["properties"]["version"]["type"] = "integer"
    answer = Answer(200, {"api": "v1", "version": "1.0.0", "web": "1.0.0", "name": "htrbrowser"}, {})
    problems = Checker(changed).check(VERSION, answer)
    assert "header Cache-Control is missing" in problems
    assert any("'web' was unexpected" in line for line in problems), problems
    assert any(line.startswith("$.version: '1.0.0' is not of type 'integer'") for line in problems), problems
    checker = Checker(document)
    assert checker.check(VERSION, Answer(418, {}, {})) == ["GET /api/v1/version: status 418 is not documented"]
    unknown = checker.check("/api/v1/nothing", Answer(404, {}, {}))
    assert unknown == ["GET /api/v1/nothing: no such operation in the document"]


def test_a_field_the_code_adds_and_the_document_lacks_fails_the_check(cluster, results_client, monkeypatch,
                                                                     document):
    add_campaign(cluster, CAMPAIGN, volume_ids=["C1"], active=1)
    checker = Checker(document)
    assert checker.check(JOBS, results_client.get(JOBS)) == []
    given = api.summary
    monkeypatch.setattr(api, "summary", lambda campaign: {**given(campaign), "newField": 1})
    problems = checker.check(JOBS, results_client.get(JOBS))
    assert problems == ["$[0]: Additional properties are not allowed ('newField' was unexpected)"]


@dataclass
class Answer:
    """Just enough of a response for the checker's own test."""

    status_code: int
    body: Any
    headers: dict

    def __post_init__(self):
        self.content = json.dumps(self.body).encode()
        self.headers.setdefault("Content-Type", "application/json")

    def has_header(self, name):
        return name in self.headers

    def __getitem__(self, name):
        return self.headers[name]


# --- every answer about the demo scene ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_stack(live_server, tmp_path_factory):
    """The demo scene as built, on stand-ins of its own: the session's shared stack is moved on by other tests,
    and what this module asks must not depend on which ran before it."""
    stack = start_stack(live_server.url + "/results", tmp_path_factory.mktemp("openapi-stack"))
    try:
        yield stack
    finally:
        stack.stop()


@pytest.fixture
def demo_client(scene, client, session_key_file, settings):
    settings.HTRFLOW_WRITE_STATUS = False
    reading.clear_cache()
    progress_module.clear_cache()
    cache.clear()
    login_as(client, scene.store.accounts["full"])
    yield client
    reading.clear_cache()


def test_every_answer_about_the_demo_scene_fits_and_gives_every_documented_field(demo_client, document):
    checker = Checker(document)
    problems = []

    def ask(path):
        response = demo_client.get(path)
        problems.extend(f"{path}: {line}" for line in checker.check(path, response))
        return response

    listed = ask(f"{JOBS}?reaped=10000").json()
    assert len(listed) >= 20 and {job["jobGone"] for job in listed} == {True, False}
    for job in listed:
        ask(f"/api/v1/jobs/{job['namespace']}/{job['name']}")
    ask(f"/api/v1/jobs/{NS}/{CAMPAIGN}?offset=3&limit=2")
    ask(f"/api/v1/jobs/{NS}/{CAMPAIGN}/volumes?offset=0&limit=50")
    ask(VERSION)
    ask(DOCUMENT)
    assert problems == []
    shown = [name for name in document["components"]["schemas"] if name not in ("Error", "Refusal")]
    assert checker.fields(*shown) - checker.seen == set(), "documented, yet no answer about the demo scene gives it"
    assert {(template, status) for template, _, status in checker.answered} == {
        (JOBS, "200"), (DETAIL, "200"), (VOLUMES, "200"), (VERSION, "200"), (DOCUMENT, "200")}
    codes_given = {finding["code"] for job in listed for finding in job["findings"]}
    assert len(codes_given) >= 10  # the scene shows a campaign for each cause it can


# --- every error, from a table of situations ---------------------------------------------------------------


def no_session(client, **_):
    return client


def reader(client, store, session_key_file, **_):
    login_as(client, store.accounts["full"])
    return client


def outsider(client, store, session_key_file, settings, **_):
    settings.HTRFLOW_CARDS_FOR = "namespace-readers"
    login_as(client, store.accounts["outsider"])
    return client


def store_gone(client, store, session_key_file, settings, **_):
    """A project account whose access is not proved yet, and a store that does not answer."""
    settings.HTRFLOW_S3_TIMEOUT = 0.5
    login_as(client, store.accounts["project"])
    access.clear_cache()
    settings.S3_ENDPOINT = "http://127.0.0.1:9"  # nothing listens there
    return client


def cluster_never_read(client, cluster, **kwargs):
    cluster.inject_fault(r".*", status=503)
    return reader(client, **kwargs)


def cluster_gone_since(client, cluster, **kwargs):
    """The cluster read once, then gone: answers come from the last reading, marked stale."""
    reader(client, **kwargs)
    assert client.get(JOBS).status_code == 200
    cluster_goes_down(cluster)
    return client


def failing(client, monkeypatch, **kwargs):
    """A reader whose every read of the cluster fails in the code itself: the site's own 500."""

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(reading, "read_cluster", broken)
    monkeypatch.setattr(reading, "find_campaign", broken)
    client.raise_request_exception = False
    return reader(client, **kwargs)


@dataclass(frozen=True)
class Situation:
    name: str
    setup: Any
    method: str
    path: str
    status: int
    template: str | None  # None: a path the document does not have, answered as its errors are


def each(name: str, setup, status: int, *templates: str, method: str = "get") -> list[Situation]:
    """The same situation asked of each of ``templates``, about the campaign every situation has."""
    about = {"namespace": NS, "name": CAMPAIGN}
    return [Situation(f"{name} {t}", setup, method, t.format(**about), status, t) for t in templates]


SITUATIONS = [
    *each("no session", no_session, 401, JOBS, DETAIL, VOLUMES, VERSION, DOCUMENT),
    *each("POST", reader, 405, JOBS, DETAIL, VOLUMES, VERSION, DOCUMENT, method="post"),
    Situation("reaped is no number", reader, "get", f"{JOBS}?reaped=lots", 400, JOBS),
    Situation("a negative offset", reader, "get", f"/api/v1/jobs/{NS}/{CAMPAIGN}?offset=-1", 400, DETAIL),
    Situation("too many parameters", reader, "get", f"/api/v1/jobs/{NS}/{CAMPAIGN}?{MANY_PARAMETERS}", 400, DETAIL),
    Situation("no such campaign", reader, "get", f"/api/v1/jobs/{NS}/no-such-campaign", 404, DETAIL),
    Situation("a volume table's negative offset", reader, "get", f"/api/v1/jobs/{NS}/{CAMPAIGN}/volumes?offset=-1",
              400, VOLUMES),
    Situation("no such campaign's volume table", reader, "get", f"/api/v1/jobs/{NS}/no-such-campaign/volumes", 404,
              VOLUMES),
    Situation("a namespace not served", reader, "get", "/api/v1/jobs/elsewhere/anything", 404, DETAIL),
    Situation("no such endpoint", reader, "get", "/api/v1/no-such-thing", 404, None),
    *each("outsider", outsider, 403, JOBS, DETAIL, VOLUMES),
    *each("store gone", store_gone, 503, JOBS, DETAIL, VOLUMES),
    *each("cluster never read", cluster_never_read, 502, JOBS, DETAIL, VOLUMES),
    *each("cluster gone", cluster_gone_since, 200, JOBS, DETAIL, VOLUMES),
    *each("a bug", failing, 500, JOBS, DETAIL, VOLUMES),
]


def test_every_documented_status_is_made_by_a_situation_here(document):
    documented = {(t, m, s) for t, item in document["paths"].items() for m, op in item.items() for s in op["responses"]}
    made = {(s.template, "get", str(s.status)) for s in SITUATIONS if s.template is not None}
    made |= {(t, "get", "200") for t in (JOBS, DETAIL, VOLUMES, VERSION, DOCUMENT)}  # the demo scene's test
    assert documented - made == set(), "documented, yet no situation here makes it"


@pytest.mark.parametrize("situation", SITUATIONS, ids=[s.name for s in SITUATIONS])
def test_each_situation_is_answered_as_documented(situation, cluster, client, store, session_key_file, settings,
                                                  monkeypatch, document):
    add_campaign(cluster, CAMPAIGN, volume_ids=["C1", "C2", "C3"], completed="0", failed="1", active=1)
    cluster.put(failed_pod(CAMPAIGN, 1, "OOMKilled while segmenting C2"))
    try:
        asking = situation.setup(client=client, cluster=cluster, store=store, session_key_file=session_key_file,
                                 settings=settings, monkeypatch=monkeypatch)
        response = getattr(asking, situation.method)(situation.path)
    finally:
        access.clear_cache()  # a proof made against a store that was gone must not outlive the test
    assert response.status_code == situation.status, response.content[:300]
    checker = Checker(document)
    if situation.template is None:
        assert checker.validate("/components/schemas/Error", response.json()) == []
        return
    assert checker.check(situation.path, response) == []  # the document says what any method is answered
    if situation.status == 200:
        snapshot = response.json()[0]["snapshot"] if situation.template == JOBS else response.json()["snapshot"]
        assert snapshot["stale"] is True and response["X-Snapshot-Stale-Since"] == snapshot["since"]

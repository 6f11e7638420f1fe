"""Pages under a slow results store (issue 19): real boto3 against the store double, slowed at run time.

The double answers every request only after SLOW_SECONDS, below the store timeout, as a store under
load does; pages wait only SLOW_WAIT_SECONDS for it. So a page that shows "not known yet" has not
waited for the store's answer (which would have carried the progress), and a later poll that shows
the progress got it from the read the earlier page left running.
"""

from __future__ import annotations

import json
import uuid

import pytest

from campaigns.store import progress as progress_module
from campaigns.web.gate import NOT_CHECKED
from campaigns.wording.progress import CARD_SENTENCES, VOLUME_SENTENCES
from results.store import access
from tests.campaigns.cluster.test_kube import NS, campaign_pod
from tests.campaigns.web.test_views import add_campaign, page_text, prepared_cluster
from tests.fixtures.session import login_as
from tests.fixtures.store import SLOW_SECONDS
from tests.fixtures.waiting import wait_until

NOT_KNOWN = VOLUME_SENTENCES[progress_module.PENDING]  # lazy: said in the test's language where compared
SLOW_CARD = CARD_SENTENCES[progress_module.PENDING]


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


@pytest.fixture(autouse=True)
def settled_store_reads(settings):
    """Each test ends once the reads it left running have landed, while its settings still hold (else
    they would ask the default endpoint and count an outage for the tests after it)."""
    yield
    wait_until(
        lambda: not progress_module._in_flight and not access._proofs._proving,
        timeout=30,
        what="no read nor proof left in flight",
    )


@pytest.fixture
def running(cluster, slow_store):
    """A campaign with one running volume whose progress the store holds: (campaign, progress key)."""
    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "live-one", volume_ids=["C0074519"], pipeline=pipeline, active=1)
    cluster.put(campaign_pod("live-one", 0))
    key = f"{NS}/{pipeline}/C0074519/progress.json"
    slow_store.put(key, json.dumps({"stage": "stream", "pages_total": 412, "pages_done": 137}))
    return "live-one", key


@pytest.fixture
def full_gets(slow_store):
    """The keys GET from now on with the ``full`` account's client (the product's own, one per account)."""
    from results.store import s3 as store_module

    account = slow_store.accounts["full"]
    client = store_module.client_for(account.access_key, account.secret_key)
    keys: list[str] = []

    def count(params, **_):
        keys.append(params.get("Key", ""))

    client.meta.events.register("provide-client-params.s3.GetObject", count)
    yield keys
    client.meta.events.unregister("provide-client-params.s3.GetObject", count)


def test_a_page_answers_with_not_known_yet_and_the_next_poll_shows_the_progress(
    running, client, slow_store, session_key_file, full_gets
):
    name, key = running
    login_as(client, slow_store.accounts["full"])
    assert client.get("/api/v1/jobs").status_code == 200  # the account's access proved at full speed
    full_gets.clear()
    slow_store.slow(SLOW_SECONDS)
    page = page_text(client.get(f"/campaigns/{NS}/{name}"))
    assert str(NOT_KNOWN) in page and str(SLOW_CARD) in page  # answered before the store did
    assert "did not answer in time" not in page
    assert "137 of 412" not in page
    detail = client.get(f"/api/v1/jobs/{NS}/{name}").json()  # a poll while the read is under way
    assert detail["progressSentence"] == str(SLOW_CARD) and detail["pagesCounted"]["volumes"] == 0
    poll = f"/campaigns/{NS}/{name}/card"  # the campaign page's own poll, as htmx asks it
    assert wait_until(lambda: "137 of 412" in page_text(client.get(poll, HTTP_HX_REQUEST="true")), what="137 of 412")
    assert full_gets.count(key) == 1  # one read in flight per key: the polls in between asked nothing
    landed = page_text(client.get("/", {"open": f"{NS}/{name}"}))
    assert "137 of 412" in landed and str(NOT_KNOWN) not in landed and str(SLOW_CARD) not in landed


def test_a_store_slower_than_its_timeout_gets_its_card_sentence_once_the_read_fails(
    running, client, slow_store, session_key_file, settings
):
    name, _key = running
    login_as(client, slow_store.accounts["full"])
    assert client.get("/api/v1/jobs").status_code == 200
    settings.HTRFLOW_S3_TIMEOUT = 0.6  # the store now answers after its timeout: it counts as not answering
    slow_store.slow(SLOW_SECONDS)
    assert str(NOT_KNOWN) in page_text(client.get(f"/campaigns/{NS}/{name}"))
    timed_out = str(CARD_SENTENCES[progress_module.TIMEOUT])
    assert wait_until(lambda: timed_out in page_text(client.get(f"/campaigns/{NS}/{name}")), what=repr(timed_out))
    # said on every poll while the store is asked again behind it, not "not known yet" in between
    assert client.get(f"/api/v1/jobs/{NS}/{name}").json()["progressSentence"] == timed_out


def test_the_gate_answers_from_the_last_proof_and_proves_again_behind_it(
    running, client, slow_store, session_key_file, settings, monkeypatch
):
    settings.HTRFLOW_ACCESS_SECONDS = 60
    now = [access._clock()]
    monkeypatch.setattr(access, "_clock", lambda: now[0])
    login_as(client, slow_store.accounts["project"])
    assert client.get("/api/v1/jobs").status_code == 403  # proved: it may read no campaign of this pipeline
    proof_key = access._key_of(slow_store.accounts["project"].access_key, slow_store.accounts["project"].secret_key)
    first = access._proofs.get(proof_key).proved_at
    slow_store.allow_only("project", [running[1].rsplit("/", 2)[0] + "/"])  # its campaign's pipeline now
    slow_store.slow(SLOW_SECONDS)
    try:
        now[0] += 61  # the whole interval has passed, and the store is slow: the last proof answers now
        assert client.get("/api/v1/jobs").status_code == 403
        assert wait_until(lambda: access._proofs.get(proof_key).proved_at > first, what="a new proof")

        def names():
            answer = client.get("/api/v1/jobs").json()
            now[0] += 61  # time passes between two looks: a proof that could not ask everything is made again
            return [job["name"] for job in answer] if isinstance(answer, list) else answer

        # The new proof's answer: on a loaded machine a proof may come back before it could ask about every
        # pipeline (the cluster not read in time, a probe past the store's timeout), and the next one asks.
        assert wait_until(
            lambda: names() == [running[0]], timeout=30, interval=0.5, what="the campaign the new proof shows"
        )
    finally:
        slow_store.slow(0)
        slow_store.restore("project")


def test_a_person_never_proved_waits_for_a_slow_store_once_and_is_let_in(
    running, client, slow_store, session_key_file
):
    login_as(client, slow_store.accounts["full"])  # at full speed; a login proves nothing for the gate
    slow_store.slow(SLOW_SECONDS)  # slow, but within its timeout: nothing known, so the first page waits
    assert client.get("/").status_code == 200


def test_a_person_never_proved_meets_a_store_past_its_timeout_and_is_answered_from_the_login(
    running, client, slow_store, session_key_file, settings
):
    login_as(client, slow_store.accounts["full"])  # at full speed: the login proved the namespace
    slow_store.slow(SLOW_SECONDS)
    settings.HTRFLOW_S3_TIMEOUT = 0.2  # every proof's call now times out: the first page waits no longer
    page = client.get("/")
    assert page.status_code == 200 and NOT_CHECKED.replace("'", "&#x27;") not in page_text(page)
    assert client.get("/api/v1/jobs").status_code == 200


def test_login_files_and_the_log_viewer_wait_for_a_slow_store_and_end_in_a_sentence_past_its_timeout(
    client, slow_store, session_key_file, store_prefix, settings
):
    settings.HTRFLOW_RESULTS_URL = "http://testserver/results"
    log_key = f"{store_prefix}p/V1.txt"
    slow_store.put(log_key, "2026-12-02 10:00:00 INFO starting V1\n2026-12-02 10:00:05 INFO finished\n")
    slow_store.slow(SLOW_SECONDS)  # below the store timeout: slow, but answered
    login_as(client, slow_store.accounts["full"])
    raw = client.get(f"/results/{log_key}")
    assert b"".join(raw.streaming_content).startswith(b"2026-12-02 10:00:00 INFO starting V1")
    viewer = page_text(client.get("/log", {"log": f"http://testserver/results/{log_key}"}))
    assert "starting V1" in viewer
    settings.HTRFLOW_S3_TIMEOUT = 0.6  # past the store timeout: each ends in its sentence
    late = client.get(f"/results/{log_key}")
    assert late.status_code == 504 and "did not answer in time" in late.content.decode()
    viewer = client.get("/log", {"log": f"http://testserver/results/{log_key}"})
    assert viewer.status_code != 500 and "did not answer in time" in page_text(viewer)
    client.cookies.clear()
    answer = client.post(
        "/results/_login",
        data=json.dumps({"username": "full-reader", "password": "read-everything"}),
        content_type="application/json",
        HTTP_ORIGIN="http://testserver",
    )
    assert answer.status_code == 504 and "did not answer in time" in answer.json()["error"]

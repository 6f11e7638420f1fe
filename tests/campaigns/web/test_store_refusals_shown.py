"""What a card says when the results store refuses or fails a volume's progress (issue 35, item 6), against the
real local S3 server: a 403 names, for an operator, the object refused under which prefix and the permission
that would allow it, while the archivist's words stay plain; a failed TLS handshake and a store's own 5xx each
reach the card as a sentence of their own, not as "could not be reached"."""

from __future__ import annotations

import html
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from campaigns.store import progress as progress_module
from campaigns.wording.progress import CARD_SENTENCES
from results.store import access
from results.store import s3 as store_module
from tests.campaigns.cluster.test_kube import NS, campaign_pod
from tests.campaigns.web.test_views import add_campaign, card_html, page_text, prepared_cluster
from tests.fixtures.kube import eventually
from tests.fixtures.session import login_as


@pytest.fixture
def cluster(kube, settings):
    yield from prepared_cluster(kube, settings)


@pytest.fixture(autouse=True)
def settled_store_reads(settings):
    """Each test ends once the reads it left running have landed, while its settings still hold."""
    yield
    eventually(lambda: not progress_module._in_flight and not access._proofs._proving, seconds=30)
    store_module.forget_clients()


@pytest.fixture
def running(cluster, store, session_key_file):
    """A campaign with two running volumes whose progress the store holds: (campaign, pipeline)."""
    pipeline = "p-" + uuid.uuid4().hex[:8]
    add_campaign(cluster, "live-two", volume_ids=["C1", "C2"], pipeline=pipeline, active=2)
    cluster.put(campaign_pod("live-two", 0))
    cluster.put(campaign_pod("live-two", 1))
    for volume in ("C1", "C2"):
        store.put(f"{NS}/{pipeline}/{volume}/progress.json",
                  json.dumps({"stage": "stream", "pages_total": 40, "pages_done": 7}))
    return "live-two", pipeline


def card_of(client, name) -> str:
    return html.unescape(card_html(page_text(client.get("/", {"open": f"{NS}/{name}"})), name))


def test_a_refused_volume_names_the_object_prefix_and_permission_for_the_operator_only(running, client, store):
    name, pipeline = running
    store.deny_limited(f"{NS}/{pipeline}/C2/")  # a prefix this test made up
    login_as(client, store.accounts["limited"])
    card = card_of(client, name)
    assert "7 of 40 pages" in card  # C1 is read
    details = card.split('<details class="ops"')[1]
    key = f"{NS}/{pipeline}/C2/progress.json"
    assert f"refused your account s3:GetObject on {key} in bucket {store.bucket}" in details
    assert f"<code>s3:GetObject</code> on <code>{store.bucket}/{NS}/{pipeline}/C2/*</code>" in details
    archivist = card.split('<details class="ops"')[0]
    assert "may not read the results of 1 of these volumes" in archivist
    assert "s3:" not in archivist and key not in archivist


def test_a_store_whose_tls_handshake_fails_gets_its_own_sentence_naming_s3_verify_tls(
    running, client, store, settings
):
    name, _pipeline = running
    login_as(client, store.accounts["full"])
    assert client.get("/api/v1/jobs").status_code == 200  # the account's access proved over plain HTTP
    settings.S3_ENDPOINT = store.endpoint.replace("http://", "https://")  # the double speaks no TLS
    tls = str(CARD_SENTENCES[progress_module.TLS])
    assert "S3_VERIFY_TLS" in tls
    assert eventually(lambda: tls in card_of(client, name))
    assert str(CARD_SENTENCES[progress_module.UNREACHABLE]) not in card_of(client, name)


class _Faulty(BaseHTTPRequestHandler):
    """A store answering every request 503 with S3's error body, as one failing on its side does."""

    def _fault(self):
        body = b"<Error><Code>ServiceUnavailable</Code><Message>Please reduce your request rate.</Message></Error>"
        self.send_response(503)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_HEAD = _fault  # noqa: N815 - the names http.server asks for

    def log_message(self, *args):
        pass


@pytest.fixture
def faulty_endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Faulty)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_store_answering_5xx_gets_its_own_sentence(running, client, store, settings, faulty_endpoint):
    name, _pipeline = running
    login_as(client, store.accounts["full"])
    assert client.get("/api/v1/jobs").status_code == 200
    settings.S3_ENDPOINT = faulty_endpoint
    fault = str(CARD_SENTENCES[progress_module.STORE_FAULT])
    assert eventually(lambda: fault in card_of(client, name))
    assert str(CARD_SENTENCES[progress_module.UNREACHABLE]) not in card_of(client, name)

"""The kubelet's probes: any Host, GET and HEAD; everything else keeps the allowed-hosts rule."""

import base64
import logging
import os

import pytest

from campaigns.cluster import reading
from htrbrowser import probes

POD_IP = "10.1.2.3"


@pytest.fixture
def key_file(tmp_path, settings):
    path = tmp_path / "session-key"
    path.write_text(base64.b64encode(os.urandom(32)).decode())
    settings.HTRFLOW_SESSION_KEY_FILE = str(path)
    return path


@pytest.mark.parametrize("path, text", [("/healthz", b"ok\n"), ("/readyz", b"ready\n")])
@pytest.mark.parametrize("host", [POD_IP, f"{POD_IP}:8000", "[fd00::7]:8000"])
def test_a_kubelet_probe_by_pod_ip_gets_200_for_get_and_head(client, key_file, path, text, host):
    got = client.get(path, HTTP_HOST=host)
    assert got.status_code == 200
    assert got.content == text
    head = client.head(path, HTTP_HOST=host)
    assert head.status_code == 200
    assert head.content == b""


def test_a_probe_by_pod_ip_logs_no_disallowed_host_error(client, key_file, caplog):
    with caplog.at_level(logging.INFO):
        assert client.get("/healthz", HTTP_HOST=POD_IP).status_code == 200
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


def test_every_other_page_keeps_the_allowed_hosts_rule(client, key_file):
    assert client.get("/login", HTTP_HOST=POD_IP).status_code == 400
    assert client.get("/healthz/", HTTP_HOST=POD_IP).status_code == 400


def test_probes_refuse_other_methods(client, key_file):
    response = client.post("/readyz", HTTP_HOST=POD_IP)
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


def test_probes_reveal_nothing_and_carry_the_site_headers(client, key_file):
    response = client.get("/readyz", HTTP_HOST=POD_IP)
    assert response["Content-Type"].startswith("text/plain")
    assert "default-src 'self'" in response["Content-Security-Policy"]


def test_without_a_readable_session_key_the_pod_is_not_ready_but_alive(client, settings, tmp_path, caplog):
    settings.HTRFLOW_SESSION_KEY_FILE = str(tmp_path / "missing")
    with caplog.at_level(logging.WARNING, logger="htrbrowser.probes"):
        ready = client.get("/readyz", HTTP_HOST=POD_IP)
    assert ready.status_code == 503
    # The answer says nothing about why (a probe reveals nothing); the log says it to the operator.
    assert ready.content == b"not ready\n"
    assert "HTRFLOW_SESSION_KEY_FILE" in caplog.text
    assert client.get("/healthz", HTTP_HOST=POD_IP).status_code == 200


def test_a_key_file_that_is_not_a_key_makes_the_pod_unready(client, settings, tmp_path):
    bad = tmp_path / "key"
    bad.write_text("not base64 at all!")
    settings.HTRFLOW_SESSION_KEY_FILE = str(bad)
    assert client.get("/readyz").status_code == 503
    bad.write_text(base64.b64encode(os.urandom(32)).decode())
    assert client.get("/readyz").status_code == 200


def test_a_serious_settings_check_makes_the_pod_unready(client, key_file, monkeypatch):
    monkeypatch.setattr(probes, "_settings_problems", ["STATIC_ROOT is not a directory."])
    assert client.get("/readyz").status_code == 503
    monkeypatch.setattr(probes, "_settings_problems", None)
    assert probes.settings_problems() == []
    assert client.get("/readyz").status_code == 200


def test_an_unreachable_cluster_does_not_make_the_pod_unready(client, key_file, kube):
    kube.inject_fault(r".*", status=503)
    assert client.get("/readyz", HTTP_HOST=POD_IP).status_code == 200


@pytest.fixture
def shown(kube, settings):
    """Two shown namespaces on the cluster double, the boards started afresh."""
    settings.HTRFLOW_NAMESPACES = ["htr-batch", "archive-a"]
    settings.HTRFLOW_KUBE_TIMEOUT = 2.0
    reading.clear_cache()
    yield kube
    reading.clear_cache()


def test_helm_test_asks_the_app_whether_it_reads_each_shown_namespace_and_hears_names_only(client, shown):
    got = client.get("/readyz/namespaces", HTTP_HOST=POD_IP)
    assert got.status_code == 200
    assert got.json() == {"namespaces": {"htr-batch": True, "archive-a": True}}

    reading.clear_cache()
    shown.inject_fault(r"/namespaces/archive-a/", status=403)
    refused = client.get("/readyz/namespaces", HTTP_HOST=POD_IP)
    assert refused.status_code == 503
    # Names and yes/no only: neither the cause (forbidden, the account's name) nor anything read.
    assert refused.json() == {"namespaces": {"htr-batch": True, "archive-a": False}}
    assert b"forbidden" not in refused.content and b"serviceaccount" not in refused.content.lower()
    assert client.head("/readyz/namespaces", HTTP_HOST=POD_IP).content == b""


def test_the_namespace_answer_is_not_sent_to_https_or_the_login(client, shown, settings):
    """The `helm test` pod asks over the Service's plain http, without a session, whatever web.https says."""
    settings.SECURE_SSL_REDIRECT = True
    got = client.get("/readyz/namespaces", HTTP_HOST="htrbrowser.htr-batch.svc")
    assert got.status_code == 200 and got.json()["namespaces"]["htr-batch"] is True
    assert client.get("/login", HTTP_HOST="testserver").status_code == 301  # the rule still holds elsewhere

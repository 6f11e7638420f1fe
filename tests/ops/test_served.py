"""Metrics and JSON logs as the image serves them: gunicorn with two workers, the Dockerfile's command."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from tests.campaigns.web.test_views import add_campaign
from tests.fixtures.waiting import wait_until
from tests.test_serving import ROOT, dockerfile_command, free_port, production_env

LOGINS = 4  # under the per-name-and-address limit: the limits are shared by the workers
WAVES = 20  # at most this many waves of eight requests at once to have both workers answer


def writers_of(metrics_dir):
    """The processes that wrote figures: one file per process, named after its pid."""
    return {path.stem.rsplit("_", 1)[-1] for path in metrics_dir.glob("*.db")}


@pytest.fixture
def served(kube, store, tmp_path):
    """gunicorn (2 workers) against the API double and the store double, metrics on, JSON logs."""
    add_campaign(kube, "served", volume_ids=["A1", "A2"], completed="0", active=1)
    metrics_port = free_port()
    env = production_env(
        tmp_path,
        HTRFLOW_HTTPS="false",
        KUBECONFIG=str(kube.kubeconfig_path),
        HTRFLOW_RESULTS_NAMESPACE=store.namespace,
        S3_ENDPOINT=store.endpoint,
        S3_BUCKET=store.bucket,
        HTRFLOW_WRITE_STATUS="false",
        HTRFLOW_METRICS="true",
        HTRFLOW_METRICS_PORT=str(metrics_port),
        HTRFLOW_METRICS_DIR=str(tmp_path / "metrics"),
        HTRFLOW_LOG_FORMAT="json",
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT, env=env, check=True, capture_output=True, timeout=120,
    )
    port = free_port()
    log_file = tmp_path / "gunicorn.log"
    with open(log_file, "wb") as output:
        # The image runs one worker; metrics must add up across several, so this runs two.
        command = dockerfile_command(port)
        command[command.index("--workers") + 1] = "2"
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=output)
    base = f"http://127.0.0.1:{port}"
    def answering():
        if process.poll() is not None:
            pytest.fail(log_file.read_text())
        requests.get(base + "/healthz", timeout=5)
        return requests.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5)

    try:
        wait_until(
            answering, timeout=30, interval=0.1, what="the site and its metrics to answer",
            ignoring=(requests.RequestException,),
        )
        yield base, f"http://127.0.0.1:{metrics_port}/metrics", log_file, tmp_path / "metrics"
    finally:
        process.terminate()
        process.wait(timeout=20)


def logged_in_full(log_file) -> bool:
    """Whether the log holds the line of each tagged request and of each login, and ends a line: the
    workers log a request as they answer it, so the last lines may still be on their way."""
    text = log_file.read_text()
    tagged = all(f'"request_id": "ops-test-{number}"' in text for number in range(LOGINS))
    return tagged and text.count('"results.accounts.login"') >= LOGINS and text.endswith("\n")


def login(base, account):
    session = requests.Session()
    answer = session.post(
        base + "/results/_login",
        json={"username": account.username, "password": account.password},
        headers={"Origin": base, "Connection": "close"},
        timeout=20,
    )
    assert answer.status_code == 204, answer.text
    return session


def test_two_workers_add_up_and_log_json_lines_with_the_request_id(served, store):
    base, metrics_url, log_file, metrics_dir = served
    with ThreadPoolExecutor(LOGINS) as pool:  # at once, so both workers have to answer some
        sessions = list(pool.map(lambda _: login(base, store.accounts["full"]), range(LOGINS)))
    for number, session in enumerate(sessions):
        headers = {"X-Request-ID": f"ops-test-{number}", "Connection": "close"}
        page = session.get(base + "/", headers=headers, timeout=20)
        assert page.status_code == 200
        assert page.headers["X-Request-ID"] == f"ops-test-{number}"
    card = sessions[0].get(base + "/campaigns/htr-batch/served/card", headers={"HX-Request": "true"}, timeout=20)
    assert card.status_code in (200, 286)
    site_metrics = requests.get(base + "/metrics", timeout=5, allow_redirects=False)
    assert site_metrics.status_code in (302, 404)  # not on the site's port

    # Which worker accepts a connection is the kernel's choice: ask at once, in waves, until both have answered.
    for _ in range(WAVES):
        if len(writers_of(metrics_dir)) >= 3:
            break
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda _: sessions[0].get(base + "/", headers={"Connection": "close"}, timeout=20), range(8)))
    assert len(writers_of(metrics_dir)) >= 3  # the master and both workers wrote figures
    scraped = requests.get(metrics_url, timeout=5)
    assert scraped.status_code == 200
    samples = {}
    for family in text_string_to_metric_families(scraped.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    # Every worker's logins, whichever served them: the sum is exact only if the workers add up.
    assert samples[("htrbrowser_logins_total", (("outcome", "accepted"),))] == LOGINS
    assert samples[("htrbrowser_kube_calls_total", (("cause", "none"), ("outcome", "ok")))] >= 6
    assert samples[("htrbrowser_snapshot_bytes", (("namespace", "htr-batch"),))] > 0
    assert ("htrbrowser_snapshot_age_seconds", (("namespace", "htr-batch"),)) in samples
    assert samples[("htrbrowser_polls_total", (("changed", "true"), ("kind", "card")))] >= 1

    wait_until(lambda: logged_in_full(log_file), what="every request and login logged, each line ended")
    lines = [line for line in log_file.read_text().splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]  # every line is one JSON object
    requests_logged = [e for e in entries if e["logger"] == "htrbrowser.requests"]
    tagged = [e for e in requests_logged if e["request_id"].startswith("ops-test-")]
    assert sorted(e["request_id"] for e in tagged) == sorted(f"ops-test-{n}" for n in range(LOGINS))
    assert all(e["method"] == "GET" and e["path"] == "/" and e["status"] == 200 for e in tagged)
    assert all({"time", "level", "message", "duration_ms"} <= set(e) for e in tagged)
    logins = [e for e in entries if e["logger"] == "results.accounts.login"]
    assert len(logins) == LOGINS
    assert all(e["user"] == "full-reader" and e["client"] == "127.0.0.1" for e in logins)
    assert store.accounts["full"].password not in log_file.read_text()
    assert any(e["logger"] == "gunicorn.error" for e in entries)  # gunicorn's own lines are JSON too
    assert not any(e["logger"] == "gunicorn.access" for e in entries)

"""`make demo` answers hostile requests as production does: the product's own pages, never Django's debug
page with the process environment or the site's URL patterns (debug is on only for whoever sets
DJANGO_DEBUG themselves)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
import requests

from devstack.demo import web_environment
from devstack.store import DEMO_LOGINS
from tests.fixtures.waiting import wait_until

PROJECT_ROOT = Path(__file__).resolve().parents[2]
MANY_PARAMETERS = "&".join(f"p{number}=1" for number in range(1_001))
# What Django's debug pages show: the environment (settings module, PATH) and the URL patterns tried.
DEBUG_PAGE_WORDS = ("DJANGO_SETTINGS_MODULE", "PATH", "URLconf", "Traceback", "technical_500")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _says_ready(process, lines: list[str]) -> bool:
    assert process.poll() is None, "".join(lines)
    return any("Press Ctrl-C" in line for line in lines)


@pytest.fixture(scope="module")
def demo():
    """`python -m devstack.demo` on a free port, started from a shell that sets no DJANGO_ or HTRFLOW_ variable."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HTRFLOW_", "S3_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "devstack.demo", "--port", str(port)],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**env, "PYTHONUNBUFFERED": "1"},
    )
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(
            lambda: _says_ready(process, lines),
            timeout=120,
            interval=0.2,
            what=lambda: "the demo to say it is ready:\n" + "".join(lines),
        )
        yield SimpleNamespace(base=base, lines=lines)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def logged_in(demo):
    session = requests.Session()
    username, password = DEMO_LOGINS["full"]
    answer = session.post(
        demo.base + "/results/_login",
        json={"username": username, "password": password},
        headers={"Origin": demo.base},
        timeout=10,
    )
    assert answer.status_code == 204
    return session


def assert_the_products_page(answer, status, words):
    assert answer.status_code == status
    assert words in answer.text
    for word in DEBUG_PAGE_WORDS:
        assert word not in answer.text


def test_a_foreign_host_gets_the_products_page(demo):
    answer = requests.get(demo.base + "/login", headers={"Host": "evil.example"}, timeout=10)
    assert_the_products_page(answer, 400, "This site does not answer to the host name")


def test_more_than_a_thousand_query_parameters_get_the_products_page(demo, logged_in):
    for path in ("/login", "/", "/log", "/alto"):
        client = logged_in if path != "/login" else requests
        answer = client.get(f"{demo.base}{path}?{MANY_PARAMETERS}", timeout=10, allow_redirects=False)
        assert_the_products_page(answer, 400, "more than 1000 query parameters")
    answer = logged_in.get(f"{demo.base}/api/v1/jobs?{MANY_PARAMETERS}", timeout=10)
    assert answer.status_code == 400 and "more than 1000 query parameters" in answer.json()["detail"]


def test_an_unknown_address_gets_the_products_not_found_page(demo, logged_in):
    for path in ("/nowhere", "/a/b/c.html", f"/nowhere?{MANY_PARAMETERS}"):
        assert_the_products_page(logged_in.get(demo.base + path, timeout=10), 404, "There is nothing at this address")


def test_the_demo_still_serves_its_pages_and_their_static_files(demo, logged_in):
    page = logged_in.get(demo.base + "/", timeout=10)
    assert page.status_code == 200 and "/static/css/app.css" in page.text
    stylesheet = logged_in.get(demo.base + "/static/css/app.css", timeout=10)
    assert stylesheet.status_code == 200 and "text/css" in stylesheet.headers["Content-Type"]


def test_debug_is_on_only_when_whoever_runs_the_demo_sets_it(tmp_path, monkeypatch):
    store = SimpleNamespace(endpoint="http://127.0.0.1:1", bucket="b")
    monkeypatch.delenv("DJANGO_DEBUG", raising=False)
    monkeypatch.delenv("DJANGO_SECRET_KEY", raising=False)
    monkeypatch.delenv("DJANGO_SECRET_KEY_FILE", raising=False)
    env = web_environment(8000, tmp_path / "kubeconfig", tmp_path / "session.key", store, tmp_path)
    assert "DJANGO_DEBUG" not in env and env["DJANGO_SETTINGS_MODULE"] == "devstack.demo_settings"
    key_file = Path(env["DJANGO_SECRET_KEY_FILE"])
    assert len(key_file.read_text().strip()) >= 50 and key_file.stat().st_mode & 0o077 == 0

    monkeypatch.setenv("DJANGO_DEBUG", "true")
    monkeypatch.setenv("DJANGO_SECRET_KEY", "k" * 50)
    env = web_environment(8000, tmp_path / "kubeconfig", tmp_path / "session.key", store, tmp_path)
    assert env["DJANGO_DEBUG"] == "true" and "DJANGO_SECRET_KEY_FILE" not in env

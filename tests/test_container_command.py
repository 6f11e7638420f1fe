"""The image's command (Dockerfile CMD) as a pod runs it: no trust in forwarded headers of its own,
and serving from a read-only application directory."""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import requests

from tests.fixtures.serving import wait_until_serving
from tests.test_serving import ROOT, dockerfile_command, free_port, production_env

APP_PARTS = ("manage.py", "htrbrowser", "core", "campaigns", "results", "templates", "static")


@pytest.fixture
def serve(tmp_path):
    """Start the Dockerfile's command with the given environment additions; returns its base URL."""
    started = []

    def start(command_prefix=(), cwd=ROOT, collect=True, **extra):
        env = production_env(tmp_path, **extra)
        if collect:
            subprocess.run(
                [sys.executable, "manage.py", "collectstatic", "--noinput"],
                cwd=cwd, env=env, check=True, capture_output=True, timeout=120,
            )
        port = free_port()
        process = subprocess.Popen(
            [*command_prefix, *dockerfile_command(port)], cwd=cwd, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )
        started.append(process)
        return wait_until_serving(process, f"http://127.0.0.1:{port}"), process

    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=10)


def test_the_command_trusts_no_forwarded_header_of_its_own():
    command = dockerfile_command(8000)
    assert command[command.index("--forwarded-allow-ips") + 1] == ""


def test_forwarded_https_from_loopback_without_trusted_hops_sets_no_secure_cookie(plain_gunicorn, store_double):
    base = plain_gunicorn  # plain http, HTRFLOW_TRUSTED_HOPS=0, against the store double
    account = store_double.accounts["full"]
    # A proxy in the same pod (oauth2-proxy, a port-forward) reaches gunicorn from 127.0.0.1.
    response = requests.post(
        base + "/results/_login",
        data=json.dumps({"username": account.username, "password": account.password}),
        headers={"Content-Type": "application/json", "Origin": base, "X-Forwarded-Proto": "https"},
        timeout=15,
    )
    assert response.status_code == 204, response.text
    set_cookie = response.headers["Set-Cookie"]
    assert set_cookie.startswith("htrflow_session=")
    assert "Secure" not in set_cookie
    assert "__Host-" not in set_cookie


def test_a_script_name_header_gets_no_500(plain_gunicorn):
    base = plain_gunicorn
    for path in ("/login", "/healthz", "/static/css/app.css"):
        response = requests.get(base + path, headers={"SCRIPT_NAME": "/elsewhere"}, timeout=5, allow_redirects=False)
        assert response.status_code < 500, (path, response.status_code)
    login = requests.get(base + "/login", headers={"SCRIPT_NAME": "/elsewhere"}, timeout=5)
    assert "/elsewhere" not in login.text


def _can_make_mount_namespaces():
    if not shutil.which("unshare"):
        return False
    try:
        return subprocess.run(["unshare", "-m", "true"], capture_output=True, timeout=10).returncode == 0
    except OSError:
        return False


@pytest.mark.skipif(
    not _can_make_mount_namespaces(),
    reason="needs `unshare -m` (root or user namespaces) to mount the application read-only as a pod does",
)
def test_the_command_serves_from_a_read_only_application_directory(serve):
    """As a pod with readOnlyRootFilesystem runs it: the application directory read-only, /tmp apart."""
    folder = Path(tempfile.mkdtemp(prefix="htrbrowser-ro-"))
    try:
        app = folder / "app"
        app.mkdir()
        for part in APP_PARTS:
            source = ROOT / part
            if source.is_dir():
                shutil.copytree(source, app / part, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(source, app / part)
        # The image collects static files at build time, into the application directory.
        collect_env = production_env(folder, DJANGO_STATIC_ROOT=str(app / "staticfiles"))
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput"],
            cwd=app, env=collect_env, check=True, capture_output=True, timeout=120,
        )
        scratch = folder / "tmp"
        scratch.mkdir()
        read_only = ["unshare", "-m", "sh", "-c",
                     'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', str(app)]
        base, process = serve(
            command_prefix=read_only,
            cwd=app,
            DJANGO_STATIC_ROOT=str(app / "staticfiles"),
            collect=False,
            HOME=str(app),
            TMPDIR=str(scratch),
            PYTHONDONTWRITEBYTECODE="1",
            HTRFLOW_HTTPS="false",
        )
        login = requests.get(base + "/login", timeout=10)
        assert login.status_code == 200
        stylesheet = next(part.split('"')[0] for part in login.text.split('href="')[1:] if "app." in part)
        assert requests.get(base + stylesheet, timeout=5).status_code == 200
        assert requests.get(base + "/readyz", timeout=5).status_code == 200
        # Nothing was written into the application directory (it could not have been).
        probe = subprocess.run(read_only[:-1] + [str(app), "touch", str(app / "written")], capture_output=True)
        assert probe.returncode != 0
        assert not (app / "written").exists()
        assert process.poll() is None
    finally:
        shutil.rmtree(folder, ignore_errors=True)

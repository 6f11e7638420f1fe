"""The product served as the container serves it: gunicorn, whitenoise, collected static files."""

import base64
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = Path(sys.executable).parent / "gunicorn"


def dockerfile_command(port):
    """The image's CMD, bound to a local port, so these tests follow the Dockerfile."""
    line = next(line for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("CMD "))
    command = json.loads(line[4:])
    assert command[0] == "gunicorn"
    bind = command.index("--bind") + 1
    command[bind] = f"127.0.0.1:{port}"
    return [str(GUNICORN), *command[1:]]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def production_env(tmp_path, **extra):
    key_file = tmp_path / "session-key"
    key_file.write_text(base64.b64encode(os.urandom(32)).decode())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HTRFLOW_", "S3_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="htrbrowser.settings",
        DJANGO_SECRET_KEY="serving-test-" + "k" * 50,
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_STATIC_ROOT=str(tmp_path / "static"),
        HTRFLOW_SESSION_KEY_FILE=str(key_file),
        HTRFLOW_NAMESPACES="htr-batch",
    )
    env.update(extra)
    return env


@pytest.fixture
def gunicorn(tmp_path):
    """Start gunicorn the way the Dockerfile does; yield a function that starts it with extra settings."""
    started = []

    def start(**extra):
        env = production_env(tmp_path, **extra)
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput"],
            cwd=ROOT, env=env, check=True, capture_output=True, timeout=120,
        )
        port = free_port()
        process = subprocess.Popen(
            dockerfile_command(port), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )
        started.append(process)
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                requests.get(base + "/healthz", timeout=1, allow_redirects=False)
                return base
            except requests.ConnectionError:
                if process.poll() is not None:
                    raise AssertionError(process.stdout.read().decode()) from None
                time.sleep(0.1)
        raise AssertionError("gunicorn did not answer within 10 s")

    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=10)


def test_the_health_check_answers_over_plain_http_even_with_https_on(gunicorn):
    base = gunicorn(HTRFLOW_HTTPS="true")
    response = requests.get(base + "/healthz", timeout=5, allow_redirects=False)
    assert response.status_code == 200
    assert response.text == "ok\n"
    # Everything else is sent to https, with HSTS once there.
    assert requests.get(base + "/", timeout=5, allow_redirects=False).status_code == 301


def test_whitenoise_serves_collected_static_files_with_long_caching(gunicorn):
    base = gunicorn(HTRFLOW_HTTPS="false")
    login = requests.get(base + "/login", timeout=5)
    assert login.status_code == 200
    stylesheet = next(part.split('"')[0] for part in login.text.split('href="')[1:] if "app." in part)
    assert stylesheet.startswith("/static/css/app.") and stylesheet.endswith(".css")
    response = requests.get(base + stylesheet, timeout=5, headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200
    assert "max-age=315360000" in response.headers["Cache-Control"]
    assert "--bg" in response.text


def test_a_bad_setting_stops_gunicorn_with_one_sentence(tmp_path):
    env = production_env(tmp_path, HTRFLOW_SESSION_HOURS="forever")
    result = subprocess.run(
        dockerfile_command(free_port()), cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode != 0
    assert "HTRFLOW_SESSION_HOURS must be a whole number" in result.stderr
    assert "Traceback" not in result.stderr

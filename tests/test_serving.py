"""The product served as the container serves it: gunicorn, whitenoise, collected static files."""

import subprocess

import requests

from tests.fixtures.serving import ROOT, dockerfile_command, free_port, production_env


def test_the_health_check_answers_over_plain_http_even_with_https_on(gunicorn):
    base = gunicorn(HTRFLOW_HTTPS="true")
    response = requests.get(base + "/healthz", timeout=5, allow_redirects=False)
    assert response.status_code == 200
    assert response.text == "ok\n"
    # Everything else is sent to https, with HSTS once there.
    assert requests.get(base + "/", timeout=5, allow_redirects=False).status_code == 301


def test_whitenoise_serves_collected_static_files_with_long_caching(plain_gunicorn):
    base = plain_gunicorn
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

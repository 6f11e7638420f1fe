"""The image's command with the environment the chart gives it, behind a TLS ingress and probed by a kubelet."""

import requests

from tests.chart.render import BEHIND_NGINX, container_env, merged, one, render
from tests.test_container_command import serve  # noqa: F401 - the fixture that starts the Dockerfile's CMD

HOST = "htr.example.org"
INGRESS = merged(BEHIND_NGINX, {"web": {"ingress": {"enabled": True, "className": "nginx", "host": HOST,
                                                     "tlsSecretName": "tls"}}})
# What ingress-nginx sends on for a browser's https request.
FROM_THE_INGRESS = {"Host": HOST, "X-Forwarded-Proto": "https", "X-Forwarded-Host": HOST,
                    "X-Forwarded-For": "198.51.100.7", "X-Forwarded-Port": "443"}


def chart_environment(values, tmp_path):
    """The Deployment's plain env values; what comes from Secrets gets test values of the same kind."""
    env = {name: entry["value"] for name, entry in container_env(one(render(values), "Deployment")).items()
           if "value" in entry}
    env["HTRFLOW_SESSION_KEY_FILE"] = str(tmp_path / "session-key")  # production_env writes a key there
    (tmp_path / "django-key").write_text("chart-test-" + "d" * 50 + "\n")  # as a mounted Secret gives it
    env["DJANGO_SECRET_KEY_FILE"] = str(tmp_path / "django-key")
    env["DJANGO_SECRET_KEY"] = ""  # production_env's own: the chart gives the key as a file only
    env["DJANGO_STATIC_ROOT"] = str(tmp_path / "static")
    return env


def test_behind_a_tls_ingress_the_chart_s_settings_reach_the_login_page_without_a_loop(serve, tmp_path):  # noqa: F811
    base, _ = serve(**chart_environment(INGRESS, tmp_path))
    first = requests.get(base + "/", headers=FROM_THE_INGRESS, timeout=10, allow_redirects=False)
    assert first.status_code == 302, first.headers.get("Location")
    assert first.headers["Location"] == "/login?next=/"
    login = requests.get(base + "/login?next=/", headers=FROM_THE_INGRESS, timeout=10, allow_redirects=False)
    assert login.status_code == 200
    assert login.headers["Strict-Transport-Security"].startswith("max-age=31536000")
    # The login form's CSRF cookie is set for https, as the browser sees the site.
    assert login.headers["Set-Cookie"].startswith("csrftoken=")
    assert "Secure" in login.headers["Set-Cookie"]


def test_plain_http_through_the_ingress_is_sent_to_the_site_s_https_address(serve, tmp_path):  # noqa: F811
    base, _ = serve(**chart_environment(INGRESS, tmp_path))
    plain = {**FROM_THE_INGRESS, "X-Forwarded-Proto": "http", "X-Forwarded-Port": "80"}
    response = requests.get(base + "/", headers=plain, timeout=10, allow_redirects=False)
    assert response.status_code == 301
    assert response.headers["Location"] == f"https://{HOST}/"


def test_a_kubelet_probe_by_pod_ip_gets_200_from_the_served_pod(serve, tmp_path):  # noqa: F811
    base, _ = serve(**chart_environment(INGRESS, tmp_path))
    for path in ("/healthz", "/readyz"):
        for method in ("GET", "HEAD"):
            response = requests.request(method, base + path, headers={"Host": "10.1.2.3:8000"}, timeout=10,
                                        allow_redirects=False)
            assert response.status_code == 200, (method, path, response.status_code)
    # Any other page by pod IP is still refused by the allowed-hosts rule.
    assert requests.get(base + "/login", headers={"Host": "10.1.2.3:8000"}, timeout=10).status_code == 400

"""The kubelet's two questions: is this process alive (`/healthz`), and can it serve (`/readyz`).

A kubelet probe sends the pod's IP as the Host header, so both answers are given before Django's
allowed-hosts rule is consulted (``ProbeMiddleware`` sits ahead of ``CommonMiddleware``). That is
safe because they reveal nothing: "ok", "ready" or "not ready" and no detail; the detail goes to
the log, once each time the answer changes. Everything else keeps the allowed-hosts rule.

Ready means this pod can serve its pages: Django's own checks pass (run once per process: the
settings do not change while it runs) and the session key file can be read now (it can be
replaced at any time). A cluster or store outage does not make a pod unready: every pod would be
pulled at once, and the pages already say in a sentence what cannot be reached.

`/readyz/namespaces` is no kubelet probe: it is `helm test`'s question whether this pod reads each
shown namespace, asked of the app over HTTP so that the test pod itself needs no right in the cluster.
It answers from the board every page reads through (no call of its own once a namespace has been
read), with the shown namespaces' names and a yes or no each: no object, no cause, no sentence, so it
is safe to answer without a login, as the probes are.
"""

import logging
import threading

from django.core import checks
from django.http import HttpResponse, HttpResponseNotAllowed, JsonResponse

from campaigns.cluster import kube, reading
from results.accounts import session

log = logging.getLogger(__name__)

PROBE_PATHS = ("/healthz", "/readyz", "/readyz/namespaces")
SESSION_KEY_CHECK = "results.E001"  # read again on every probe, see results/accounts/checks.py

_settings_problems = None
_state_lock = threading.Lock()
_last_problems = None


def settings_problems():
    """Sentences for what Django's system checks refuse in this process's settings (computed once)."""
    global _settings_problems
    if _settings_problems is None:
        found = checks.run_checks(include_deployment_checks=False)
        _settings_problems = [
            str(message.msg) for message in found if message.is_serious() and message.id != SESSION_KEY_CHECK
        ]
    return _settings_problems


def readiness_problems():
    """Everything that stops this pod from serving, each as one sentence for an operator."""
    problems = list(settings_problems())
    try:
        session.load_key()
    except session.SessionKeyError as error:
        problems.append(str(error))
    return problems


def _log_if_changed(problems):
    global _last_problems
    with _state_lock:
        if problems == _last_problems:
            return
        _last_problems = problems
    if problems:
        for problem in problems:
            log.warning("not ready: %s", problem)
    else:
        log.info("ready")


def _answer(request, status, text):
    response = HttpResponse(text, status=status, content_type="text/plain; charset=utf-8")
    if request.method == "HEAD":
        response.content = b""
    return response


def healthz(request):
    return _answer(request, 200, "ok\n")


def readyz(request):
    problems = readiness_problems()
    _log_if_changed(problems)
    if problems:
        return _answer(request, 503, "not ready\n")
    return _answer(request, 200, "ready\n")


def namespace_read(namespace):
    """Whether this pod has a current reading of the namespace (the board's, shared with the pages)."""
    try:
        return reading.read_namespace(namespace).unreachable_since is None
    except kube.ClusterUnavailable:
        return False
    except Exception:  # noqa: BLE001 - the answer is yes or no; the cause goes to the log only
        log.exception("reading namespace %s for /readyz/namespaces failed", namespace)
        return False


def namespaces(request):
    """{"namespaces": {name: true|false}}, 200 when every shown namespace is read, else 503."""
    read = {namespace: namespace_read(namespace) for namespace in reading.served_namespaces()}
    response = JsonResponse({"namespaces": read}, status=200 if all(read.values()) else 503)
    if request.method == "HEAD":
        response.content = b""
    return response


_VIEWS = {"/healthz": healthz, "/readyz": readyz, "/readyz/namespaces": namespaces}


class ProbeMiddleware:
    """Answer the probes whatever the Host header, for GET and HEAD; other methods get 405."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        view = _VIEWS.get(request.path_info)
        if view is None:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(["GET", "HEAD"])
        return view(request)

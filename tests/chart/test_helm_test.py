"""The `helm test` hook reads nothing in the cluster itself: its pod runs as a ServiceAccount of its own that
no Role binds and whose token is not mounted, and asks the app over HTTP (`/readyz/namespaces`, the app's
own word on each shown namespace) what it once asked the API with the app's token (issue 40)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.chart.render import NAMESPACE, RELEASE, of_kind, one, render

BINDINGS = ("RoleBinding", "ClusterRoleBinding")


def hooks(values: dict | None = None) -> list[dict]:
    return [obj for obj in render(values, hooks=True)
            if (obj["metadata"].get("annotations") or {}).get("helm.sh/hook") == "test"]


@pytest.mark.parametrize("values", [{}, {"namespaces": ["htr-batch", "archive-a"], "statusRecords": {"enabled": True}},
                                    {"serviceAccount": {"create": False, "name": "shared"}}])
def test_the_test_pod_runs_as_its_own_account_that_may_read_or_write_nothing(values):
    objects = render(values, hooks=True)
    tested = hooks(values)
    account = one(tested, "ServiceAccount")
    pod = one(tested, "Pod")["spec"]
    assert pod["serviceAccountName"] == account["metadata"]["name"] == f"{RELEASE}-test"
    assert account["automountServiceAccountToken"] is False and pod["automountServiceAccountToken"] is False
    # Created before the pod, removed with it.
    assert int(account["metadata"]["annotations"]["helm.sh/hook-weight"]) < 0
    assert "hook-succeeded" in account["metadata"]["annotations"]["helm.sh/hook-delete-policy"]
    # No binding of any kind names it: RBAC grants it nothing (it is not the app's account either).
    subjects = [subject for kind in BINDINGS for binding in of_kind(objects, kind) for subject in binding["subjects"]]
    assert subjects and all(subject["name"] != account["metadata"]["name"] for subject in subjects)
    app_account = one(objects, "Deployment")["spec"]["template"]["spec"]["serviceAccountName"]
    assert pod["serviceAccountName"] != app_account


def test_the_test_pod_asks_the_app_for_each_shown_namespace_and_never_the_api():
    pod = one(hooks({"namespaces": ["htr-batch", "archive-a"]}), "Pod")
    container = pod["spec"]["containers"][0]
    env = {entry["name"]: entry["value"] for entry in container["env"]}
    assert env["SITE"] == f"http://{RELEASE}.{NAMESPACE}.svc:80"
    assert env["NAMESPACES"] == "htr-batch,archive-a"
    script = container["args"][0]
    assert '"/readyz"' in script and '"/readyz/namespaces"' in script
    assert "kubernetes.default.svc" not in script and "serviceaccount" not in script and "Bearer" not in script
    # It waits out a pod's first reading of the cluster (twelve call timeouts) and a little more.
    assert env["WAIT_SECONDS"] == "70"
    assert one(hooks({"kube": {"timeoutSeconds": 3.5}}), "Pod")["spec"]["containers"][0]["env"][2]["value"] == "58"


def test_the_test_pod_s_network_policy_reaches_the_site_and_dns_only():
    policy = one(hooks({"network": {"dns": {"nodeLocalCidrs": ["169.254.20.10/32"]}}}), "NetworkPolicy")["spec"]
    ports = [port["port"] for rule in policy["egress"] for port in rule["ports"]]
    assert sorted(map(str, ports)) == ["53", "53", "http"]
    assert not any(port in (443, 6443) for port in ports)  # the API server is not reached
    dns = policy["egress"][0]["to"]
    assert {"ipBlock": {"cidr": "169.254.20.10/32"}} in dns


def test_the_test_pod_runs_the_check_it_says_it_runs():
    """The script itself, against a stand-in for the site: it passes only when every shown namespace is read."""
    answers = {}

    class Site(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the standard library's name
            status, body = answers[self.path]
            self.send_response(status)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    pod = one(hooks({"namespaces": ["htr-batch", "archive-a"]}), "Pod")["spec"]["containers"][0]
    env = {entry["name"]: entry["value"] for entry in pod["env"]}
    env["SITE"] = f"http://127.0.0.1:{server.server_port}"

    def run(read: dict, status: int):
        answers["/readyz"] = (200, b"ready\n")
        answers["/readyz/namespaces"] = (status, json.dumps({"namespaces": read}).encode())
        return subprocess.run([sys.executable, "-c", pod["args"][0]], env=env, capture_output=True, text=True,
                              timeout=60)

    try:
        passed = run({"htr-batch": True, "archive-a": True}, 200)
        assert passed.returncode == 0 and "reads every shown namespace" in passed.stdout
        failed = run({"htr-batch": True, "archive-a": False}, 503)
        assert failed.returncode == 1 and failed.stdout.strip() == "the site does not read namespace archive-a"
        # A namespace the app does not serve at all is as unread as one it cannot read.
        missing = run({"htr-batch": True}, 200)
        assert missing.returncode == 1 and "archive-a" in missing.stdout
    finally:
        server.shutdown()

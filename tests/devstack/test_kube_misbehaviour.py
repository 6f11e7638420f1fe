"""The API double's watch misbehaviour, as a client sees it over HTTP (`KubeDouble.misbehave_watches`)."""

from __future__ import annotations

import http.client
import json
import time

import pytest
import urllib3

from devstack.kube_watch import END_AT_ONCE, EXPIRE, PLAIN_LIST

NS = "htr-batch"


def configmap(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": NS}, "data": {}}


def get(double, path: str, **query) -> urllib3.BaseHTTPResponse:
    return urllib3.request(
        "GET",
        double.url + path,
        fields=query,
        headers={"Authorization": f"Bearer {double.token}"},
        timeout=urllib3.Timeout(connect=2, read=5),
        retries=False,
        preload_content=True,
    )


def lines(response) -> list[dict]:
    return [json.loads(line) for line in response.data.splitlines() if line.strip()]


def version(double) -> str:
    return get(double, f"/api/v1/namespaces/{NS}/configmaps").json()["metadata"]["resourceVersion"]


def test_a_healthy_watch_runs_to_its_timeout(kube):
    kube.put(configmap("one"))
    started = time.monotonic()
    answer = get(
        kube, f"/api/v1/namespaces/{NS}/configmaps", watch="true", resourceVersion=version(kube), timeoutSeconds="1"
    )
    assert answer.status == 200 and lines(answer) == []
    assert time.monotonic() - started >= 0.9


def test_every_watch_can_be_ended_at_once(kube):
    kube.misbehave_watches(END_AT_ONCE)
    started = time.monotonic()
    answer = get(
        kube, f"/api/v1/namespaces/{NS}/configmaps", watch="true", resourceVersion=version(kube), timeoutSeconds="60"
    )
    assert answer.status == 200 and answer.headers.get("Transfer-Encoding") == "chunked"
    assert lines(answer) == [] and time.monotonic() - started < 1.0
    assert kube.watch_starts("/configmaps$") == 1


def test_every_watch_can_be_answered_with_a_plain_list(kube):
    kube.put(configmap("one"))
    kube.misbehave_watches(PLAIN_LIST)
    answer = get(kube, f"/api/v1/namespaces/{NS}/configmaps", watch="true", resourceVersion=version(kube))
    (body,) = lines(answer)  # one line of JSON, as a Go server encodes it
    assert body["kind"] == "ConfigMapList" and [i["metadata"]["name"] for i in body["items"]] == ["one"]
    assert "type" not in body


def test_every_watch_from_a_version_can_expire(kube):
    kube.misbehave_watches(EXPIRE)
    answer = get(kube, f"/api/v1/namespaces/{NS}/configmaps", watch="true", resourceVersion=version(kube))
    (event,) = lines(answer)
    assert event["type"] == "ERROR" and event["object"]["code"] == 410 and event["object"]["reason"] == "Expired"
    kube.misbehave_watches(None)
    kube.put(configmap("two"))
    answer = get(kube, f"/api/v1/namespaces/{NS}/configmaps", watch="true", resourceVersion="1", timeoutSeconds="1")
    assert [e["type"] for e in lines(answer)] == ["ERROR"]  # older than the history: 410 as before


def test_an_unknown_misbehaviour_is_refused(kube):
    with pytest.raises(ValueError):
        kube.misbehave_watches("sulk")


def test_reset_makes_the_double_behave_again(kube):
    kube.misbehave_watches(END_AT_ONCE)
    kube.reset()
    assert kube.watch_misbehaviour is None


def test_a_watch_that_ends_cleanly_leaves_its_connection_for_the_next_request(kube):
    host, port = kube.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    headers = {"Authorization": f"Bearer {kube.token}"}
    path = f"/api/v1/namespaces/{NS}/configmaps"
    connection.request("GET", f"{path}?watch=true&resourceVersion={version(kube)}&timeoutSeconds=1", headers=headers)
    assert connection.getresponse().read() == b""
    connection.request("GET", path, headers=headers)  # on the same connection, as a client's pool does
    assert connection.getresponse().status == 200
    connection.close()

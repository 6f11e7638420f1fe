"""A list page decoded one item at a time: the same values `json.loads` gives, the same refusals, and
a peak that holds one item whole, not the page's every item."""

from __future__ import annotations

import json
import tracemalloc
from types import SimpleNamespace

import pytest

from campaigns.cluster import kube, pages
from tests.campaigns.cluster.test_kube import campaign_pod


def served_pod(index: int) -> dict:
    """A pod about as big as the API serves one: its managedFields are a third of it or more."""
    pod = campaign_pod("campaign-000", index)
    fields = {f"f:{name}-{index}": {".": {}, "f:value": {}} for name in ("env", "port", "mount", "arg") * 30}
    pod["metadata"]["managedFields"] = [
        {"manager": writer, "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
         "time": "2026-09-24T08:00:00Z", "fieldsV1": {"f:spec": fields}}
        for writer in ("kube-controller-manager", "kubelet")
    ]
    pod["spec"] = {"containers": [{"name": "htr", "image": "htrflow:1", "env": [{"name": "X", "value": "é ✓ \"q\""}]}]}
    return pod


def page_text(items: list, indent=None, **metadata) -> str:
    return json.dumps({"kind": "PodList", "apiVersion": "v1",
                       "metadata": {"resourceVersion": "42", **metadata}, "items": items}, indent=indent)


@pytest.mark.parametrize("indent", [None, 2, "\t"])
def test_a_page_decodes_to_what_json_loads_gives(indent):
    items = [served_pod(i) for i in range(3)]
    items[1]["metadata"]["annotations"] = {"items": "[not the page's]"}  # an "items" deeper down is a value
    text = page_text(items, indent, **{"continue": "token"})
    fields, decoded = pages.decode(text)
    whole = json.loads(text)
    assert decoded == whole.pop("items")
    assert fields == whole


def test_each_item_passes_through_the_transform_and_what_is_not_an_object_is_left_out():
    text = '{"items": [ {"metadata": {"name": "a"}}, 7, null, {"metadata": {"name": "b"}} ], "metadata": {}}'
    fields, names = pages.decode(text, lambda item: item["metadata"]["name"])
    assert names == ["a", "b"]
    assert fields == {"metadata": {}}


@pytest.mark.parametrize("text, fields, items", [
    ("{}", {}, []),
    (' \n{ "items" : [ ] }\n', {}, []),
    ('{"items": null}', {"items": None}, []),
    ('{"items": [{"a": 1}], "items": [{"b": 2}]}', {}, [{"b": 2}]),  # the last wins, as with json.loads
])
def test_small_and_odd_pages(text, fields, items):
    assert pages.decode(text) == (fields, items)


@pytest.mark.parametrize("text", [
    "", "[]", "{", '{"items": [{}', '{"items": [{},]}', '{"items": [{}] "metadata": {}}', "{1: 2}",
    '{"a": 1}x', '{"a": }', '{"items": [{"a": nan-ish}]}',
])
def test_what_is_not_one_json_object_is_refused_as_json_loads_refuses_it(text):
    with pytest.raises(ValueError):
        json_loads_then_dict(text)
    with pytest.raises(ValueError):
        pages.decode(text)


def json_loads_then_dict(text: str) -> dict:
    found = json.loads(text)
    if not isinstance(found, dict):
        raise ValueError("not an object")
    return found


def test_a_page_that_is_not_json_is_a_sentence_not_a_traceback(monkeypatch):
    monkeypatch.setattr(kube, "request", lambda *args, **kwargs: SimpleNamespace(data=b'{"items": [{"a": 1}, '))
    with pytest.raises(kube.ClusterUnavailable) as refused:
        kube.list_with_version("/api/v1/namespaces/x/pods")
    assert refused.value.sentence == "The cluster's API sent an answer that is not JSON."


def test_decoding_a_page_holds_one_pod_whole_at_a_time_not_five_hundred():
    """What decoding 500 pods holds at its peak, keeping only each one's name, against decoding the page
    whole first (as `json.loads` did here). The page's text is made before either is measured."""
    text = page_text([served_pod(i) for i in range(500)])

    def name(pod: dict) -> str:
        return pod["metadata"]["name"]

    def peak(decode) -> int:
        tracemalloc.start()
        try:
            assert len(decode()) == 500
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    def whole() -> list:
        return [name(pod) for pod in json.loads(text)["items"]]

    def one_at_a_time() -> list:
        return pages.decode(text, name)[1]

    assert whole() == one_at_a_time()
    assert peak(one_at_a_time) < peak(whole) / 20

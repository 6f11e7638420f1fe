"""The volume's iiif.json and manifest.json are counted before they are parsed: what parsing costs grows
with the values a file holds, not its bytes (8 MiB of ``{},{},…`` was 2.8 million objects and some 180
MiB), so a file within its byte cap but past its value cap gets a sentence, not a worker's memory."""

from __future__ import annotations

import json
import tracemalloc

from results.viewers import iiif
from results.viewers.iiif import IIIF_LIMIT, IIIF_VALUES_MAX
from results.viewers.manifest import MANIFEST_LIMIT, MANIFEST_VALUES_MAX

MiB = 1024 * 1024


def traced_get(client, path, params):
    tracemalloc.start()
    try:
        response = client.get(path, params)
        return response, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_an_iiif_json_of_millions_of_tiny_values_gets_a_sentence_not_a_parse(results_client, store, volume):
    hostile = b'{"items":[' + b"{}," * ((IIIF_LIMIT - 100) // 3) + b"{}]}"
    assert len(hostile) < IIIF_LIMIT and hostile.count(b"{") > 2 * IIIF_VALUES_MAX
    store.put(volume["base"] + "/iiif.json", hostile)
    response, peak = traced_get(results_client, "/alto", {"src": volume["alto"]})
    assert response.status_code == 200
    assert "iiif.json holds more than this viewer reads" in response.content.decode()
    # The file's 8 MiB, its text and one copy of it without strings: never the parsed objects.
    print(f"iiif.json of tiny values: peak {peak / MiB:.1f} MiB")
    assert peak < 4 * IIIF_LIMIT, f"{peak / MiB:.1f} MiB"


def test_a_manifest_json_of_350_000_pages_gets_a_sentence_not_a_parse(results_client, store, volume):
    pages = ",".join(f'"{n}":{{}}' for n in range(350_000))
    hostile = ('{"results":{' + pages + "}}").encode()
    assert len(hostile) < MANIFEST_LIMIT
    store.put(volume["base"] + "/manifest.json", hostile)
    response, peak = traced_get(results_client, "/log", {"log": volume["log"], "manifest": volume["manifest"]})
    assert response.status_code == 200
    assert "manifest.json holds more than this page reads" in response.content.decode()
    assert f"{MANIFEST_VALUES_MAX:,} values" in response.content.decode()
    print(f"manifest.json of tiny values: peak {peak / MiB:.1f} MiB")
    assert peak < 4 * MANIFEST_LIMIT + 8 * MiB, f"{peak / MiB:.1f} MiB"


def test_a_canvas_with_many_see_also_links_costs_a_few_lookups(results_client, store, volume, monkeypatch):
    """Finding the page's canvas resolves at most SEE_ALSO_READ links a canvas, and only links naming the
    page's file; 3,000 canvases of 50 links each named the file elsewhere."""
    elsewhere = {"id": "https://elsewhere.example/alto/0001.xml"}
    other = {"id": "https://elsewhere.example/alto/0002.xml"}
    canvases = [{"id": f"c{n}", "seeAlso": [elsewhere, other] * 25} for n in range(3_000)]
    store.put(volume["base"] + "/iiif.json", json.dumps({"items": canvases}).encode())
    resolved = []
    real = iiif.key_for_address

    def counting(address, *args, **kwargs):
        resolved.append(address)
        return real(address, *args, **kwargs)

    monkeypatch.setattr(iiif, "key_for_address", counting)
    html = results_client.get("/alto", {"src": volume["alto"]}).content.decode()
    assert "of 3000" in html  # the strip and the page count still come from the manifest
    assert len(resolved) <= 3_000 * iiif.SEE_ALSO_READ // 2
    assert all(address.endswith("0001.xml") for address in resolved)

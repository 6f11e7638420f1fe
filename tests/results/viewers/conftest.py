"""Fixtures the viewer tests share."""

from datetime import UTC, datetime

import pytest

from devstack.content import alto_xml, iiif_json, manifest_json, page_layout, run_log
from devstack.images import ImageServer

START = datetime(2026, 12, 2, 10, tzinfo=UTC)


@pytest.fixture(scope="module")
def images():
    """The devstack's IIIF image server with one volume, V1, of 4 pages."""
    with ImageServer() as server:
        server.register_volume("V1", pages=4)
        yield server


@pytest.fixture
def volume(store, store_prefix, settings):
    """A finished volume with a failed page, under a fresh prefix: returns a dict of addresses."""
    settings.HTRFLOW_RESULTS_URL = "http://testserver/results"
    base = f"{store_prefix}p/V1"
    log = run_log("V1", "p", pages=4, failed_pages=[3], outcome="complete", start=START)
    store.put(f"{base}.txt", log)
    store.put(f"{base}/manifest.json", manifest_json("V1", "p", pages=4, failed_pages=[3]))
    store.put(
        f"{base}/iiif.json",
        iiif_json("V1", "p", pages=4, results_url="http://testserver/results", namespace=store.namespace),
    )
    for page in (1, 2, 4):
        store.put(f"{base}/alto/{page:04d}.xml", alto_xml(page_layout("V1", page)))
    url = "http://testserver/results/"
    return {
        "base": base,
        "log": url + base + ".txt",
        "manifest": url + base + "/manifest.json",
        "alto": url + base + "/alto/0001.xml",
        "text": log,
    }

"""Key rules: a results path is decoded once, and nothing can step outside the served namespaces."""

from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from results.store.addresses import key_for_address, results_base
from results.store.keys import KeyRefused, is_valid_key, key_from_raw_path, quote_key, url_for_key

NS = "htr-batch"


@pytest.fixture(autouse=True)
def namespaces(settings):
    settings.HTRFLOW_RESULTS_NAMESPACE = NS
    settings.HTRFLOW_NAMESPACES = [NS]
    settings.HTRFLOW_RESULTS_URL = "https://htr.example.org/results"


def test_a_plain_key_under_the_namespace_is_accepted():
    assert key_from_raw_path("htr-batch/swe-lines-v2/C0074520/progress.json") == (
        "htr-batch/swe-lines-v2/C0074520/progress.json"
    )


def test_the_older_top_level_run_log_prefix_is_accepted():
    assert key_from_raw_path("status/logs/swe-lines-v2/C0074520.txt") == "status/logs/swe-lines-v2/C0074520.txt"


def test_a_key_is_decoded_exactly_once():
    assert key_from_raw_path("htr-batch/p/a%2525b.txt") == "htr-batch/p/a%25b.txt"
    assert key_from_raw_path("htr-batch/p/%C3%A5.txt") == "htr-batch/p/å.txt"


@pytest.mark.parametrize(
    "raw",
    [
        "htr-batch/../secret",
        "htr-batch/p/../../other/x",
        "htr-batch/./p/x",
        "htr-batch//p/x",
        "htr-batch/p/x/",
        "htr-batch/%2e%2e/other/x",
        "htr-batch/%2E/x",
        "htr-batch/p%2Fx",
        "htr-batch/p%2fx",
        "htr-batch/p%5Cx",
        "htr-batch/p\\x",
        "htr-batch/p/%00x",
        "htr-batch/p/x%0a",
        "htr-batch/p/%zz",
        "htr-batch/p/%",
        "htr-batch/p/%FF",
        "htr-batch",
        "htr-batch/",
        "other-ns/p/x",
        "status/logs/x",
        "status/other/p/x.txt",
        "/htr-batch/p/x",
        "",
    ],
)
def test_traversal_and_encoding_tricks_are_refused(raw):
    with pytest.raises(KeyRefused):
        key_from_raw_path(raw)


def test_keys_longer_than_a_store_allows_are_refused():
    with pytest.raises(KeyRefused):
        key_from_raw_path("htr-batch/" + "a" * 1100)


def test_results_urls_and_keys_go_both_ways_with_volume_ids_encoded():
    key = "htr-batch/swe lines/vol#1/progress.json"
    url = url_for_key(key)
    assert url == "https://htr.example.org/results/htr-batch/swe%20lines/vol%231/progress.json"
    # The viewers' address rule reads such URLs back to the same key.
    assert key_for_address(url, base=results_base()) == key


def test_without_a_configured_base_urls_are_site_relative(settings):
    settings.HTRFLOW_RESULTS_URL = ""
    assert url_for_key("htr-batch/p/v/x.json") == "/results/htr-batch/p/v/x.json"


# --- properties ---------------------------------------------------------------------------

SEGMENT_CHARS = st.characters(codec="utf-8", exclude_characters="/\\", exclude_categories=("Cc", "Cs"))
segment = st.text(SEGMENT_CHARS, min_size=1, max_size=12).filter(lambda s: s not in (".", ".."))
TRICKS = ["..", ".", "", "%2e%2e", "%2E%2e", "%2f", "%2F", "%5c", "%5C", "%00", "%0a", "\\", "%252f", "%c0%af", "%"]


@hsettings(max_examples=300, deadline=None)
@given(st.lists(segment, min_size=1, max_size=5))
def test_every_well_formed_key_survives_a_round_trip(segments):
    key = "/".join([NS, *segments])
    if len(key.encode()) > 1024:
        return
    assert key_from_raw_path(quote_key(key)) == key
    assert is_valid_key(key)


@hsettings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(["p", "v", "a.json", "%41"]), max_size=3),
    st.sampled_from(TRICKS),
    st.lists(st.sampled_from(["p", "x.txt"]), max_size=3),
)
def test_a_key_with_a_trick_segment_never_leaves_the_namespace(before, trick, after):
    raw = "/".join([NS, *before, trick, *after])
    try:
        key = key_from_raw_path(raw)
    except KeyRefused:
        return
    parts = key.split("/")
    assert parts[0] == NS
    assert not any(part in ("", ".", "..") for part in parts)
    assert "\\" not in key and "\x00" not in key
    # What the store is asked for names exactly the segments that were sent, decoded once.
    assert len(parts) == len(raw.split("/"))


@hsettings(max_examples=300, deadline=None)
@given(st.text(st.characters(codec="utf-8"), max_size=40))
def test_any_text_either_is_refused_or_names_a_clean_key_under_a_served_prefix(text):
    try:
        key = key_from_raw_path(text)
    except KeyRefused:
        return
    parts = key.split("/")
    assert parts[0] == NS or key.startswith("status/logs/")
    assert not any(part in ("", ".", "..") for part in parts)
    assert not any(ord(ch) < 32 or ord(ch) == 127 for ch in key)


@hsettings(max_examples=200, deadline=None)
@given(st.lists(segment, min_size=1, max_size=4), st.sampled_from(["/", "\\"]))
def test_an_encoded_separator_inside_a_segment_is_refused(segments, separator):
    raw = "/".join([NS, *(quote(s, safe="") for s in segments)]) + quote(separator, safe="") + "x"
    with pytest.raises(KeyRefused):
        key_from_raw_path(raw)

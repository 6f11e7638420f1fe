"""The address rule: only files under the results base become store keys."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from results.store.addresses import AddressRefused, key_for_address, results_base

BASE = "https://htr.example.org/results"


@pytest.fixture(autouse=True)
def _results_url(settings):
    settings.HTRFLOW_RESULTS_URL = BASE


def key(address):
    return key_for_address(address, base=results_base())


def test_a_file_under_the_base_becomes_its_key():
    assert (
        key(BASE + "/htr-batch/swe-lines-v2/C0074512/manifest.json") == "htr-batch/swe-lines-v2/C0074512/manifest.json"
    )


def test_default_port_and_case_of_scheme_and_host_do_not_matter():
    assert key("HTTPS://HTR.Example.org:443/results/htr-batch/p/v/iiif.json") == "htr-batch/p/v/iiif.json"


def test_percent_encoded_names_are_decoded_once():
    assert key(BASE + "/htr-batch/p/C%2000%2B1/alto/0001.xml") == "htr-batch/p/C 00+1/alto/0001.xml"
    assert key("https://htr.example.org/%72esults/htr-batch/x.txt") == "htr-batch/x.txt"


def test_dot_segments_inside_the_base_are_resolved():
    assert key(BASE + "/htr-batch/p/./v/../v/iiif.json") == "htr-batch/p/v/iiif.json"


@pytest.mark.parametrize(
    "address, words",
    [
        ("https://htr.example.org/results-evil/htr-batch/x.txt", "not under the results base"),
        ("https://htr.example.org/results/../x", "not under the results base"),
        ("https://htr.example.org/results/%2e%2e/admin/x", "not under the results base"),
        ("https://htr.example.org/resultsx", "not under the results base"),
        ("https://htr.example.org/results", "not under the results base"),
        ("https://htr.example.org/results/", "folder"),
        ("https://htr.example.org@evil.example/results/a/b", "user name or password"),
        ("https://user:pw@htr.example.org/results/a/b", "user name or password"),
        ("https://evil.example/results/a/b", "points at evil.example"),
        ("https://htr.example.org.evil.example/results/a/b", "points at"),
        ("https://htr.example.org:8443/results/a/b", "points at"),
        ("http://htr.example.org/results/a/b", "uses http"),
        ("javascript:alert(1)", "uses javascript"),
        ("file:///etc/passwd", "uses file"),
        ("//htr.example.org/results/a/b", "uses no scheme"),
        ("https://htr.example.org/results/a%2fb/c", "percent-encoding"),
        ("https://htr.example.org/results/a%5Cb/c", "percent-encoding"),
        ("https://htr.example.org\\@evil.example/results/a", "backslash"),
        ("https://htr.example.org/results/a\\..\\..\\x", "backslash"),
        ("https://htr.example.org/results/a//b", "empty name"),
        ("https://htr.example.org/results/a/b?x=1", "query"),
        ("https://htr.example.org:99999/results/a/b", "well-formed"),
        ("", "No address"),
    ],
)
def test_hostile_addresses_are_refused_with_a_sentence(address, words):
    with pytest.raises(AddressRefused) as refused:
        key(address)
    assert words in refused.value.sentence


def test_keys_outside_the_served_namespaces_are_refused():
    with pytest.raises(AddressRefused) as refused:
        key(BASE + "/other-namespace/p/v/iiif.json")
    assert "namespace" in refused.value.sentence


def test_a_refusal_names_the_operator_fix():
    with pytest.raises(AddressRefused) as refused:
        key("https://other.example/results/a/b")
    assert "resultsUrl" in refused.value.fix and "results_url" in refused.value.fix


def test_an_empty_setting_means_this_sites_own_results(rf, settings):
    settings.HTRFLOW_RESULTS_URL = ""
    request = rf.get("/log", HTTP_HOST="testserver")
    assert key_for_address("http://testserver/results/htr-batch/a.txt", request) == "htr-batch/a.txt"
    assert key_for_address("/results/htr-batch/a.txt", request) == "htr-batch/a.txt"
    with pytest.raises(AddressRefused):
        key_for_address("http://elsewhere/results/ns/a.txt", request)


@pytest.mark.parametrize(
    "address, expected",
    [
        ("/results/htr-batch/p/v.txt", "htr-batch/p/v.txt"),
        ("/results-evil/htr-batch/p/v.txt", None),
        ("/results/../htr-batch/p/v.txt", None),
        ("/x/../results/htr-batch/v.txt", "htr-batch/v.txt"),
        ("//evil.example/results/htr-batch/v.txt", None),
    ],
)
def test_a_site_relative_address_names_this_sites_own_proxy(address, expected):
    if expected is None:
        with pytest.raises(AddressRefused):
            key(address)
    else:
        assert key(address) == expected


def test_the_base_url_builds_encoded_links():
    assert results_base().url_for_key("ns/p/C 1/a#b.xml") == BASE + "/ns/p/C%201/a%23b.xml"


segment = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=12)
hostile_prefix = st.sampled_from(
    [
        "https://htr.example.org/results-evil/",
        "https://htr.example.org/results/../",
        "https://htr.example.org/results/%2E%2E/",
        "https://htr.example.org/",
        "https://evil.example/results/",
        "https://htr.example.org@evil.example/results/",
        "http://htr.example.org/results/",
        "ftp://htr.example.org/results/",
        "https://htr.example.org:444/results/",
        "https://htr.example.org/Results/",
        "https://htr.example.org/results%2F",
        "https://htr.example.org\\results/",
    ]
)


@settings(max_examples=300, deadline=None)
@given(hostile_prefix, st.lists(segment, max_size=4))
def test_no_generated_hostile_address_reaches_outside_the_base(prefix, parts):
    address = prefix + "/".join(parts)
    try:
        result = key(address)
    except AddressRefused as refused:
        assert refused.sentence
        return
    # Only ".." prefixes can legitimately climb back in, e.g. /results/../results/x.
    assert prefix in (
        "https://htr.example.org/results/../",
        "https://htr.example.org/results/%2E%2E/",
        "https://htr.example.org/",
    )
    assert not result.startswith("/") and ".." not in result.split("/") and "" not in result.split("/")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_either_refused_or_a_clean_key(text):
    try:
        result = key(text)
    except AddressRefused as refused:
        assert refused.sentence
        return
    assert result and all(part not in ("", ".", "..") for part in result.split("/"))
    assert "\\" not in result


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="abcXYZ019._-~ +%", min_size=1, max_size=8), min_size=1, max_size=4))
def test_keys_round_trip_through_their_urls(parts):
    parts = [p for p in parts if p not in (".", "..")]
    if not parts:
        return
    name = "htr-batch/" + "/".join(parts)
    assert key(results_base().url_for_key(name)) == name


def test_port_zero_is_not_mistaken_for_the_default_port():
    with pytest.raises(AddressRefused, match="port 0"):
        key("https://htr.example.org:0/results/htr-batch/p/v/iiif.json")

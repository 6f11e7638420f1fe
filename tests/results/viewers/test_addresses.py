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


# --- each refusal's whole sentence and fix, at the exact edge of each rule -------------------------------------

FIX = (
    "If the link came from a run, the run was published under a different base than this site reads: "
    "the chart's resultsUrl and converter.yaml's results_url must be equal."
)
NOT_UNDER = "The address is not under the results base https://htr.example.org/results/, so this site will not read it."
RAW = "The address contains a backslash, a space or a control character, which results addresses never do."
HIDDEN = (
    "The address hides a slash, a backslash or a control character in percent-encoding (such as %2F), "
    "which could point somewhere other than it seems; it is refused."
)
QUERY = "The address carries a query or a fragment (after ? or #); results addresses do not."
FOLDER = "The address names a folder, not a file."


def refusal(address):
    with pytest.raises(AddressRefused) as refused:
        key(address)
    return refused.value.sentence, refused.value.fix


@pytest.mark.parametrize(
    ("address", "sentence", "fix"),
    [
        ("", "No address was given: the link should carry the address of a results file.", ""),
        ("   ", "No address was given: the link should carry the address of a results file.", ""),
        (BASE + "/htr-batch/p/", FOLDER, ""),
        (BASE + "/htr-batch/p/v/./", FOLDER, ""),
        (BASE + "/", FOLDER, ""),
        (BASE + "/other-namespace/p/v.txt",
         "The address is under the results base but does not name a file in a namespace this site serves.", FIX),
        (BASE + "/htr-batch", "The address is under the results base but does not name a file in a namespace this "
                              "site serves.", FIX),
        (BASE, NOT_UNDER, FIX),
        (BASE + "/..", NOT_UNDER, FIX),
        ("https://htr.example.org/resultsx/htr-batch/a", NOT_UNDER, FIX),
        ("https://htr.example.org/htr-batch/a", NOT_UNDER, FIX),
        ("https://u@htr.example.org/results/htr-batch/a",
         "The address carries a user name or password before an @, which results addresses never do.", FIX),
        ("https://@htr.example.org/results/htr-batch/a",
         "The address carries a user name or password before an @, which results addresses never do.", FIX),
        ("https:///results/htr-batch/a",
         "The address points at no host, not at the results base https://htr.example.org/results/.", FIX),
        ("https://:443/results/htr-batch/a",
         "The address points at no host, not at the results base https://htr.example.org/results/.", FIX),
        ("https://htr.example.org./results/htr-batch/a",
         "The address points at htr.example.org., not at the results base https://htr.example.org/results/.", FIX),
        ("https://[::1]/results/htr-batch/a",
         "The address points at ::1, not at the results base https://htr.example.org/results/.", FIX),
        ("http://htr.example.org/results/htr-batch/a",
         "The address uses http, but the results base https://htr.example.org/results/ uses https.", FIX),
        ("http://htr.example.org:443/results/htr-batch/a",
         "The address uses http, but the results base https://htr.example.org/results/ uses https.", FIX),
        ("https://htr.example.org:80/results/htr-batch/a",
         "The address points at port 80, not at the results base https://htr.example.org/results/.", FIX),
        ("https://htr.example.org:442/results/htr-batch/a",
         "The address points at port 442, not at the results base https://htr.example.org/results/.", FIX),
        ("https://htr.example.org:x/results/htr-batch/a", "The address is not a well-formed URL.", FIX),
        ("https://htr.example.org:65536/results/htr-batch/a", "The address is not a well-formed URL.", FIX),
        ("https://[htr.example.org/results/htr-batch/a", "The address is not a well-formed URL.", FIX),
        ("HTTPS://htr.example.org/results/htr-batch/a%ff",
         "The address has percent-encoding that is not valid UTF-8.", FIX),
        (BASE + "/htr-batch/%c3%28", "The address has percent-encoding that is not valid UTF-8.", FIX),
        ("ftp://htr.example.org/results/htr-batch/a",
         "The address uses ftp; results are read only from https://htr.example.org/results/.", FIX),
        ("data:text/plain,x", "The address uses data; results are read only from https://htr.example.org/results/.",
         FIX),
        ("htr.example.org/results/htr-batch/a",
         "The address uses no scheme; results are read only from https://htr.example.org/results/.", FIX),
        (BASE + "/htr-batch/a?", QUERY, FIX),  # an empty query is still a query
        (BASE + "/htr-batch/a#", QUERY, FIX),
        (BASE + "/htr-batch/a?x=1", QUERY, FIX),
        (BASE + "/htr-batch/a#top", QUERY, FIX),
        (BASE + "/htr-batch/a//b", "The address has an empty name between two slashes (//).", FIX),
    ],
)
def test_each_refusal_says_exactly_why_and_what_an_operator_can_fix(address, sentence, fix):
    assert refusal(address) == (sentence, fix)


@pytest.mark.parametrize(
    "character", ["\x00", "\x01", "\t", "\n", "\r", "\x1b", "\x1f", " ", "\x7f", "\\"],
)
@pytest.mark.parametrize("where", ["/htr-batch/a{}b", "/htr-batch{}/a", "{}/htr-batch/a"])
def test_a_raw_control_character_space_or_backslash_anywhere_inside_is_refused(character, where):
    assert refusal(BASE + where.format(character)) == (RAW, FIX)


@pytest.mark.parametrize("character", ["!", "~", "\x80", "\x9f", "\xa0", "é", "€", "𝔄"])
def test_characters_past_the_control_range_are_names(character):
    assert key(BASE + f"/htr-batch/a{character}b") == f"htr-batch/a{character}b"


def test_surrounding_white_space_is_not_part_of_the_address():
    assert key(f" \t{BASE}/htr-batch/a \n") == "htr-batch/a"


@pytest.mark.parametrize(
    "escape", ["%2f", "%2F", "%5c", "%5C", "%00", "%0a", "%0A", "%09", "%10", "%1f", "%1F", "%7f", "%7F"],
)
@pytest.mark.parametrize("where", ["/htr-batch/a{}b", "/htr-batch/{}", "/{}/htr-batch/a"])
def test_an_escaped_separator_or_control_character_is_refused(escape, where):
    assert refusal(BASE + where.format(escape)) == (HIDDEN, FIX)


@pytest.mark.parametrize(
    ("escape", "name"),
    [("%20", " "), ("%2e", "."), ("%2B", "+"), ("%25", "%"), ("%3f", "?"), ("%23", "#"), ("%7e", "~"),
     ("%c2%80", "\x80"), ("%c2%a0", "\xa0"), ("%e2%82%ac", "€"), ("%2a", "*")],
)
def test_other_escapes_are_decoded_into_the_name(escape, name):
    assert key(BASE + f"/htr-batch/a{escape}b") == f"htr-batch/a{name}b"


def test_an_address_of_4096_characters_is_read_and_one_more_is_too_long():
    head = BASE + "/htr-batch/" + "./" * 2000  # "." segments: a long address, a short key
    longest = head + "a" * (4096 - len(head))
    assert len(longest) == 4096
    assert key(longest) == "htr-batch/" + "a" * (4096 - len(head))
    assert key("  " + longest + "\t ") == key(longest)  # white space around it does not count
    assert refusal(longest + "a") == ("The address is too long to be a results file address.", FIX)


def test_a_long_hostile_address_is_refused_as_too_long_before_anything_else():
    assert refusal("javascript:" + "\x00" * 5000)[0] == "The address is too long to be a results file address."


def test_a_site_relative_address_outside_its_results_is_refused():
    assert refusal("/htr-batch/p/v.txt") == (
        "The address is not under the results base /results/, so this site will not read it.", FIX,
    )
    assert refusal("/results/htr-batch/p/v.txt?x") == (QUERY, FIX)


def test_an_empty_setting_without_a_request_means_this_hosts_own_results(settings):
    settings.HTRFLOW_RESULTS_URL = ""
    base = results_base()
    assert (base.scheme, base.host, base.port, base.segments, base.url) == (
        "http", "localhost", 80, ("results",), "http://localhost/results"
    )
    assert key_for_address("http://localhost/results/htr-batch/a.txt") == "htr-batch/a.txt"


def test_no_setting_at_all_means_this_sites_own_results(settings):
    del settings.HTRFLOW_RESULTS_URL
    assert results_base().url == "http://localhost/results"


def test_the_sites_own_origin_keeps_its_host_whole(rf, settings):
    settings.HTRFLOW_RESULTS_URL = ""
    settings.ALLOWED_HOSTS = ["*"]
    base = results_base(rf.get("/log", HTTP_HOST="SANDBOX"))  # ends in a letter that is not a slash
    assert (base.host, base.port, base.url) == ("sandbox", 80, "http://SANDBOX/results")
    assert key_for_address("http://sandbox/results/htr-batch/a.txt", base=base) == "htr-batch/a.txt"
    with_port = results_base(rf.get("/log", HTTP_HOST="sandbox:8000"))
    assert (with_port.host, with_port.port, with_port.url) == ("sandbox", 8000, "http://sandbox:8000/results")
    secure = results_base(rf.get("/log", HTTP_HOST="h.example", secure=True))
    assert (secure.scheme, secure.port, secure.url) == ("https", 443, "https://h.example/results")


@pytest.mark.parametrize(
    ("configured", "scheme", "host", "port", "segments", "url"),
    [
        ("https://H.Example.org/results", "https", "h.example.org", 443, ("results",), "https://H.Example.org/results"),
        ("HTTP://h.example:8080/a/./b/../c%20d", "http", "h.example", 8080, ("a", "c d"), "http://h.example:8080/a/c%20d"),
        ("https://h.example", "https", "h.example", 443, (), "https://h.example"),
        ("ftp://h.example/r", "ftp", "h.example", 0, ("r",), "ftp://h.example/r"),  # no default port to assume
    ],
)
def test_the_configured_base_is_read_once_normalised(settings, configured, scheme, host, port, segments, url):
    settings.HTRFLOW_RESULTS_URL = configured
    base = results_base()
    assert (base.scheme, base.host, base.port, base.segments, base.url) == (scheme, host, port, segments, url)


def test_a_base_at_the_hosts_root_takes_any_served_key(settings):
    settings.HTRFLOW_RESULTS_URL = "https://h.example"
    assert key("https://h.example/htr-batch/p/a.txt") == "htr-batch/p/a.txt"
    assert refusal("https://h.example/")[0] == (
        "The address is not under the results base https://h.example/, so this site will not read it."
    )


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", categories=("Cc", "Cf", "Zs", "Zl", "Zp", "Cs", "Co", "Cn"),
                                      include_characters="\\%/.?#@:[]"), max_size=40))
def test_hostile_characters_after_the_base_never_give_a_key_holding_them(tail):
    try:
        result = key(BASE + "/htr-batch/" + tail)
    except AddressRefused as refused:
        assert refused.sentence
        return
    assert result.startswith("htr-batch/")
    assert not any(ch in result for ch in "\\?#") and not any(ord(ch) < 0x21 or ord(ch) == 0x7F for ch in result)
    assert all(part not in ("", ".", "..") for part in result.split("/"))

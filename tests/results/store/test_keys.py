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


# --- the rules at their edges -------------------------------------------------------------------------

PREFIX = NS + "/"  # 10 bytes


@pytest.mark.parametrize("filler", ["a", "å"], ids=["one-byte", "two-byte"])
def test_a_key_of_exactly_1024_bytes_is_accepted_and_one_of_1025_refused(filler):
    # The limit counts the decoded key's UTF-8 bytes, not its characters.
    room = 1024 - len(PREFIX)
    name = filler * (room // len(filler.encode()))
    name += "a" * (room - len(name.encode()))
    key = PREFIX + name
    assert len(key.encode()) == 1024
    assert key_from_raw_path(quote_key(key)) == key
    assert is_valid_key(key)
    with pytest.raises(KeyRefused):
        key_from_raw_path(quote_key(key + "b"))
    assert not is_valid_key(key + "b")


def test_the_length_limit_is_on_the_decoded_key_not_on_the_escaped_path():
    raw = PREFIX + "%61" * (1024 - len(PREFIX))  # 3 070 characters sent, 1 024 bytes decoded
    assert key_from_raw_path(raw) == PREFIX + "a" * (1024 - len(PREFIX))


@pytest.mark.parametrize("raw", ["%4", "%4g", "%g4", "%%41", "a%4/b", "x%4.txt", "%E"])
def test_a_percent_sign_not_followed_by_two_hex_digits_is_refused(raw):
    with pytest.raises(KeyRefused):
        key_from_raw_path(f"{PREFIX}p/{raw}")


@pytest.mark.parametrize(("raw", "decoded"), [("%41", "A"), ("%4a", "J"), ("%4A", "J"), ("x%20y", "x y")])
def test_a_percent_sign_followed_by_two_hex_digits_of_either_case_is_one_escape(raw, decoded):
    assert key_from_raw_path(f"{PREFIX}p/{raw}") == f"{PREFIX}p/{decoded}"


@pytest.mark.parametrize("control", ["\x00", "\x01", "\x09", "\x0a", "\x0d", "\x1b", "\x1f", "\x7f"])
def test_control_characters_are_refused_sent_as_they_are_or_escaped(control):
    with pytest.raises(KeyRefused):
        key_from_raw_path(f"{PREFIX}p/a{control}b")
    with pytest.raises(KeyRefused):
        key_from_raw_path(f"{PREFIX}p/a{quote(control, safe='')}b")
    assert not is_valid_key(f"{PREFIX}p/a{control}b")


@pytest.mark.parametrize("edge", [" ", "~"], ids=["space-after-US", "tilde-before-DEL"])
def test_the_printable_neighbours_of_the_control_ranges_are_accepted(edge):
    assert key_from_raw_path(f"{PREFIX}p/a{quote(edge, safe='')}b") == f"{PREFIX}p/a{edge}b"
    assert key_from_raw_path(f"{PREFIX}p/a{edge}b") == f"{PREFIX}p/a{edge}b"


def test_a_run_log_under_the_older_top_level_prefix_needs_pipeline_and_volume():
    assert key_from_raw_path("status/logs/p/v.txt") == "status/logs/p/v.txt"
    for raw in ("status/logs/v.txt", "status/logs", "status/logsx/p/v.txt"):
        with pytest.raises(KeyRefused):
            key_from_raw_path(raw)


ANY_SEGMENT = st.text(st.characters(codec="utf-8", exclude_characters="/"), min_size=1, max_size=12)


@hsettings(max_examples=400, deadline=None)
@given(st.lists(ANY_SEGMENT, min_size=1, max_size=5))
def test_a_key_round_trips_exactly_when_it_has_no_control_character_backslash_or_dot_segment(segments):
    """The round trip includes the hostile characters: a key survives it whole, or is refused; never changed."""
    key = "/".join([NS, *segments])
    clean = (
        len(key.encode()) <= 1024
        and not any(ord(ch) < 0x20 or ord(ch) == 0x7F or ch == "\\" for ch in key)
        and not any(segment in (".", "..") for segment in segments)
    )
    if clean:
        assert key_from_raw_path(quote_key(key)) == key
    else:
        with pytest.raises(KeyRefused):
            key_from_raw_path(quote_key(key))
    assert is_valid_key(key) == clean


@hsettings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=1200), st.sampled_from(["a", "å", "€", "𝄞"]))
def test_the_length_rule_holds_for_any_length_and_width_of_character(count, filler):
    key = PREFIX + filler * count
    assert is_valid_key(key) == (len(key.encode()) <= 1024)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "no key"),
        (None, "no key"),
        (b"htr-batch/p/x", "no key"),
        ("htr-batch/p\\x", "a control character or backslash"),
        ("htr-batch/p/a\x7f", "a control character or backslash"),
        ("htr-batch/p/%4", "a percent sign that does not start an escape"),
        ("htr-batch/p/%FF", "bytes that are not UTF-8"),
        ("htr-batch/p%2Fx", "an encoded slash or backslash"),
        ("htr-batch/p%5cx", "an encoded slash or backslash"),
        ("htr-batch/../x", "an empty, '.' or '..' segment"),
        ("htr-batch//x", "an empty, '.' or '..' segment"),
        ("htr-batch/p/%7F", "a control character"),
        ("htr-batch/p/%1f", "a control character"),
        ("htr-batch/" + "a" * 1015, "longer than a store key may be"),
        ("other-ns/p/x", "outside the served namespaces"),
    ],
)
def test_each_refusal_says_which_rule_refused_the_key(raw, reason):
    # The reason is what the operator reads in the log line of a refused results address.
    with pytest.raises(KeyRefused) as refused:
        key_from_raw_path(raw)
    assert str(refused.value) == reason

"""The run log page's summary of a volume's manifest.json (results/viewers/manifest.py), and the pages the
ALTO viewer learns from it: read from a reader double, so every failure the store or the file can give is
one call away. Written from the rules: what each field of the manifest becomes, what is linked (only page
ids that name an ALTO file, only pages that have one), the exact caps, and every way a read can fail."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import bounded_json
from core.quality import volume_quality
from results.store.addresses import ResultsBase
from results.store.reader import Outcome, StoreError
from results.viewers.manifest import (
    MANIFEST_LIMIT,
    MANIFEST_VALUES_MAX,
    PAGES_LISTED,
    manifest_summary,
    summarise_manifest,
    volume_pages,
)
from results.viewers.reading import LOG_SENTENCES, LoginAgain

BASE = ResultsBase(scheme="https", host="htr.example.org", port=443, segments=("results",),
                   url="https://htr.example.org/results")
KEY = "htr-batch/p/V1/manifest.json"
ADDRESS = "https://htr.example.org/results/" + KEY


def alto(page: str, prefix: str = "htr-batch%2Fp%2FV1") -> str:
    """The ALTO viewer's link to a page of the volume, as the summary writes it."""
    return f"/alto?src=https%3A%2F%2Fhtr.example.org%2Fresults%2F{prefix}%2Falto%2F{page}.xml"


class Reader:
    """A reader double: answers ``get_json`` with ``answer`` (raised when it is an exception), and keeps
    each call."""

    def __init__(self, answer):
        self.answer = answer
        self.calls = []

    def get_json(self, key, **bounds):
        self.calls.append((key, bounds))
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


@pytest.fixture(autouse=True)
def _results_url(settings):
    settings.HTRFLOW_RESULTS_URL = BASE.url


# --- summarise_manifest -----------------------------------------------------------------------------


def test_a_finished_volume_is_summarised_field_by_field():
    record = {
        "volume": "V1",
        "pipeline_id": "swe-lines-v2",
        "htrflow_version": "0.4.1",
        "pages": 5,
        "pages_ok": 3,
        "pages_failed": 1,
        "wall_seconds": 61.5,
        "results": {
            "0002": {"status": "ok", "seconds": 2.0, "quality": 0.5},
            "0001": {"status": "ok", "seconds": 1.0, "quality": 0.9},
            "0003": {"status": "failed", "seconds": 9.0, "error": "OOM"},
            "0004": {"status": "skipped"},
            "0005": {"status": "ok", "seconds": 4.0},
        },
        "quality": {"mean": 0.7, "target": "bow_f1", "lowest": [{"page": "0002", "quality": 0.5}]},
    }
    summary = summarise_manifest(record, KEY, BASE)
    row = {
        "0001": {"id": "0001", "status": "ok", "seconds": 1.0, "error": "", "quality": 0.9, "alto_url": alto("0001")},
        "0002": {"id": "0002", "status": "ok", "seconds": 2.0, "error": "", "quality": 0.5, "alto_url": alto("0002")},
        "0003": {"id": "0003", "status": "failed", "seconds": 9.0, "error": "OOM", "quality": None,
                 "alto_url": alto("0003")},
        "0004": {"id": "0004", "status": "skipped", "seconds": None, "error": "", "quality": None, "alto_url": ""},
        "0005": {"id": "0005", "status": "ok", "seconds": 4.0, "error": "", "quality": None, "alto_url": alto("0005")},
    }
    scores = volume_quality(record["quality"])
    assert summary == {
        "volume": "V1",
        "pipeline": "swe-lines-v2",
        "htrflow_version": "0.4.1",
        "pages_total": 5,
        "ok": 3,
        "failed": 1,
        "skipped": 1,
        "wall_seconds": 61.5,
        "median_seconds": 2.0,  # of the pages done: a failed page's 9 s is not a page's work
        "slowest": [row["0005"], row["0002"], row["0001"]],
        "failed_pages": [row["0003"]],
        "pages": [row[p] for p in ("0001", "0002", "0003", "0004", "0005")],
        "quality": scores,
        "quality_meaning": "the expected bag-of-words F1, about the share of the page's words read right",
        "quality_lowest": [{"id": "0002", "quality": 0.5, "band": "low", "alto_url": alto("0002")}],
        "any_page_scored": True,
    }


def test_an_empty_manifest_gives_an_empty_summary_not_an_error():
    assert summarise_manifest({}, KEY, BASE) == {
        "volume": "",
        "pipeline": "",
        "htrflow_version": "",
        "pages_total": 0,
        "ok": 0,
        "failed": 0,
        "skipped": 0,
        "wall_seconds": None,
        "median_seconds": None,
        "slowest": [],
        "failed_pages": [],
        "pages": [],
        "quality": None,
        "quality_meaning": "",
        "quality_lowest": [],
        "any_page_scored": False,
    }


def test_counts_the_manifest_does_not_give_as_numbers_are_counted_from_its_pages():
    results = {"1": {"status": "ok"}, "2": {"status": "ok"}, "3": {"status": "failed"}, "4": {"status": "skipped"}}
    summary = summarise_manifest({"pages": "4", "pages_ok": 2.0, "pages_failed": None, "results": results}, KEY,
                                 BASE)
    assert (summary["pages_total"], summary["ok"], summary["failed"], summary["skipped"]) == (4, 2, 1, 1)
    # The manifest's own counts win when they are numbers, even when its results list fewer pages.
    given_counts = summarise_manifest({"pages": 10, "pages_ok": 7, "pages_failed": 0, "results": results}, KEY, BASE)
    assert (given_counts["pages_total"], given_counts["ok"], given_counts["failed"]) == (10, 7, 0)
    # JSON's true is no count, though Python takes it for 1.
    truths = summarise_manifest({"pages": True, "pages_ok": True, "pages_failed": False, "results": results}, KEY,
                                BASE)
    assert (truths["pages_total"], truths["ok"], truths["failed"]) == (4, 2, 1)


def test_pages_are_listed_in_page_order_shorter_ids_first():
    results = {name: {"status": "ok"} for name in ("10", "9", "0010", "100", "1", "b", "a")}
    assert [p["id"] for p in summarise_manifest({"results": results}, KEY, BASE)["pages"]] == [
        "1", "9", "a", "b", "10", "100", "0010",
    ]


def test_a_status_outside_the_three_the_contract_names_is_unknown_and_not_linked():
    results = {
        "0001": {"status": "OK"},
        "0002": {"status": "done"},
        "0003": {"status": None},
        "0004": "ok",  # not an object: nothing is known of the page
        "0005": ["ok"],
        "0006": {},
        "0007": {"status": ""},
        "0008": {"status": " ok"},
    }
    pages = summarise_manifest({"results": results}, KEY, BASE)["pages"]
    assert [(p["status"], p["alto_url"], p["seconds"], p["error"]) for p in pages] == [("unknown", "", None, "")] * 8


@pytest.mark.parametrize(
    ("page_id", "linked"),
    [
        ("1", True),
        ("0001", True),
        ("123456", True),  # six digits: the longest id that names an ALTO file
        ("1234567", False),
        ("", False),
        ("0001a", False),
        ("a0001", False),
        ("00 1", False),
        ("-1", False),
        ("+1", False),
        ("1.0", False),
        ("0001\n", False),  # a line end after the digits names no file
        ("\n0001", False),
        ("0001\x00", False),
        ("٠٠٠١", False),  # Arabic-Indic digits: not how ALTO files are named
        ("../../x", False),
        ("0001/../../x", False),
        ("%30001", False),
    ],
)
@pytest.mark.parametrize("status", ["ok", "failed"])
def test_only_a_page_id_of_one_to_six_digits_links_to_its_alto_file(page_id, linked, status):
    [page] = summarise_manifest({"results": {page_id: {"status": status}}}, KEY, BASE)["pages"]
    assert page["alto_url"] == (alto(page_id) if linked else "")
    assert page["status"] == status


def test_a_skipped_page_has_no_alto_file_to_link():
    [page] = summarise_manifest({"results": {"0001": {"status": "skipped"}}}, KEY, BASE)["pages"]
    assert page["alto_url"] == ""


def test_links_point_beside_the_manifest_with_names_encoded():
    summary = summarise_manifest({"results": {"7": {"status": "ok"}}}, "htr-batch/p q/C 1#2/manifest.json", BASE)
    assert summary["pages"][0]["alto_url"] == alto("7", prefix="htr-batch%2Fp%2520q%2FC%25201%25232")


def test_the_page_list_stops_at_its_cap_in_page_order():
    results = {str(n): {"status": "ok"} for n in range(PAGES_LISTED + 1, 0, -1)}
    pages = summarise_manifest({"results": results}, KEY, BASE)["pages"]
    assert len(pages) == PAGES_LISTED == 10_000
    assert pages[0]["id"] == "1" and pages[-1]["id"] == "10000"


def test_text_fields_are_cut_to_their_length():
    record = {
        "volume": "v" * 81,
        "pipeline_id": "p" * 81,
        "htrflow_version": "h" * 41,
        "results": {"1" * 13: {"status": "failed", "error": "e" * 3501}},
    }
    summary = summarise_manifest(record, KEY, BASE)
    assert summary["volume"] == "v" * 80 and summary["pipeline"] == "p" * 80
    assert summary["htrflow_version"] == "h" * 40
    [page] = summary["pages"]
    assert page["id"] == "1" * 12 and page["error"] == "e" * 3500
    exact = summarise_manifest({"volume": "v" * 80, "results": {"0001": {"status": "failed", "error": "e" * 3500}}},
                               KEY, BASE)
    assert exact["volume"] == "v" * 80 and exact["pages"][0]["error"] == "e" * 3500


def test_values_of_other_types_are_shown_as_text_and_missing_ones_as_nothing():
    summary = summarise_manifest({"volume": 12, "pipeline_id": None, "results": {"1": {"status": "failed",
                                                                                       "error": {"a": 1}}}}, KEY, BASE)
    assert summary["volume"] == "12" and summary["pipeline"] == ""
    assert summary["pages"][0]["error"] == "{'a': 1}"


def test_only_finite_numbers_are_times_and_scores():
    results = {
        "1": {"status": "ok", "seconds": True, "quality": "0.9"},
        "2": {"status": "ok", "seconds": "3", "quality": float("nan")},
        "3": {"status": "ok", "seconds": float("inf"), "quality": None},
    }
    summary = summarise_manifest({"results": results, "wall_seconds": "61"}, KEY, BASE)
    assert [(p["seconds"], p["quality"]) for p in summary["pages"]] == [(None, None)] * 3
    assert summary["median_seconds"] is None and summary["slowest"] == []
    assert summary["wall_seconds"] is None and summary["any_page_scored"] is False


def test_the_median_and_the_slowest_three_count_only_timed_pages_done():
    results = {
        "1": {"status": "ok", "seconds": 1},
        "2": {"status": "ok", "seconds": 5},
        "3": {"status": "ok", "seconds": 3},
        "4": {"status": "ok", "seconds": 4},
        "5": {"status": "ok"},
        "6": {"status": "failed", "seconds": 100},
        "7": {"status": "skipped", "seconds": 200},
    }
    summary = summarise_manifest({"results": results}, KEY, BASE)
    assert summary["median_seconds"] == 3.5
    assert [p["id"] for p in summary["slowest"]] == ["2", "4", "3"]


def test_one_scored_page_is_enough_to_say_pages_were_scored():
    results = {"1": {"status": "ok"}, "2": {"status": "failed", "quality": 0}}
    assert summarise_manifest({"results": results}, KEY, BASE)["any_page_scored"] is True


def test_results_that_are_not_an_object_list_no_page():
    for results in (["0001"], "0001", 1, None):
        summary = summarise_manifest({"results": results, "pages": 3}, KEY, BASE)
        assert summary["pages"] == [] and summary["pages_total"] == 3 and summary["ok"] == 0


def test_the_lowest_scored_pages_are_five_at_most_each_with_its_band_and_link():
    lowest = [{"page": f"{n:04d}", "quality": q} for n, q in enumerate([0.9, 0.1, 0.7, 0.3, 0.85, 0.2, 0.6], 1)]
    summary = summarise_manifest({"quality": {"mean": 0.5, "lowest": lowest}}, KEY, BASE)
    assert summary["quality_lowest"] == [
        {"id": "0002", "quality": 0.1, "band": "low", "alto_url": alto("0002")},
        {"id": "0006", "quality": 0.2, "band": "low", "alto_url": alto("0006")},
        {"id": "0004", "quality": 0.3, "band": "low", "alto_url": alto("0004")},
        {"id": "0007", "quality": 0.6, "band": "fair", "alto_url": alto("0007")},
        {"id": "0003", "quality": 0.7, "band": "fair", "alto_url": alto("0003")},
    ]
    assert summary["quality_meaning"] == "the expected share of the page's text read right"  # no target given


# --- manifest_summary: reading the file -------------------------------------------------------------


def test_the_manifest_is_read_at_its_key_within_its_caps_and_summarised():
    reader = Reader({"volume": "V1", "results": {"0001": {"status": "ok", "seconds": 2}}})
    summary = manifest_summary(None, reader, BASE, ADDRESS)
    assert reader.calls == [(KEY, {"max_bytes": 4 * 1024 * 1024, "max_values": 500_000})]
    assert (MANIFEST_LIMIT, MANIFEST_VALUES_MAX) == (4 * 1024 * 1024, 500_000)
    assert summary == summarise_manifest(reader.answer, KEY, BASE)
    assert summary["pages"][0]["alto_url"] == alto("0001")


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("", "No address was given: the link should carry the address of a results file."),
        ("https://evil.example/results/" + KEY, "The address points at evil.example, not at the results base "
                                                "https://htr.example.org/results/."),
        ("https://htr.example.org/results/" + KEY + "?x", "The address carries a query or a fragment (after ? or #); "
                                                          "results addresses do not."),
        ("javascript:alert(1)", "The address uses javascript; results are read only from "
                                "https://htr.example.org/results/."),
        ("https://htr.example.org/results/htr-batch/%2e%2e/%2e%2e/x", "The address is not under the results base "
                                                                      "https://htr.example.org/results/, so this "
                                                                      "site will not read it."),
    ],
)
def test_an_address_the_viewers_refuse_is_said_and_never_read(address, reason):
    reader = Reader({"volume": "V1"})
    assert manifest_summary(None, reader, BASE, address) == {"problem": f"The summary is not shown: {reason}"}
    assert reader.calls == []


def test_a_manifest_not_there_yet_means_the_volume_has_not_finished():
    reader = Reader(StoreError(Outcome.NOT_FOUND))
    assert manifest_summary(None, reader, BASE, ADDRESS) == {
        "problem": "There is no manifest.json yet: the volume has not finished, so there is no summary."
    }


@pytest.mark.parametrize("outcome", [Outcome.FORBIDDEN, Outcome.UNREACHABLE, Outcome.TIMEOUT])
def test_a_store_failure_is_said_in_the_log_pages_words(outcome):
    summary = manifest_summary(None, Reader(StoreError(outcome)), BASE, ADDRESS)
    assert summary == {"problem": f"The summary is not shown: {LOG_SENTENCES[outcome]}"}


def test_a_store_failure_the_log_page_has_no_words_for_is_said_in_the_stores_own():
    summary = manifest_summary(None, Reader(StoreError(Outcome.NO_REASON)), BASE, ADDRESS)
    assert summary == {"problem": "The summary is not shown: The results store refused without giving a reason; "
                                  "the bucket or namespace may be set wrongly."}


@pytest.mark.parametrize("outcome", [Outcome.SESSION_ENDED, Outcome.NO_SESSION])
def test_an_ended_session_leaves_for_the_login_page(outcome):
    with pytest.raises(LoginAgain):
        manifest_summary(None, Reader(StoreError(outcome)), BASE, ADDRESS)
    with pytest.raises(LoginAgain):
        volume_pages(Reader(StoreError(outcome)), "htr-batch/p/V1")


TOO_MUCH = ("The summary is not shown: manifest.json holds more than this page reads (at most 4 MiB, 500,000 values "
            "and 64 levels of nesting).")


@pytest.mark.parametrize(
    "error",
    [bounded_json.JsonTooLarge(5 * 1024 * 1024, MANIFEST_LIMIT), bounded_json.JsonTooMany(500_001, 500_000),
     bounded_json.JsonTooDeep(64)],
)
def test_a_manifest_past_any_of_its_caps_says_all_three(error):
    assert manifest_summary(None, Reader(error), BASE, ADDRESS) == {"problem": TOO_MUCH}


@pytest.mark.parametrize(
    "error",
    [ValueError("Expecting value"), UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
     RecursionError()],
)
def test_a_manifest_that_is_not_json_says_so(error):
    assert manifest_summary(None, Reader(error), BASE, ADDRESS) == {
        "problem": "The summary is not shown: manifest.json is not readable JSON."
    }


@pytest.mark.parametrize("record", [[], ["volume"], "V1", 3, None, True])
def test_a_manifest_that_is_not_an_object_says_so(record):
    assert manifest_summary(None, Reader(record), BASE, ADDRESS) == {
        "problem": "The summary is not shown: manifest.json is not a JSON object."
    }


# --- volume_pages: what the ALTO viewer learns --------------------------------------------------------


def test_the_alto_viewer_learns_the_page_count_and_each_pages_status():
    reader = Reader({"pages": 4, "results": {"0001": {"status": "ok"}, "0002": {"status": "failed"},
                                             "0003": {"status": "skipped"}, "0004": {"status": "lost"}}})
    assert volume_pages(reader, "htr-batch/p/V1") == {
        "listed": 4,
        "statuses": {1: "ok", 2: "failed", 3: "skipped", 4: "unknown"},
    }
    assert reader.calls == [("htr-batch/p/V1/manifest.json", {"max_bytes": MANIFEST_LIMIT,
                                                               "max_values": MANIFEST_VALUES_MAX})]


@pytest.mark.parametrize(
    ("listed", "expected"),
    [(1, 1), (PAGES_LISTED, PAGES_LISTED), (PAGES_LISTED + 1, None), (0, None), (-1, None), (4.0, None),
     ("4", None), (None, None), (True, None)],
)
def test_the_page_count_is_taken_only_from_one_to_the_pages_listed(listed, expected):
    assert volume_pages(Reader({"pages": listed}), "ns/p/V1") == {"listed": expected, "statuses": {}}


def test_only_page_ids_of_one_to_six_digits_above_zero_are_pages():
    results = {"0": {"status": "ok"}, "0000": {"status": "ok"}, "000001": {"status": "failed"},
               "1000000": {"status": "ok"}, "x1": {"status": "ok"}, "0002\n": {"status": "failed"},
               "٣": {"status": "failed"}, "999999": {"status": "skipped"}, "3": "ok", "4": None,
               "5": {"status": ""}}
    assert volume_pages(Reader({"results": results}), "ns/p/V1")["statuses"] == {
        1: "failed", 999999: "skipped", 3: "unknown", 4: "unknown", 5: "unknown",
    }


def test_the_statuses_stop_at_the_pages_listed_in_the_files_order():
    results = {str(n): {"status": "ok"} for n in range(PAGES_LISTED + 1, 0, -1)}
    statuses = volume_pages(Reader({"results": results}), "ns/p/V1")["statuses"]
    assert len(statuses) == PAGES_LISTED and 1 not in statuses and PAGES_LISTED + 1 in statuses


@pytest.mark.parametrize(
    "answer",
    [StoreError(Outcome.NOT_FOUND), StoreError(Outcome.FORBIDDEN), StoreError(Outcome.TIMEOUT),
     ValueError("x"), UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"), RecursionError(),
     bounded_json.JsonTooLarge(1, 0), bounded_json.JsonTooMany(2, 1), bounded_json.JsonTooDeep(64),
     [], "x", None],
)
def test_no_readable_manifest_means_no_pages_known(answer):
    assert volume_pages(Reader(answer), "ns/p/V1") is None


def test_results_that_are_not_an_object_give_no_statuses():
    assert volume_pages(Reader({"results": [{"status": "ok"}], "pages": 2}), "ns/p/V1") == {
        "listed": 2, "statuses": {},
    }


hostile_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=20) | st.sampled_from(
    ["\x00", "\x7f", "\n1", "1\n", "%00", "../1", "1/../../2", "\\1", "1" * 7, "１", "٣", "¹"]
)
entry = st.one_of(
    st.fixed_dictionaries({"status": st.sampled_from(["ok", "failed", "skipped", "OK", "", None])}),
    st.none(), hostile_text, st.integers(),
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(hostile_text, entry, max_size=8))
def test_any_results_give_links_only_to_alto_files_beside_the_manifest(results):
    summary = summarise_manifest({"results": results}, KEY, BASE)
    for page in summary["pages"]:
        if page["alto_url"]:
            assert page["id"].isascii() and page["id"].isdigit() and 1 <= len(page["id"]) <= 6
            assert page["alto_url"] == alto(page["id"])
            assert page["status"] in ("ok", "failed")
    pages = volume_pages(Reader({"results": results}), "ns/p/V1")
    assert all(isinstance(n, int) and 0 < n < 10**6 for n in pages["statuses"])
    assert set(pages["statuses"].values()) <= {"ok", "failed", "skipped", "unknown"}


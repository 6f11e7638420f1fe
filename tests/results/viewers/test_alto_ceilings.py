"""The page's ceilings, on small files: each limit is read when a page is parsed, so it is set low here and a
file is built just at it and just past it. What is kept stops exactly at the limit, and the page says in a
sentence what it left out (with the reader's grouping of large counts). ``test_alto_bounds.py`` shows the
same rules at full size, with their memory; it is too slow to run against every mutant."""

from __future__ import annotations

import pytest

from results.formats import alto
from results.formats.alto import parse_alto

BOX = 'HPOS="1" VPOS="1" WIDTH="5" HEIGHT="5"'


def page(inner: str, width: int = 1000, height: int = 1000) -> bytes:
    return (
        f'<alto><Layout><Page WIDTH="{width}" HEIGHT="{height}"><PrintSpace><TextBlock ID="b">'
        f"{inner}</TextBlock></PrintSpace></Page></Layout></alto>"
    ).encode()


def line(*words: str, attributes: str = BOX) -> str:
    return f"<TextLine {attributes}>" + "".join(f'<String CONTENT="{w}"/>' for w in words) + "</TextLine>"


def polygon(count: int, *, box: str = "", start: int = 0) -> str:
    """A line whose outline has ``count`` points, x running from ``start``; with ``box``, its box too."""
    points = " ".join(f"{start + i},{i % 3}" for i in range(count))
    return f'<TextLine {box}><Shape><Polygon POINTS="{points}"/></Shape><String CONTENT="w"/></TextLine>'


def very_long(lines: str, words: str) -> str:
    return f"The file is very long; only its first {lines} and {words} words are shown."


def about_outlines(page_):
    return [p for p in page_.problems if "outline" in p]


def about_text(page_):
    return [p for p in page_.problems if "characters" in p]


# --- lines ----------------------------------------------------------------------------------------------


def test_lines_up_to_the_limit_are_all_kept_without_a_sentence(monkeypatch):
    monkeypatch.setattr(alto, "MAX_LINES", 3)
    parsed = parse_alto(page(line("a") + line("b") + line("c")))
    assert [ln.text for ln in parsed.lines] == ["a", "b", "c"] and parsed.total_lines == 3
    assert not any("very long" in p for p in parsed.problems)


def test_a_line_past_the_limit_is_counted_not_kept_and_said(monkeypatch):
    monkeypatch.setattr(alto, "MAX_LINES", 3)
    parsed = parse_alto(page(line("a") + line("b", "x") + line("c") + line("d") + line("e")))
    assert [ln.text for ln in parsed.lines] == ["a", "b x", "c"] and parsed.total_lines == 5
    assert parsed.problems == [very_long("3 lines", "4")]


def test_one_line_kept_is_said_in_the_singular(monkeypatch):
    monkeypatch.setattr(alto, "MAX_LINES", 1)
    parsed = parse_alto(page(line("a", "b") + line("c")))
    assert [ln.text for ln in parsed.lines] == ["a b"]
    assert parsed.problems == [very_long("1 line", "2")]


def test_large_counts_of_lines_and_words_are_grouped_as_the_reader_writes_them(monkeypatch):
    monkeypatch.setattr(alto, "MAX_LINES", 1_000)
    parsed = parse_alto(page(line("w") * 1_001))
    assert len(parsed.lines) == 1_000 and parsed.total_lines == 1_001
    assert very_long("1,000 lines", "1,000") in parsed.problems


def test_a_textline_outside_a_text_block_or_inside_another_line_is_counted_not_kept():
    nested = (
        '<TextLine HPOS="1" VPOS="1" WIDTH="5" HEIGHT="5"><String CONTENT="outer"/>' + line("inner") + "</TextLine>"
    )
    wrapped = "<Wrapper>" + line("wrapped") + "</Wrapper>"
    xml = (
        "<alto><Layout><Page WIDTH='100' HEIGHT='100'>"
        + line("loose")
        + "<PrintSpace><TextBlock>"
        + nested
        + wrapped
        + line("kept")
        + "</TextBlock></PrintSpace></Page></Layout></alto>"
    )
    parsed = parse_alto(xml.encode())
    assert [ln.text for ln in parsed.lines] == ["outer", "kept"]
    assert [ln.number for ln in parsed.lines] == [1, 2]
    assert parsed.total_lines == 5


# --- words ----------------------------------------------------------------------------------------------


def test_words_up_to_the_limit_are_kept_and_the_next_one_fills_the_page(monkeypatch):
    monkeypatch.setattr(alto, "MAX_WORDS", 3)
    whole = parse_alto(page(line("a", "b", "c")))
    assert whole.lines[0].text == "a b c" and whole.problems == []
    parsed = parse_alto(page(line("a", "b", "c", "d") + line("e")))
    assert [ln.text for ln in parsed.lines] == ["a b c"]
    assert parsed.problems == [very_long("1 line", "3")]


def test_once_the_words_are_spent_no_further_line_is_begun(monkeypatch):
    monkeypatch.setattr(alto, "MAX_WORDS", 2)
    parsed = parse_alto(page(line("a") + line("b") + line("c")))
    assert [ln.text for ln in parsed.lines] == ["a", "b"] and parsed.total_lines == 3
    assert parsed.problems == [very_long("2 lines", "2")]


# --- characters of text ---------------------------------------------------------------------------------


def test_text_that_just_fills_the_page_is_kept_whole_without_a_sentence(monkeypatch):
    monkeypatch.setattr(alto, "TEXT_CHARS_MAX", 5)
    parsed = parse_alto(page(line("ab", "cde")))
    assert parsed.lines[0].text == "ab cde" and parsed.problems == []


def test_text_past_the_limit_is_cut_at_it_and_said(monkeypatch):
    monkeypatch.setattr(alto, "TEXT_CHARS_MAX", 5)
    parsed = parse_alto(page(line("abc", "defgh")))
    assert [w.text for w in parsed.lines[0].words] == ["abc", "de"]
    assert parsed.problems == ["The text of this page runs over 5 characters; only the first 5 are shown."]


def test_once_the_characters_are_spent_no_further_word_or_line_is_kept(monkeypatch):
    monkeypatch.setattr(alto, "TEXT_CHARS_MAX", 4)
    parsed = parse_alto(page(line("ab") + line("cd", "ef") + line("gh")))
    assert [ln.text for ln in parsed.lines] == ["ab", "cd"]
    assert parsed.problems == [very_long("2 lines", "2")]


def test_a_shown_invisible_character_counts_as_the_symbol_it_becomes(monkeypatch):
    monkeypatch.setattr(alto, "TEXT_CHARS_MAX", 5)
    parsed = parse_alto(page(line("&#x200B;")))
    assert parsed.lines[0].text == "⟨U+20"
    assert about_text(parsed) == ["The text of this page runs over 5 characters; only the first 5 are shown."]


def test_a_hyphen_past_the_limit_is_left_out_with_the_text(monkeypatch):
    monkeypatch.setattr(alto, "TEXT_CHARS_MAX", 3)
    parsed = parse_alto(
        page('<TextLine HPOS="1" VPOS="1" WIDTH="5" HEIGHT="5"><String CONTENT="abc"/><HYP/></TextLine>')
    )
    assert parsed.lines[0].hyphen == "" and parsed.lines[0].text == "abc"
    assert about_text(parsed) == ["The text of this page runs over 3 characters; only the first 3 are shown."]


def test_the_character_limit_is_grouped_in_its_sentence(monkeypatch):
    monkeypatch.setattr(alto, "TEXT_CHARS_MAX", 1_000)
    parsed = parse_alto(page(line("x" * 1_200)))
    assert len(parsed.text()) == 1_001
    assert about_text(parsed) == ["The text of this page runs over 1,000 characters; only the first 1,000 are shown."]


def test_the_full_character_ceiling_is_kept_exactly():
    """Unpatched: words of exactly ``TEXT_CHARS_MAX`` characters in all are whole, one more is cut."""
    words = ["a" * (alto.TEXT_CHARS_MAX // 5)] * 5  # a tag holds at most 256 KiB
    whole = parse_alto(page(line(*words)))
    assert len(whole.text()) == alto.TEXT_CHARS_MAX + 4 + 1 and about_text(whole) == []
    over = parse_alto(page(line(*words[:4], words[4] + "b")))
    assert over.lines[0].words[-1].text == words[4]
    assert about_text(over) == ["The text of this page runs over 500,000 characters; only the first 500,000 are shown."]


# --- elements -------------------------------------------------------------------------------------------


def test_reading_stops_past_the_element_limit_and_says_how_many_lines_it_read(monkeypatch):
    # <alto> <Layout> <Page> <PrintSpace> <TextBlock>, then two elements a line (TextLine, String).
    lines = line("a") * 5
    monkeypatch.setattr(alto, "MAX_ELEMENTS", 9)
    whole = parse_alto(page(lines[: 2 * len(line("a"))]))
    assert [ln.text for ln in whole.lines] == ["a", "a"] and whole.problems == []
    monkeypatch.setattr(alto, "MAX_ELEMENTS", 8)
    stopped = parse_alto(page(lines))
    # The second line was begun and is kept with what was read of it: its box, no word.
    assert [ln.text for ln in stopped.lines] == ["a", ""] and stopped.lines[1].points
    assert stopped.problems == [
        "The file has more than 8 elements; only the first 8 are read, with 2 text lines among them."
    ]


def test_one_line_read_before_the_element_limit_is_said_in_the_singular(monkeypatch):
    monkeypatch.setattr(alto, "MAX_ELEMENTS", 7)
    stopped = parse_alto(page(line("a") * 3))
    assert [ln.text for ln in stopped.lines] == ["a"]
    assert stopped.problems == [
        "The file has more than 7 elements; only the first 7 are read, with 1 text line among them."
    ]


def test_the_element_limit_is_grouped_in_its_sentence(monkeypatch):
    monkeypatch.setattr(alto, "MAX_ELEMENTS", 1_000)
    stopped = parse_alto(page("<SP/>" * 1_200))
    assert stopped.problems[0] == (
        "The file has more than 1,000 elements; only the first 1,000 are read, with 0 text lines among them."
    )


def test_a_page_full_of_lines_says_so_rather_than_the_elements_it_did_not_read(monkeypatch):
    monkeypatch.setattr(alto, "MAX_LINES", 1)
    monkeypatch.setattr(alto, "MAX_ELEMENTS", 9)
    parsed = parse_alto(page(line("a") * 4))
    assert parsed.problems == [very_long("1 line", "1")]


# --- outlines -------------------------------------------------------------------------------------------


def test_an_outline_of_exactly_the_limit_is_kept_whole_without_a_sentence(monkeypatch):
    monkeypatch.setattr(alto, "OUTLINE_POINTS_MAX", 5)
    parsed = parse_alto(page(polygon(5)))
    assert len(parsed.lines[0].points) == 5 and parsed.lines[0].polygon_from_file
    assert about_outlines(parsed) == []


def test_a_longer_outline_keeps_the_limit_spread_along_it_and_says_so(monkeypatch):
    monkeypatch.setattr(alto, "OUTLINE_POINTS_MAX", 4)
    parsed = parse_alto(page(polygon(10)))
    # Points 0, 2, 5 and 7 of the ten: i * 10 // 4.
    assert parsed.lines[0].points == ((0, 0), (2, 2), (5, 2), (7, 1)) and parsed.lines[0].polygon_from_file
    assert parsed.lines[0].box == (0, 0, 7, 2)
    assert about_outlines(parsed) == [
        "1 line outline has more than 4 points; it is drawn simplified, with 4 points spread along it."
    ]


def test_several_simplified_outlines_are_said_in_the_plural(monkeypatch):
    monkeypatch.setattr(alto, "OUTLINE_POINTS_MAX", 4)
    parsed = parse_alto(page(polygon(6) + polygon(4) + polygon(9)))
    assert [len(ln.points) for ln in parsed.lines] == [4, 4, 4]
    assert about_outlines(parsed) == [
        "2 line outlines have more than 4 points; they are drawn simplified, with 4 points spread along each."
    ]


def test_the_outline_limit_is_grouped_in_its_sentence(monkeypatch):
    monkeypatch.setattr(alto, "OUTLINE_POINTS_MAX", 1_000)
    parsed = parse_alto(page(polygon(1_001)))
    assert len(parsed.lines[0].points) == 1_000
    assert about_outlines(parsed) == [
        "1 line outline has more than 1,000 points; it is drawn simplified, with 1,000 points spread along it."
    ]


def test_the_last_four_points_of_the_page_still_draw_an_outline_and_three_do_not(monkeypatch):
    monkeypatch.setattr(alto, "OUTLINE_POINTS_MAX", 6)
    monkeypatch.setattr(alto, "POINTS_KEPT_MAX", 10)
    four_left = parse_alto(page(polygon(6) + polygon(5, start=100)))
    first, second = four_left.lines
    assert len(first.points) == 6 and len(second.points) == 4 and second.polygon_from_file
    assert second.points[0] == (100, 0)
    monkeypatch.setattr(alto, "POINTS_KEPT_MAX", 9)
    three_left = parse_alto(page(polygon(6) + polygon(5, start=100, box='HPOS="100" VPOS="0" WIDTH="8" HEIGHT="3"')))
    first, second = three_left.lines
    assert len(first.points) == 6 and not second.polygon_from_file
    assert second.points == ((100, 0), (108, 0), (108, 3), (100, 3))
    assert about_outlines(three_left) == [
        "The line outlines on this page have more points than this viewer draws (9 in all): 1 are drawn as boxes."
    ]


def test_past_the_pages_points_outlines_are_boxes_from_their_box_or_their_bounds(monkeypatch):
    monkeypatch.setattr(alto, "OUTLINE_POINTS_MAX", 4)
    monkeypatch.setattr(alto, "POINTS_KEPT_MAX", 10)
    boxed = 'HPOS="50" VPOS="60" WIDTH="10" HEIGHT="20"'
    parsed = parse_alto(
        page(
            polygon(4)  # 4 kept, whole
            + polygon(6)  # 4 kept of 6: simplified; 8 spent
            + polygon(5, box=boxed)  # 2 left: its box
            + polygon(5, start=200)  # no box: the bounds of its points
            + '<TextLine><Shape><Polygon POINTS="a,b c,d e,f"/></Shape><String CONTENT="u"/></TextLine>'
        )
    )
    kept, simplified, from_box, from_bounds, unplaced = parsed.lines
    assert [ln.polygon_from_file for ln in parsed.lines] == [True, True, False, False, False]
    assert len(kept.points) == len(simplified.points) == 4
    assert from_box.points == ((50, 60), (60, 60), (60, 80), (50, 80))
    assert from_bounds.points == ((200, 0), (204, 0), (204, 2), (200, 2))
    assert unplaced.points == () and unplaced.text == "u"
    assert [p for p in parsed.problems if "outline" in p or "position" in p] == [
        "1 line has no usable position and is listed as text only.",
        "The line outlines on this page have more points than this viewer draws (10 in all): "
        "1 are drawn simplified and 2 as boxes.",
    ]


def test_the_pages_point_limit_is_grouped_in_its_sentence(monkeypatch):
    monkeypatch.setattr(alto, "OUTLINE_POINTS_MAX", 1_000)
    monkeypatch.setattr(alto, "POINTS_KEPT_MAX", 1_500)
    parsed = parse_alto(page(polygon(1_000) + polygon(1_200) + polygon(10, box=BOX)))
    assert [len(ln.points) for ln in parsed.lines] == [1_000, 500, 4]
    assert about_outlines(parsed) == [
        "The line outlines on this page have more points than this viewer draws (1,500 in all): "
        "1 are drawn simplified and 1 as boxes."
    ]


@pytest.mark.parametrize(
    ("simplified", "boxed", "sentence"),
    [
        (0, 0, ""),
        (1, 0, "1 line outline has more than 500 points; it is drawn simplified, with 500 points spread along it."),
        (
            1_234,
            0,
            "1,234 line outlines have more than 500 points; they are drawn simplified, with 500 points spread "
            "along each.",
        ),
        (
            0,
            1_234,
            "The line outlines on this page have more points than this viewer draws (100,000 in all): "
            "1,234 are drawn as boxes.",
        ),
        (
            2_345,
            1_234,
            "The line outlines on this page have more points than this viewer draws (100,000 in all): "
            "2,345 are drawn simplified and 1,234 as boxes.",
        ),
    ],
)
def test_the_outline_sentence_for_every_mix_of_simplified_and_boxed(simplified, boxed, sentence):
    assert alto._outline_sentence(simplified, boxed) == sentence


# --- the ceilings as set: a dense page is read whole, and each limit holds at its value ------------------


def test_a_dense_page_is_read_whole():
    """1,000 lines of 21 words each (21,000 words, more than a dense newspaper page), each outlined by
    40 points: every line, word and point is kept and nothing is said to be left out."""
    words = "".join(f'<String CONTENT="word{n:02d}"/>' for n in range(21))
    lines = "".join(polygon(40, start=n).replace('<String CONTENT="w"/>', words) for n in range(1_000))
    parsed = parse_alto(page(lines, width=5000, height=5000))
    assert len(parsed.lines) == parsed.total_lines == 1_000
    assert sum(len(ln.words) for ln in parsed.lines) == 21_000
    assert all(len(ln.points) == 40 and ln.polygon_from_file for ln in parsed.lines)
    assert parsed.problems == []


def test_a_page_keeps_20000_lines():
    parsed = parse_alto(page("<TextLine/>" * 20_001))
    assert len(parsed.lines) == 20_000 and parsed.total_lines == 20_001
    assert parsed.problems[0] == very_long("20,000 lines", "0")


def test_an_outline_keeps_500_points():
    parsed = parse_alto(page(polygon(500) + polygon(501)))
    whole, simplified = parsed.lines
    assert len(whole.points) == 500 and len(simplified.points) == 500
    assert about_outlines(parsed) == [
        "1 line outline has more than 500 points; it is drawn simplified, with 500 points spread along it."
    ]


def test_a_page_keeps_100000_outline_points():
    """199 outlines of 500 points and one of 496 leave exactly four of the page's 100,000: the next outline
    keeps four of its five points, and the one after is a box."""
    lines = polygon(500) * 199 + polygon(496) + polygon(5, start=100) + polygon(5, box=BOX)
    parsed = parse_alto(page(lines))
    *_full, last_whole, four, boxed = parsed.lines
    assert len(last_whole.points) == 496
    assert len(four.points) == 4 and four.polygon_from_file
    assert not boxed.polygon_from_file and boxed.points == ((1, 1), (6, 1), (6, 6), (1, 6))
    assert sum(len(ln.points) for ln in parsed.lines if ln.polygon_from_file) == 100_000
    assert about_outlines(parsed) == [
        "The line outlines on this page have more points than this viewer draws (100,000 in all): "
        "1 are drawn simplified and 1 as boxes."
    ]

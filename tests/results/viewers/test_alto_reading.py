"""The smaller rules of reading ALTO, each at its edges: how numbers and outlines are written for people and
for SVG, the unit's label, which element of several counts (the first Page, PrintSpace, Shape, Polygon,
MeasurementUnit), what a number may look like, and the values a word keeps."""

from __future__ import annotations

import pytest

from results.formats import alto
from results.formats.alto import AltoError, parse_alto, parse_points

BOX = 'HPOS="1" VPOS="1" WIDTH="5" HEIGHT="5"'


def page(inner: str, page_attributes: str = 'WIDTH="1000" HEIGHT="1000"', head: str = "") -> bytes:
    return (
        f"<alto>{head}<Layout><Page {page_attributes}><PrintSpace><TextBlock>"
        f"{inner}</TextBlock></PrintSpace></Page></Layout></alto>"
    ).encode()


# --- numbers and outlines as written for people and SVG -------------------------------------------------


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (0, "0"),
        (-0.0, "0"),
        (7, "7"),
        (10.0, "10"),
        (100.0, "100"),
        (-3.0, "-3"),
        (2.5, "2.5"),
        (1.25, "1.25"),
        (1.1, "1.1"),
        (10.5, "10.5"),
        (-0.75, "-0.75"),
        (1.999, "2"),
        (100.001, "100"),
        (0.004, "0"),
        (1234.567, "1234.57"),
    ],
)
def test_a_coordinate_is_written_with_at_most_two_decimals_and_no_trailing_zeros(value, written):
    assert alto.format_number(value) == written


def test_an_outline_is_written_as_svg_points():
    assert alto.svg_points(((1.0, 2.5), (30, 40.0), (-1.25, 0.1))) == "1,2.5 30,40 -1.25,0.1"
    assert alto.svg_points(()) == ""


@pytest.mark.parametrize(
    ("unit", "label"), [("pixel", "px"), ("mm10", "mm"), ("inch1200", "in"), ("furlong", "furlong")]
)
def test_each_unit_has_its_short_label_and_any_other_is_shown_as_named(unit, label):
    parsed = alto.AltoPage(None, unit, None, None, None, [])
    assert parsed.unit_label() == label


@pytest.mark.parametrize(("written", "unit"), [("mm10", "mm10"), (" inch1200\n", "inch1200"), ("  ", "pixel")])
def test_the_measurement_unit_is_read_without_the_space_around_it(written, unit):
    parsed = parse_alto(page("", head=f"<Description><MeasurementUnit>{written}</MeasurementUnit></Description>"))
    assert parsed.unit == unit
    assert not any("measurement unit" in p for p in parsed.problems)


def test_an_unknown_unit_is_named_in_its_sentence_cut_to_forty_characters():
    name = "f" * 39 + "gh" + "x" * 100
    parsed = parse_alto(page("", head=f"<Description><MeasurementUnit>{name}</MeasurementUnit></Description>"))
    assert parsed.unit == "pixel" and parsed.unit_label() == "px"
    assert parsed.problems[0] == f"The measurement unit '{'f' * 39}g' is unknown; coordinates are read as pixels."


def test_only_the_first_measurement_unit_counts():
    head = (
        "<Description><MeasurementUnit>mm10</MeasurementUnit><MeasurementUnit>inch1200</MeasurementUnit></Description>"
    )
    assert parse_alto(page("", head=head)).unit == "mm10"


# --- which element of several counts --------------------------------------------------------------------


def test_the_first_page_gives_the_size():
    xml = (
        '<alto><Layout><Page WIDTH="300" HEIGHT="200"><PrintSpace><TextBlock><TextLine HPOS="1" VPOS="1" WIDTH="5" '
        'HEIGHT="5"><String CONTENT="a"/></TextLine></TextBlock></PrintSpace></Page>'
        '<Page WIDTH="900" HEIGHT="900"><PrintSpace HPOS="0" VPOS="0" WIDTH="800" HEIGHT="800"/></Page></Layout></alto>'
    )
    parsed = parse_alto(xml.encode())
    assert (parsed.width, parsed.height, parsed.print_space) == (300, 200, None)


def test_the_first_print_space_of_the_page_counts():
    xml = (
        "<alto><Layout><Page>"
        '<PrintSpace HPOS="1" VPOS="2" WIDTH="300" HEIGHT="400"/><PrintSpace HPOS="0" VPOS="0" WIDTH="9" HEIGHT="9"/>'
        "</Page></Layout></alto>"
    )
    parsed = parse_alto(xml.encode())
    assert parsed.print_space == (1, 2, 300, 400) and (parsed.width, parsed.height) == (301, 402)


def test_a_print_space_after_the_page_closed_is_not_the_pages():
    xml = '<alto><Layout><Page></Page><PrintSpace HPOS="0" VPOS="0" WIDTH="300" HEIGHT="400"/></Layout></alto>'
    parsed = parse_alto(xml.encode())
    assert parsed.print_space is None and (parsed.width, parsed.height) == (None, None)
    assert "The file gives no page size, so the text is placed by its own extent." in parsed.problems


def test_a_print_space_of_no_width_and_height_is_a_box_and_a_negative_one_is_none():
    flat = parse_alto(
        b'<alto><Layout><Page><PrintSpace HPOS="4" VPOS="5" WIDTH="0" HEIGHT="0"/></Page></Layout></alto>'
    )
    assert flat.print_space == (4, 5, 0, 0) and (flat.width, flat.height) == (4, 5)
    negative = parse_alto(
        b'<alto><Layout><Page><PrintSpace HPOS="4" VPOS="5" WIDTH="-1" HEIGHT="9"/></Page></Layout></alto>'
    )
    assert negative.print_space is None and negative.width is None


def test_a_line_of_no_width_and_height_is_placed_at_its_point():
    parsed = parse_alto(page('<TextLine HPOS="5" VPOS="6" WIDTH="0" HEIGHT="0"><String CONTENT="a"/></TextLine>'))
    assert parsed.lines[0].points == ((5, 6),) * 4 and parsed.lines[0].box == (5, 6, 0, 0)
    assert not any("position" in p for p in parsed.problems)


def test_the_first_polygon_of_the_first_shape_is_the_outline():
    first = "0,0 10,0 10,5"
    xml = page(
        f'<TextLine {BOX}><Shape><Polygon POINTS="{first}"/><Polygon POINTS="0,0 90,0 90,9"/></Shape>'
        '<Shape><Polygon POINTS="0,0 70,0 70,7"/></Shape><String CONTENT="a"/></TextLine>'
    )
    assert parse_alto(xml).lines[0].points == ((0, 0), (10, 0), (10, 5))


def test_a_polygon_after_the_first_shape_or_deeper_in_it_is_not_the_outline():
    later = page(
        f'<TextLine {BOX}><Shape></Shape><Shape><Polygon POINTS="0,0 70,0 70,7"/></Shape><String CONTENT="a"/>'
        "</TextLine>"
    )
    assert parse_alto(later).lines[0].points == ((1, 1), (6, 1), (6, 6), (1, 6))
    closed = page(f'<TextLine {BOX}><Shape/><Polygon POINTS="0,0 70,0 70,7"/><String CONTENT="a"/></TextLine>')
    assert not parse_alto(closed).lines[0].polygon_from_file
    deeper = page(
        f'<TextLine {BOX}><Shape><Other><Polygon POINTS="0,0 70,0 70,7"/></Other></Shape><String CONTENT="a"/>'
        "</TextLine>"
    )
    assert not parse_alto(deeper).lines[0].polygon_from_file


def test_only_the_words_and_hyphen_of_the_line_itself_count():
    xml = page(
        f'<TextLine {BOX}><String CONTENT="a"/><Other><String CONTENT="deep"/><HYP CONTENT="="/></Other>'
        '<String CONTENT="b"/><HYP/></TextLine>'
    )
    (kept,) = parse_alto(xml).lines
    assert [w.text for w in kept.words] == ["a", "b"] and kept.hyphen == "-" and kept.text == "a b-"


# --- ids, numbers and words -----------------------------------------------------------------------------


def test_ids_are_kept_to_100_characters_and_missing_ones_are_numbered():
    long_id = "b" * 120
    xml = (
        f'<alto><Layout><Page WIDTH="9" HEIGHT="9"><PrintSpace><TextBlock ID="{long_id}">'
        f'<TextLine ID="{"l" * 101}" {BOX}><String CONTENT="a"/></TextLine>'
        f'<TextLine {BOX}><String CONTENT="b"/></TextLine>'
        f"</TextBlock><TextBlock><TextLine {BOX}/></TextBlock></PrintSpace></Page></Layout></alto>"
    )
    parsed = parse_alto(xml.encode())
    assert [block.id for block in parsed.blocks] == ["b" * 100, "block2"]
    assert [ln.id for ln in parsed.lines] == ["l" * 100, "line2", "line3"]
    assert [ln.block_id for ln in parsed.lines] == ["b" * 100] * 2 + ["block2"]
    assert parse_alto(page(f'<TextLine ID="" {BOX}/>')).lines[0].id == "line1"


def test_a_block_without_lines_is_not_kept_but_is_numbered():
    xml = (
        '<alto><Layout><Page WIDTH="9" HEIGHT="9"><PrintSpace><TextBlock/><TextBlock><TextLine/></TextBlock>'
        f'<TextBlock><TextLine {BOX}><String CONTENT="a"/></TextLine></TextBlock></PrintSpace></Page></Layout></alto>'
    )
    parsed = parse_alto(xml.encode())
    assert [block.id for block in parsed.blocks] == ["block2", "block3"]
    assert parsed.text() == "\n\na\n"


@pytest.mark.parametrize(
    ("wc", "kept"), [("0", 0.0), ("1", 1.0), ("0.5", 0.5), ("1.01", None), ("-0.01", None), ("", None), ("x", None)]
)
def test_a_word_confidence_is_kept_from_zero_to_one_inclusive(wc, kept):
    parsed = parse_alto(page(f'<TextLine {BOX}><String CONTENT="a" WC="{wc}"/></TextLine>'))
    assert parsed.lines[0].words[0].confidence == kept
    assert parsed.mean_confidence() == kept


def test_the_page_confidence_is_the_mean_of_its_lines_with_one():
    parsed = parse_alto(
        page(
            f'<TextLine {BOX}><String CONTENT="a" WC="1"/><String CONTENT="b" WC="0.5"/></TextLine>'
            f'<TextLine {BOX}><String CONTENT="c" WC="0.25"/></TextLine>'
            f'<TextLine {BOX}><String CONTENT="d"/></TextLine>'
        )
    )
    assert [ln.confidence for ln in parsed.lines] == [0.75, 0.25, None]
    assert [ln.confidence_band() for ln in parsed.lines] == ["mid", "low", "none"]
    assert parsed.mean_confidence() == 0.5


def test_a_word_keeps_its_substitution_and_empty_values_are_none():
    parsed = parse_alto(
        page(
            f'<TextLine {BOX}><String CONTENT="Hem" SUBS_CONTENT="Hemmet" SUBS_TYPE="{"H" * 50}"/>'
            '<String SUBS_CONTENT="" SUBS_TYPE=""/></TextLine>'
        )
    )
    first, second = parsed.lines[0].words
    assert (first.text, first.subs_content, first.subs_type) == ("Hem", "Hemmet", "H" * 40)
    assert (second.text, second.subs_content, second.subs_type, second.confidence) == ("", None, None, None)


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("+1", 1),
        ("-1.5", -1.5),
        (".5", 0.5),
        ("2.", 2),
        ("1e2", 100),
        ("1E+2", 100),
        ("5e-1", 0.5),
        ("0" * 31 + "9", 9),
    ],
)
def test_every_form_of_number_is_read_in_an_outline(written, read):
    assert parse_points(f"{written},0 1,1 2,2") == ((read, 0), (1, 1), (2, 2))


@pytest.mark.parametrize("written", ["1e", "e3", ".", "1..2", "0x10", "1_000", "1,5e", "--1", "0" * 32 + "9"])
def test_anything_else_is_no_number_and_no_outline(written):
    assert parse_points(f"{written} 0 1 1 2 2") is None


@pytest.mark.parametrize("text", ["1,2 3,4 5,6 7", "1 2 3 4 5", "1,2 3,4"])
def test_an_outline_needs_pairs_of_three_points_or_more(text):
    assert parse_points(text) is None


def test_an_outline_of_many_points_keeps_the_most_asked_spread_along_it():
    ten = " ".join(f"{i},{i}" for i in range(10))
    assert parse_points(ten, most=4) == ((0, 0), (2, 2), (5, 5), (7, 7))
    assert parse_points(ten, most=10) == tuple((i, i) for i in range(10))
    assert len(parse_points(" ".join(f"{i},0" for i in range(alto.OUTLINE_POINTS_MAX + 1)))) == alto.OUTLINE_POINTS_MAX


def test_coordinates_are_kept_up_to_ten_million_and_pulled_in_past_it():
    assert parse_points("9999999,-9999999 10000001,-10000001 0,0") == (
        (9_999_999, -9_999_999),
        (10_000_000, -10_000_000),
        (0, 0),
    )


def test_a_box_reaching_past_the_coordinate_limit_is_pulled_in_at_its_far_corner():
    limit = alto.COORDINATE_LIMIT
    parsed = parse_alto(page(f'<TextLine HPOS="{limit - 10:.0f}" VPOS="5" WIDTH="100" HEIGHT="1e9"/>'))
    # The height is pulled in to the limit first, and the bottom (5 below it) again.
    assert parsed.lines[0].points == ((limit - 10, 5), (limit, 5), (limit, limit), (limit - 10, limit))


# --- the page ---------------------------------------------------------------------------------------


def test_up_to_ten_lines_outside_the_page_are_named():
    over = "".join(f'<TextLine HPOS="-1" VPOS="{n}" WIDTH="5" HEIGHT="5"/>' for n in range(11))
    parsed = parse_alto(page(over))
    assert (
        "11 lines lie partly outside the page (1, 2, 3, 4, 5, 6, 7, 8, 9, 10); they are drawn where the file puts "
        "them." in parsed.problems
    )


def test_a_page_of_zero_size_has_none():
    parsed = parse_alto(page(f"<TextLine {BOX}/>", page_attributes='WIDTH="0" HEIGHT="0"'))
    assert (parsed.width, parsed.height) == (None, None) and parsed.lines_outside() == []


def test_the_root_must_be_alto_and_its_name_is_cut_in_the_sentence():
    with pytest.raises(AltoError) as refused:
        parse_alto(f"<{'P' * 60}/>".encode())
    assert refused.value.sentence == f"The file is XML but not ALTO: its root element is <{'P' * 40}>, not <alto>."


@pytest.mark.parametrize(
    ("namespace", "version"),
    [
        ("http://www.loc.gov/standards/alto/ns-v2#", 2),
        ("http://www.loc.gov/standards/alto/ns-v4#", 4),
        ("http://schema.ccs-gmbh.com/ALTO", None),
        ("http://www.loc.gov/standards/alto/ns-vX#", None),
    ],
)
def test_the_version_is_read_from_the_namespace(namespace, version):
    assert parse_alto(f'<alto xmlns="{namespace}"/>'.encode()).version == version

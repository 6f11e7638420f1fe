"""Reading ALTO: versions, units, polygons, hyphenation, and hostile files."""

import html

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from devstack.content_layout import page_layout
from devstack.content_xml import alto_variant, alto_xml
from results.formats.alto import (
    _NUMBER,
    COORDINATE_LIMIT,
    MAX_ALTO_BYTES,
    MAX_NUMBER_CHARS,
    AltoError,
    parse_alto,
    parse_points,
)

LAYOUT = page_layout("C0074512", 1)


@pytest.mark.parametrize("version", [2, 3, 4])
def test_every_alto_version_reads_the_same_lines(version):
    page = parse_alto(alto_xml(LAYOUT, version=version))
    assert page.version == version
    assert [line.text for line in page.lines] == [line.text for line in LAYOUT.lines]
    assert (page.width, page.height) == (LAYOUT.width, LAYOUT.height)


def test_a_file_without_namespace_reads_by_local_names():
    xml = b"""<alto><Layout><Page WIDTH="100" HEIGHT="50"><PrintSpace><TextBlock ID="b">
      <TextLine ID="l1" HPOS="1" VPOS="2" WIDTH="30" HEIGHT="10"><String CONTENT="Hej" WC="0.5"/></TextLine>
      </TextBlock></PrintSpace></Page></Layout></alto>"""
    page = parse_alto(xml)
    assert page.version is None and page.lines[0].text == "Hej"


def test_polygons_come_from_the_file_in_pixels():
    page = parse_alto(alto_xml(LAYOUT))
    assert page.lines[0].points == tuple((float(x), float(y)) for x, y in LAYOUT.lines[0].polygon)
    assert page.lines[0].polygon_from_file


def test_both_point_formats_read_the_same():
    assert parse_points("1,2 3,4 5,6") == parse_points("1 2 3 4 5 6") == ((1, 2), (3, 4), (5, 6))
    commas = parse_alto(alto_xml(LAYOUT, points_style="commas"))
    spaces = parse_alto(alto_xml(LAYOUT, points_style="spaces"))
    assert [line.points for line in commas.lines] == [line.points for line in spaces.lines]


@pytest.mark.parametrize("points", ["", "1,2 3,4", "1,2 3", "a,b c,d e,f", "1,2 3,4 nan,5", "1,2 3,4 inf,6"])
def test_unusable_polygons_fall_back_to_the_box(points):
    xml = f"""<alto><Layout><Page WIDTH="100" HEIGHT="50"><PrintSpace><TextBlock>
      <TextLine HPOS="10" VPOS="20" WIDTH="30" HEIGHT="5"><Shape><Polygon POINTS="{points}"/></Shape>
      <String CONTENT="x"/></TextLine></TextBlock></PrintSpace></Page></Layout></alto>""".encode()
    line = parse_alto(xml).lines[0]
    assert line.points == ((10, 20), (40, 20), (40, 25), (10, 25))
    assert not line.polygon_from_file


@pytest.mark.parametrize("unit, factor", [("mm10", 254 / 300), ("inch1200", 1200 / 300)])
def test_other_units_keep_the_lines_in_the_same_place_on_the_page(unit, factor):
    page = parse_alto(alto_variant(LAYOUT, unit))
    assert page.unit == unit
    assert page.width == pytest.approx(LAYOUT.width * factor, abs=1)
    x, y = LAYOUT.lines[3].polygon[0]
    px, py = page.lines[3].points[0]
    # Shares of the page width/height are what the viewer draws: the same in every unit.
    assert px / page.width == pytest.approx(x / LAYOUT.width, abs=0.002)
    assert py / page.height == pytest.approx(y / LAYOUT.height, abs=0.002)


def test_an_unknown_unit_is_read_as_pixels_with_a_sentence():
    xml = b"<alto><Description><MeasurementUnit>furlong</MeasurementUnit></Description></alto>"
    page = parse_alto(xml)
    assert page.unit == "pixel" and any("furlong" in p for p in page.problems)


HYPHENATED = b"""<?xml version="1.0"?>
<alto xmlns="http://www.loc.gov/standards/alto/ns-v3#"><Layout><Page WIDTH="1000" HEIGHT="1000"><PrintSpace>
<TextBlock ID="b1">
 <TextLine ID="a" HPOS="0" VPOS="0" WIDTH="500" HEIGHT="40">
  <String CONTENT="Bonden" WC="0.9"/><SP/><String CONTENT="Anders" WC="0.8"/><SP/>
  <String CONTENT="Hem" SUBS_TYPE="HypPart1" SUBS_CONTENT="Hemmanet" WC="0.7"/><HYP CONTENT="\xc2\xac"/>
 </TextLine>
 <TextLine ID="b" HPOS="0" VPOS="50" WIDTH="500" HEIGHT="40">
  <String CONTENT="manet" SUBS_TYPE="HypPart2" SUBS_CONTENT="Hemmanet" WC="0.6"/>
 </TextLine>
</TextBlock></PrintSpace></Page></Layout></alto>"""


def test_hyphenation_keeps_the_line_as_written_and_the_whole_word():
    first, second = parse_alto(HYPHENATED).lines
    assert first.text == "Bonden Anders Hem\u00ac"
    assert first.words[-1].subs_content == "Hemmanet" and second.words[0].subs_type == "HypPart2"
    assert first.confidence == pytest.approx(0.8)
    assert second.confidence_band() == "low"


def test_plain_text_keeps_blocks_apart():
    page = parse_alto(alto_xml(LAYOUT))
    assert page.text().startswith(LAYOUT.blocks[0].lines[0].text + "\n\n")


def test_a_page_with_no_lines_says_so():
    page = parse_alto(alto_variant(LAYOUT, "empty"))
    assert page.lines == [] and any("no text lines" in p for p in page.problems)


def test_lines_outside_the_page_are_kept_and_named():
    page = parse_alto(alto_variant(LAYOUT, "outside"))
    assert page.lines_outside()
    assert any("outside the page" in p for p in page.problems)
    left, top, width, height = page.extent()
    assert left + width > page.width or top + height > page.height or left < 0 or top < 0


def test_hostile_text_is_kept_as_text():
    page = parse_alto(alto_variant(LAYOUT, "hostile"))
    assert any("<script>" in line.text for line in page.lines)


def test_confidence_outside_zero_to_one_is_ignored():
    xml = (
        b'<alto><TextBlock><TextLine HPOS="0" VPOS="0" WIDTH="1" HEIGHT="1">'
        b'<String CONTENT="a" WC="7"/></TextLine></TextBlock></alto>'
    )
    assert parse_alto(xml).lines[0].confidence is None


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE alto [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>
<alto><TextBlock><TextLine><String CONTENT="&c;"/></TextLine></TextBlock></alto>"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE alto [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<alto><TextBlock><TextLine><String CONTENT="&secret;"/></TextLine></TextBlock></alto>"""


@pytest.mark.parametrize("hostile", [BILLION_LAUGHS, EXTERNAL])
def test_entities_are_refused_not_expanded(hostile):
    with pytest.raises(AltoError) as refused:
        parse_alto(hostile)
    assert "entities" in refused.value.sentence


def test_a_huge_file_is_refused_before_parsing():
    with pytest.raises(AltoError) as refused:
        parse_alto(b"<alto>" + b" " * MAX_ALTO_BYTES + b"</alto>")
    assert "MiB" in refused.value.sentence


@pytest.mark.parametrize("broken", [b"", b"<alto><Layout>", b"not xml at all", b"\xff\xfe<"])
def test_malformed_xml_gets_a_sentence(broken):
    with pytest.raises(AltoError) as refused:
        parse_alto(broken)
    assert "XML" in refused.value.sentence


def test_xml_that_is_not_alto_says_what_it_is():
    with pytest.raises(AltoError) as refused:
        parse_alto(b"<PcGts/>")
    assert "<PcGts>" in refused.value.sentence


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=3000))
def test_any_bytes_are_alto_or_a_sentence(data):
    try:
        page = parse_alto(data)
    except AltoError as refused:
        assert refused.sentence
    else:
        assert isinstance(page.text(), str)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=12), max_size=8), st.text(max_size=40))
def test_any_attribute_values_are_read_without_raising(values, points):
    attrs = ["HPOS", "VPOS", "WIDTH", "HEIGHT"]
    pairs = " ".join(f'{name}="{html.escape(v, quote=True)}"' for name, v in zip(attrs, values, strict=False))
    xml = (
        f'<alto><Layout><Page {pairs}><TextBlock><TextLine {pairs}><Shape><Polygon POINTS="{html.escape(points)}"/>'
        f'</Shape><String CONTENT="{html.escape("".join(values))}" WC="{html.escape(points[:5])}"/></TextLine>'
        "</TextBlock></Page></Layout></alto>"
    )
    try:
        page = parse_alto(xml.encode("utf-8", "surrogatepass"))
    except AltoError:
        return
    for line in page.lines:
        assert all(isinstance(x, float) for point in line.points for x in point)


def test_an_unknown_encoding_declaration_is_not_well_formed_xml():
    with pytest.raises(AltoError, match="not well-formed XML"):
        parse_alto(b'<?xml version="1.0" encoding="bogus-enc"?><alto/>')


def _page_xml(lines_xml: str, width="1000", height="800") -> bytes:
    return (
        f'<alto><Layout><Page WIDTH="{width}" HEIGHT="{height}"><PrintSpace><TextBlock ID="b">'
        f"{lines_xml}</TextBlock></PrintSpace></Page></Layout></alto>"
    ).encode()


def test_a_long_run_of_digits_is_refused_without_scanning_it_again_and_again(monkeypatch):
    scanned: list[int] = []

    class Recording:
        def fullmatch(self, token):
            scanned.append(len(token))
            return _NUMBER.fullmatch(token)

    monkeypatch.setattr("results.formats.alto._NUMBER", Recording())
    assert parse_points("1" * 100_000 + "x 1 2 3 4 5") is None
    assert max(scanned, default=0) <= MAX_NUMBER_CHARS
    assert r"\d+\.?\d*" not in _NUMBER.pattern  # the ambiguous form that split a run of digits every way


def test_huge_coordinates_are_pulled_in_and_listed_outside_the_page():
    points = "1e308,0 5,1e308 -1e300,-1e300"
    page = parse_alto(
        _page_xml(
            f'<TextLine ID="far"><Shape><Polygon POINTS="{points}"/></Shape><String CONTENT="far"/></TextLine>'
            '<TextLine ID="box" HPOS="1e308" VPOS="2" WIDTH="1e308" HEIGHT="1"><String CONTENT="box"/></TextLine>'
        )
    )
    far, box = page.lines
    assert far.points == ((COORDINATE_LIMIT, 0), (5, COORDINATE_LIMIT), (-COORDINATE_LIMIT, -COORDINATE_LIMIT))
    assert box.box[0] == COORDINATE_LIMIT and all(abs(v) <= COORDINATE_LIMIT for p in box.points for v in p)
    assert page.lines_outside() == [far, box]
    assert all(abs(value) <= 2 * COORDINATE_LIMIT for value in page.extent())


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "1e400"])
def test_infinite_or_undefined_coordinates_are_refused(bad):
    assert parse_points(f"{bad},0 1,1 2,2") is None
    assert parse_alto(_page_xml("", width=bad)).width is None


def test_bidi_and_zero_width_characters_in_alto_text_are_shown_as_symbols():
    page = parse_alto(
        _page_xml(
            '<TextLine HPOS="1" VPOS="1" WIDTH="5" HEIGHT="5"><String CONTENT="a&#x202E;b&#x200B;c&#xFEFF;"/>'
            '<HYP CONTENT="&#x2066;-"/></TextLine>'
        )
    )
    assert page.lines[0].text == "a⟨U+202E⟩b⟨U+200B⟩c⟨U+FEFF⟩⟨U+2066⟩-"
    assert not any(0x2066 <= ord(c) <= 0x2069 or 0x200B <= ord(c) <= 0x202E for c in page.text())


def test_the_file_line_count_includes_lines_beyond_those_read(monkeypatch):
    monkeypatch.setattr("results.formats.alto.MAX_LINES", 3)
    line = '<TextLine HPOS="1" VPOS="1" WIDTH="5" HEIGHT="5"><String CONTENT="w"/></TextLine>'
    page = parse_alto(_page_xml(line * 7))
    assert len(page.lines) == 3 and page.total_lines == 7


# --- page geometry ------------------------------------------------------------------------------------

LINE = '<TextLine ID="{id}" HPOS="{x}" VPOS="{y}" WIDTH="{w}" HEIGHT="{h}"><String CONTENT="{id}"/></TextLine>'
NO_PAGE_SIZE = "The file gives no page size, so the text is placed by its own extent."


def _layout_xml(page_attributes: str, inner: str) -> bytes:
    return f"<alto><Layout><Page{page_attributes}>{inner}</Page></Layout></alto>".encode()


@pytest.mark.parametrize("page_attributes", ["", ' WIDTH="1000"', ' HEIGHT="800"', ' WIDTH="0" HEIGHT="800"'])
def test_a_page_without_a_whole_size_takes_it_from_the_far_corner_of_its_print_space(page_attributes):
    inner = '<PrintSpace HPOS="10" VPOS="20" WIDTH="500" HEIGHT="700"><TextBlock>'
    inner += LINE.format(id="a", x=20, y=30, w=100, h=20) + "</TextBlock></PrintSpace>"
    page = parse_alto(_layout_xml(page_attributes, inner))
    assert (page.width, page.height) == (510, 720)
    assert page.print_space == (10, 20, 500, 700)
    assert NO_PAGE_SIZE not in page.problems
    assert page.extent() == (0, 0, 510, 720)


def test_a_page_with_its_own_size_keeps_it_whatever_its_print_space_says():
    inner = '<PrintSpace HPOS="10" VPOS="20" WIDTH="500" HEIGHT="700"><TextBlock>'
    inner += LINE.format(id="a", x=20, y=30, w=100, h=20) + "</TextBlock></PrintSpace>"
    page = parse_alto(_layout_xml(' WIDTH="1000" HEIGHT="800"', inner))
    assert (page.width, page.height, page.print_space) == (1000, 800, (10, 20, 500, 700))


def test_a_print_space_before_any_page_gives_the_size_of_a_file_without_a_page():
    xml = (
        '<alto><Layout><PrintSpace HPOS="0" VPOS="0" WIDTH="300" HEIGHT="400"><TextBlock>'
        + LINE.format(id="a", x=20, y=30, w=100, h=20)
        + "</TextBlock></PrintSpace></Layout></alto>"
    ).encode()
    page = parse_alto(xml)
    assert (page.width, page.height, page.print_space) == (300, 400, (0, 0, 300, 400))
    assert NO_PAGE_SIZE not in page.problems


def test_a_page_without_size_or_print_space_is_placed_by_its_text_and_says_so():
    inner = "<PrintSpace><TextBlock>" + LINE.format(id="a", x=20, y=30, w=100, h=20) + "</TextBlock></PrintSpace>"
    page = parse_alto(_layout_xml("", inner))
    assert (page.width, page.height) == (None, None)
    assert NO_PAGE_SIZE in page.problems
    assert page.lines_outside() == []
    assert page.extent() == (0, 0, 120, 50)


@pytest.mark.parametrize(
    ("side", "x", "y", "w", "h"),
    [("left", -5, 10, 50, 10), ("top", 10, -5, 50, 10), ("right", 960, 10, 50, 10), ("bottom", 10, 795, 50, 10)],
)
def test_a_line_over_one_edge_of_the_page_only_is_outside_it(side, x, y, w, h):
    page = parse_alto(
        _page_xml(LINE.format(id="in", x=100, y=100, w=50, h=10) + LINE.format(id=side, x=x, y=y, w=w, h=h))
    )
    inside, over = page.lines
    assert page.lines_outside() == [over]
    assert "1 line lies partly outside the page (2); it is drawn where the file puts it." in page.problems
    left, top, width, height = page.extent()
    assert (left, top, left + width, top + height) == (min(0, x), min(0, y), max(1000, x + w), max(800, y + h))


def test_a_line_touching_the_edges_of_the_page_is_inside_it():
    page = parse_alto(_page_xml(LINE.format(id="a", x=0, y=0, w=1000, h=800)))
    assert page.lines_outside() == []
    assert not any("outside the page" in problem for problem in page.problems)


@pytest.mark.parametrize("count", [1, 2, 3])
def test_every_line_without_a_position_is_counted_and_kept_as_text(count):
    unplaced = "".join(f'<TextLine ID="u{n}"><String CONTENT="u{n}"/></TextLine>' for n in range(count))
    placed = LINE.format(id="p", x=1, y=1, w=10, h=10)
    page = parse_alto(_page_xml(placed + unplaced))
    assert [line.text for line in page.lines] == ["p", *(f"u{n}" for n in range(count))]
    assert [line.points for line in page.lines[1:]] == [()] * count
    expected = (
        "1 line has no usable position and is listed as text only."
        if count == 1
        else f"{count} lines have no usable position and are listed as text only."
    )
    assert expected in page.problems


def test_a_file_of_exactly_16_mib_is_read_and_one_byte_more_refused():
    cap = 16 * 1024 * 1024
    frame = b"<alto></alto>"
    whole = b"<alto>" + b" " * (cap - len(frame)) + b"</alto>"
    assert len(whole) == cap
    assert parse_alto(whole).lines == []
    with pytest.raises(AltoError) as refused:
        parse_alto(b"<alto>" + b" " * (cap + 1 - len(frame)) + b"</alto>")
    assert refused.value.sentence == "The ALTO file is 16.0 MiB, over the 16 MiB this viewer reads."


@pytest.mark.parametrize("attributes", ['WIDTH="-5" HEIGHT="10"', 'WIDTH="10" HEIGHT="-5"'])
def test_a_box_of_negative_width_or_height_is_no_position(attributes):
    page = parse_alto(_page_xml(f'<TextLine HPOS="1" VPOS="1" {attributes}><String CONTENT="a"/></TextLine>'))
    assert page.lines[0].points == ()
    assert "1 line has no usable position and is listed as text only." in page.problems


def test_a_coordinate_of_32_characters_is_read_and_one_of_33_is_not():
    kept, dropped = "0" * 31 + "7", "0" * 32 + "7"
    page = parse_alto(
        _page_xml(
            f'<TextLine HPOS="{kept}" VPOS="1" WIDTH="1" HEIGHT="1"><String CONTENT="a"/></TextLine>'
            f'<TextLine HPOS="{dropped}" VPOS="1" WIDTH="1" HEIGHT="1"><String CONTENT="b"/></TextLine>'
        )
    )
    placed, unplaced = page.lines
    assert placed.box == (7, 1, 1, 1)
    assert unplaced.points == ()


def test_a_page_without_unit_namespace_or_lines_reads_as_pixels_of_no_version_and_shows_a_unit_square():
    page = parse_alto(b"<alto><Layout><Page><PrintSpace/></Page></Layout></alto>")
    assert (page.unit, page.version, page.lines, page.text()) == ("pixel", None, [], "")
    assert page.extent() == (0, 0, 1, 1)


def test_plain_text_ends_with_one_line_break():
    page = parse_alto(_page_xml(LINE.format(id="a", x=1, y=1, w=5, h=5) + LINE.format(id="b", x=1, y=9, w=5, h=5)))
    assert page.text() == "a\nb\n"


def test_blocks_without_an_id_are_numbered_in_the_order_met():
    xml = (
        b'<alto><Layout><Page WIDTH="100" HEIGHT="100"><PrintSpace>'
        b'<TextBlock><TextLine><String CONTENT="a"/></TextLine></TextBlock>'
        b'<TextBlock><TextLine><String CONTENT="b"/></TextLine></TextBlock>'
        b"</PrintSpace></Page></Layout></alto>"
    )
    assert [block.id for block in parse_alto(xml).blocks] == ["block1", "block2"]


def test_several_lines_outside_the_page_are_listed_by_number():
    page = parse_alto(_page_xml(LINE.format(id="a", x=-1, y=1, w=5, h=5) + LINE.format(id="b", x=1, y=-1, w=5, h=5)))
    assert "2 lines lie partly outside the page (1, 2); they are drawn where the file puts them." in page.problems


@pytest.mark.parametrize(("wc", "band"), [("0.9", "high"), ("0.89", "mid"), ("0.75", "mid"), ("0.74", "low")])
def test_a_lines_confidence_band_starts_at_its_threshold(wc, band):
    page = parse_alto(_page_xml(f'<TextLine><String CONTENT="a" WC="{wc}"/></TextLine>'))
    assert page.lines[0].confidence_band() == band

"""The pace chart (campaigns.presentation.pace_chart): pure geometry, words and markup, no clock.

Everything drawn lies inside the chart's box; the forecast band starts at now and nothing in the past
is drawn as forecast; names are escaped; an empty, a one-point and a huge series each give a chart
that says what it shows. The adapter draws a running campaign's pace as the board hangs it on.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from xml.etree import ElementTree

from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.domain import pace
from campaigns.models import RUNNING, SUCCEEDED, Campaign, Counts
from campaigns.presentation import pace_chart as chart
from campaigns.wording import pace as wording

NOW = datetime(2026, 5, 4, 10, 52, tzinfo=UTC)
SVG = "{http://www.w3.org/2000/svg}"


def ago(minutes: float) -> datetime:
    return NOW - timedelta(minutes=minutes)


def later(minutes: float) -> datetime:
    return NOW + timedelta(minutes=minutes)


STEADY = [(ago(120), 0), (ago(80), 5), (ago(40), 9), (ago(10), 12)]
BAND = (later(120), later(240))


def inside(point, frame: chart.Frame) -> bool:
    x, y = point
    return frame.left - 1e-6 <= x <= frame.right + 1e-6 and frame.top - 1e-6 <= y <= frame.bottom + 1e-6


def parsed(svg: str) -> ElementTree.Element:
    """The markup read by a strict XML parser: well formed, every text escaped."""
    return ElementTree.fromstring(svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1))


def points_of(element: ElementTree.Element) -> list[tuple[float, float]]:
    pairs = element.get("points", "").split()
    return [(float(x), float(y)) for x, y in (pair.split(",") for pair in pairs)]


# --- geometry -------------------------------------------------------------------------------------


def test_a_steady_series_rises_left_to_right_inside_the_box_and_the_band_lies_after_now():
    for frame in (chart.SMALL, chart.LARGE):
        shape = chart.layout(STEADY, 40, NOW, BAND, frame=frame)
        assert all(inside(p, frame) for p in (*shape.line, *shape.band))
        xs = [x for x, _ in shape.line]
        ys = [y for _, y in shape.line]
        assert xs == sorted(xs) and ys == sorted(ys, reverse=True)  # time to the right, more finished higher
        assert shape.line[-1][0] == shape.now_x  # the line runs on to now
        assert min(x for x, _ in shape.band) == shape.now_x
        assert shape.band[0] == shape.line[-1]  # the band starts where the count stands now
        assert {y for _, y in shape.band[1:]} == {shape.total_y}  # ... and reaches the total
        assert not shape.band_cut


def test_nothing_in_the_past_is_drawn_as_forecast_even_when_the_forecast_says_so():
    stale = (ago(30), ago(5))  # a range that has passed already: no forecast at all
    assert chart.layout(STEADY, 40, NOW, stale, frame=chart.LARGE).band == ()
    assert "hatched" not in chart.sentence(STEADY, 40, NOW, stale)
    assert not [row for row in chart.rows(STEADY, NOW, stale, 40) if row.what.startswith("forecast")]
    straddling = (ago(30), later(30))  # only its part from now on is forecast
    shape = chart.layout(STEADY, 40, NOW, straddling, frame=chart.LARGE)
    assert shape.band and min(x for x, _ in shape.band) >= shape.now_x
    assert shape.band[1][0] == shape.now_x  # the earliest finish is drawn at now, not before it
    words = chart.sentence(STEADY, 40, NOW, straddling)
    assert "10:22" not in words and "between 10:52 UTC and 11:22 UTC" in words
    forecast_rows = [row for row in chart.rows(STEADY, NOW, straddling, 40) if row.what.startswith("forecast")]
    assert [row.at for row in forecast_rows] == [NOW, later(30)]


def test_a_forecast_far_beyond_what_was_observed_is_cut_at_the_edge_and_says_so():
    far = (later(600), later(6000))  # observed two hours; the chart shows at most three times that after now
    shape = chart.layout(STEADY, 40, NOW, far, frame=chart.LARGE)
    assert shape.band_cut and shape.end == NOW + 3 * timedelta(minutes=120)
    assert all(inside(p, chart.LARGE) for p in shape.band)
    assert max(x for x, _ in shape.band) == chart.LARGE.right
    drawn = chart.draw(STEADY, 40, NOW, chart_id="c", band=far, large=True)
    assert "the chart stops at 16:52 UTC; the band goes on" in drawn.sentence
    assert "between 20:52 UTC and 8 May 14:52 UTC" in drawn.sentence


def test_no_band_is_drawn_without_a_forecast_or_once_everything_finished():
    assert chart.layout(STEADY, 40, NOW, None).band == ()
    done = [(ago(60), 0), (ago(1), 40)]
    assert chart.layout(done, 40, NOW, BAND).band == ()
    assert "hatched" not in chart.sentence(done, 40, NOW, BAND)


def test_an_empty_series_draws_nothing_and_says_so():
    assert chart.layout([], 40, NOW, BAND) is None
    drawn = chart.draw([], 40, NOW, chart_id="card-x", band=BAND, large=True)
    assert drawn.svg == "" and drawn.rows == ()
    assert drawn.sentence == "Nothing to draw yet: no volumes have been seen to finish."


def test_a_one_point_series_is_a_dot_inside_the_box():
    for large in (False, True):
        drawn = chart.draw([(NOW, 3)], 40, NOW, chart_id="one", large=large)
        root = parsed(drawn.svg)
        (dot,) = root.iter(f"{SVG}circle")
        frame = chart.LARGE if large else chart.SMALL
        assert inside((float(dot.get("cx")), float(dot.get("cy"))), frame)
        assert not list(root.iter(f"{SVG}polyline"))
        assert "3 at 10:52 UTC, 3 of 40 now (10:52 UTC)" in drawn.sentence


def test_a_huge_total_keeps_every_coordinate_a_plain_number_inside_the_box():
    huge = 10**12
    series = [(ago(600), 0), (ago(300), 7), (ago(1), 123_456)]
    drawn = chart.draw(series, huge, NOW, chart_id="huge", band=(later(10**6), later(10**7)), large=True)
    root = parsed(drawn.svg)
    for element in root.iter():
        for name in ("x", "y", "x1", "x2", "y1", "y2", "cx", "cy"):
            if element.get(name) is not None:
                assert re.fullmatch(r"-?\d+(\.\d)?", element.get(name)), (element.tag, name, element.get(name))
        for point in points_of(element):
            assert inside(point, chart.LARGE)
    assert "123,456 of 1,000,000,000,000 now" in drawn.sentence
    assert any(
        label.text == "1,000,000,000,000 volumes"
        for label in chart.edge_labels(chart.layout(series, huge, NOW, None, frame=chart.LARGE), huge, "volumes", NOW)
    )


def test_points_out_of_order_or_below_zero_are_drawn_in_time_order_from_zero():
    shape = chart.layout([(ago(10), 4), (ago(50), -3), (ago(30), 2)], 10, NOW, None, frame=chart.SMALL)
    xs = [x for x, _ in shape.line]
    assert xs == sorted(xs)
    assert shape.line[0][1] == chart.SMALL.bottom  # -3 is drawn as 0


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(st.tuples(st.integers(0, 10**6), st.integers(-5, 10**9)), min_size=1, max_size=20),
    total=st.integers(0, 10**12),
    band=st.one_of(st.none(), st.tuples(st.integers(-(10**5), 10**7), st.integers(-(10**5), 10**7))),
    large=st.booleans(),
)
def test_whatever_is_drawn_lies_inside_the_box_and_the_band_never_before_now(steps, total, band, large):
    series = [(NOW - timedelta(seconds=s), c) for s, c in steps]
    window = None if band is None else (later(band[0] / 60), later(band[1] / 60))
    frame = chart.LARGE if large else chart.SMALL
    shape = chart.layout(series, total, NOW, window, marks=[at for at, _ in series], frame=frame)
    assert all(inside(p, frame) for p in (*shape.line, *shape.band, *shape.marks))
    assert all(x >= shape.now_x - 1e-6 for x, _ in shape.band)
    drawn = chart.draw(series, total, NOW, chart_id="p", band=window, marks=[at for at, _ in series], large=large)
    parsed(drawn.svg)  # well formed whatever the numbers


# --- markup and words -----------------------------------------------------------------------------

HOSTILE = 'x"><script>alert(1)</script><svg onload="alert(2)">&amp;]]>'


def test_a_hostile_name_and_id_are_escaped_text_never_markup():
    drawn = chart.draw(STEADY, 40, NOW, chart_id=HOSTILE, band=BAND, large=True, name=HOSTILE)
    root = parsed(drawn.svg)
    assert "<script" not in drawn.svg and "<svg onload" not in drawn.svg
    assert not [e for e in root.iter() if e.tag.endswith("script")]
    assert all(not name.startswith("on") for e in root.iter() for name in e.attrib)
    assert root.find(f"{SVG}title").text == f"Chart: volumes of {HOSTILE} finished over time (in words beside it)"
    assert re.fullmatch(r"[A-Za-z0-9_-]+", drawn.chart_id)
    assert root.get("aria-describedby") == f"{drawn.chart_id}-words"
    assert f"url(#{drawn.chart_id}-hatch)" in drawn.svg


def test_the_svg_is_an_image_named_and_described_with_its_shapes_hidden():
    drawn = chart.draw(STEADY, 40, NOW, chart_id="card-ns--c-pace-chart", band=BAND, name="c")
    root = parsed(drawn.svg)
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == "card-ns--c-pace-chart-title"
    assert root.find(f"{SVG}title").get("id") == "card-ns--c-pace-chart-title"
    (shapes,) = root.findall(f"{SVG}g")
    assert shapes.get("aria-hidden") == "true"
    band = next(e for e in root.iter(f"{SVG}polygon") if e.get("class") == "pace-band")
    assert band.get("fill") == "url(#card-ns--c-pace-chart-hatch)"  # told apart by its hatching, not its colour
    assert not list(root.iter(f"{SVG}text"))  # the sparkline has no words inside: they are beside it


def test_the_sentence_says_what_the_picture_shows_in_plain_words():
    words = chart.sentence(STEADY, 40, NOW, BAND)
    assert words == (
        "The chart shows volumes finished (done or failed) over time: 0 at 08:52 UTC, 12 of 40 now (10:52 UTC)."
        " The hatched band is the forecast: all 40 finished between 12:52 UTC and 14:52 UTC."
    )
    assert chart.sentence(STEADY, 40, NOW, None).endswith("No forecast is drawn yet.")
    stalled = chart.sentence(STEADY, 40, NOW, None, stalled_since=ago(10))
    assert stalled.endswith("The line is flat: nothing has finished since 10:42 UTC.")


def test_the_charts_words_come_from_plain_values_with_times_in_utc_and_the_day_when_not_today():
    evening = datetime(2026, 5, 3, 23, 30, tzinfo=timezone(timedelta(hours=-2)))  # 01:30 UTC on 4 May
    assert wording.moment(evening, NOW) == "01:30 UTC"
    assert wording.moment(ago(60 * 24), NOW) == "3 May 10:52 UTC"
    assert wording.chart_title("pages") == "Chart: pages finished over time (in words beside it)"
    titled = wording.chart_title("volumes", "parish")
    assert titled == "Chart: volumes of parish finished over time (in words beside it)"
    said = wording.chart_sentence(
        "volumes", 12_000, (ago(30), 0), (ago(5), 1_500), NOW, band=(later(60), later(600)), cut_at=later(300)
    )
    assert "1,500 of 12,000 now (10:52 UTC)" in said
    assert said.endswith("(the chart stops at 15:52 UTC; the band goes on).")
    assert wording.chart_sentence("volumes", 10, (ago(5), 10), (ago(5), 10), NOW).endswith("now (10:52 UTC).")
    assert wording.chart_point(3, 3, seen_finishing=True) == "seen finished by then"  # a dot, but no more


def test_the_large_chart_labels_its_edges_without_overlap_and_tables_every_point():
    drawn = chart.draw(STEADY, 40, NOW, chart_id="big", band=BAND, marks=[ago(80), ago(40), ago(10)], large=True)
    labels = chart.edge_labels(chart.layout(STEADY, 40, NOW, BAND, frame=chart.LARGE), 40, "volumes", NOW)
    texts = [label.text for label in labels]
    assert texts[0] == "40 volumes" and "now 10:52" in texts and "08:52" in texts
    spans = sorted(chart._extent(label, chart.LARGE) for label in labels[1:])
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:], strict=False))
    assert all(chart.LARGE.left <= low and high <= chart.LARGE.right for low, high in spans)
    assert [label.anchor for label in labels] == ["start", "middle", "start", "end"]
    without_band = chart.edge_labels(chart.layout(STEADY, 40, NOW, None, frame=chart.LARGE), 40, "volumes", NOW)
    now_label = next(label for label in without_band if label.text.startswith("now"))
    assert (now_label.x, now_label.anchor) == (chart.LARGE.right, "end")  # at the edge, it runs leftwards
    assert [(r.time, r.count, r.what) for r in drawn.rows] == [
        ("08:52 UTC", "0", "the start"),
        ("09:32 UTC", "5", "5 more seen finished"),
        ("10:12 UTC", "9", "4 more seen finished"),
        ("10:42 UTC", "12", "3 more seen finished"),
        ("10:52 UTC", "12", "now"),
        ("12:52 UTC", "40", "forecast: done at the earliest"),
        ("14:52 UTC", "40", "forecast: done at the latest"),
    ]
    assert drawn.marks == 3 and len(list(parsed(drawn.svg).iter(f"{SVG}circle"))) == 3


# --- from a campaign's pace -----------------------------------------------------------------------


def campaign_with_pace(phase=RUNNING, finished_per_10_min=2, total=40, minutes=90):
    timeline = None
    start = NOW - timedelta(minutes=minutes)
    for step in range(0, minutes * 60 + 1, 30):
        at = start + timedelta(seconds=step)
        timeline = pace.observe(timeline, at, step // 600 * finished_per_10_min, "uid", start)
    campaign = Campaign(
        "htr-batch",
        "parish",
        phase=phase,
        started_at=start,
        parallelism=4,
        counts=Counts(total=total, done=timeline.finished, active=4),
    )
    campaign.pace = pace.campaign_pace(
        timeline, NOW, total=total, running_pods=4, parallelism=4, running=phase == RUNNING
    )
    return campaign


def test_a_running_campaign_is_drawn_from_its_pace_with_its_forecast_to_the_minute():
    campaign = campaign_with_pace()
    assert campaign.pace.forecast is not None
    small = chart.chart_for(campaign, NOW + timedelta(seconds=20), "card-htr-batch--parish-pace-chart")
    assert small is not None and not small.large and small.has_band
    assert "18 of 40 now (10:52 UTC)" in small.sentence
    again = chart.chart_for(campaign, NOW + timedelta(seconds=40), "card-htr-batch--parish-pace-chart")
    assert again.svg == small.svg  # the same picture within the minute: a poll finds nothing changed
    large = chart.chart_for(campaign, NOW, "card-htr-batch--parish-pace-chart", large=True)
    assert large.large and large.marks >= 5 and large.rows[-1].what == "forecast: done at the latest"


def test_only_running_campaigns_get_a_chart():
    assert chart.chart_for(campaign_with_pace(phase=SUCCEEDED), NOW, "x") is None
    bare = Campaign("htr-batch", "new", phase=RUNNING)
    assert chart.chart_for(bare, NOW, "x") is None

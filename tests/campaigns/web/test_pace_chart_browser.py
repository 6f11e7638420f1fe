"""The pace chart in Chromium against the devstack scene: a running campaign's card shows the small chart
and its words, its campaign page the larger one with legend and table; axe finds no WCAG 2.2 AA
violation on either page, the lines keep 3:1 against the card in both colour schemes, and at 390 px
the chart fits without horizontal scrolling."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from campaigns.cluster import reading
from campaigns.store import progress as progress_module
from tests.fixtures.session import browser_login
from tests.test_accessibility import violations_of

pytestmark = pytest.mark.browser
# A moment as the chart says it: the day comes first when it is not today (the scene may start yesterday).
MOMENT = r"(\d{1,2} [A-Z][a-z]{2} )?\d\d:\d\d UTC"
SITUATION = "running_mixed"  # running for a while with volumes finished: a forecast band is drawn


@pytest.fixture
def logged_in(scene, live_server, page, settings, session_key_file):
    settings.HTRFLOW_SNAPSHOT_SECONDS = 0.5
    settings.HTRFLOW_WRITE_STATUS = False
    reading.clear_cache()
    progress_module.clear_cache()
    browser_login(page, live_server.url, scene.store.accounts["full"])
    yield page
    reading.clear_cache()


def addresses(scene, live_server) -> tuple[str, str, str]:
    name = scene.scene.situations[SITUATION]
    card_id = f"card-htr-batch--{name}"
    return card_id, f"{live_server.url}/?open=htr-batch/{name}", f"{live_server.url}/campaigns/htr-batch/{name}"


# The stroke of each drawn part against the colour behind the chart (the card's).
STROKES = """
(selector) => {
  function rgb(text) {
    const m = text.match(/rgba?\\(([\\d.]+),\\s*([\\d.]+),\\s*([\\d.]+)/);
    return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
  }
  function luminance([r, g, b]) {
    const c = [r, g, b].map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  }
  const chart = document.querySelector(selector);
  let node = chart, behind = null;
  while (node && !behind) {
    const colour = getComputedStyle(node).backgroundColor;
    if (!colour.startsWith('rgba') || !colour.endsWith(', 0)')) behind = rgb(colour);
    node = node.parentElement;
  }
  const ratios = {};
  for (const part of ['pace-line', 'pace-band', 'pace-now']) {
    const el = chart.querySelector('.' + part);
    if (!el) continue;
    const [a, b] = [luminance(rgb(getComputedStyle(el).stroke)), luminance(behind)].sort((p, q) => q - p);
    ratios[part] = (a + 0.05) / (b + 0.05);
  }
  return ratios;
}
"""


def fits_the_width(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_a_running_campaign_card_shows_the_small_chart_and_its_words(scene, live_server, logged_in):
    page = logged_in
    card_id, on_list, _ = addresses(scene, live_server)
    page.goto(on_list)
    card = page.locator(f"article[id='{card_id}']")
    figure = card.locator("figure.pace-small")
    expect(figure).to_be_visible()
    picture = figure.get_by_role("img", name=re.compile(r"^Chart: volumes of .+ finished over time"))
    expect(picture).to_be_visible()
    words = figure.locator("figcaption")
    told = rf"The chart shows volumes finished \(done or failed\) over time: 0 at {MOMENT}, \d+ of \d+ now"
    expect(words).to_contain_text(re.compile(told))
    expect(words).to_contain_text("The hatched band is the forecast")
    expect(picture).to_have_attribute("aria-describedby", words.get_attribute("id"))
    expect(figure.locator("svg .pace-band")).to_have_count(1)
    assert page.locator("script[src*='pace']").count() == 0  # no script of its own


def test_the_campaign_page_shows_the_large_chart_with_legend_and_table(scene, live_server, logged_in):
    page = logged_in
    _, _, detail = addresses(scene, live_server)
    page.goto(detail)
    section = page.locator("section.pace-large")
    expect(section.get_by_role("heading", name="Volumes finished over time")).to_be_visible()
    expect(section.get_by_role("img", name=re.compile("^Chart: volumes of"))).to_be_visible()
    expect(section.locator(".pace-legend")).to_contain_text("forecast range (hatched, dashed edge)")
    table = section.get_by_role("table", name="The chart in numbers")
    expect(table.locator("tbody tr").first).to_contain_text("the start")
    expect(table.locator("tbody tr").last).to_contain_text("forecast: done at the latest")
    expect(section.locator("svg text").first).to_have_text(re.compile(r"^\d[\d,]* volumes$"))
    expect(page.locator("figure.pace-small")).to_have_count(0)  # the page shows the large one instead


@pytest.mark.parametrize("scheme", ("light", "dark"))
def test_axe_finds_no_violation_and_the_chart_fits_390_px_with_3_to_1_lines(scene, live_server, logged_in, scheme):
    page = logged_in
    page.emulate_media(color_scheme=scheme)
    card_id, on_list, detail = addresses(scene, live_server)
    for width in (1400, 390):
        page.set_viewport_size({"width": width, "height": 900})
        for address, chart in ((on_list, f"[id='{card_id}'] figure.pace-small"), (detail, "section.pace-large")):
            page.goto(address)
            expect(page.locator(chart + " svg")).to_be_visible()
            page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
            assert violations_of(page) == [], f"{address} at {width} px, {scheme}"
            ratios = page.evaluate(STROKES, chart)
            assert set(ratios) == {"pace-line", "pace-band", "pace-now"}, ratios
            assert all(ratio >= 3 for ratio in ratios.values()), (address, scheme, ratios)
            if width == 390:
                assert fits_the_width(page), f"{address} scrolls sideways at 390 px"
                box = page.locator(chart + " svg").bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["height"] > 20, box


def test_a_stalled_campaign_draws_a_flat_line_without_a_forecast_and_says_since_when(scene, live_server, logged_in):
    page = logged_in
    name = scene.scene.situations["stalled"]
    page.goto(f"{live_server.url}/campaigns/htr-batch/{name}")
    section = page.locator("section.pace-large")
    expect(section.locator("svg polyline.pace-line")).to_have_count(1)
    expect(section.locator("svg .pace-band")).to_have_count(0)
    words = section.locator(f"[id='card-htr-batch--{name}-pace-chart-words']")
    expect(words).to_contain_text(re.compile(rf"The line is flat: nothing has finished since {MOMENT}\."))
    expect(words).not_to_contain_text("hatched")
    ys = {
        y
        for pair in section.locator("svg polyline.pace-line").get_attribute("points").split()
        for y in [pair.split(",")[1]]
    }
    assert len(ys) == 1  # flat: nothing finished since the start


def test_in_forced_colours_the_chart_is_drawn_in_the_system_colours(scene, live_server, logged_in):
    page = logged_in
    page.emulate_media(forced_colors="active")
    page.goto(addresses(scene, live_server)[2])
    colours = page.evaluate(
        """() => {
          const probe = document.createElement('span');
          probe.style.color = 'CanvasText';
          document.body.append(probe);
          const text = getComputedStyle(probe).color;
          const of = (selector, property) => getComputedStyle(document.querySelector(selector))[property];
          return {text, line: of('section.pace-large .pace-line', 'stroke'),
                  band: of('section.pace-large .pace-band', 'stroke'),
                  hatch: of('section.pace-large .pace-hatch-line', 'fill')};
        }"""
    )
    assert colours["line"] == colours["band"] == colours["hatch"] == colours["text"], colours

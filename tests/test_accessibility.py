"""Every page checked by axe-core with the WCAG 2.2 A and AA rules, at 1400 and 390 px, in the light and
the dark colour scheme; and the non-text contrast of form fields and focus rings measured (1.4.11)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from axe_playwright_python.sync_playwright import Axe

from devstack import content_json as cj
from devstack import scene_store
from devstack.scene_model import DONE

pytestmark = pytest.mark.browser
WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
WIDTHS = (1400, 390)
SCHEMES = ("light", "dark")


PAGES = (
    "list",
    "list searched for a volume",
    "campaign with failed volumes",
    "finished campaign",
    "failed volume's log",
    "done volume's log with summary",
    "log search results",
    "ALTO page",
    "failed page without ALTO",
    "refused address",
    "unknown campaign",
)


def addresses(scene, live_server) -> dict[str, str]:
    """One address of every kind of page, on the demo scene."""
    where, results = scene.scene.where, scene.results_url
    parish = scene.scene.campaign_of("verify_missing_pages")
    failed = next(v for v in parish.volumes if v.id == scene.scene.volumes["verify_missing_pages"][0])
    finished = scene.scene.campaign_of("succeeded")
    done = next(v for v in finished.volumes if v.state == DONE and not v.old_log_key)
    log = quote(f"{results}/{scene_store.log_key(where, parish, failed)}", safe="")
    manifest = quote(f"{results}/{cj.manifest_key(where.namespace, finished.pipeline.id, done.id)}", safe="")
    done_log = quote(f"{results}/{scene_store.log_key(where, finished, done)}", safe="")
    alto = quote(f"{results}/{cj.alto_key(where.namespace, finished.pipeline.id, done.id, 1)}", safe="")
    missing = quote(f"{results}/{cj.alto_key(where.namespace, parish.pipeline.id, failed.id, 12)}", safe="")
    base = live_server.url
    found = {
        "list": f"{base}/",
        "list searched for a volume": f"{base}/?q={quote(failed.id)}",
        "campaign with failed volumes": f"{base}/campaigns/{where.namespace}/{parish.name}",
        "finished campaign": f"{base}/campaigns/{where.namespace}/{finished.name}",
        "failed volume's log": f"{base}/log?log={log}",
        "done volume's log with summary": f"{base}/log?log={done_log}&manifest={manifest}",
        "log search results": f"{base}/log?log={log}&q=page",
        "ALTO page": f"{base}/alto?src={alto}",
        "failed page without ALTO": f"{base}/alto?src={missing}",
        "refused address": f"{base}/log?log=" + quote("https://elsewhere.example/x.txt", safe=""),
        "unknown campaign": f"{base}/campaigns/{where.namespace}/no-such-campaign",
    }
    assert tuple(found) == PAGES  # every kind of page is a case of its own below
    return found


def violations_of(page) -> list[str]:
    # Only violations are gathered: passes and inapplicable rules would cost most of the time on long pages.
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": WCAG_22_AA}, "resultTypes": ["violations"]})
    found = results.response["violations"]
    return [f"{v['id']}: {v['help']} at {[n['target'] for n in v['nodes'][:3]]}" for v in found]


def test_the_check_reports_a_planted_violation(page):
    """The pages pass because they are right, not because the check sees nothing."""
    page.set_content('<html lang="en"><head><title>t</title></head><body><main><img src="x.png"></main></body></html>')
    assert any(found.startswith("image-alt:") for found in violations_of(page))


# One case per page, width and scheme, so the cases spread over the test workers.
@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", SCHEMES)
def test_axe_finds_no_wcag_22_aa_violation_on_any_page(logged_in, scene, live_server, scheme, width, name):
    page = logged_in
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(addresses(scene, live_server)[name])
    page.wait_for_load_state("load")
    # what is folded away is checked too: operator details, their copy buttons, facts
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    assert violations_of(page) == [], f"{name} at {width} px, {scheme}"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", SCHEMES)
def test_axe_finds_no_violation_on_the_login_page(page, live_server, scene, session_key_file, scheme, width):
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/login")
    assert violations_of(page) == [], f"login at {width} px, {scheme}"


CONTRAST = """
(selector) => {
  function rgb(text) {
    const m = text.match(/rgba?\\(([\\d.]+),\\s*([\\d.]+),\\s*([\\d.]+)(?:,\\s*([\\d.]+))?/);
    return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : null;
  }
  function luminance([r, g, b]) {
    const c = [r, g, b].map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  }
  function ratio(a, b) {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  }
  // The colour behind an element: the first ancestor with an opaque background.
  function behind(el) {
    for (let node = el.parentElement; node; node = node.parentElement) {
      const colour = rgb(getComputedStyle(node).backgroundColor);
      if (colour && colour[3] > 0.99) return colour;
    }
    return rgb(getComputedStyle(document.documentElement).backgroundColor) || [255, 255, 255, 1];
  }
  return Array.from(document.querySelectorAll(selector)).filter(el => el.offsetParent !== null).map(el => {
    const style = getComputedStyle(el);
    const edge = rgb(style.borderTopColor);
    const own = rgb(style.backgroundColor);
    const outside = behind(el);
    return {id: el.id || el.name || el.className, outside: ratio(edge, outside),
            inside: own && own[3] > 0.99 ? ratio(edge, own) : ratio(edge, outside)};
  });
}
"""
FOCUS_RING = """
(selector) => {
  const el = document.querySelector(selector);
  el.focus();
  const style = getComputedStyle(el);
  return {style: style.outlineStyle, width: parseFloat(style.outlineWidth), colour: style.outlineColor};
}
"""


def measured(page, selector: str) -> list[dict]:
    return page.evaluate(CONTRAST, selector)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_form_fields_and_focus_rings_have_3_to_1_against_what_is_next_to_them(logged_in, scene, live_server, scheme):
    page = logged_in
    page.emulate_media(color_scheme=scheme)
    pages = addresses(scene, live_server)
    fields = "input:not([type=hidden]):not([type=checkbox]), select"
    seen = []
    for name in ("campaign with failed volumes", "failed volume's log", "ALTO page"):
        page.goto(pages[name])
        for field in measured(page, fields):
            seen.append((name, field["id"]))
            assert field["outside"] >= 3 and field["inside"] >= 3, (name, field)
        ring = page.evaluate(FOCUS_RING, fields)
        assert ring["style"] == "solid" and ring["width"] >= 2, ring
    assert len(seen) >= 4
    page.context.clear_cookies()
    page.goto(f"{live_server.url}/login")
    login_fields = measured(page, "#login-form input:not([type=hidden])")
    assert len(login_fields) == 2
    assert all(f["outside"] >= 3 and f["inside"] >= 3 for f in login_fields), login_fields

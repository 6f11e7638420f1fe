"""The journey (login → list → campaign → run log → ALTO page → feed page) in the real browser, read by a Swedish
archivist in Stockholm and an English reader in New York (issue 37):

- each page speaks the browser's language (`<html lang>`), and the header's switch changes it and comes back to
  the same page;
- every time is said in the browser's zone, learnt from the first page (static/js/zone.js sets the `tz` cookie):
  each `<time datetime>`'s UTC value shown as that zone's wall clock with its abbreviation, and no "UTC" left
  (the run log's own lines aside, which the page says are UTC);
- no English is left on a Swedish page, nor Swedish on an English one: names, ids, code and the run's own
  output (log lines, the recognised text) aside.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import quote
from zoneinfo import ZoneInfo

import pytest
from django.core.cache import cache
from django.utils import timezone, translation

from campaigns.cluster import reading
from core import times
from devstack import content_json as cj
from devstack import scene_store
from devstack.scene_model import DONE
from results.accounts import feeds
from tests.fixtures.session import browser_login

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Reader:
    language: str
    locale: str  # the browser's, which it sends as Accept-Language
    zone: str  # the browser's, which it reports to zone.js
    other: str  # the language the header's switch goes to and back from

    @property
    def abbreviations(self) -> set[str]:
        return {"sv": {"CET", "CEST"}, "en": {"EST", "EDT"}}[self.language]


SWEDISH = Reader("sv", "sv-SE", "Europe/Stockholm", "en")
ENGLISH = Reader("en", "en-US", "America/New_York", "sv")
READERS = [pytest.param(SWEDISH, id="sv-Stockholm"), pytest.param(ENGLISH, id="en-New_York")]

# Said by the run, not by the site, or names and code: left out of what a page is checked to say. Hidden text
# counts (a banner shown when an image fails, buttons the scripts reveal): it is said when it shows.
NOT_THE_SITES_WORDS = (
    "script, style, noscript, template, code, kbd, pre, samp, .mono, "
    ".log-line, .line-text, .whole-word, #log-zone"
)
# Attributes whose values people read (as tests/test_templates_translated.py reads them in the templates).
READ_ATTRIBUTES = ("aria-label", "aria-description", "title", "alt", "placeholder", "label", "data-copy-label",
                   "data-trouble")
SAID = """
([skip, attributes]) => {
  const said = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    const text = node.textContent.replace(/\\s+/g, " ").trim();
    if (text && parent && !parent.closest(skip)) said.push(text);
  }
  for (const element of document.body.querySelectorAll("*")) {
    if (element.closest(skip)) continue;
    for (const name of attributes) {
      const value = element.getAttribute(name);
      if (value && value.trim()) said.push(value.trim());
    }
  }
  return said;
}
"""
TIMES = """
() => Array.from(document.querySelectorAll("time[datetime]")).filter(t => !t.closest(".log-line"))
  .map(t => [t.getAttribute("datetime"), t.textContent.replace(/\\s+/g, " ").trim()])
"""

# Words of the catalogue's English sentences that Swedish does not have: function words, and the site's own
# words a label or button would be left with. Whole words, any case. (Not "in", "by", "be", "it", "a", "as",
# "so", "all": Swedish writes those too.)
ENGLISH_ONLY = (
    "the of and is was not has have with for this that which been are were from will would could should can "
    "cannot does did its your you they their there these those what when where while who why how into than then "
    "after before until yet only each every any some about also here or if on at to "
    "campaign campaigns volume volumes page pages log logs feed queue queued running finished failed paused "
    "waiting today tomorrow ago hours minutes seconds error errors line lines next previous show hide copy "
    "search find language switch skip content"
).split()
SWEDISH_ONLY = "och inte att är för av som med kampanj kampanjer volym volymer sida sidor körlogg".split()


def words_of(language_words: list[str]) -> re.Pattern:
    return re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, language_words)) + r")(?![\w-])", re.I)


ENGLISH_WORD, SWEDISH_WORD = words_of(ENGLISH_ONLY), words_of(SWEDISH_ONLY)
ADDRESS = re.compile(r"\b(?:https?://|/)[^\s]*|\b[\w.-]+\.(?:xml|json|txt|jpg|png|yaml|atom)\b")
ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")
ZONE_AFTER_A_TIME = re.compile(r"\b\d\d:\d\d ([A-Z]{2,5}|[+-]\d\d(?::?\d\d)?)(?![\w:])")


def require_swedish() -> None:
    compiled = ROOT / "locale" / "sv" / "LC_MESSAGES" / "django.mo"
    assert compiled.exists(), (
        f"{compiled.relative_to(ROOT)} is missing: the Swedish catalogue is not written or not compiled "
        "(`make messages`), so a Swedish page cannot be read in Swedish"
    )


def written_by_the_cluster(value) -> set[str]:
    """What Kubernetes and the run wrote, which the site quotes as evidence: every ``message`` of an object (a
    pod's status, a container's termination, an event, a condition), the wrapper's JSON termination message's
    ``error`` too."""
    found = set()
    if isinstance(value, dict):
        for name, inner in value.items():
            if name == "message" and isinstance(inner, str):
                found.add(inner.strip())
                with contextlib.suppress(ValueError, TypeError, KeyError, AttributeError):
                    found.add(json.loads(inner)["error"].strip())
            else:
                found |= written_by_the_cluster(inner)
    elif isinstance(value, list | tuple):
        for inner in value:
            found |= written_by_the_cluster(inner)
    return found


def names_in(scene) -> re.Pattern:
    """What the scene names (campaigns, volumes, pipelines, queues, accounts …), and what its cluster and runs
    wrote (error messages, log lines): never translated, often English ("school-registers-1895", "verify failed:
    2 missing"), so taken out before a page's words are judged: each as a whole, longest first."""
    found = {"htrbrowser", "htrflow", "IIIF", "ALTO", "Kueue", scene.scene.namespace}
    for campaign in scene.scene.campaigns.values():
        found |= {campaign.name, campaign.campaign, campaign.pipeline.id, campaign.queue, campaign.priority or ""}
        found |= {campaign.pipeline.warmup_error}
        for volume in campaign.volumes:
            found |= {volume.id} | written_by_the_cluster(volume.pods)
    found |= written_by_the_cluster(scene.scene.objects)
    found |= {line.strip() for *_, text in scene.scene.pod_logs for line in text.splitlines()}
    found |= {account.username for account in scene.store.accounts.values()}
    names = sorted((name for name in found if name), key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, names)) + r")(?!\w)")


def said_on(page, names: re.Pattern, skip: str = NOT_THE_SITES_WORDS) -> list[str]:
    """Every piece of text the page says to a person (text, the attributes read aloud, its title), with the
    scene's names, addresses and file names taken out."""
    found = []
    for text in page.evaluate(SAID, [skip, list(READ_ATTRIBUTES)]):
        text = ADDRESS.sub(" ", names.sub(" ", text)).strip()
        if text:
            found.append(text)
    return found


def left_in_the_other_language(page, reader: Reader, names: re.Pattern) -> list[str]:
    other = ENGLISH_WORD if reader.language == "sv" else SWEDISH_WORD
    return [f"{found.group(1)!r} in {text!r}" for text in said_on(page, names) for found in [other.search(text)]
            if found]


def journey(scene, base: str) -> list[tuple[str, str]]:
    """The journey's pages after logging in, on the demo scene: a campaign with failed volumes, one failed
    volume's run log, an ALTO page of a finished campaign, and the feed page."""
    where, results = scene.scene.where, scene.results_url
    parish = scene.scene.campaign_of("verify_missing_pages")
    failed = next(v for v in parish.volumes if v.id == scene.scene.volumes["verify_missing_pages"][0])
    finished = scene.scene.campaign_of("succeeded")
    done = next(v for v in finished.volumes if v.state == DONE and not v.old_log_key)
    log = quote(f"{results}/{scene_store.log_key(where, parish, failed)}", safe="")
    alto = quote(f"{results}/{cj.alto_key(where.namespace, finished.pipeline.id, done.id, 1)}", safe="")
    return [
        ("list", f"{base}/"),
        ("campaign", f"{base}/campaigns/{where.namespace}/{parish.name}"),
        ("run log", f"{base}/log?log={log}"),
        ("ALTO page", f"{base}/alto?src={alto}"),
        ("feed page", f"{base}/feed"),
    ]


@pytest.fixture
def reader(request) -> Reader:
    """The reader a test is parametrized with (indirectly)."""
    return request.param


@pytest.fixture
def reader_page(reader, browser, scene, live_server, settings, session_key_file):
    """A fresh browser of that reader's language and zone, on the login page (its first page, which tells the
    site its zone), not logged in yet."""
    settings.HTRFLOW_SNAPSHOT_SECONDS = 5
    settings.HTRFLOW_WRITE_STATUS = False
    reading.clear_cache()
    feeds.clear_cache()
    cache.clear()
    context = browser.new_context(locale=reader.locale, timezone_id=reader.zone)
    try:
        yield context.new_page()
    finally:
        context.close()
        reading.clear_cache()


def language_of(page) -> str:
    return page.locator("html").get_attribute("lang")


def zone_cookie(page) -> str | None:
    return next((cookie["value"] for cookie in page.context.cookies() if cookie["name"] == "tz"), None)


def wrong_times(page, reader: Reader, where: str) -> tuple[int, list[str]]:
    """Every `<time datetime>` of the page says its UTC value as the reader's wall clock, with the zone's
    abbreviation, in the words core.times gives that language: how many there are, and what is wrong."""
    zone = ZoneInfo(reader.zone)
    shown, wrong = page.evaluate(TIMES), []
    with translation.override(reader.language), timezone.override(zone):
        for iso, text in shown:
            at = datetime.fromisoformat(iso.replace("Z", "+00:00"))
            local = at.astimezone(zone)
            if f"{local:%H:%M} {local.tzname()}" not in text:
                wrong.append(f"{where}: {iso} shown as {text!r}, not as {zone.key}'s {local:%H:%M} {local.tzname()}")
            elif text not in {times.moment(at), times.moment(at, at)}:
                wrong.append(f"{where}: {iso} shown as {text!r}, not as core.times says it")
    return len(shown), wrong


def said_in_another_zone(page, reader: Reader, names: re.Pattern, where: str) -> list[str]:
    """Times said in UTC, in another zone than the reader's, or as a machine's ISO 8601 (the run log's own lines,
    and the note that says they are UTC, aside; `<time datetime>` attributes are not text)."""
    skip = "script, style, noscript, template, pre, .log-line, #log-zone"
    wrong = []
    for text in said_on(page, names, skip):
        zones = set(ZONE_AFTER_A_TIME.findall(text))
        if re.search(r"\bUTC\b", text) or ISO_TIME.search(text) or not zones <= reader.abbreviations:
            wrong.append(f"{where}: {text!r}")
    return wrong


@pytest.mark.parametrize("reader", READERS, indirect=True)
def test_each_page_of_the_journey_speaks_the_readers_language_and_zone(reader, reader_page, scene, live_server):
    if reader.language == "sv":
        require_swedish()
    page, base, names = reader_page, live_server.url, names_in(scene)
    page.goto(f"{base}/login")
    assert language_of(page) == reader.language, "the login page"
    assert zone_cookie(page) == reader.zone, "zone.js told the site the browser's zone on the first page"
    browser_login(page, base, scene.store.accounts["full"])
    counted, wrong = {}, []
    for where, address in journey(scene, base):
        response = page.goto(address)
        assert response is not None and response.status == 200, f"{where}: {response and response.status}"
        page.wait_for_load_state("load")
        assert language_of(page) == reader.language, where
        assert page.locator("#language-choice option[selected]").get_attribute("value") == reader.language, where
        counted[where], wrong_here = wrong_times(page, reader, where)
        wrong += wrong_here + said_in_another_zone(page, reader, names, where)
        if where == "run log":
            note = page.locator("#log-zone").inner_text()
            assert reader.zone in note and "UTC" in note, f"the log says its lines' zone and the page's: {note!r}"
    assert counted["campaign"] >= 1, "the campaign's card says when it was created"
    assert not wrong, f"times not said in {reader.zone}'s wall clock:\n  " + "\n  ".join(wrong)


@pytest.mark.parametrize("reader", [pytest.param(SWEDISH, id="sv-Stockholm")], indirect=True)
def test_no_english_is_left_on_a_swedish_page(reader, reader_page, scene, live_server):
    """What a Swedish archivist reads on every page of the journey, the login page too, is Swedish: no English
    function word (the, of, and, is, was …) nor the site's English words (campaign, volume, page …) outside
    names, ids, code and what the run itself wrote."""
    require_swedish()
    page, base, names = reader_page, live_server.url, names_in(scene)
    page.goto(f"{base}/login")
    left = {"login": left_in_the_other_language(page, SWEDISH, names)}
    browser_login(page, base, scene.store.accounts["full"])
    for where, address in journey(scene, base):
        page.goto(address)
        page.wait_for_load_state("load")
        left[where] = left_in_the_other_language(page, SWEDISH, names)
    found = [f"{where}: {said}" for where, on_page in left.items() for said in on_page]
    assert not found, f"{len(found)} English piece(s) on Swedish pages:\n  " + "\n  ".join(found[:60])


@pytest.mark.parametrize("reader", [pytest.param(ENGLISH, id="en-New_York")], indirect=True)
def test_no_swedish_is_left_on_an_english_page(reader, reader_page, scene, live_server):
    page, base, names = reader_page, live_server.url, names_in(scene)
    browser_login(page, base, scene.store.accounts["full"])
    found = []
    for where, address in journey(scene, base):
        page.goto(address)
        page.wait_for_load_state("load")
        found += [f"{where}: {said}" for said in left_in_the_other_language(page, ENGLISH, names)]
    assert not found, "Swedish on English pages:\n  " + "\n  ".join(found[:60])


@pytest.mark.parametrize("reader", READERS, indirect=True)
def test_the_headers_switch_changes_the_language_and_comes_back_to_the_same_page(
    reader, reader_page, scene, live_server
):
    require_swedish()
    page, base = reader_page, live_server.url
    browser_login(page, base, scene.store.accounts["full"])
    for where, address in journey(scene, base)[1:4]:  # the campaign, the run log, the ALTO page (a query string)
        page.goto(address)
        for language in (reader.other, reader.language):
            page.select_option("#language-choice", language)
            with page.expect_navigation():
                page.click("form.language button[type=submit]")
            page.wait_for_load_state("load")
            assert page.url == address, f"{where}: the switch to {language} went to {page.url}"
            assert language_of(page) == language, where
            assert page.locator("#language-choice option[selected]").get_attribute("value") == language, where

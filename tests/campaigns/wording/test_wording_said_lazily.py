"""The pace's, queue's, states', warm-up's, progress', cache's, notes', lists', banners', feed's and quality's
sentences are marked for translation and looked up when a person reads them, never at import: their tables hold
lazy sentences, each said in the language active when it is filled in."""

from __future__ import annotations

import ast
import importlib
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.utils import translation
from django.utils.functional import Promise

from campaigns.models import QUEUED, Campaign, Counts, QueueState
from campaigns.models.pace import LAST_HOUR, CampaignPace, Forecast, Pace
from campaigns.wording import banners, cache, feed, lists, notes, pace, progress, quality, queue, states, warmup

# Dependencies first, so each module reloaded imports the others' fresh tables.
MODULES = (progress, pace, queue, states, warmup, cache, quality, notes, lists, banners, feed)
MARK = "§"  # what the stand-in translation puts before every sentence it is asked for
NOW = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)


@pytest.fixture
def asked(monkeypatch) -> list[str]:
    """Every sentence looked up from now on; each comes back marked with MARK."""
    calls: list[str] = []

    def said(message: str) -> str:
        calls.append(message)
        return MARK + message

    monkeypatch.setattr(translation._trans, "gettext", said)
    monkeypatch.setattr(translation._trans, "pgettext", lambda context, message: said(message))
    monkeypatch.setattr(translation._trans, "ngettext", lambda one, many, n: said(one if n == 1 else many))
    return calls


def _texts(value, where: str):
    """(where, text) for each text a module-level value holds, in dicts, tuples, lists and named tuples."""
    if isinstance(value, str | Promise):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _texts(item, f"{where}[{key!r}]")
    elif isinstance(value, tuple | list):
        for number, item in enumerate(value):
            yield from _texts(item, f"{where}[{number}]")


def _module_texts(module):
    """The texts of every value the module itself assigns at its top level (not the names it imports)."""
    tree = ast.parse(Path(module.__file__).read_text())
    names = {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for name in sorted(names):
        yield from _texts(getattr(module, name), f"{module.__name__}.{name}")


def test_importing_the_modules_looks_up_no_sentence_and_their_tables_hold_lazy_ones(asked):
    with translation.override("sv"):
        for module in MODULES:
            importlib.reload(module)

    assert asked == []  # nothing was said while the modules were imported
    texts = [pair for module in MODULES for pair in _module_texts(module)]
    assert len(texts) > 50  # the tables were walked
    # A plain str left at module level is a code, a kubectl word or a kind's key: none reads as a sentence.
    sentences = [(where, text) for where, text in texts if not isinstance(text, Promise) and " " in text.strip()]
    assert [(where, text) for where, text in sentences if re.search(r"[a-z] [a-z]", text)] == []


def test_a_sentence_is_looked_up_in_the_language_active_when_it_is_said(asked):
    forecast = Forecast(NOW.replace(hour=16, minute=15), NOW.replace(hour=17, minute=25), LAST_HOUR, 9.0, 30, 4)
    view = CampaignPace(pace=Pace(recent=9.0, recent_seconds=3600), forecast=forecast, running_pods=4)
    said = pace.forecast_sentence(view, NOW)
    assert said.text.startswith(MARK + "About " + MARK + "8 h 50 min left " + MARK + "at the pace of the last hour")
    assert MARK + "finishes between 16:15 and " in said.text and "UTC today" in said.text
    held = states.campaign_sentence(Campaign(namespace="ns", name="b", phase=QUEUED, queue=QueueState(kind="paused")))
    assert held.text.startswith(MARK + "Queued. " + MARK + "Its campaign file holds it back")
    assert str(progress.CARD_SENTENCES["timeout"]).startswith(MARK + "The results store did not answer in time")
    assert cache.cache_facts(None) == []
    assert lists.volume_state_choices(("done",)) == [("", MARK + "All states"), ("done", MARK + "Done")]
    assert feed.outcome(Campaign(namespace="ns", name="c", phase="Succeeded", counts=Counts(total=2, done=2))) == (
        MARK + MARK + "Succeeded: 2 of 2 volumes done."
    )
    assert banners.stale_banner(NOW, NOW).startswith(MARK + "Could not reach the cluster since " + MARK)
    assert queue.queue_sentence(QueueState(kind="admitted")).text == MARK + "Admitted by the queue."
    assert (
        notes.forbidden_note(2, 2) == MARK + "Your account may not read these volumes' results, so their "
        "progress, run logs and pages are not shown."
    )
    assert (
        quality.coverage_sentence(1, 2, 0) == MARK + "From the 1 of 2 volumes read so far; " + MARK + "1 not read yet."
    )
    assert warmup.WARMUP_WAITING == "warmup.waiting"  # a code, not a sentence

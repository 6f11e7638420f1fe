"""The findings', evidence's, reasons', volumes' and words' sentences are marked for translation and said when
a person reads them, never at import: the tables hold lazy templates, each looked up in the language active
when it is filled in; and in English they read as they always did, every time said through core.times."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.utils import translation
from django.utils.functional import Promise

from campaigns.models import Volume, VolumeReason
from campaigns.models.findings import AUTHOR, NOBODY
from campaigns.wording import evidence, finding_words, findings, reasons, volumes, words
from tests.campaigns.finding_samples import kueue_down, waiting

# Dependencies first, so each module reloaded imports the others' fresh tables.
MODULES = (words, evidence, reasons, volumes, finding_words, findings)
# Module-level values that are codes, not words: compared with codes, never shown.
CODES = {"_REPEATS_UNLESS_FIXED", "retrying_tone"}
PLACEHOLDER = re.compile(r"\{\w*\}")
SEP_24 = datetime(2026, 9, 24, 12, 0, tzinfo=UTC)
MARK = "§"  # what the stand-in translation puts before every sentence it is asked for


def _said(calls: list[str]):
    """Stand-ins for Django's translation functions: each records the sentence asked for and marks it."""

    def gettext(message):
        calls.append(message)
        return MARK + message

    def pgettext(context, message):
        calls.append(message)
        return MARK + message

    def ngettext(singular, plural, number):
        calls.append(singular)
        return MARK + (singular if number == 1 else plural)

    def npgettext(context, singular, plural, number):
        calls.append(singular)
        return MARK + (singular if number == 1 else plural)

    return {"gettext": gettext, "pgettext": pgettext, "ngettext": ngettext, "npgettext": npgettext}


@pytest.fixture
def asked(monkeypatch) -> list[str]:
    """Every sentence looked up from now on; each comes back marked with MARK."""
    calls: list[str] = []
    for name, function in _said(calls).items():
        monkeypatch.setattr(translation._trans, name, function)
    return calls


def _leaves(value, where: str):
    """(where, leaf) for each text a module-level value holds: in dicts' values, tuples, lists and the fields
    of dataclass instances."""
    if isinstance(value, str | Promise):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{where}[{key!r}]")
    elif isinstance(value, tuple | list):
        for number, item in enumerate(value):
            yield from _leaves(item, f"{where}[{number}]")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            if field.name not in CODES:
                yield from _leaves(getattr(value, field.name), f"{where}.{field.name}")


def _module_texts(module):
    """The texts of every value the module itself assigns at its top level (not the names it imports)."""
    tree = ast.parse(Path(module.__file__).read_text())
    assigned = [
        node.targets if isinstance(node, ast.Assign) else [node.target]
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
    ]
    names = {target.id for targets in assigned for target in targets if isinstance(target, ast.Name)}
    for name in sorted(names - CODES - {"__all__"}):
        yield from _leaves(getattr(module, name), f"{module.__name__}.{name}")


def test_importing_the_modules_looks_up_no_sentence_and_their_tables_hold_lazy_ones(asked):
    with translation.override("sv"):
        for module in MODULES:
            importlib.reload(module)

    assert asked == []  # nothing was said while the modules were imported
    texts = [pair for module in MODULES for pair in _module_texts(module)]
    assert len(texts) > 250  # the tables were walked: every code's words, every class's forms, every step
    plain = [(where, text) for where, text in texts if not isinstance(text, Promise)]
    # A plain str is a pattern of names alone ("{object} = {value}", "{final_advice}", ""): no word in it.
    worded = [(where, text) for where, text in plain if re.search(r"[A-Za-z]", PLACEHOLDER.sub("", text))]
    assert worded == []


def test_a_sentence_is_looked_up_in_the_language_active_when_it_is_said(asked):
    finding = findings.finding_sentence(waiting(), now=SEP_24)
    pending = VolumeReason(stage="stream", permanent=False, error="upload failed", kind="transient")
    row = volumes.volume_sentence(Volume(index=6, id="C1", state="pending", reason=pending, attempts=2))
    again = volumes.volume_sentence(Volume(index=6, id="C1", state="active", reason=pending, attempts=1))

    assert finding.text.startswith(MARK + "Campaign court-rolls-1650 has " + MARK + "2 volumes waiting")
    assert finding.detail.startswith(MARK + "Each pod of court-rolls-1650 waits at most " + MARK + "30 min")
    assert f". {MARK}Read: Job/court-rolls-1650 " in finding.detail  # the account's parts too
    assert row.text.startswith(MARK + "An attempt failed while " + MARK + "processing pages")
    assert row.detail.startswith(MARK + "volume C1 (index 6)")
    assert again.text.startswith(MARK + MARK + "Running again (attempt 2 of 4): the previous attempt failed")
    assert f"{MARK}It resumes from its finished pages." in again.text
    assert words.campaign_label("poll-tax-1810-part2") == MARK + "poll-tax-1810 (part 2)"
    assert findings.actor_words(NOBODY) == MARK + "Nothing to do: it resolves by itself."


def test_in_english_the_sentences_read_as_they_always_did():
    reason = VolumeReason(stage="load", permanent=True, error="step Foo is unknown", kind="permanent", exit_code=13)
    with translation.override("en"):
        assert findings.actor_words(AUTHOR) == "The person who wrote the campaign has to act."
        assert findings.finding_sentence(kueue_down()).detail.startswith(
            "Kueue's controller kueue-controller-manager in kueue-system has 0 of 1 replicas ready; pod "
            "kueue-controller-manager-6c9f8d7b5d-x2k4p (manager) CrashLoopBackOff after 14 restarts. "
            "Since 24 Sep 08:01 UTC. Read: "
        )
        failed = volumes.volume_sentence(Volume(index=4, id="C2", state="failed", reason=reason, job="rolls-1650"))
        assert failed.text == (
            "The volume stopped for good while loading models. An operator has to find the cause in its run log. "
            "Trying again cannot help, so nothing will run it again in this campaign: once the cause is fixed, the "
            "person who wrote the campaign adds the volume to a new campaign."
        )
        assert failed.detail == (
            "volume C2 (index 4 of Job rolls-1650), exit code 13, stage load, permanent: step Foo is unknown"
        )
        deadline = VolumeReason(stage="stream", kind="deadline")
        budget = Volume(index=0, id="C3", state="pending", reason=deadline, time_budget=5400)
        assert volumes.volume_sentence(budget).text == (
            "The volume ran out of its time budget (1 h 30 min per attempt). The next attempt resumes from the "
            "finished pages. Nothing to do."
        )
        malformed = volumes.volume_sentence(Volume(index=2, id="", state="pending", malformed=True))
        assert malformed.detail == "volumes.txt line 3: expected '<volume id><TAB><source>'"
        assert volumes.volume_sentence(Volume(index=0, id="C4", state="failed")).text == (
            "Failed, and what would have said why is gone. It has spent its retries, so nothing will run it again in "
            "this campaign: once the cause is fixed, the person who wrote the campaign adds the volume to a new "
            "campaign. Its run log may tell more."
        )
        assert [words.human_age(s) for s in (None, 12, 240, 3 * 3600, 3 * 86400)] == [
            "an unknown time",
            "12 s",
            "4 min",
            "3 h",
            "3 d",
        ]
        assert evidence.seconds_words(5400) == "1 h 30 min" and evidence.seconds_words(45) == "45 s"
        assert words.number(12345) == "12,345"
        assert words.campaign_names([f"c{n}" for n in range(7)], most=2) == "c0, c1 and others"
        assert evidence.more(80) == "and 80 more"
        assert evidence.shown(True) == "yes" and evidence.shown(None) == "none" and evidence.shown("") == "empty"
        # Times through core.times, in the zone the tests run in: the day left out on the day itself.
        at = datetime(2026, 9, 24, 6, 20, tzinfo=UTC)
        assert evidence.when(at) == "24 Sep 06:20 UTC" and evidence.when(at, SEP_24) == "06:20 UTC"
        assert evidence.when(None) == "an unknown time"

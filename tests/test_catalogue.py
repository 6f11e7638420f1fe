"""The Swedish catalogue (locale/sv/LC_MESSAGES/django.po and djangojs.po) is complete and sound, so CI fails
before a reader meets an English sentence on a Swedish page or a sentence that lost its number:

- every sentence the code marks is in it (extracted afresh, as `make extract` extracts, into a scratch folder);
- none is untranslated or fuzzy, and its header says Swedish with Swedish plurals;
- every placeholder ({name}, %(name)s, %s) and every tag survives in every plural form;
- `msgfmt --check` passes, and the compiled .mo files say what the .po files say (`make messages`);
- the glossary's terms (locale/sv/GLOSSARY.md) are the ones the translations use;
- the image compiles the catalogue as the Dockerfile says, in a stage of its own.
"""

from __future__ import annotations

import fnmatch
import gettext
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from functools import cache
from pathlib import Path

import polib
import pytest
from django.utils import translation

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "locale"
CATALOGUES = LOCALE / "sv" / "LC_MESSAGES"
DOMAINS = ("django", "djangojs")
PLURAL_FORMS = "nplurals=2; plural=(n != 1);"
MOST_LISTED = 25  # entries named in one failure message; the count says how many there are


def catalogue_path(domain: str) -> Path:
    return CATALOGUES / f"{domain}.po"


@cache
def _read(domain: str) -> polib.POFile:
    return polib.pofile(str(catalogue_path(domain)), wrapwidth=0)


def catalogue(domain: str) -> polib.POFile:
    """The committed catalogue of ``domain``; the test fails, saying what to do, while it does not exist."""
    path = catalogue_path(domain)
    if not path.exists():
        pytest.fail(
            f"{path.relative_to(ROOT)} does not exist yet: `make extract` makes it from the code, then every "
            "entry is translated (locale/sv/GLOSSARY.md holds the terms) and `make messages` compiles it."
        )
    return _read(domain)


def entries(po: polib.POFile) -> list[polib.POEntry]:
    """The catalogue's live entries: not the header, not the obsolete ones (#~) makemessages keeps."""
    return [entry for entry in po if not entry.obsolete]


def key(entry: polib.POEntry) -> tuple[str, str]:
    return (entry.msgctxt or "", entry.msgid)


def named(entry: polib.POEntry) -> str:
    said = f"{entry.msgctxt!r} | {entry.msgid!r}" if entry.msgctxt else repr(entry.msgid)
    where = ", ".join(f"{path}:{line}" for path, line in entry.occurrences[:2])
    return f"{said} ({where})" if where else said


def listed(found: list[str]) -> str:
    more = f"\n  … and {len(found) - MOST_LISTED} more" if len(found) > MOST_LISTED else ""
    return "\n  " + "\n  ".join(found[:MOST_LISTED]) + more


def msgfmt() -> str:
    found = shutil.which("msgfmt")
    if not found:
        pytest.fail("msgfmt (Debian's gettext) is missing: `make messages` installs it.")
    return found


# --- every marked sentence is in the catalogue -----------------------------------------------------------------


def extraction_ignored() -> list[str]:
    """The folders and files `make extract` leaves out (the Makefile's CATALOGUE_IGNORE), so this test finds
    missing exactly what that target would add."""
    found = re.search(r"^CATALOGUE_IGNORE\s*:=\s*(.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert found, "the Makefile has no CATALOGUE_IGNORE line for `make extract`"
    return found.group(1).split()


def _copied_for_extraction(ignored: list[str]):
    """shutil.copytree's ignore: what makemessages would not read (hidden folders and files, the ignored ones,
    another catalogue, files of no extension it reads)."""
    read = (".py", ".html", ".txt", ".js")

    def ignore(folder, names):
        left_out = set()
        for name in names:
            path = Path(folder, name)
            if name.startswith(".") or name in ("locale", "__pycache__") or any(
                fnmatch.fnmatchcase(name, pattern) for pattern in ignored
            ):
                left_out.add(name)
            elif path.is_file() and not name.endswith(read):
                left_out.add(name)
        return left_out

    return ignore


# Both domains in one process (the site's imports take seconds); the ignore patterns are its arguments.
_EXTRACT = """
import sys
import django
django.setup()
from django.core.management import call_command
for domain in ("django", "djangojs"):
    call_command("makemessages", all=True, keep_pot=True, domain=domain, verbosity=0, ignore_patterns=sys.argv[1:])
"""


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> dict[str, polib.POFile]:
    """What the code marks today, per domain: Django's makemessages, as `make extract` runs it, on a copy of the
    tree (it turns templates into code beside themselves while it reads them) in a process of its own (it reads
    the folder it runs in), writing only a .pot there: --all with no language folder writes no .po."""
    ignored = extraction_ignored()
    copy = tmp_path_factory.mktemp("extraction") / "tree"
    shutil.copytree(ROOT, copy, ignore=_copied_for_extraction(ignored))
    (copy / "locale").mkdir()
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "htrbrowser.settings", "DJANGO_SECRET_KEY": "extract-only"}
    done = subprocess.run([sys.executable, "-c", _EXTRACT, *ignored], cwd=copy, env=environment,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"makemessages in a copy of the tree:\n{done.stdout}{done.stderr}"
    return {domain: polib.pofile(str(copy / "locale" / f"{domain}.pot"), wrapwidth=0) for domain in DOMAINS}


def test_the_extraction_finds_the_sentences_it_should(extracted):
    """The fresh extraction itself works: it holds sentences of every kind of source, and nothing of what it
    leaves out, so a catalogue missing nothing is missing nothing indeed."""
    places = {path.split("/")[0] for entry in extracted["django"] for path, _ in entry.occurrences}
    assert {"campaigns", "results", "core", "templates"} <= places, places
    assert not places & {"tests", "devstack", "benchmarks", "charts"}, places
    assert ("", "Log out") in {key(entry) for entry in extracted["django"]}, "a template's {% translate %}"
    assert any(entry.msgid_plural for entry in extracted["django"]), "plurals (ngettext, blocktranslate count)"
    assert {path.split("/")[0] for entry in extracted["djangojs"] for path, _ in entry.occurrences} == {"static"}


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_sentence_the_code_marks_is_in_the_catalogue(extracted, domain):
    po = catalogue(domain)
    have = {key(entry): entry for entry in entries(po)}
    missing = [named(entry) for entry in extracted[domain] if key(entry) not in have]
    assert not missing, (
        f"{len(missing)} sentence(s) the code marks are not in {catalogue_path(domain).relative_to(ROOT)}: "
        f"`make extract` adds them, then translate them:{listed(missing)}"
    )
    plural_changed = [
        named(entry) for entry in extracted[domain] if have[key(entry)].msgid_plural != entry.msgid_plural
    ]
    assert not plural_changed, f"the plural form changed in the code; `make extract`:{listed(plural_changed)}"


# --- every entry translated, none fuzzy ------------------------------------------------------------------------


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_header_says_swedish_with_its_plurals(domain):
    po = catalogue(domain)
    assert not po.metadata_is_fuzzy, "the header is marked fuzzy: msgfmt would leave it out of the .mo"
    assert po.metadata.get("Language") == "sv", po.metadata.get("Language")
    assert po.metadata.get("Plural-Forms", "").strip() == PLURAL_FORMS, po.metadata.get("Plural-Forms")
    assert "charset=UTF-8" in po.metadata.get("Content-Type", ""), po.metadata.get("Content-Type")


@pytest.mark.parametrize("domain", DOMAINS)
def test_no_entry_is_untranslated_or_fuzzy(domain):
    po = catalogue(domain)
    fuzzy = [named(entry) for entry in entries(po) if entry.fuzzy]
    untranslated = [named(entry) for entry in entries(po) if not entry.fuzzy and not entry.translated()]
    forms = [named(entry) for entry in entries(po) if entry.msgid_plural and sorted(entry.msgstr_plural) != [0, 1]]
    assert not fuzzy, f"{len(fuzzy)} fuzzy entr(ies): check each translation, then remove `#, fuzzy`:{listed(fuzzy)}"
    assert not untranslated, f"{len(untranslated)} untranslated entr(ies):{listed(untranslated)}"
    assert not forms, f"plural entries without exactly Swedish's two forms:{listed(forms)}"


# --- placeholders and tags survive -----------------------------------------------------------------------------

_BRACE = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
_SPEC = r"[#0\- +]*\d*(?:\.\d+)?[a-zA-Z]"  # printf's flags, width, precision and conversion
_PERCENT = re.compile(rf"%(?:%|\((?P<name>\w+)\)(?P<named>{_SPEC})|(?P<bare>{_SPEC}))")
_NAMED_PERCENT = re.compile(rf"%\((\w+)\){_SPEC}")
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_PRINTF = {"python-format", "javascript-format", "c-format"}


def placeholders(text: str, flags: list[str]) -> tuple:
    """What a translation must keep of ``text``: its {name} fields (python-brace-format, str.format), its
    %(name)s ones (python-format, blocktranslate's variables, the scripts' interpolate), in printf-style
    entries its positional %s/%d in order, and its tags as a multiset."""
    braces = set()
    for found in _BRACE.finditer(text):
        if found.group(1) is not None:
            braces.add(re.split(r"[!:]", found.group(1), maxsplit=1)[0])
    if _PRINTF & set(flags):
        named_percent, bare = set(), []
        for found in _PERCENT.finditer(text):
            if found.group("name"):
                named_percent.add(f"%({found.group('name')}){found.group('named')[-1]}")
            elif found.group("bare"):
                bare.append("%" + found.group("bare")[-1])
    else:
        named_percent = {f"%({name})" for name in _NAMED_PERCENT.findall(text)}
        bare = []
    return braces, named_percent, tuple(bare), Counter(_TAG.findall(text))


def forms(entry: polib.POEntry) -> list[tuple[str, str, str]]:
    """(which form, the English, the Swedish) for each form: Swedish form 0 answers msgid, form 1 msgid_plural."""
    if not entry.msgid_plural:
        return [("msgstr", entry.msgid, entry.msgstr)]
    english = {0: entry.msgid, 1: entry.msgid_plural}
    return [(f"msgstr[{n}]", english.get(n, entry.msgid_plural), said)
            for n, said in sorted(entry.msgstr_plural.items())]


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_placeholder_and_tag_survives_in_every_form(domain):
    po = catalogue(domain)
    wrong = []
    for entry in entries(po):
        for form, english, swedish in forms(entry):
            if not swedish:
                continue  # said by test_no_entry_is_untranslated_or_fuzzy
            kept, got = placeholders(english, entry.flags), placeholders(swedish, entry.flags)
            if kept != got:
                what = ("{name} fields", "%(name)s fields", "positional %s", "tags")
                lost = [f"{name} {sorted(a) if not isinstance(a, Counter) else dict(a)} became "
                        f"{sorted(b) if not isinstance(b, Counter) else dict(b)}"
                        for name, a, b in zip(what, kept, got, strict=True) if a != b]
                wrong.append(f"{named(entry)} {form}: " + "; ".join(lost))
    assert not wrong, f"{len(wrong)} translation(s) lost or changed a placeholder or tag:{listed(wrong)}"


def test_the_placeholder_check_sees_what_goes_wrong():
    """The check above would notice: a lost or renamed field, a field of the other style, a lost tag."""
    brace = ["python-brace-format"]
    assert placeholders("{count} volumes", brace) == placeholders("{count} volymer", brace)
    assert placeholders("{count} volumes", brace) != placeholders("{antal} volymer", brace)
    assert placeholders("{count} volumes", brace) != placeholders("volymer", brace)
    assert placeholders("{{literal}} {name}", brace)[0] == {"name"}
    printf = ["python-format"]
    assert placeholders("%(count)s pages, 100%%", printf) == placeholders("%(count)s sidor, 100 %%", printf)
    assert placeholders("%(count)s pages", printf) != placeholders("%(count)d sidor", printf)
    assert placeholders("%s of %s", printf) != placeholders("%s", printf)
    assert placeholders("Zoom %(percent)s", []) != placeholders("Zooma %(procent)s", [])
    assert placeholders('Run log<span class="x"> of %(v)s</span>', printf) != placeholders("Körlogg för %(v)s", printf)


@pytest.mark.parametrize("domain", DOMAINS)
def test_msgfmt_check_passes(domain, tmp_path):
    catalogue(domain)
    path = catalogue_path(domain)
    done = subprocess.run([msgfmt(), "--check", "-o", str(tmp_path / f"{domain}.mo"), str(path)],
                          capture_output=True, text=True, timeout=60)
    said = (done.stdout + done.stderr).strip()
    assert done.returncode == 0 and not said, f"msgfmt --check on {path.relative_to(ROOT)}:\n{said}"


# --- compiled, and what Django reads --------------------------------------------------------------------------


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_compiled_catalogue_says_what_the_po_says(domain):
    po = catalogue(domain)
    compiled = catalogue_path(domain).with_suffix(".mo")
    assert compiled.exists(), f"{compiled.relative_to(ROOT)} is missing: `make messages` compiles the catalogue"
    with compiled.open("rb") as file:
        read = gettext.GNUTranslations(file)
    stale = []
    for entry in entries(po):
        if entry.fuzzy or not entry.translated():
            continue
        context = entry.msgctxt
        if entry.msgid_plural:
            said = [read.npgettext(context, entry.msgid, entry.msgid_plural, n) if context
                    else read.ngettext(entry.msgid, entry.msgid_plural, n) for n in (1, 2)]
            if said != [entry.msgstr_plural[0], entry.msgstr_plural[1]]:
                stale.append(named(entry))
        elif (read.pgettext(context, entry.msgid) if context else read.gettext(entry.msgid)) != entry.msgstr:
            stale.append(named(entry))
    assert not stale, f"{compiled.relative_to(ROOT)} is older than the .po: `make messages`:{listed(stale)}"


def test_django_reads_the_projects_catalogue_for_swedish():
    po = catalogue("django")
    entry = next((e for e in entries(po) if not e.msgctxt and not e.msgid_plural and e.translated()), None)
    assert entry is not None, "no translated entry to look up"
    with translation.override("sv"):
        assert translation.gettext(entry.msgid) == entry.msgstr, (
            "Django does not read the project's catalogue: is LOCALE_PATHS right, the .mo compiled (`make messages`)?"
        )
    with translation.override("en"):
        assert translation.gettext(entry.msgid) == entry.msgid, "English is the source: no catalogue"


# --- the glossary's terms -----------------------------------------------------------------------------------------

# (English word as a whole word, a stem every Swedish form of the glossary's term contains, the glossary's term).
# The stem tolerates inflections: volym, volymen, volymer, volymernas.
TERMS = [
    (r"volumes?", "volym", "volym"),
    (r"campaigns?", "kampanj", "kampanj"),
    (r"pages?", "sid", "sida"),
    (r"run logs?", "körlogg", "körlogg"),
    (r"queues?", "kö", "kö"),
    (r"feeds?", "flöde", "flöde"),
    (r"forecasts?", "prognos", "prognos"),
    (r"attempts?", "försök", "försök"),
    (r"evidence", "belägg", "belägg"),
    (r"model cache", "modellcache", "modellcache"),
    (r"store account", "lagringskont", "lagringskonto"),
    (r"time budget", "tidsgräns", "tidsgräns"),
    (r"operators?", "drift", "driftansvarig"),
    (r"today", "i dag", "i dag"),
    (r"tomorrow", "i morgon", "i morgon"),
]
_PLACEHOLDERS = re.compile(r"\{[^{}]*\}|%\(\w+\)[a-zA-Z]|`[^`]*`|<[^<>]*>")


def glossary() -> dict[str, str]:
    """GLOSSARY.md's table: English → Svenska."""
    rows = {}
    for line in (LOCALE / "sv" / "GLOSSARY.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 2 and not set(cells[0]) <= {"-", " "}:
            rows[cells[0]] = cells[1]
    return rows


def test_the_terms_checked_are_the_glossarys():
    table = glossary()
    for english, _, swedish in TERMS:
        english_word = english.replace("s?", "")
        assert any(english_word in left.lower() and swedish in right.lower() for left, right in table.items()), (
            f"GLOSSARY.md has no row saying {english_word!r} is {swedish!r}: change the glossary and this test together"
        )


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_translations_use_the_glossarys_terms(domain):
    po = catalogue(domain)
    wrong = []
    for entry in entries(po):
        for form, english, swedish in forms(entry):
            if not swedish:
                continue
            words = _PLACEHOLDERS.sub(" ", english).lower()
            said = _PLACEHOLDERS.sub(" ", swedish).lower()
            for word, stem, term in TERMS:
                if re.search(rf"\b{word}\b", words) and stem not in said:
                    plain = word.replace("s?", "")
                    wrong.append(f"{named(entry)} {form}: says {plain!r} without {term!r}: {swedish!r}")
    assert not wrong, f"{len(wrong)} translation(s) do not use the glossary's term:{listed(wrong)}"


# --- the image compiles it -------------------------------------------------------------------------------------


def test_the_image_compiles_the_catalogue_in_a_stage_of_its_own(tmp_path):
    """The Dockerfile's catalogue stage installs gettext and compiles every .po (its own command, run here); the
    site's stage copies the result and installs no gettext."""
    for domain in DOMAINS:
        catalogue(domain)
    msgfmt()
    dockerfile = (ROOT / "Dockerfile").read_text()
    stages = re.split(r"^FROM ", dockerfile, flags=re.M)[1:]
    assert len(stages) == 2 and stages[0].startswith("python:3.11-slim AS catalogues"), "a catalogue stage first"
    build, site = stages
    assert "apt-get install" in build and "gettext" in build
    assert "gettext" not in site and "apt-get" not in site, "the site's image stays without gettext"
    assert "COPY --from=catalogues /build/locale locale" in site
    compile_line = next(line for line in build.splitlines() if "msgfmt" in line)
    assert compile_line.startswith("RUN "), compile_line
    shutil.copytree(LOCALE, tmp_path / "locale", ignore=shutil.ignore_patterns("*.mo"))
    subprocess.run(["sh", "-c", compile_line.removeprefix("RUN ")], cwd=tmp_path, check=True, timeout=120)
    for domain in DOMAINS:
        assert (tmp_path / "locale" / "sv" / "LC_MESSAGES" / f"{domain}.mo").stat().st_size > 0, domain

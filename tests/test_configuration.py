"""One registry of settings (htrbrowser/configuration.py), and docs/configuration.md and the chart in step
with it: the page's tables are the ones the registry makes, every variable the chart sets has an entry
that names the chart value setting it (and no entry claims one the chart does not set), every value
named is one the chart has, and no code of the product reads a variable the registry does not list."""

import json
import re
from pathlib import Path

import pytest
import yaml

from htrbrowser import configuration
from htrbrowser.configuration import BEGIN, END, SETTINGS, SETTINGS_PY, read
from htrbrowser.env import SettingError
from tests.chart.render import CHART, FULL_VALUES, container_env, merged, one, render
from tests.chart.values_table import default_of, leaves

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "configuration.md"
PRODUCT = ("htrbrowser", "campaigns", "results", "core")


def chart_environment_names() -> set[str]:
    """The names of the web container's `env:` list in the chart's Deployment template, set or not by the
    values (the helm test pod's own variables feed its script, not the app)."""
    template = (CHART / "templates" / "deployment.yaml").read_text()
    env = template[template.index("          env:\n"): template.index("          livenessProbe:")]
    return set(re.findall(r"^\s*- name: ([A-Z][A-Z0-9_]*)$", env, flags=re.MULTILINE))


def test_the_page_s_tables_are_the_ones_the_registry_makes():
    text = DOC.read_text()
    assert BEGIN in text and END in text, "docs/configuration.md has lost its settings tables"
    shown = text[text.index(BEGIN): text.index(END) + len(END)]
    assert shown == configuration.markdown(), (
        "docs/configuration.md is out of date: paste `python -m htrbrowser.configuration --markdown`"
    )
    for name in SETTINGS:
        assert f"| `{name}` |" in shown


def test_each_variable_has_one_entry_with_a_meaning():
    entries = [setting for _title, group in configuration.GROUPS for setting in group]
    assert len(entries) == len(SETTINGS) > 40
    for setting in entries:
        assert setting.meaning.endswith(".") and setting.kind.words, setting.name
        assert setting.default is not configuration.DERIVED or setting.shown, f"{setting.name}: say its default"


def test_every_variable_the_chart_sets_has_an_entry_naming_how_and_no_entry_claims_one_it_does_not():
    names = chart_environment_names()
    everything = merged(FULL_VALUES, {"kube": {"stallMinutes": 30}, "metrics": {"address": "0.0.0.0"}})
    rendered = set(container_env(one(render(everything), "Deployment")))
    assert rendered <= names and len(names) > 30  # the template's list is read whole
    assert names - set(SETTINGS) == set(), "set by the chart with no entry in htrbrowser/configuration.py"
    assert {setting.name for setting in SETTINGS.values() if setting.set_by_chart} == names


def test_every_chart_value_an_entry_names_is_one_the_chart_has():
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())
    schema_paths = {path for path, _node in leaves(json.loads((CHART / "values.schema.json").read_text()))}
    named = [(setting.name, value) for setting in SETTINGS.values() for value in setting.chart_values]
    assert len(named) > 25
    for name, value in named:
        default_of(defaults, value)  # KeyError naming the value when values.yaml lacks it
        assert value in schema_paths, f"{name} names {value}, which values.schema.json does not describe"


def test_every_entry_is_read_where_it_says():
    for setting in SETTINGS.values():
        for place in setting.read_by:
            if place.endswith(".py"):
                assert f'"{setting.name}"' in (ROOT / place).read_text(), f"{place} does not read {setting.name}"
    settings_source = (ROOT / SETTINGS_PY).read_text()
    assert sum(f'read("{name}"' in settings_source for name in SETTINGS) > 35


def product_sources():
    yield ROOT / "manage.py"
    for package in PRODUCT:
        yield from sorted((ROOT / package).rglob("*.py"))


ENVIRON = re.compile(
    r"""(?:environ(?:\.get|\.setdefault|\.pop)?\(\s*|environ\[\s*|getenv\(\s*)["']([A-Za-z_][A-Za-z0-9_]*)["']"""
)
READERS = re.compile(r"\benv_(?:str|required|bool|int|float|list|choice|url|redis_url)\(")


def test_no_code_of_the_product_reads_a_variable_the_registry_does_not_list():
    found: dict[str, list[str]] = {}
    for path in product_sources():
        text = path.read_text()
        for name in ENVIRON.findall(text):
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
        if path.name not in ("env.py", "configuration.py"):
            assert not READERS.search(text), f"{path}: read the environment through htrbrowser.configuration.read"
    assert {"DJANGO_SETTINGS_MODULE", "PROMETHEUS_MULTIPROC_DIR"} <= set(found)  # the scan sees reads
    assert {name: places for name, places in found.items() if name not in SETTINGS} == {}


def test_read_parses_as_the_entry_says(monkeypatch):
    monkeypatch.delenv("HTRFLOW_TRUSTED_HOPS", raising=False)
    assert read("HTRFLOW_TRUSTED_HOPS") == 0
    monkeypatch.setenv("HTRFLOW_TRUSTED_HOPS", " 2 ")
    assert read("HTRFLOW_TRUSTED_HOPS") == 2
    monkeypatch.setenv("HTRFLOW_TRUSTED_HOPS", "11")
    with pytest.raises(SettingError, match="HTRFLOW_TRUSTED_HOPS must be at most 10"):
        read("HTRFLOW_TRUSTED_HOPS")
    monkeypatch.setenv("HTRFLOW_KUEUE_NAMESPACE", "../kube-system")
    with pytest.raises(SettingError, match="HTRFLOW_KUEUE_NAMESPACE must be a namespace name"):
        read("HTRFLOW_KUEUE_NAMESPACE")
    monkeypatch.setenv("HTRFLOW_KUEUE_NAMESPACE", "")  # the chart without clusterScoped: Kueue is not read
    assert read("HTRFLOW_KUEUE_NAMESPACE") == ""
    monkeypatch.delenv("HTRFLOW_KUEUE_NAMESPACE")
    assert read("HTRFLOW_KUEUE_NAMESPACE") == "kueue-system"
    monkeypatch.setenv("HTRFLOW_HTTPS", "")
    assert read("HTRFLOW_HTTPS", False) is False  # blank is unset: the default the reader passes
    with pytest.raises(TypeError, match="HTRFLOW_HTTPS"):
        read("HTRFLOW_HTTPS")  # its default depends on DJANGO_DEBUG: the reader must give it
    with pytest.raises(KeyError):
        read("HTRFLOW_NOT_A_SETTING")


def test_the_site_s_time_zone_is_one_the_tz_database_knows(monkeypatch):
    monkeypatch.delenv("HTRFLOW_TIME_ZONE", raising=False)
    assert read("HTRFLOW_TIME_ZONE") == "Europe/Stockholm"
    for zone in ("America/New_York", "UTC", "Etc/GMT-1"):
        monkeypatch.setenv("HTRFLOW_TIME_ZONE", zone)
        assert read("HTRFLOW_TIME_ZONE") == zone
    for bad in ("Europe/Stockholmm", "../../etc/passwd", "europe/stockholm", "Europe/" + "x" * 200, "CET CEST"):
        monkeypatch.setenv("HTRFLOW_TIME_ZONE", bad)
        with pytest.raises(SettingError, match="HTRFLOW_TIME_ZONE must name a time zone of the tz database"):
            read("HTRFLOW_TIME_ZONE")

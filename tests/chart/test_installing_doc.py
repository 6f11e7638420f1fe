"""docs/installing.md documents every chart value, kept in step with values.schema.json and values.yaml,
and says how to install, upgrade and uninstall and how to make the Secrets."""

import json
from pathlib import Path

from tests.chart.render import CHART
from tests.chart.values_table import BEGIN, END, leaves, table

INSTALLING = Path(__file__).resolve().parents[2] / "docs" / "installing.md"


def test_the_values_table_is_the_one_the_schema_and_defaults_make():
    text = INSTALLING.read_text()
    assert BEGIN in text and END in text, "docs/installing.md has lost its chart values table"
    shown = text[text.index(BEGIN): text.index(END) + len(END)]
    assert shown == table(), "docs/installing.md's values are out of date: paste `python -m tests.chart.values_table`"


def test_every_schema_value_has_a_meaning_and_a_default():
    schema = json.loads((CHART / "values.schema.json").read_text())
    paths = [path for path, _node in leaves(schema)]
    assert len(paths) == len(set(paths)) > 40
    assert all(node.get("description") for _path, node in leaves(schema))
    for path in paths:
        assert f"| `{path}` |" in INSTALLING.read_text()


def test_the_guide_says_how_to_install_upgrade_uninstall_and_make_the_secrets():
    text = INSTALLING.read_text()
    for command in ("helm install htrbrowser charts/htrbrowser", "helm upgrade htrbrowser charts/htrbrowser",
                    "helm uninstall htrbrowser", "--from-literal=key=", "--from-literal=DJANGO_SECRET_KEY="):
        assert command in text

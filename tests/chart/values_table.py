"""The table of chart values in docs/installing.md, made from values.schema.json (meaning) and values.yaml (default).

tests/chart/test_installing_doc.py keeps that copy equal to it; after changing the schema or the
defaults, print the new table with ``python -m tests.chart.values_table`` and paste it in.
"""

from __future__ import annotations

import json

import yaml

from tests.chart.render import CHART

BEGIN = (
    "<!-- chart values: made by `python -m tests.chart.values_table`, checked by tests/chart/test_installing_doc.py -->"
)
END = "<!-- end of chart values -->"


def leaves(node: dict, path: str = ""):
    """(dotted path, schema node) of every value an operator sets, in the schema's order."""
    if node.get("type") == "object" and "properties" in node:
        for key, child in node["properties"].items():
            if not child.get("deprecated"):  # htrflow-batch's keys, admitted only to be refused
                yield from leaves(child, f"{path}.{key}" if path else key)
    else:
        yield path, node


def default_of(defaults: dict, path: str):
    value = defaults
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            raise KeyError(f"values.yaml has no default for {path}")
        value = value[key]
    return value


def table() -> str:
    schema = json.loads((CHART / "values.schema.json").read_text())
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())
    rows = ["| Value | Default | Meaning |", "|---|---|---|"]
    for path, node in leaves(schema):
        default = json.dumps(default_of(defaults, path), separators=(", ", ": "))
        meaning = node["description"].replace("|", "\\|")
        rows.append(f"| `{path}` | `{default}` | {meaning} |")
    return "\n".join([BEGIN, *rows, END])


if __name__ == "__main__":
    print(table())

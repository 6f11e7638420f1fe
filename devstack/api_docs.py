"""docs/api.md's reference, rendered from the read API's OpenAPI document (campaigns/web/openapi.yaml).

``python -m devstack.api_docs`` rewrites what stands between the two markers in docs/api.md: every endpoint
with its parameters and answers, the response headers, every object with every field, and the finding codes.
The rest of the page (logging in, the ``curl`` examples) is written by hand. tests/devstack/test_api_docs.py
fails while the page differs from what the document renders to.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from campaigns.web import openapi

PAGE = Path(__file__).resolve().parent.parent / "docs" / "api.md"
BEGIN = (
    "<!-- reference: made by `python -m devstack.api_docs` from campaigns/web/openapi.yaml, "
    "checked by tests/devstack/test_api_docs.py -->"
)
END = "<!-- end of reference -->"
SCHEMAS = "#/components/schemas/"
TROUBLESHOOTING = "troubleshooting.md#the-causes-code-by-code"


def cell(text: str) -> str:
    """Text fit for one cell of a Markdown table."""
    return " ".join(str(text).split()).replace("|", "\\|")


def link(name: str) -> str:
    return f"[{name}](#{name.lower()})"


def type_of(schema: dict) -> str:
    """A field's type in words: `string or null`, `array of [Fact](#fact)`."""
    if "$ref" in schema:
        ref = schema["$ref"]
        return link(ref.removeprefix(SCHEMAS)) if ref.startswith(SCHEMAS) else ref
    if "anyOf" in schema:
        return " or ".join(type_of(branch) for branch in schema["anyOf"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    kinds = schema.get("type")
    if kinds is None:
        return "any JSON value"
    words = []
    for kind in kinds if isinstance(kinds, list) else [kinds]:
        if kind == "array":
            words.append("array of " + type_of(schema.get("items", {})))
        elif kind == "object" and schema.get("additionalProperties") is True:
            words.append("object (keys vary)")
        elif kind == "string" and schema.get("format") == "date-time":
            words.append("date-time string (UTC)")
        else:
            words.append(kind)
    return " or ".join(words)


def meaning(schema: dict, description: str | None = None) -> str:
    """What a field or parameter means, with the values it takes and its default."""
    text = schema.get("description", "") if description is None else description
    if "enum" in schema and not all(f"`{value}`" in text for value in schema["enum"]):
        text += " One of: " + ", ".join(f"`{value}`" for value in schema["enum"]) + "."
    if "default" in schema:
        text += f" Default: `{schema['default']}`."
    return cell(text.strip())


def resolved(document: dict, item: dict) -> dict:
    """A response or header, its `$ref` followed."""
    if "$ref" not in item:
        return item
    node = document
    for part in item["$ref"].removeprefix("#/").split("/"):
        node = node[part]
    return node


def endpoint(document: dict, path: str, method: str, operation: dict) -> list[str]:
    heading = f"### `{method.upper()} {path}`"
    lines = [heading, "", f"**{operation['summary']}.** {cell(operation['description'])}", ""]
    parameters = operation.get("parameters", [])
    if parameters:
        lines += ["| Parameter | In | Type | Meaning |", "|---|---|---|---|"]
        for parameter in parameters:
            said = meaning(parameter["schema"], parameter["description"])
            lines.append(f"| `{parameter['name']}` | {parameter['in']} | {type_of(parameter['schema'])} | {said} |")
        lines.append("")
    lines += ["| Status | Body | Headers | When |", "|---|---|---|---|"]
    for status, item in operation["responses"].items():
        response = resolved(document, item)
        body = response.get("content", {}).get("application/json", {}).get("schema", {})
        headers = ", ".join(f"`{name}`" for name in response.get("headers", {}))
        shape = type_of(body) if body else "—"
        lines.append(f"| {status} | {shape} | {headers or '—'} | {cell(response['description'])} |")
    return lines + [""]


def obj(name: str, schema: dict, summary: dict | None) -> list[str]:
    """One object's section; JobDetail lists only what it adds to JobSummary (``summary``)."""
    lines = [f"### {name}", ""]
    if schema.get("description"):
        lines += [cell(schema["description"]), ""]
    if summary is not None:
        lines += [f"The fields it adds to {link('JobSummary')}:", ""]
    properties = schema.get("properties", {})
    if summary is not None:
        properties = {k: v for k, v in properties.items() if summary.get(k) != v}
    required = set(schema.get("required", []))
    lines += ["| Field | Type | Meaning |", "|---|---|---|"]
    for field, inner in properties.items():
        optional = "" if field in required else ", only sometimes present"
        lines.append(f"| `{field}` | {type_of(inner)}{optional} | {meaning(inner)} |")
    return lines + [""]


def finding_codes(schema: dict) -> list[str]:
    lines = ["### FindingCode", "", cell(schema["description"]), ""]
    areas: dict[str, list[str]] = {}
    for code in schema["enum"]:
        areas.setdefault(code.split(".", 1)[0], []).append(code)
    lines += ["| Area | Codes |", "|---|---|"]
    for area, codes in areas.items():
        lines.append(f"| `{area}` | {', '.join(f'`{code}`' for code in codes)} |")
    where = f"[troubleshooting.md]({TROUBLESHOOTING})"
    return lines + ["", f"Each code's cause, what the product reads for it and its fix: {where}.", ""]


def render(document: dict) -> str:
    """The reference part of docs/api.md, between its markers."""
    lines = ["## Endpoints", ""]
    for path, item in document["paths"].items():
        for method, operation in item.items():
            lines += endpoint(document, path, method, operation)
    lines += ["## Response headers", "", "| Header | Meaning |", "|---|---|"]
    for name, header in document["components"]["headers"].items():
        lines.append(f"| `{name}` | {cell(header['description'])} |")
    lines += ["", "## Objects", ""]
    schemas = document["components"]["schemas"]
    for name, schema in schemas.items():
        if name == "FindingCode":
            lines += finding_codes(schema)
        else:
            summary = schemas["JobSummary"]["properties"] if name == "JobDetail" else None
            lines += obj(name, schema, summary)
    return "\n".join(lines).rstrip() + "\n"


def rewritten(page: str, document: dict) -> str:
    """The page with its reference made anew from ``document``; the rest as it stands."""
    head, found, rest = page.partition(BEGIN)
    if not found or END not in rest:
        raise SystemExit(f"{PAGE} lacks its markers: {BEGIN} … {END}")
    tail = rest.partition(END)[2]
    return f"{head}{BEGIN}\n\n{render(document)}\n{END}{tail}"


def main() -> int:
    PAGE.write_text(rewritten(PAGE.read_text(encoding="utf-8"), openapi.document()), encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

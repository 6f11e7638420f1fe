"""docs/api.md, the read API's reference for people, against the OpenAPI document it is made from
(devstack/api_docs.py renders it from campaigns/web/openapi.yaml)."""

from __future__ import annotations

import re

from campaigns.web import openapi
from devstack import api_docs
from tests.campaigns.web.openapi_check import template_pattern

PAGE = api_docs.PAGE.read_text(encoding="utf-8")


def reference() -> str:
    return PAGE.partition(api_docs.BEGIN)[2].partition(api_docs.END)[0]


def test_the_page_holds_what_the_document_renders_to():
    assert api_docs.rewritten(PAGE, openapi.document()) == PAGE, (
        "docs/api.md is not what campaigns/web/openapi.yaml renders to: run `python -m devstack.api_docs`"
    )


def test_every_endpoint_object_field_header_and_code_is_on_the_page():
    document = openapi.document()
    text = reference()
    sections = dict(re.findall(r"^### (\S+)\n(.*?)(?=^### |\Z)", text, flags=re.M | re.S))
    for path, item in document["paths"].items():
        for method in item:
            assert f"### `{method.upper()} {path}`" in text
    for name in document["components"]["headers"]:
        assert f"| `{name}` |" in text
    schemas = document["components"]["schemas"]
    for name, schema in schemas.items():
        fields = set(schema.get("properties", {}))
        if name == "JobDetail":
            fields -= set(schemas["JobSummary"]["properties"])  # said once, under JobSummary
        assert all(f"| `{field}` |" in sections[name] for field in fields), name
    assert all(f"`{code}`" in sections["FindingCode"] for code in schemas["FindingCode"]["enum"])


def test_the_reference_has_no_markup_outside_code():
    """Text from the document is shown as written: a bare <…> would be read as HTML on the page."""
    outside_code = re.sub(r"`[^`]*`", "", reference())
    assert re.findall(r"<[^!]|(?<!-)>", outside_code) == []


def test_the_examples_ask_only_for_addresses_that_exist():
    asked = re.findall(r'"\$SITE(/[^"?]*)', PAGE)
    assert len(asked) >= 8
    paths = openapi.document()["paths"]
    login = {"/results/_login", "/results/_logout"}
    unknown = [p for p in asked if p not in login and not any(template_pattern(t).match(p) for t in paths)]
    assert unknown == []


def test_every_object_field_parameter_and_answer_says_what_it_means():
    document = openapi.document()
    unsaid = [name for name, schema in document["components"]["schemas"].items() if not schema.get("description")]
    unsaid += [f"{name}.{field}" for name, schema in document["components"]["schemas"].items()
               for field, inner in schema.get("properties", {}).items() if not inner.get("description")]
    for path, item in document["paths"].items():
        for method, operation in item.items():
            parameters = operation.get("parameters", [])
            unsaid += [f"{method} {path} {p['name']}" for p in parameters if not p.get("description")]
            unsaid += [f"{method} {path}" for key in ("summary", "description") if not operation.get(key)]
    assert unsaid == []


def test_the_links_to_other_pages_land_on_a_heading():
    docs = api_docs.PAGE.parent
    for page, anchor in re.findall(r"\]\(([a-z-]+\.md)(?:#([a-z0-9-]+))?\)", PAGE):
        text = (docs / page).read_text(encoding="utf-8")
        titles = re.findall(r"^#+ (.+)$", text, re.M)
        headings = {re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-") for title in titles}
        assert not anchor or anchor in headings, f"{page}#{anchor}"

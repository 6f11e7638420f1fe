"""Real answers of the read API checked against its OpenAPI document (campaigns/web/openapi.yaml).

``Checker(document).check(path, response)`` finds the operation the path answers to, and says (one line per
difference) where the answer departs from what the document promises for its status: an undocumented
status, a missing or ill-formed header, a body that does not fit its schema. Every object schema of the
document is closed first (``additionalProperties: false`` where it lists properties and says nothing of
others), so a field the code adds that the document lacks is a difference too; the document itself keeps
them open, as it promises scripts that fields may be added. The checker also notes each (schema, field) it
saw in an answer, so a test can ask which documented fields no answer gave.

Bodies are validated with jsonschema's Draft 2020-12 (the dialect of OpenAPI 3.1), formats checked.
"""

from __future__ import annotations

import copy
import json
import re

from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

URI = "urn:htrbrowser:read-api"
SCHEMAS = "#/components/schemas/"


def closed(document: dict) -> dict:
    """A copy of the document with every object schema that lists properties closed to any other."""
    document = copy.deepcopy(document)

    def close(node):
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(document["components"]["schemas"])
    for item in document["paths"].values():
        close(item)
    return document


def escaped(part: str) -> str:
    """One JSON pointer segment."""
    return part.replace("~", "~0").replace("/", "~1")


def said(error) -> list[str]:
    """Lines for a validation error; for "none of these" (a nullable object), what the object branch found."""
    if not error.context:
        return [f"{error.json_path}: {error.message:.300}"]
    relevant = [e for e in error.context if not (e.validator == "type" and e.validator_value == "null")]
    return [line for inner in relevant or error.context for line in said(inner)]


def template_pattern(template: str) -> re.Pattern:
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$")


class Checker:
    def __init__(self, document: dict):
        self.document = closed(document)
        self.registry = Registry().with_resource(URI, DRAFT202012.create_resource(self.document))
        self.seen: set[tuple[str, str]] = set()
        self.answered: set[tuple[str, str, str]] = set()  # (path template, method, status) met

    def template(self, path: str) -> str | None:
        """The document's path that ``path`` (without its query) answers to."""
        path = path.split("?", 1)[0]
        return next((t for t in self.document["paths"] if template_pattern(t).match(path)), None)

    def resolve(self, ref: str) -> tuple[str, dict]:
        """(its pointer, the object) a local ``$ref`` names."""
        node = self.document
        for part in ref.removeprefix("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return ref.removeprefix("#"), node

    def response_of(self, template: str, method: str, status: int) -> tuple[str, dict] | None:
        responses = self.document["paths"][template][method]["responses"]
        if str(status) not in responses:
            return None
        found = responses[str(status)]
        if "$ref" in found:
            return self.resolve(found["$ref"])
        return f"/paths/{escaped(template)}/{method}/responses/{status}", found

    def validate(self, pointer: str, instance) -> list[str]:
        """Where ``instance`` departs from the schema at ``pointer`` in the document."""
        validator = Draft202012Validator(
            {"$ref": f"{URI}#{pointer}"}, registry=self.registry, format_checker=Draft202012Validator.FORMAT_CHECKER
        )
        problems = [line for error in validator.iter_errors(instance) for line in said(error)]
        if not problems:
            _, schema = self.resolve("#" + pointer)
            self._note(schema, instance)
        return problems

    def check(self, path: str, response, method: str = "get") -> list[str]:
        """Where the answer to ``method path`` departs from the document (empty when it fits)."""
        template = self.template(path)
        if template is None or method not in self.document["paths"][template]:
            return [f"{method.upper()} {path}: no such operation in the document"]
        found = self.response_of(template, method, response.status_code)
        if found is None:
            return [f"{method.upper()} {path}: status {response.status_code} is not documented"]
        self.answered.add((template, method, str(response.status_code)))
        pointer, documented = found
        problems = self._headers(documented, response)
        content_type = response["Content-Type"].split(";")[0].strip()
        if content_type not in documented.get("content", {}):
            return [*problems, f"content type {content_type} is not documented for {response.status_code}"]
        body = json.loads(response.content)
        schema_pointer = f"{pointer}/content/{escaped(content_type)}/schema"
        return problems + self.validate(schema_pointer, body)

    def _headers(self, documented: dict, response) -> list[str]:
        problems = []
        for name, header in documented.get("headers", {}).items():
            if "$ref" in header:
                _, header = self.resolve(header["$ref"])
            if not response.has_header(name):
                if header.get("required"):
                    problems.append(f"header {name} is missing")
                continue
            schema = header["schema"]
            for error in Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER).iter_errors(
                response[name]
            ):
                problems.append(f"header {name}: {error.message}")
        return problems

    def _note(self, schema: dict, instance, name: str | None = None) -> None:
        """Record each (component schema, field) present in ``instance``, walking the schema beside it."""
        if "$ref" in schema:
            ref = schema["$ref"]
            _, target = self.resolve(ref)
            self._note(target, instance, ref.removeprefix(SCHEMAS) if ref.startswith(SCHEMAS) else None)
            return
        for branch in schema.get("anyOf", ()):
            if instance is not None and branch.get("type") != "null":
                self._note(branch, instance)
        if isinstance(instance, dict):
            for key, inner in schema.get("properties", {}).items():
                if key in instance:
                    if name is not None:
                        self.seen.add((name, key))
                    self._note(inner, instance[key])
        if isinstance(instance, list) and "items" in schema:
            for item in instance:
                self._note(schema["items"], item)

    def fields(self, *names: str) -> set[tuple[str, str]]:
        """Every (schema, field) the named component schemas document."""
        schemas = self.document["components"]["schemas"]
        return {(name, key) for name in names for key in schemas[name].get("properties", {})}

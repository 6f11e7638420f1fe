"""Kubernetes list filters and patches, as the API server applies them.

Pure functions used by the Kubernetes API double (`devstack.kubeapi`):

- `parse_label_selector` / `LabelSelector.matches`: the full label selector syntax
  (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x,y)`, `a`, `!a`, `a>1`, `a<1`, comma-joined).
  `!=` and `notin` also match objects that do not carry the label, as on a real cluster.
- `parse_field_selector` / `FieldSelector.matches`: `field=value`, `field==value`, `field!=value`,
  comma-joined, with backslash escapes in values. Which fields a kind supports is the caller's choice.
- `merge_patch` (RFC 7386 JSON merge patch) and `json_patch` (RFC 6902, the common operations).

Every parse error raises `SelectorError` with a sentence fit for a 400 answer.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

_DNS_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
_KEY_PREFIX = re.compile(rf"^{_DNS_LABEL}(?:\.{_DNS_LABEL})*$")
_KEY_NAME = re.compile(r"^[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_LABEL_VALUE = re.compile(r"^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")
_SPECIAL = ("!=", "==", "!", "=", "(", ")", ",", ">", "<")


class SelectorError(ValueError):
    """A selector or patch the API server would refuse with 400 BadRequest."""


# ---------------------------------------------------------------------------------------------
# Label selectors


@dataclass(frozen=True)
class Requirement:
    """One comma-separated term of a label selector."""

    key: str
    operator: str  # "=", "!=", "in", "notin", "exists", "!", ">", "<"
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key)
        if self.operator in ("=", "in"):
            return present and value in self.values
        if self.operator in ("!=", "notin"):
            return not present or value not in self.values
        if self.operator == "exists":
            return present
        if self.operator == "!":
            return not present
        if not present:
            return False
        try:
            number = int(value)
        except ValueError:
            return False
        limit = int(self.values[0])
        return number > limit if self.operator == ">" else number < limit


@dataclass(frozen=True)
class LabelSelector:
    """All requirements must hold (logical AND). An empty selector matches everything."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: dict[str, str] | None) -> bool:
        labels = labels or {}
        return all(requirement.matches(labels) for requirement in self.requirements)


def _tokenize(text: str) -> list[str]:
    """Split a label selector into identifiers and the special symbols of the grammar."""
    tokens: list[str] = []
    position = 0
    while position < len(text):
        if text[position].isspace():
            position += 1
            continue
        symbol = next((s for s in _SPECIAL if text.startswith(s, position)), None)
        if symbol:
            tokens.append(symbol)
            position += len(symbol)
            continue
        start = position
        while position < len(text) and not text[position].isspace():
            if any(text.startswith(s, position) for s in _SPECIAL):
                break
            position += 1
        tokens.append(text[start:position])
    return tokens


def _check_key(key: str) -> str:
    if not key or key in _SPECIAL or key in ("in", "notin"):
        raise SelectorError(f"invalid label selector: expected a label key, found {key or 'the end'!r}")
    prefix, _, name = key.rpartition("/")
    if "/" in key and (not prefix or len(prefix) > 253 or not _KEY_PREFIX.match(prefix)):
        raise SelectorError(f"invalid label key {key!r}: the prefix must be a DNS subdomain")
    if len(name) > 63 or not _KEY_NAME.match(name):
        raise SelectorError(f"invalid label key {key!r}: the name must be 63 characters or less, alphanumeric")
    return key


def _check_value(value: str) -> str:
    if len(value) > 63 or not _LABEL_VALUE.match(value):
        raise SelectorError(f"invalid label value {value!r}: 63 characters or less, alphanumeric, '-', '_' or '.'")
    return value


class _LabelParser:
    def __init__(self, text: str):
        self.tokens = _tokenize(text)
        self.position = 0

    def peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> str | None:
        token = self.peek()
        self.position += 1
        return token

    def expect(self, wanted: str) -> None:
        found = self.take()
        if found != wanted:
            raise SelectorError(f"invalid label selector: expected {wanted!r}, found {found or 'the end'!r}")

    def parse(self) -> LabelSelector:
        requirements = []
        if self.peek() is None:
            return LabelSelector()
        while True:
            requirements.append(self.requirement())
            token = self.take()
            if token is None:
                return LabelSelector(tuple(requirements))
            if token != ",":
                raise SelectorError(f"invalid label selector: expected ',' between requirements, found {token!r}")

    def requirement(self) -> Requirement:
        if self.peek() == "!":
            self.take()
            return Requirement(_check_key(self.take() or ""), "!")
        key = _check_key(self.take() or "")
        operator = self.peek()
        if operator in (None, ","):
            return Requirement(key, "exists")
        self.take()
        if operator in ("=", "==", "!="):
            return Requirement(key, "!=" if operator == "!=" else "=", (self.single_value(),))
        if operator in ("in", "notin"):
            return Requirement(key, operator, self.value_set())
        if operator in (">", "<"):
            value = self.single_value()
            if not re.fullmatch(r"-?\d+", value):
                raise SelectorError(f"invalid label selector: {key}{operator} needs an integer, found {value!r}")
            return Requirement(key, operator, (value,))
        raise SelectorError(f"invalid label selector: unknown operator {operator!r} after {key!r}")

    def single_value(self) -> str:
        if self.peek() in (None, ","):
            return ""
        value = self.take() or ""
        if value in _SPECIAL:
            raise SelectorError(f"invalid label selector: expected a value, found {value!r}")
        return _check_value(value)

    def value_set(self) -> tuple[str, ...]:
        self.expect("(")
        values: list[str] = []
        while True:
            token = self.peek()
            if token in (",", ")"):
                values.append("")
            else:
                values.append(_check_value(self.take() or ""))
            token = self.take()
            if token == ")":
                break
            if token != ",":
                raise SelectorError(f"invalid label selector: expected ',' or ')' in a value set, found {token!r}")
        if values == [""]:
            raise SelectorError("invalid label selector: 'in' and 'notin' need at least one value")
        return tuple(values)


def parse_label_selector(text: str | None) -> LabelSelector:
    """Parse a `labelSelector` query value; raise `SelectorError` when the API server would refuse it."""
    return _LabelParser(text or "").parse()


# ---------------------------------------------------------------------------------------------
# Field selectors


@dataclass(frozen=True)
class FieldTerm:
    field: str
    equal: bool
    value: str


@dataclass(frozen=True)
class FieldSelector:
    terms: tuple[FieldTerm, ...] = ()

    @property
    def fields(self) -> set[str]:
        return {term.field for term in self.terms}

    def matches(self, values: dict[str, str]) -> bool:
        """`values` maps each selectable field to the object's value for it ("" when absent)."""
        return all((values.get(term.field, "") == term.value) == term.equal for term in self.terms)


def _split_unescaped(text: str, separator: str) -> list[str]:
    parts, current, escaped = [], [], False
    for char in text:
        if escaped:
            current.append("\\" + char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if escaped:
        raise SelectorError("invalid field selector: a value ends with a lone backslash")
    parts.append("".join(current))
    return parts


def _unescape(value: str) -> str:
    result, escaped = [], False
    for char in value:
        if escaped:
            if char not in "\\,=!":
                raise SelectorError(f"invalid field selector: unknown escape '\\{char}'")
            result.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            result.append(char)
    return "".join(result)


def _parse_field_term(term: str) -> FieldTerm:
    for operator, equal in (("!=", False), ("==", True), ("=", True)):
        index = _find_unescaped(term, operator)
        if index >= 0:
            field = term[:index].strip()
            if not field:
                raise SelectorError(f"invalid field selector: {term!r} has no field name")
            return FieldTerm(field, equal, _unescape(term[index + len(operator) :].strip()))
    raise SelectorError(f"invalid field selector: {term!r} is not of the form field=value or field!=value")


def _find_unescaped(text: str, operator: str) -> int:
    index = 0
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text.startswith(operator, index):
            return index
        index += 1
    return -1


def parse_field_selector(text: str | None) -> FieldSelector:
    """Parse a `fieldSelector` query value. Checking which fields are supported is left to the caller."""
    if not text or not text.strip():
        return FieldSelector()
    return FieldSelector(tuple(_parse_field_term(term) for term in _split_unescaped(text, ",")))


# ---------------------------------------------------------------------------------------------
# Patches


def merge_patch(target, patch):
    """Apply an RFC 7386 JSON merge patch and return the result; inputs are not changed.

    Objects merge key by key, `null` removes a key, anything else (lists included) replaces.
    """
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise SelectorError(f"invalid JSON patch path {path!r}: it must start with '/'")
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def _parent(document, parts: list[str]):
    node = document
    for part in parts[:-1]:
        node = _child(node, part)
    return node


def _child(node, part: str):
    try:
        if isinstance(node, list):
            return node[int(part)]
        return node[part]
    except (KeyError, IndexError, ValueError, TypeError):
        raise SelectorError(f"JSON patch path segment {part!r} does not exist") from None


def json_patch(document, operations):
    """Apply an RFC 6902 JSON patch (add, remove, replace, test, copy, move) and return the result."""
    if not isinstance(operations, list):
        raise SelectorError("a JSON patch must be a list of operations")
    result = copy.deepcopy(document)
    for operation in operations:
        if not isinstance(operation, dict) or "op" not in operation or "path" not in operation:
            raise SelectorError("each JSON patch operation needs 'op' and 'path'")
        result = _apply_operation(result, operation)
    return result


def _apply_operation(document, operation):
    op, parts = operation["op"], _pointer(operation["path"])
    if op == "test":
        if _resolve(document, parts) != operation.get("value"):
            raise SelectorError(f"JSON patch test failed at {operation['path']!r}")
        return document
    if op in ("copy", "move"):
        source = _pointer(operation.get("from", ""))
        value = copy.deepcopy(_resolve(document, source))
        if op == "move":
            document = _remove(document, source)
        return _add(document, parts, value)
    if op == "remove":
        return _remove(document, parts)
    if op == "add":
        return _add(document, parts, copy.deepcopy(operation.get("value")))
    if op == "replace":
        document = _remove(document, parts)
        return _add(document, parts, copy.deepcopy(operation.get("value")))
    raise SelectorError(f"unknown JSON patch operation {op!r}")


def _resolve(document, parts):
    node = document
    for part in parts:
        node = _child(node, part)
    return node


def _add(document, parts, value):
    if not parts:
        return value
    parent, last = _parent(document, parts), parts[-1]
    if isinstance(parent, list):
        index = len(parent) if last == "-" else int(last) if last.isdigit() else -1
        if not 0 <= index <= len(parent):
            raise SelectorError(f"JSON patch index {last!r} is out of range")
        parent.insert(index, value)
    elif isinstance(parent, dict):
        parent[last] = value
    else:
        raise SelectorError("JSON patch path goes through a value that is not an object or list")
    return document


def _remove(document, parts):
    if not parts:
        return None
    parent, last = _parent(document, parts), parts[-1]
    _child(parent, last)
    if isinstance(parent, list):
        parent.pop(int(last))
    else:
        del parent[last]
    return document

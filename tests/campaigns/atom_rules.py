"""RFC 4287's rules for an Atom 1.0 document, checked on its XML (the parts our feed uses, and every
cardinality rule of atom:feed and atom:entry): what a validator would refuse, as a list of problems."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from defusedxml import ElementTree

ATOM = "{http://www.w3.org/2005/Atom}"
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")
FEED_CHILDREN = {"author", "category", "contributor", "generator", "icon", "id", "link", "logo", "rights",
                 "subtitle", "title", "updated", "entry"}
ENTRY_CHILDREN = {"author", "category", "content", "contributor", "id", "link", "published", "rights", "source",
                  "summary", "title", "updated"}
ONCE_IN_FEED = {"generator", "icon", "logo", "rights", "subtitle"}
ONCE_IN_ENTRY = {"content", "published", "rights", "source", "summary"}
TEXT_CONSTRUCTS = {"title", "subtitle", "summary", "rights"}


def _absolute(iri: str) -> bool:
    parts = urlsplit(iri)
    return bool(parts.scheme) and (bool(parts.netloc) or parts.scheme in ("urn", "tag", "mailto"))


def _element_problems(element, where: str, allowed: set[str], once: set[str], required: set[str]) -> list[str]:
    problems = []
    names = [child.tag[len(ATOM):] for child in element if child.tag.startswith(ATOM)]
    problems += [f"{where}: atom:{name} is not an element of {where}" for name in names if name not in allowed]
    problems += [f"{where}: atom:{name} must occur exactly once" for name in required if names.count(name) != 1]
    problems += [f"{where}: atom:{name} may occur at most once" for name in once if names.count(name) > 1]
    for child in element:
        name = child.tag[len(ATOM):]
        if name == "id" and not _absolute((child.text or "").strip()):
            problems.append(f"{where}: atom:id {child.text!r} is not an absolute IRI")
        if name in ("updated", "published") and not RFC3339.fullmatch((child.text or "").strip()):
            problems.append(f"{where}: atom:{name} {child.text!r} is not an RFC 3339 date-time")
        if name in TEXT_CONSTRUCTS:
            kind = child.get("type", "text")
            if kind not in ("text", "html", "xhtml"):
                problems.append(f"{where}: atom:{name} has type {kind!r}")
            if kind == "text" and len(child):
                problems.append(f"{where}: atom:{name} of type text holds child elements")
        if name == "link":
            if not _absolute(child.get("href", "")):
                problems.append(f"{where}: a link's href {child.get('href')!r} is not absolute")
        if name == "category" and not child.get("term"):
            problems.append(f"{where}: a category has no term")
        if name == "author" and len(child.findall(f"{ATOM}name")) != 1:
            problems.append(f"{where}: an author must have exactly one name")
    alternates = [(link.get("type"), link.get("hreflang")) for link in element.findall(f"{ATOM}link")
                  if link.get("rel", "alternate") == "alternate"]
    if len(alternates) != len(set(alternates)):
        problems.append(f"{where}: two alternate links with the same type and hreflang")
    return problems


def atom_problems(body: bytes) -> list[str]:
    """Every RFC 4287 rule the document breaks (empty when it is valid Atom 1.0)."""
    root = ElementTree.fromstring(body)
    if root.tag != f"{ATOM}feed":
        return [f"the root element is {root.tag}, not atom:feed"]
    problems = _element_problems(root, "feed", FEED_CHILDREN, ONCE_IN_FEED, {"id", "title", "updated"})
    entries = root.findall(f"{ATOM}entry")
    feed_author = root.find(f"{ATOM}author") is not None
    ids = []
    for number, entry in enumerate(entries, 1):
        where = f"entry {number}"
        problems += _element_problems(entry, where, ENTRY_CHILDREN, ONCE_IN_ENTRY, {"id", "title", "updated"})
        if not feed_author and entry.find(f"{ATOM}author") is None:
            problems.append(f"{where}: no atom:author, and the feed has none")
        if entry.find(f"{ATOM}content") is None and not any(
            link.get("rel", "alternate") == "alternate" for link in entry.findall(f"{ATOM}link")
        ):
            problems.append(f"{where}: no atom:content, so it must have an alternate link")
        ids.append((entry.findtext(f"{ATOM}id") or "").strip())
    if len(ids) != len(set(ids)):
        problems.append("two entries share an id")
    return problems

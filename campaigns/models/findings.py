"""A finding: one problem, named once, as data. Words are made from it when a page is rendered.

A finding is what the troubleshooting guide's *Check* steps would conclude, done by the product:
a stable ``code`` (documented, e.g. ``warmup.placement_differs``), what it is about (the subject),
the typed values its sentence needs (names, counts, UTC datetimes), the evidence read (each object,
field and value), the checks that were made and came out equal (``ruled_out``), what could not be
read (never counted as ruled out), the fix with every name filled in, and who has to act.

Nothing here is a sentence: ``campaigns.wording`` turns a finding into the archivist's one plain
sentence and the operator's evidence and commands, in the reader's language and zone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

# Who has to act on a finding.
NOBODY = "nobody"  # it resolves by itself: wait
OPERATOR = "operator"  # someone who runs the cluster or the chart
AUTHOR = "author"  # the person who wrote the campaign or pipeline file
ACTORS = (NOBODY, OPERATOR, AUTHOR)

# How a check came out.
EQUAL = "equal"  # compared, and the two sides agree: the cause is ruled out
DIFFERS = "differs"  # compared, and the two sides disagree: this is the cause
NOT_READ = "not_read"  # one side could not be read: neither ruled out nor found


@dataclass(frozen=True)
class Fact:
    """One value read from one object: ``Job/htr-warmup-swe-lines-v2``, ``spec.template.spec.nodeSelector``,
    ``{"gpu": "a100"}``. ``value`` is None when the field is absent (which is a fact too)."""

    object: str
    field: str
    value: Any = None


@dataclass(frozen=True)
class Check:
    """One comparison the product made: ``what`` is its code (``runtimeClassName``, ``cache_node``, ...),
    ``facts`` the values compared, ``outcome`` one of EQUAL, DIFFERS, NOT_READ."""

    what: str
    outcome: str
    facts: tuple[Fact, ...] = ()


@dataclass(frozen=True)
class Command:
    """One step of a fix: ``code`` names what it does (worded at render time), ``argv`` the command with every
    name filled in (``("kubectl", "-n", "htr-batch", "delete", "job", "htr-warmup-swe-lines-v2")``), or empty
    when the step is a change to a file (``change`` then says which, as data)."""

    code: str
    argv: tuple[str, ...] = ()
    change: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Subject:
    """What a finding is about: a campaign, one of its volumes, or a pipeline (its warm-up and cache)."""

    kind: str  # "campaign" | "volume" | "pipeline" | "site"
    namespace: str = ""
    campaign: str = ""
    volume: str = ""
    pipeline: str = ""


@dataclass(frozen=True)
class Finding:
    code: str
    subject: Subject
    actor: str = OPERATOR
    values: tuple[tuple[str, Any], ...] = ()  # what its words need, by name: frozen pairs, read with .value()
    evidence: tuple[Fact, ...] = ()
    ruled_out: tuple[Check, ...] = ()
    not_read: tuple[Fact, ...] = ()  # objects or fields that could not be read (value: why, as a code)
    fix: tuple[Command, ...] = ()
    since: datetime | None = None
    chosen: bool = False  # someone chose it (a campaign paused in its file): a state to say, not a problem

    @property
    def area(self) -> str:
        """The part before the dot: ``warmup``, ``cache``, ``queue``, ``kueue``, ``results``, ``model`` ..."""
        return self.code.split(".", 1)[0]

    def value(self, name: str, default: Any = None) -> Any:
        for key, value in self.values:
            if key == name:
                return value
        return default


def values(**named: Any) -> tuple[tuple[str, Any], ...]:
    """A finding's ``values`` from keyword arguments, in a stable order."""
    return tuple(sorted(named.items()))


@dataclass(frozen=True)
class CacheClaim:
    """The model cache's PersistentVolumeClaim, as read."""

    name: str
    storage_class: str
    access_modes: tuple[str, ...]
    size: str  # status.capacity.storage, else what was requested
    created: datetime | None
    uid: str


@dataclass(frozen=True)
class ModelCache:
    """One pipeline's model cache (the guide's "The model cache"), as data: ``campaigns.domain.diagnosis.cache``
    reads it, ``campaigns.wording.cache`` says it."""

    pipeline: str
    recipe_sha256: str
    cache_dir: str  # on the volume: /<pipeline>-<sha>/
    marker: str  # on the volume: /<pipeline>-<sha>/warmup/<pipeline>.done
    marker_in_pods: str  # where campaign pods see it: /data/warmup/<pipeline>.done
    claim_name: str
    claim: CacheClaim | None  # None when the claim could not be read
    warmup_job: str
    warmup_pod: str
    warmup_node: str
    debug: Command
    pinned_node: str = ""  # the debug pod's nodeName, "" when not pinned
    pinned_by: str = ""  # the pod whose node it is pinned to
    not_read: tuple[Fact, ...] = ()

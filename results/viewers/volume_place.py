"""Where a volume's results belong: its campaign page and row, its files, and the kubectl lines for it.

The viewers know a volume only by its results key (``<ns>/status/logs/<p>/<v>.txt`` or
``<ns>/<p>/<v>/alto/<page>.xml``). The campaign it ran in is found in the shared cluster snapshot:
the newest campaign record on that pipeline whose ``volumes.txt`` lists the volume. An unreadable
cluster only leaves the breadcrumb out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse

from core import kubectl
from core.contract import (
    LABEL_CAMPAIGN,
    LABEL_PIPELINE,
    campaign_key,
    run_log_key,
    volume_line_index,
    volume_of_key,
    volume_prefix,
)
from results.store import access


@dataclass
class VolumePlace:
    namespace: str
    pipeline: str
    volume: str
    campaign: str = ""  # the campaign page's name, "" when not found
    job: str = ""
    index: int | None = None
    commands: list[str] = field(default_factory=list)
    said: list = field(default_factory=list)  # what the campaign says of the volume: (text, tone, detail, commands)

    @property
    def prefix(self) -> str:
        """``<ns>/<pipeline>/<volume>``, without the trailing slash."""
        return volume_prefix(self.namespace, self.pipeline, self.volume).removesuffix("/")

    @property
    def log_key(self) -> str:
        return run_log_key(self.namespace, self.pipeline, self.volume)

    @property
    def campaign_url(self) -> str:
        if not self.campaign:
            return ""
        return reverse("campaign_detail", args=[self.namespace, self.campaign])

    @property
    def row_url(self) -> str:
        """The campaign page filtered to this volume, scrolled to its row."""
        if not self.campaign:
            return ""
        return f"{self.campaign_url}?{urlencode({'q': self.volume})}#vol-{self.volume}"


def place_of_key(key: str) -> VolumePlace | None:
    """The namespace, pipeline and volume a results key names, or None for a key of another shape."""
    found = volume_of_key(key)
    return VolumePlace(*found) if found is not None else None


def find_place(key: str, request) -> VolumePlace | None:
    """``place_of_key`` with the campaign that ran the volume, read from the cluster snapshot, when the
    person may see that campaign (``results.store.access.sees_now``): a viewer must not name the campaign,
    Job or index of a volume whose results the person may not read, even on a page that says the file
    is not there (S3 says "no such key" to an account that may only list)."""
    place = place_of_key(key)
    if place is None or place.namespace not in settings.HTRFLOW_NAMESPACES:
        return place
    if not access.sees_now(request, f"{place.namespace}/{place.pipeline}/", place.namespace):
        return place
    _fill_campaign(place, _records_of(place.namespace))
    if place.campaign:
        place.said = _said_of(request, place.namespace, place.campaign, place.volume)
    return place


def _no_records(namespace: str) -> list:
    return []


# Campaign records of a namespace, as the cluster reading holds them. The campaigns app, which reads the
# cluster and sits above this one, provides it when it is loaded (campaigns/apps.py); until then (or
# when the cluster cannot be read) a viewer names the volume only.
_records_of: Callable[[str], list] = _no_records


def provide_records(records_of: Callable[[str], list]) -> None:
    """Let the viewers find a volume's campaign through ``records_of(namespace)``."""
    global _records_of
    _records_of = records_of


def _nothing_said(request, namespace: str, campaign: str, volume: str) -> list:
    return []


# What the campaign's page says of a volume (its row, the findings about it), as (text, tone, detail,
# commands), for a person who may see that campaign; provided by the campaigns app like the records above.
_said_of: Callable[[object, str, str, str], list] = _nothing_said


def provide_said(said_of: Callable[[object, str, str, str], list]) -> None:
    """Let the viewers say what the campaign says of a volume through ``said_of(request, ns, campaign, volume)``."""
    global _said_of
    _said_of = said_of


def _fill_campaign(place: VolumePlace, records: list) -> None:
    found = []
    for record in records:
        if not isinstance(record, dict):
            continue
        metadata = record.get("metadata") or {}
        labels = metadata.get("labels") or {}
        text = (record.get("data") or {}).get("volumes.txt")
        name = metadata.get("name") or ""
        ours = labels.get(LABEL_PIPELINE) == place.pipeline and name.startswith("campaign-")
        if not ours or not isinstance(text, str):
            continue
        index = volume_line_index(text, place.volume)
        if index is not None:
            found.append((metadata.get("creationTimestamp") or "", name.removeprefix("campaign-"), index, labels))
    if not found:
        return
    _created, job, index, labels = max(found, key=lambda item: item[0])
    place.campaign, _part = campaign_key(job, labels.get(LABEL_CAMPAIGN) or "")
    place.job, place.index = job, index
    place.commands = kubectl.volume_commands(place.namespace, job, index)

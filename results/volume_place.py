"""Where a volume's results belong: its campaign page and row, its files, and the kubectl lines for it.

The viewers know a volume only by its results key (``<ns>/status/logs/<p>/<v>.txt`` or
``<ns>/<p>/<v>/alto/<page>.xml``). The campaign it ran in is found in the shared cluster snapshot:
the newest campaign record on that pipeline whose ``volumes.txt`` lists the volume. An unreadable
cluster only leaves the breadcrumb out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse

_LOG_KEY = re.compile(r"^(?P<ns>[^/]+)/status/logs/(?P<pipeline>[^/]+)/(?P<volume>[^/]+)\.txt$")
_RESULT_KEY = re.compile(r"^(?P<ns>[^/]+)/(?P<pipeline>[^/]+)/(?P<volume>[^/]+)/(?:(?:alto|page)/[^/]+|[a-z]+\.json)$")
_PART = re.compile(r"^(?P<stem>.+)-part\d+$")


@dataclass
class VolumePlace:
    namespace: str
    pipeline: str
    volume: str
    campaign: str = ""  # the campaign page's name, "" when not found
    job: str = ""
    index: int | None = None
    commands: list[str] = field(default_factory=list)

    @property
    def prefix(self) -> str:
        return f"{self.namespace}/{self.pipeline}/{self.volume}"

    @property
    def log_key(self) -> str:
        return f"{self.namespace}/status/logs/{self.pipeline}/{self.volume}.txt"

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
    match = _LOG_KEY.match(key)
    if match is None:
        match = _RESULT_KEY.match(key)
        if match is None or match.group("pipeline") == "status":
            return None
    return VolumePlace(match.group("ns"), match.group("pipeline"), match.group("volume"))


def find_place(key: str) -> VolumePlace | None:
    """``place_of_key`` with the campaign that ran the volume, read from the cluster snapshot."""
    place = place_of_key(key)
    if place is None or place.namespace not in settings.HTRFLOW_NAMESPACES:
        return place
    from campaigns import kube

    try:
        snapshot = kube.read_namespace(place.namespace).snapshot
    except kube.ClusterUnavailable:
        return place
    _fill_campaign(place, getattr(snapshot, "records", []))
    return place


def _fill_campaign(place: VolumePlace, records: list) -> None:
    from campaigns.models import LABEL_CAMPAIGN, LABEL_PIPELINE

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
        index = _line_index(text, place.volume)
        if index is not None:
            found.append((metadata.get("creationTimestamp") or "", name.removeprefix("campaign-"), index, labels))
    if not found:
        return
    _created, job, index, labels = max(found, key=lambda item: item[0])
    part = _PART.match(job)
    place.campaign = part.group("stem") if part and labels.get(LABEL_CAMPAIGN) == part.group("stem") else job
    place.job, place.index = job, index
    selector = f"batch.kubernetes.io/job-name={job},batch.kubernetes.io/job-completion-index={index}"
    place.commands = [
        f"kubectl -n {place.namespace} get pods -l {selector}",
        f"kubectl -n {place.namespace} logs -l {selector} -c wrapper --tail=200",
    ]


def _line_index(text: str, volume: str) -> int | None:
    """The 0-based line of ``volumes.txt`` that runs ``volume``, or None."""
    needle = volume + "\t"
    if text.startswith(needle):
        return 0
    at = text.find("\n" + needle)
    if at < 0:
        return None
    return text.count("\n", 0, at + 1)

"""View models of the campaign browser: plain dataclasses, not Django models. Each module holds one kind:

- ``snapshot``: one namespace as read from the cluster (plain JSON dicts);
- ``campaign``: a campaign as projected, with its counts, warm-up, queue state and parts;
- ``volume``: one volume and why it stopped; ``volume_list``: a campaign's volumes, made only when asked;
- ``findings``: each problem found, as data; ``pace``: a campaign's pace and forecast;
- ``progress``: a volume's ``progress.json``; ``sentence``: what a person reads;
- ``vocabulary``: the fixed strings of phases, states and kinds; ``parsing``: bounded text and parsed times.

Data flows one way: ``campaigns.cluster`` reads the cluster into a :class:`Snapshot`, ``projection.project``
turns a snapshot into :class:`Campaign` values (facts only: states, names, counts, datetimes, never a
sentence), and ``wording`` words them when a page, poll, feed entry or API answer is rendered. Nothing here
does I/O. The names below are the package's own, so ``from campaigns.models import Campaign`` reads as before.
"""

from __future__ import annotations

from campaigns.models.campaign import (
    Campaign,
    Counts,
    PartState,
    QueueState,
    RecordInfo,
    ResourceFit,
    Step,
    Warmup,
    failed_volumes_json,
)
from campaigns.models.parsing import TEXT_LIMIT, bounded, non_negative_int, parse_time, utc_iso
from campaigns.models.progress import Progress, progress_from_json
from campaigns.models.sentence import Sentence
from campaigns.models.snapshot import Snapshot
from campaigns.models.vocabulary import (
    FAILED,
    FINAL_PHASES,
    PARTIALLY_FAILED,
    PAUSED,
    PHASE_KEYS,
    PHASES,
    QUEUE_KINDS,
    QUEUED,
    REASON_KINDS,
    RECORD_PHASES,
    RUNNING,
    SUCCEEDED,
    UNKNOWN,
    VOLUME_STATES,
    WARMUP_STATES,
)
from campaigns.models.volume import Volume, VolumeReason

__all__ = [
    "FAILED",
    "FINAL_PHASES",
    "PARTIALLY_FAILED",
    "PAUSED",
    "PHASES",
    "PHASE_KEYS",
    "QUEUED",
    "QUEUE_KINDS",
    "REASON_KINDS",
    "RECORD_PHASES",
    "RUNNING",
    "SUCCEEDED",
    "TEXT_LIMIT",
    "UNKNOWN",
    "VOLUME_STATES",
    "WARMUP_STATES",
    "Campaign",
    "Counts",
    "PartState",
    "Progress",
    "QueueState",
    "RecordInfo",
    "ResourceFit",
    "Sentence",
    "Snapshot",
    "Step",
    "Volume",
    "VolumeReason",
    "Warmup",
    "bounded",
    "failed_volumes_json",
    "non_negative_int",
    "parse_time",
    "progress_from_json",
    "utc_iso",
]

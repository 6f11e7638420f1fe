"""What every queue finding of one Workload shares: its names, Kueue's reason and message, and what
was read on the way (evidence, the Kueue checks ruled out, what could not be read)."""

from __future__ import annotations

from dataclasses import dataclass, field

from campaigns.domain.diagnosis.objects import (
    as_str,
    condition,
    get_path,
    labels_of,
    name_of,
    template_spec,
    unique,
)
from campaigns.models import parse_time
from campaigns.models.findings import Command, Fact, Finding, Subject, values
from core.contract import LABEL_CAMPAIGN, LABEL_QUEUE_NAME


@dataclass
class Case:
    """What every queue finding of one Workload shares: names, Kueue's words, what was read."""

    namespace: str
    job: dict
    workload: dict
    cluster_queue: str
    reason: str
    message: str
    evidence: list[Fact] = field(default_factory=list)
    ruled_out: tuple = ()
    not_read: list[Fact] = field(default_factory=list)

    @property
    def job_spec(self) -> dict:
        return template_spec(self.job)

    def finding(self, code: str, actor: str, fix: tuple[Command, ...], **named) -> Finding:
        job = name_of(self.job)
        return Finding(
            code=code,
            subject=Subject(
                "campaign", self.namespace, campaign=as_str(labels_of(self.job).get(LABEL_CAMPAIGN)) or job
            ),
            actor=actor,
            values=values(
                job=job,
                workload=name_of(self.workload),
                reason=self.reason,
                queue=as_str(get_path(self.workload, "spec", "queueName"))
                or as_str(labels_of(self.job).get(LABEL_QUEUE_NAME)),
                cluster_queue=self.cluster_queue,
                **named,
            ),
            evidence=tuple(self.evidence),
            ruled_out=self.ruled_out,
            not_read=unique(self.not_read),
            fix=fix,
            since=parse_time((condition(self.workload, "QuotaReserved") or {}).get("lastTransitionTime")),
        )

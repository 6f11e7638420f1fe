"""A warm-up that completed, yet the campaign's pods never found its marker (contracts §3, §8).

The guide's checks, in order, stopping at the first that holds:

1. the two Jobs' placement (``runtimeClassName``, ``nodeSelector``, ``tolerations``, node affinity)
   differs → ``warmup.placement_differs``;
2. they mount different cache claims → ``cache.other_claim``, or different recipe directories
   (the ``data`` mount's ``subPath``) → ``cache.other_directory``;
3. the claim is ReadWriteOnce and the warm-up pod ran on another node than the pods that gave up
   → ``cache.rwo_other_node``;
4. the claim was created after the warm-up completed → ``cache.replaced``.

Only when none holds: ``warmup.marker_missing``, with every comparison made listed as ruled out.
What could not be read (a pod already gone, a claim the installation may not read) is a
``not_read`` fact, never ruled out. Every fix ends by deleting the Complete warm-up Job and
applying again: an unchanged apply leaves a Complete warm-up alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from campaigns.domain.diagnosis import codes
from campaigns.domain.diagnosis.commands import APPLY, change, delete_all_warmup_jobs, delete_warmup_job
from campaigns.domain.diagnosis.objects import (
    ABSENT,
    GONE,
    NOT_READABLE,
    access_modes,
    as_str,
    by_name,
    claim_name,
    container,
    container_status,
    created,
    get_path,
    job_finished_at,
    labels_of,
    mount_sub_path,
    name_of,
    node_of,
    ref,
    single_node,
    template_spec,
    warmup_node,
)
from campaigns.domain.diagnosis.placement import compare_placement
from campaigns.models import parse_time
from campaigns.models.findings import EQUAL, OPERATOR, Check, Command, Fact, Finding, Subject, values
from core.contract import LABEL_PIPELINE

LIST_LIMIT = 20  # pods named one by one at most; the rest are counted (a campaign runs up to 10 000)
CLAIM_PATH = "spec.template.spec.volumes[data].persistentVolumeClaim.claimName"
SUB_PATH = "spec.template.spec.{kind}[{name}].volumeMounts[data].subPath"


@dataclass
class _Trail:
    """What the checks have read so far: evidence, the checks that came out equal, what was not read."""

    subject: Subject
    evidence: list[Fact] = field(default_factory=list)
    ruled_out: list[Check] = field(default_factory=list)
    not_read: list[Fact] = field(default_factory=list)
    since: datetime | None = None

    def finding(self, code: str, fix: Sequence[Command], **named) -> Finding:
        return Finding(
            code=code,
            subject=self.subject,
            actor=OPERATOR,
            values=values(**named),
            evidence=tuple(self.evidence),
            ruled_out=tuple(self.ruled_out),
            not_read=tuple(self.not_read),
            fix=tuple(fix),
            since=self.since,
        )


def marker_missing(
    namespace: str,
    warmup_job: dict,
    campaign_job: dict,
    gave_up: Sequence[str],
    pods: Sequence[dict],
    pvcs: list[dict] | None,
    campaign: str = "",
) -> Finding:
    """Why a Complete warm-up's marker was not found by ``campaign_job``'s pods named in ``gave_up``.

    ``pods`` are the pods read (finished warm-up pods included); ``pvcs`` the claims read, None when
    the installation may not read them.
    """
    warmup, job = name_of(warmup_job), name_of(campaign_job)
    pipeline = as_str(labels_of(warmup_job).get(LABEL_PIPELINE)) or warmup.removeprefix("htr-warmup-")
    trail = _Trail(Subject("pipeline", namespace, campaign=campaign or job, pipeline=pipeline))
    pods_by_name = {name_of(pod): pod for pod in pods if isinstance(pod, dict)}
    trail.since = _first_give_up(gave_up, pods_by_name)
    redo = (delete_warmup_job(namespace, warmup), APPLY)
    names = {"warmup_job": warmup, "campaign_job": job}
    found = (
        _placement(trail, warmup_job, campaign_job, redo, names)
        or _claims(trail, warmup_job, campaign_job, redo, names)
        or _directories(trail, warmup_job, campaign_job, redo, names)
    )
    if found is not None:
        return found
    claim = claim_name(template_spec(campaign_job))
    pvc = _claim(trail, claim, pvcs)
    gave_up_nodes = _gave_up_nodes(trail, job, gave_up, pods_by_name)
    if pvc is not None:
        found = _other_node(trail, namespace, warmup, pvc, pods, gave_up_nodes, names) or _replaced(
            trail, namespace, warmup_job, pvc, names
        )
        if found is not None:
            return found
    marker = f"/data/warmup/{pipeline}.done"
    return trail.finding(codes.WARMUP_MARKER_MISSING, redo, claim=claim, marker=marker, **names)


def _placement(trail: _Trail, warmup_job: dict, campaign_job: dict, redo, names) -> Finding | None:
    warmup, job = names["warmup_job"], names["campaign_job"]
    differing = []
    for item in compare_placement(template_spec(warmup_job), template_spec(campaign_job)):
        facts = (Fact(ref("Job", warmup), item.path, item.warmup), Fact(ref("Job", job), item.path, item.campaign))
        if item.equal:
            trail.ruled_out.append(Check(item.field, EQUAL, facts))
        else:
            differing.append(item)
            trail.evidence.extend(facts)
    if not differing:
        return None
    first = differing[0]
    fix = [
        change("warmup.match_placement", object=ref("Job", warmup), field=item.path, value=item.campaign_value)
        for item in differing
    ]
    return trail.finding(
        codes.WARMUP_PLACEMENT_DIFFERS,
        (*fix, *redo),
        field=first.field,
        warmup_value=first.warmup_value,
        campaign_value=first.campaign_value,
        differences=tuple((item.field, item.warmup_value, item.campaign_value) for item in differing),
        **names,
    )


def _claims(trail: _Trail, warmup_job: dict, campaign_job: dict, redo, names) -> Finding | None:
    warmup, job = names["warmup_job"], names["campaign_job"]
    warmup_claim, campaign_claim = claim_name(template_spec(warmup_job)), claim_name(template_spec(campaign_job))
    facts = (Fact(ref("Job", warmup), CLAIM_PATH, warmup_claim), Fact(ref("Job", job), CLAIM_PATH, campaign_claim))
    if warmup_claim == campaign_claim:
        trail.ruled_out.append(Check("claimName", EQUAL, facts))
        return None
    trail.evidence.extend(facts)
    fix = change("warmup.match_claim", object=ref("Job", warmup), field=CLAIM_PATH, value=campaign_claim)
    return trail.finding(
        codes.CACHE_OTHER_CLAIM, (fix, *redo), warmup_claim=warmup_claim, campaign_claim=campaign_claim, **names
    )


def _reader(spec: dict) -> tuple[str, str, str | None]:
    """(kind, container, subPath) of the campaign container that waits for the marker."""
    for kind, name, init in (("initContainers", "warmup-wait", True), ("containers", "wrapper", False)):
        sub_path = mount_sub_path(container(spec, name, init))
        if sub_path is not None:
            return kind, name, sub_path
    return "initContainers", "warmup-wait", None


def _directories(trail: _Trail, warmup_job: dict, campaign_job: dict, redo, names) -> Finding | None:
    warmup, job = names["warmup_job"], names["campaign_job"]
    written = mount_sub_path(container(template_spec(warmup_job), "warmup"))
    kind, reader, read = _reader(template_spec(campaign_job))
    if written is None or read is None:
        return None  # a render that mounts no cache here: nothing to compare
    facts = (
        Fact(ref("Job", warmup), SUB_PATH.format(kind="containers", name="warmup"), written),
        Fact(ref("Job", job), SUB_PATH.format(kind=kind, name=reader), read),
    )
    if written == read:
        trail.ruled_out.append(Check("subPath", EQUAL, facts))
        return None
    trail.evidence.extend(facts)
    return trail.finding(
        codes.CACHE_OTHER_DIRECTORY, redo, warmup_directory=f"/{written}/", campaign_directory=f"/{read}/", **names
    )


def _claim(trail: _Trail, claim: str, pvcs: list[dict] | None) -> dict | None:
    if pvcs is None:
        trail.not_read.append(Fact(ref("PersistentVolumeClaim", claim), "", NOT_READABLE))
        return None
    pvc = by_name(pvcs, claim)
    if pvc is None:
        trail.not_read.append(Fact(ref("PersistentVolumeClaim", claim), "", ABSENT))
    return pvc


def _first_give_up(gave_up: Sequence[str], pods: dict[str, dict]) -> datetime | None:
    """When the first of the pods that gave up on the marker did (its warmup-wait's exit)."""
    times = []
    for pod_name in set(gave_up):
        status = container_status(pods.get(pod_name), "warmup-wait", init=True)
        times.append(parse_time(get_path(status, "state", "terminated", "finishedAt")))
    return min((t for t in times if t is not None), default=None)


def _gave_up_nodes(trail: _Trail, job: str, gave_up: Sequence[str], pods: dict[str, dict]) -> dict[str, str]:
    """Node of each pod that gave up on the marker and is still there; a gone one is a not_read fact
    (the first few by name, then how many more)."""
    nodes, gone = {}, []
    for pod_name in sorted(set(gave_up)):
        pod = pods.get(pod_name)
        node = node_of(pod) if pod is not None else ""
        if node:
            nodes[pod_name] = node
        else:
            gone.append(Fact(ref("Pod", pod_name), "spec.nodeName", GONE if pod is None else ABSENT))
    trail.not_read.extend(gone[:LIST_LIMIT])
    if len(gone) > LIST_LIMIT:
        trail.not_read.append(Fact(ref("Job", job), "pods[warmup-wait].spec.nodeName", len(gone) - LIST_LIMIT))
    if not gave_up:
        trail.not_read.append(Fact(ref("Job", job), "pods[warmup-wait].spec.nodeName", GONE))
    return nodes


def _other_node(trail: _Trail, namespace: str, warmup: str, pvc: dict, pods, nodes, names) -> Finding | None:
    claim, modes = name_of(pvc), access_modes(pvc)
    modes_fact = Fact(ref("PersistentVolumeClaim", claim), "spec.accessModes", list(modes))
    if not single_node(modes):
        trail.ruled_out.append(Check("accessModes", EQUAL, (modes_fact,)))
        return None
    warmup_pod, node = warmup_node(pods, warmup)
    if not node:
        trail.not_read.append(Fact(ref("Job", warmup), "pods.spec.nodeName", GONE))
        return None
    warmup_fact = Fact(ref("Pod", warmup_pod), "spec.nodeName", node)
    elsewhere = {pod: other for pod, other in nodes.items() if other != node}
    shown = sorted(elsewhere.items() if elsewhere else nodes.items())[:LIST_LIMIT]
    node_facts = tuple(Fact(ref("Pod", pod), "spec.nodeName", other) for pod, other in shown)
    if not elsewhere:
        if nodes:
            trail.ruled_out.append(Check("nodeName", EQUAL, (modes_fact, warmup_fact, *node_facts)))
        return None
    trail.evidence.extend((modes_fact, warmup_fact, *node_facts))
    fix = (
        change(
            "cache.read_write_many",
            object=ref("PersistentVolumeClaim", claim),
            field="spec.accessModes",
            value=("ReadWriteMany",),
            storage_class=as_str(get_path(pvc, "spec", "storageClassName")),
        ),
        delete_warmup_job(namespace, warmup),
        delete_all_warmup_jobs(namespace),
        APPLY,
    )
    return trail.finding(
        codes.CACHE_RWO_OTHER_NODE,
        fix,
        claim=claim,
        access_modes=modes,
        warmup_node=node,
        other_nodes=tuple(sorted(set(elsewhere.values())))[:LIST_LIMIT],
        pods=tuple(sorted(elsewhere))[:LIST_LIMIT],
        pods_elsewhere=len(elsewhere),
        **names,
    )


def _replaced(trail: _Trail, namespace: str, warmup_job: dict, pvc: dict, names) -> Finding | None:
    claim, warmup = name_of(pvc), names["warmup_job"]
    pvc_created, completed = created(pvc), job_finished_at(warmup_job)
    if pvc_created is None or completed is None:
        return None
    facts = (
        Fact(ref("PersistentVolumeClaim", claim), "metadata.creationTimestamp", pvc_created),
        Fact(ref("Job", warmup), "status.completionTime", completed),
    )
    if pvc_created <= completed:
        trail.ruled_out.append(Check("claimCreated", EQUAL, facts))
        return None
    trail.evidence.extend(facts)
    fix = (delete_warmup_job(namespace, warmup), delete_all_warmup_jobs(namespace), APPLY)
    return trail.finding(
        codes.CACHE_REPLACED, fix, claim=claim, claim_created=pvc_created, warmup_completed=completed, **names
    )

"""The demo scene's model: pipelines, campaigns and volumes, and the pods that tell their story.

A ``Campaign`` holds its volumes; each ``Volume`` has a state and the pods that ran it (oldest
first, so the newest pod of an index is last). ``scene_kube`` renders Jobs and Workloads from
these, ``scene_store`` renders the results bucket, and the simulator moves them forward.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from devstack import scene_kube as k

# Volume states. "retrying": the newest pod failed and the index has retries left;
# "waiting": the pod sits in its warmup-wait init container (Init:0/1).
PENDING, RUNNING, WAITING, RETRYING, DONE, FAILED = "pending", "running", "waiting", "retrying", "done", "failed"
STARTED_STATES = (RUNNING, RETRYING, DONE, FAILED)
NODES = ("gpu-node-01", "gpu-node-02", "gpu-node-03", "gpu-node-04")


# A pipeline of three model steps (regions, lines within them, text), each model at a pinned revision.
_MODEL_STEPS = (
    "steps:\n"
    "- step: Segmentation\n  settings:\n    model: yolo\n    model_settings:\n"
    "      model: Riksarkivet/yolov9-regions-1\n      revision: {regions}\n"
    "- step: Segmentation\n  settings:\n    model: yolo\n    model_settings:\n"
    "      model: Riksarkivet/yolov9-lines-within-regions-1\n      revision: {lines}\n"
    "- step: TextRecognition\n  settings:\n    model: TrOCR\n    model_settings:\n"
    "      model: {text_model}\n      model_kwargs:\n        revision: {text}\n"
    "      processor_kwargs:\n        revision: {text}\n"
)


def model_steps(regions: str, lines: str, text_model: str, text: str) -> str:
    """pipeline.yaml of the three model steps, with each model's revision (a 40-digit commit)."""
    return _MODEL_STEPS.format(regions=regions, lines=lines, text_model=text_model, text=text)


@dataclass
class Pipeline:
    id: str
    yaml: str
    warmup: str  # complete | failed | running
    warmup_error: str = ""
    created: datetime | None = None  # when its ConfigMap and warm-up Job were made
    # The model cache its warm-up and campaign pods mount: the claim, its access modes and class, and
    # when it was made (None: with the namespace, before any warm-up).
    claim: str = k.DATA_PVC
    claim_modes: tuple[str, ...] = ("ReadWriteMany",)
    claim_class: str = k.CACHE_STORAGE_CLASS
    claim_created: datetime | None = None
    warmup_node: str = "gpu-node-02"  # where its warm-up pod ran

    @property
    def predicts_quality(self) -> bool:
        """The pipeline has a quality prediction step: the wrapper scores every page it reads."""
        return any(line.strip().lower() == "- step: qualityprediction" for line in self.yaml.splitlines())

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.yaml.encode()).hexdigest()

    @property
    def recipe_sha256(self) -> str:
        recipe = json.dumps({"image": k.WRAPPER_IMAGE, "steps": self.yaml}, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(recipe.encode()).hexdigest()


@dataclass
class Volume:
    index: int
    id: str
    pages: int
    source: str
    state: str = PENDING
    ok_pages: int = 0
    failed_pages: list[int] = field(default_factory=list)
    missing_pages: list[int] = field(default_factory=list)  # verify found no result for these
    failure: str | None = None
    pods: list[dict] = field(default_factory=list)
    started_at: datetime | None = None
    updated_at: datetime | None = None
    finished_at: datetime | None = None
    image_urls: list[str] | None = None
    served: bool = True  # the image server knows its manifest and pages
    old_log_key: bool = False
    retry_in: int = 0
    # (stage, error, permanent, last attempt) of each failed attempt, for the run log
    failures: list[tuple] = field(default_factory=list)

    @property
    def processed(self) -> int:
        """Pages the wrapper has gone past (ok, failed or left without a result)."""
        return self.ok_pages + len(self.failed_pages) + len(self.missing_pages)

    @property
    def newest_pod(self) -> dict | None:
        return self.pods[-1] if self.pods else None


@dataclass
class Campaign:
    name: str
    campaign: str
    pipeline: Pipeline
    created: datetime
    volumes: list[Volume]
    parallelism: int = 2
    gpus_per_pod: int = 1
    priority: str | None = "htr-bulk"
    started: datetime | None = None
    finished: datetime | None = None
    paused_at: datetime | None = None
    suspended: bool = False
    workload_state: str | None = "admitted"  # admitted | waiting | never_fits | paused | finished | None
    job_gone: bool = False
    status_phase: str | None = None
    failed_volumes_record: list | None = None
    gpus_short: int = 0
    page_rate: int = 1
    stuck: bool = False  # its pods run but nothing moves: the simulator leaves it as built
    queue: str = k.QUEUE  # the LocalQueue its Job names
    node_selector: dict | None = None  # its Job's pod template's nodeSelector
    nodes: tuple[str, ...] = NODES  # the nodes its pods land on, by index and attempt
    results_url: str = ""  # the address its pods publish under when not the site's (RESULTS_URL)

    @property
    def uid(self) -> str:
        return k.stable_uid("job", self.name)

    @property
    def workload_name(self) -> str:
        return f"job-{self.name}-{k.hex_suffix('workload', self.name)}"

    @property
    def gpus(self) -> int:
        return self.parallelism * self.gpus_per_pod

    @property
    def holds_quota(self) -> bool:
        return self.workload_state == "admitted" and not self.finished and not self.job_gone

    def volume(self, volume_id: str) -> Volume:
        return next(v for v in self.volumes if v.id == volume_id)


# --- pods ------------------------------------------------------------------------------------

_ERRORS = {
    "stream": (
        "page {page}: upload of alto/{page}.xml failed after 5 attempts: "
        "UploadOutage: the results store answered 503 SlowDown"
    ),
    "evicted": (
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki. "
        "Container wrapper was using 15872Mi, request is 8Gi, has larger consumption of memory."
    ),
    "deadline": "Pod was active on the node longer than the specified deadline",
}

FAILURE_KINDS = ("setup_404", "load", "stream", "verify", "sigterm", "deadline", "oom", "evicted", "warmup_wait")

# huggingface_hub's words when a model is not in the cache and HF_HUB_OFFLINE=1 keeps it from the hub.
NOT_IN_CACHE_ERROR = (
    "LocalEntryNotFoundError: Cannot find the requested files in the disk cache and outgoing traffic has been "
    "disabled. To enable hf.co look-ups and downloads online, set 'HF_HUB_OFFLINE=0' as environment variable."
)


def termination_json(stage: str, permanent: bool, error: str) -> str:
    """The wrapper's termination message: json.dumps with default separators."""
    return json.dumps({"stage": stage, "permanent": permanent, "error": error}, ensure_ascii=False)


def stream_error(volume: Volume) -> str:
    return _ERRORS["stream"].format(page=f"{volume.processed + 1:04d}")


def setup_error(volume: Volume) -> str:
    return f"manifest fetch failed: {volume.source}: HTTP 404"


def verify_error(volume: Volume, missing: list[int]) -> str:
    failed = ", ".join(f"{p:04d}" for p in volume.failed_pages)
    gone = ", ".join(f"{p:04d}" for p in missing)
    return (
        f"verify failed: {len(missing)} missing, {len(volume.failed_pages)} failed of {volume.pages} pages; "
        f"missing=[{gone}] failed=[{failed}]"
    )


def add_pod(
    campaign: Campaign, volume: Volume, kind: str, created: datetime, ended: datetime | None = None, detail: str = ""
) -> dict:
    """Append a pod for ``volume`` that ran as ``kind`` and return it.

    ``kind`` is running, waiting (Init:0/1), succeeded, or a failure kind: setup_404, load, stream,
    stream_last, verify, sigterm, deadline, oom, evicted, warmup_wait. The pod lands on one of the
    campaign's nodes.
    """
    attempt = len(volume.pods)
    failures_before = sum(1 for pod in volume.pods if not _disrupted(pod) and pod["status"]["phase"] == "Failed")
    ended = ended or created + timedelta(minutes=3)
    started = created + timedelta(seconds=2)
    wrapper_started = started + timedelta(seconds=3)
    init_done = {
        "terminated": {
            "exitCode": 0,
            "reason": "Completed",
            "startedAt": k.iso(started),
            "finishedAt": k.iso(wrapper_started),
        }
    }
    init = {"name": "warmup-wait", "state": init_done, "ready": True, "started": False}
    wrapper = {"name": "wrapper", "ready": False, "started": False}
    status: dict = {"startTime": k.iso(started)}
    conditions = [("PodScheduled", "True"), ("Initialized", "True")]

    def terminated(code, reason, message=None):
        state = {"exitCode": code, "reason": reason, "startedAt": k.iso(wrapper_started), "finishedAt": k.iso(ended)}
        if message is not None:
            state["message"] = message
        return {"terminated": state}

    if kind == "running":
        status["phase"] = "Running"
        wrapper.update(state={"running": {"startedAt": k.iso(wrapper_started)}}, ready=True, started=True)
        conditions += [("ContainersReady", "True"), ("Ready", "True")]
    elif kind == "waiting":
        status["phase"] = "Pending"
        init = {
            "name": "warmup-wait",
            "state": {"running": {"startedAt": k.iso(started)}},
            "ready": False,
            "started": True,
        }
        wrapper["state"] = {"waiting": {"reason": "PodInitializing"}}
        conditions = [
            ("PodScheduled", "True"),
            ("Initialized", "False"),
            ("ContainersReady", "False"),
            ("Ready", "False"),
        ]
    elif kind == "warmup_wait":
        status["phase"] = "Failed"
        init = {
            "name": "warmup-wait",
            "ready": False,
            "started": False,
            "state": {
                "terminated": {
                    "exitCode": 13,
                    "reason": "Error",
                    "message": k.warmup_wait_message(campaign.pipeline.id),
                    "startedAt": k.iso(started),
                    "finishedAt": k.iso(ended),
                }
            },
        }
        wrapper["state"] = {"waiting": {"reason": "PodInitializing"}}
        conditions = [
            ("PodScheduled", "True"),
            ("Initialized", "False"),
            ("ContainersReady", "False"),
            ("Ready", "False"),
        ]
    elif kind == "succeeded":
        status["phase"] = "Succeeded"
        wrapper["state"] = terminated(0, "Completed")
    else:
        status["phase"] = "Failed"
        if kind == "setup_404":
            wrapper["state"] = terminated(13, "Error", termination_json("setup", True, detail or setup_error(volume)))
        elif kind == "load":
            wrapper["state"] = terminated(1, "Error", termination_json("load", False, detail or NOT_IN_CACHE_ERROR))
        elif kind in ("stream", "stream_last"):
            wrapper["state"] = terminated(1, "Error", termination_json("stream", False, detail or stream_error(volume)))
        elif kind == "verify":
            wrapper["state"] = terminated(1, "Error", termination_json("verify", False, detail))
        elif kind == "sigterm":
            wrapper["state"] = terminated(143, "Error", termination_json("stream", False, "SIGTERM"))
            conditions.append(("DisruptionTarget", "True"))
        elif kind == "deadline":
            wrapper["state"] = terminated(143, "Error", termination_json("stream", False, "SIGTERM"))
            status.update(reason="DeadlineExceeded", message=_ERRORS["deadline"])
        elif kind == "oom":
            wrapper["state"] = terminated(137, "OOMKilled")
        elif kind == "evicted":
            wrapper["state"] = terminated(137, "Error")
            status.update(reason="Evicted", message=_ERRORS["evicted"])
        else:
            raise ValueError(f"unknown pod kind {kind!r}")
        conditions += [("ContainersReady", "False"), ("Ready", "False")]
    for container in (init, wrapper):
        container.update(
            image=k.WRAPPER_IMAGE,
            imageID=k.WRAPPER_IMAGE if container.get("started") or "terminated" in container["state"] else "",
            restartCount=0,
        )
    conditions = [_pod_condition(kind_, value, created) for kind_, value in conditions]
    pod = k.campaign_pod(
        campaign.name,
        volume.index,
        suffix=k.stable_suffix(campaign.name, str(volume.index), str(attempt)),
        phase=status["phase"],
        created=created,
        started=status["startTime"],
        failure_count=failures_before,
        init=init,
        wrapper=wrapper,
        reason=status.get("reason"),
        message=status.get("message"),
        conditions=conditions,
        uid=campaign.uid,
        workload=campaign.workload_name,
        node=campaign.nodes[(volume.index + attempt) % len(campaign.nodes)],
        node_selector=campaign.node_selector,
    )
    volume.pods.append(pod)
    return pod


def failure_reason(volume: Volume) -> str:
    """What the newest pod of a failed volume says (the read API's short reason)."""
    state = volume.newest_pod["status"]
    for container in state.get("containerStatuses", []) + state.get("initContainerStatuses", []):
        message = container["state"].get("terminated", {}).get("message")
        if message:
            try:
                return json.loads(message)["error"]
            except (ValueError, KeyError, TypeError):
                return message.strip()
    if state.get("reason"):
        return state["reason"]
    terminated = state["containerStatuses"][0]["state"].get("terminated", {})
    return f"{terminated.get('reason', 'failed')} (exit code {terminated.get('exitCode', '?')})"


def _disrupted(pod: dict) -> bool:
    return any(c["type"] == "DisruptionTarget" for c in pod["status"].get("conditions", []))


def _pod_condition(kind: str, value: str, when: datetime) -> dict:
    condition = {"type": kind, "status": value, "lastTransitionTime": k.iso(when)}
    if kind == "DisruptionTarget":
        condition.update(reason="EvictionByEvictionAPI", message="Eviction API: evicting")
    return condition


def finish_pod(pod: dict, when: datetime) -> None:
    """Turn a running pod into a succeeded one (the wrapper exited 0)."""
    wrapper = pod["status"]["containerStatuses"][0]
    began = wrapper["state"].get("running", {}).get("startedAt", k.iso(when))
    wrapper.update(
        ready=False,
        started=False,
        state={"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": began, "finishedAt": k.iso(when)}},
    )
    pod["status"]["phase"] = "Succeeded"
    for condition in pod["status"]["conditions"]:
        if condition["type"] in ("Ready", "ContainersReady"):
            condition.update(status="False", reason="PodCompleted", lastTransitionTime=k.iso(when))


def fail_pod(pod: dict, when: datetime, message: str, exit_code: int = 1) -> None:
    """Turn a running pod into a failed one with the wrapper's termination message."""
    wrapper = pod["status"]["containerStatuses"][0]
    began = wrapper["state"].get("running", {}).get("startedAt", k.iso(when))
    wrapper.update(
        ready=False,
        started=False,
        state={
            "terminated": {
                "exitCode": exit_code,
                "reason": "Error",
                "message": message,
                "startedAt": began,
                "finishedAt": k.iso(when),
            }
        },
    )
    pod["status"]["phase"] = "Failed"
    for condition in pod["status"]["conditions"]:
        if condition["type"] in ("Ready", "ContainersReady"):
            condition.update(status="False", reason="PodFailed", lastTransitionTime=k.iso(when))

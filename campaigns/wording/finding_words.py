"""Each finding code's words: the archivist's sentence and the operator's lead, as lazy templates.

``FINDING_WORDS`` holds, per code of ``campaigns.domain.diagnosis.codes``, the archivist's ``text`` (what is wrong
in plain words, no Kubernetes words, and who acts: nobody, an operator, or the person who wrote the campaign) and
the operator's ``detail`` lead, each a whole sentence marked for translation, a ``str.format`` template over named
values. A code may give alternatives: :func:`campaigns.wording.evidence.fill` says the first whose names are all
known (a time not read, a count of zero). Nothing here is said at import: each template is said in the reader's
language when :mod:`campaigns.wording.findings` fills it in. The pieces a list value is made of are here too.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_lazy, pgettext_lazy

from campaigns.wording.evidence import Templates


@dataclass(frozen=True)
class FindingWords:
    """One code's words: lazy templates over the finding's named values, alternatives first to last."""

    text: Templates  # the archivist's sentence, saying who acts
    detail: Templates = ()  # the operator's lead: the values that name the cause
    waiting: bool = False  # it waits for something that frees up: a warning, not a fault, when someone may act


# --- each code's words ------------------------------------------------------------------------------------
#
# In every template {campaign} is a campaign's name, {pipeline} a pipeline's, {volume} a volume's id; {job},
# {warmup_job}, {campaign_job}, {workload}, {pod}, {claim}, {cluster_queue}, {deployment} and the like are names of
# Kubernetes objects, and {reason} a code Kueue gives (Pending, QuotaReserved): all stay as they are. A time
# ({since}, {gives_up_at}) is said like "24 Sep 06:50 CET", a limit ({limit}, {wait}) like "15 min".

# Translators: what Kueue said of a queue, in Kueue's own English words: {queue_kind} is LocalQueue or
# ClusterQueue, {queue_name} its name, {queue_state} Kueue's words for it (is stopped, doesn't exist).
_QUEUE_SAYS = gettext_lazy("Kueue says: {queue_kind} {queue_name} {queue_state} (the Workload {workload}).")

FINDING_WORDS = {
    "warmup.placement_differs": FindingWords(
        gettext_lazy(
            "The model cache for {pipeline} was filled by a warm-up that runs with other machine settings than "
            "campaign {campaign}, and the campaign's volumes did not find it. An operator has to give both the same "
            "settings and fill the cache again."
        ),
        gettext_lazy(
            # Translators: {differences} lists each setting that differs: "nodeSelector: gpu=true in the warm-up, none
            # in the campaign", joined by "; ".
            "The warm-up Job {warmup_job} and the campaign Job {campaign_job} differ in where their pods may run: "
            "{differences}."
        ),
    ),
    "cache.other_claim": FindingWords(
        gettext_lazy(
            "The model cache for {pipeline} was filled on another disk than the one campaign {campaign} reads, so "
            "its volumes did not find it. An operator has to make both use the same disk and fill the cache again."
        ),
        gettext_lazy(
            "The warm-up Job {warmup_job} mounts the claim {warmup_claim} as its cache; the campaign Job "
            "{campaign_job} mounts {campaign_claim}."
        ),
    ),
    "cache.other_directory": FindingWords(
        gettext_lazy(
            "The model cache for {pipeline} was filled in another folder than the one campaign {campaign} reads, so "
            "its volumes did not find it. An operator has to fill the cache again for this campaign."
        ),
        gettext_lazy(
            # Translators: {warmup_directory} and {campaign_directory} are folders on the cache claim.
            "The warm-up Job {warmup_job} fills {warmup_directory} on the cache claim; the campaign Job "
            "{campaign_job} reads {campaign_directory}."
        ),
    ),
    "cache.rwo_other_node": FindingWords(
        gettext_lazy(
            "The model cache for {pipeline} is on a disk that only one machine can use, and the volumes of campaign "
            "{campaign} ran on another machine than the one that filled it. An operator has to move the cache to a "
            "disk that all machines can share."
        ),
        gettext_lazy(
            # Translators: {access_modes} is the claim's access mode (ReadWriteOnce); {warmup_node} and {other_nodes}
            # are machines' names; {pods_elsewhere} counts pods: "1 pod", "3 pods".
            "The claim {claim} is {access_modes}: the warm-up pod ran on {warmup_node}, and {pods_elsewhere} of "
            "{campaign_job} that gave up ran on {other_nodes}."
        ),
    ),
    "cache.replaced": FindingWords(
        gettext_lazy(
            # Translators: {claim_created} and {warmup_completed} are times: "24 Sep 06:20 CET".
            "The disk of the model cache for {pipeline} was replaced at {claim_created}, after the cache was filled "
            "at {warmup_completed}, so what was filled is not on it. An operator has to fill the cache again."
        ),
        gettext_lazy(
            # Translators: {claim_created} and {warmup_completed} are times: "24 Sep 06:20 CET".
            "The claim {claim} was created at {claim_created}; the warm-up Job {warmup_job} completed earlier, at "
            "{warmup_completed}."
        ),
    ),
    "warmup.marker_missing": FindingWords(
        gettext_lazy(
            "The model cache for {pipeline} was filled, yet the volumes of campaign {campaign} did not find it, and "
            "nothing this site compared explains why. An operator has to look into it and fill the cache again."
        ),
        gettext_lazy(
            # Translators: {marker} is the path of the file that says the cache is filled.
            "The pods of {campaign_job} did not find {marker} on the claim {claim} after the warm-up Job "
            "{warmup_job} completed; each cause this site checks came out equal or could not be read."
        ),
    ),
    "warmup.waiting": FindingWords(
        (
            gettext_lazy(
                # Translators: {volumes} counts volumes: "2 volumes"; {gives_up_at} is a time: "24 Sep 06:50 CET".
                "Campaign {campaign} has {volumes} waiting for the model cache to be filled; if it is not filled by "
                "{gives_up_at}, the first of them gives up. Nothing to do: they start by themselves once it is."
            ),
            gettext_lazy(
                # Translators: {volumes} counts volumes: "2 volumes"; {limit} is a duration: "15 min".
                "Campaign {campaign} has {volumes} waiting for the model cache to be filled, each for at most "
                "{limit}. Nothing to do: they start by themselves once it is."
            ),
        ),
        # Translators: {limit} is a duration ("30 min"); {limit_where} says where it was read ("read from its
        # warm-up wait command"); {waiting} lists each waiting pod, since when and when it gives up.
        gettext_lazy("Each pod of {job} waits at most {limit} ({limit_where}): {waiting}."),
        waiting=True,
    ),
    "warmup.failed": FindingWords(
        (
            gettext_lazy(
                # Translators: {model} is a model's name on the model hub; {wait} is how long each volume waits
                # (15 min).
                "The model cache for {pipeline} could not be filled: the model {model} was not found where the "
                "pipeline says it is. Its volumes cannot start (each waits for it {wait} and then gives up) until "
                "the person who wrote the pipeline corrects the model's name or revision and it is applied again."
            ),
            gettext_lazy(
                # Translators: {model} is a model's name on the model hub.
                "The model cache for {pipeline} could not be filled: the model {model} was not found where the "
                "pipeline says it is. Its volumes cannot start until the person who wrote the pipeline corrects the "
                "model's name or revision and it is applied again."
            ),
            gettext_lazy(
                # Translators: {passing} is always empty: it only picks this sentence, so keep it anywhere in it.
                # {wait} is how long each volume waits (15 min).
                "The model cache for {pipeline} could not be filled, perhaps because of a passing fault{passing}. "
                "Its volumes cannot start (each waits for it {wait} and then gives up) until an operator applies "
                "again, which tries once more."
            ),
            gettext_lazy(
                # Translators: {passing} is always empty: it only picks this sentence, so keep it anywhere in it.
                "The model cache for {pipeline} could not be filled, perhaps because of a passing fault{passing}. "
                "Its volumes cannot start until an operator applies again, which tries once more."
            ),
            gettext_lazy(
                # Translators: {wait} is how long each volume waits (15 min).
                "The model cache for {pipeline} could not be filled. Its volumes cannot start (each waits for it "
                "{wait} and then gives up) until an operator finds the cause in the warm-up's log, fixes it and "
                "applies again."
            ),
            gettext_lazy(
                "The model cache for {pipeline} could not be filled. Its volumes cannot start until an operator "
                "finds the cause in the warm-up's log, fixes it and applies again."
            ),
        ),
        (
            gettext_lazy(
                # Translators: {job_reason} is the Job's own reason code (BackoffLimitExceeded), {exit_code} a number,
                # {error} the error as the pod gave it.
                "The warm-up Job {warmup_job} failed ({job_reason}); its pod {pod} exited with code {exit_code}: "
                "{error}."
            ),
            # Translators: {job_reason} is the Job's own reason code, {error} the error as the warm-up gave it.
            gettext_lazy("The warm-up Job {warmup_job} failed ({job_reason}): {error}."),
            # Translators: {job_reason} is the Job's own reason code (BackoffLimitExceeded).
            gettext_lazy("The warm-up Job {warmup_job} failed ({job_reason}); no pod of it said why."),
        ),
    ),
    "queue.paused": FindingWords(
        gettext_lazy(
            # Translators: {file} is the campaign's file (campaigns/court-rolls-1650/converter.yaml); `suspend: true`
            # is a line of it, as it is written.
            "Campaign {campaign} is paused in its campaign file, so it does not run. To let it run, the person who "
            "wrote the campaign removes `suspend: true` from {file} and applies again."
        ),
        (
            gettext_lazy(
                # Translators: {file} is the campaign's file; spec.active and `suspend: true` stay as they are.
                "The Workload {workload} is inactive (its spec.active is false, or Kueue evicted it as deactivated); "
                "the apply sets it from `suspend: true` in {file}."
            ),
        ),
    ),
    "queue.no_priority_class": FindingWords(
        (
            gettext_lazy(
                # Translators: {priority_class} is a priority's name (htr-urgent); {known_classes} lists the names the
                # cluster has, separated by commas; {file} is the campaign's file.
                "Campaign {campaign} cannot start: its priority {priority_class} does not exist on this cluster, "
                "which has {known_classes}. The person who wrote the campaign has to choose one of those in {file} "
                "and apply again."
            ),
            gettext_lazy(
                # Translators: {priority_class} is a priority's name (htr-urgent); {file} is the campaign's file.
                "Campaign {campaign} cannot start: its priority {priority_class} does not exist on this cluster. The "
                "person who wrote the campaign has to choose a priority the cluster has in {file} and apply again."
            ),
        ),
        (
            gettext_lazy(
                # Translators: {known_classes} lists the priority classes the cluster has, separated by commas.
                "The Job {job} asks for the WorkloadPriorityClass {priority_class}, which the cluster does not have "
                "(it has {known_classes}), so Kueue makes no Workload for it."
            ),
            gettext_lazy(
                "The Job {job} asks for the WorkloadPriorityClass {priority_class}; an Event says it was not found, "
                "so Kueue makes no Workload for it."
            ),
        ),
    ),
    "queue.untolerated_taint": FindingWords(
        gettext_lazy(
            "Campaign {campaign} cannot start: the machines its queue would give it are set aside for other work, "
            "and the campaign is not allowed on them. An operator has to allow it there."
        ),
        # Translators: {taints} lists each flavor with its taint: "flavor gpu-h100 taints its nodes
        # dedicated:NoSchedule", joined by "; ".
        gettext_lazy("No flavor admits the pods of {job}: {taints}; the Job's tolerations are in the evidence."),
    ),
    "queue.node_affinity": FindingWords(
        gettext_lazy(
            "Campaign {campaign} cannot start: it asks for a kind of machine its queue does not have. An operator "
            "has to make the two agree."
        ),
        (
            # Translators: {mismatches} lists each flavor's labels against what the pods ask for, joined by "; ".
            gettext_lazy("No flavor admits the pods of {job}: {mismatches}."),
            # Translators: {affinity_flavors} lists flavors' names, separated by commas.
            gettext_lazy("The flavors {affinity_flavors} do not match the node affinity of the pods of {job}."),
        ),
    ),
    "queue.no_matching_flavor": FindingWords(
        gettext_lazy(
            "Campaign {campaign} cannot start: none of the kinds of machine its queue offers fits it. An operator "
            "has to act."
        ),
        (
            # Translators: {no_flavor} lists why each flavor does not fit, joined by "; ".
            gettext_lazy("No flavor admits the pods of {job}: {no_flavor}."),
            gettext_lazy(
                "Kueue found no flavor for the pods of {job}; its message, in the evidence, is in no format known here."
            ),
        ),
    ),
    "queue.resource_unavailable": FindingWords(
        gettext_lazy(
            "Campaign {campaign} cannot start: it asks for a kind of resource its queue does not offer at all. An "
            "operator has to add it to the queue."
        ),
        (
            gettext_lazy(
                # Translators: {resources} lists resources' names (nvidia.com/gpu), separated by commas.
                "The pods of {job} request {resources}, which the ClusterQueue {cluster_queue} does not offer."
            ),
            # Translators: {resources} lists resources' names (nvidia.com/gpu), separated by commas.
            gettext_lazy("The pods of {job} request {resources}, which their ClusterQueue does not offer."),
        ),
    ),
    "queue.flavor_not_found": FindingWords(
        gettext_lazy(
            "Campaign {campaign} cannot start: its queue names a kind of machine that is not set up. An operator "
            "has to set it up."
        ),
        (
            # Translators: {missing_flavors} lists flavors' names, separated by commas.
            gettext_lazy("Kueue found no ResourceFlavor {missing_flavors} for the ClusterQueue {cluster_queue}."),
            # Translators: {missing_flavors} lists flavors' names, separated by commas.
            gettext_lazy("Kueue found no ResourceFlavor {missing_flavors}."),
        ),
    ),
    "queue.waiting_for_quota": FindingWords(
        (
            gettext_lazy(
                # Translators: {preempting} counts other tasks: "2 other tasks".
                "Campaign {campaign} waits its turn: its queue is full, and {preempting} with a lower priority must "
                "stop first to make room for it. Nothing to do: it starts by itself."
            ),
            gettext_lazy(
                "Campaign {campaign} waits its turn: its queue's capacity is in use by other work. Nothing to do: it "
                "starts by itself when capacity frees up."
            ),
        ),
        (
            gettext_lazy(
                # Translators: {shortfalls} lists what is missing: "4 more nvidia.com/gpu in flavor gpu-a100", joined
                # by "; "; {preempting_workloads} counts workloads: "2 workloads".
                "Not enough unused quota: {shortfalls}; Kueue is preempting {preempting_workloads} to make room."
            ),
            # Translators: {shortfalls} lists what is missing: "4 more nvidia.com/gpu in flavor gpu-a100".
            gettext_lazy("Not enough unused quota: {shortfalls}."),
            gettext_lazy("Kueue waits for quota to free up (reason {reason})."),
        ),
        waiting=True,
    ),
    "queue.exceeds_max_quota": FindingWords(
        (
            gettext_lazy(
                # Translators: {parallel} counts the volumes that run at once: "4 volumes" (or "too many volumes");
                # {fits} is a number; `window` is a setting's name, as it is written.
                "Campaign {campaign} can never start as written: it runs {parallel} at once, and its queue has room "
                "for {fits} at most. The person who wrote the campaign has to lower `window` to {fits}."
            ),
            gettext_lazy(
                # Translators: {parallel} counts the volumes that run at once: "4 volumes" (or "too many volumes");
                # `window` is a setting's name, as it is written.
                "Campaign {campaign} can never start as written: it runs {parallel} at once, more than its queue can "
                "ever hold. The person who wrote the campaign has to lower `window`."
            ),
            gettext_lazy(
                "Campaign {campaign} can never start: one of its volumes alone needs more than its queue can ever "
                "give. An operator has to give the queue more room."
            ),
        ),
        (
            # Translators: {parallel_pods} counts the pods that run at once: "4 pods"; {limits} lists what each pod
            # asks against what the queue can give; {fits_said} says how many fit: "at most 2 of them fit", "not one
            # of them fits".
            gettext_lazy("The Job {job} runs {parallel_pods} at once and asks {limits}; {fits_said}."),
            # Translators: {parallel_pods} counts the pods that run at once: "4 pods"; {limits} lists what each pod
            # asks against what the queue can give.
            gettext_lazy("The Job {job} runs {parallel_pods} at once and asks {limits}."),
            gettext_lazy("The Job {job} asks more than its ClusterQueue can ever give (reason {reason})."),
        ),
    ),
    "queue.borrowing_limit_reached": FindingWords(
        gettext_lazy(
            "Campaign {campaign} waits: its queue may borrow no more room from other queues. It starts when its own "
            "queue has room, or sooner if an operator raises that limit."
        ),
        (
            gettext_lazy("The ClusterQueue {cluster_queue} has reached its borrowing limit (reason {reason})."),
            gettext_lazy("Kueue's reason is {reason}."),
        ),
        waiting=True,
    ),
    "queue.pending_evaluation": FindingWords(
        gettext_lazy("The queue has not looked at campaign {campaign} yet. Nothing to do: it resolves by itself."),
        gettext_lazy("Kueue has not evaluated the Workload {workload} yet (reason {reason})."),
        waiting=True,
    ),
    "queue.waiting_for_pods_ready": FindingWords(
        gettext_lazy(
            "Campaign {campaign} waits until the campaigns started before it are running. Nothing to do: it starts "
            "by itself."
        ),
        gettext_lazy(
            "Kueue admits nothing more until the pods of admitted workloads are ready (reason {reason}); the "
            "Workload {workload} waits."
        ),
        waiting=True,
    ),
    "queue.misconfigured": FindingWords(
        gettext_lazy(
            "Campaign {campaign} cannot start: its queue is set up wrongly. An operator has to fix the queue."
        ),
        gettext_lazy(
            "Kueue says the Workload {workload} or its queue is misconfigured (reason {reason}); its message is in "
            "the evidence."
        ),
    ),
    "queue.suspended": FindingWords(
        gettext_lazy(
            "The queue holds campaign {campaign} back and does not start it. An operator has to find out why and "
            "release it."
        ),
        (
            gettext_lazy(
                # Translators: {queue} is a LocalQueue's name, {cluster_queue} a ClusterQueue's.
                "Kueue holds the Workload {workload} back (reason {reason}); its LocalQueue is {queue}, its "
                "ClusterQueue {cluster_queue}."
            ),
            gettext_lazy("Kueue holds the Workload {workload} back (reason {reason})."),
        ),
    ),
    "queue.local_queue_missing": FindingWords(
        gettext_lazy(
            # Translators: {queue_name} is a queue's name, as it is written.
            "Campaign {campaign} cannot start: the queue `{queue_name}` it is sent to does not exist. An operator "
            "has to create it."
        ),
        _QUEUE_SAYS,
    ),
    "queue.local_queue_inactive": FindingWords(
        gettext_lazy(
            # Translators: {queue_name} is a queue's name, as it is written.
            "Campaign {campaign} cannot start: the queue `{queue_name}` it is sent to is not active. An operator "
            "has to act."
        ),
        _QUEUE_SAYS,
    ),
    "queue.local_queue_stopped": FindingWords(
        gettext_lazy(
            # Translators: {queue_name} is a queue's name, as it is written.
            "Campaign {campaign} cannot start: the queue `{queue_name}` it is sent to was stopped. An operator has "
            "to start the queue again."
        ),
        _QUEUE_SAYS,
    ),
    "queue.cluster_queue_missing": FindingWords(
        gettext_lazy(
            # Translators: {queue_name} is the shared queue's name, as it is written.
            "Campaign {campaign} cannot start: the shared queue `{queue_name}` behind its queue does not exist. An "
            "operator has to create it."
        ),
        _QUEUE_SAYS,
    ),
    "queue.cluster_queue_inactive": FindingWords(
        gettext_lazy(
            # Translators: {queue_name} is the shared queue's name, as it is written.
            "Campaign {campaign} cannot start: the shared queue `{queue_name}` behind its queue is not active. An "
            "operator has to act."
        ),
        _QUEUE_SAYS,
    ),
    "queue.cluster_queue_stopped": FindingWords(
        gettext_lazy(
            # Translators: {queue_name} is the shared queue's name, as it is written.
            "Campaign {campaign} cannot start: the shared queue `{queue_name}` behind its queue was stopped. An "
            "operator has to start the shared queue again."
        ),
        _QUEUE_SAYS,
    ),
    "queue.kueue_says": FindingWords(
        gettext_lazy(
            "Campaign {campaign} has not been let in by its queue, for a reason this site does not recognise. An "
            "operator has to look at it."
        ),
        (
            gettext_lazy("Kueue's reason is {reason}, with a message in no format known here (in the evidence)."),
            gettext_lazy("Kueue gives no reason this site knows; its message is in the evidence."),
        ),
    ),
    "kueue.down": FindingWords(
        (
            gettext_lazy(
                # Translators: {since} is a time: "24 Sep 08:01 CET".
                "The queueing system has not been running since {since}, so no waiting campaign can start. An "
                "operator has to get it running again."
            ),
            gettext_lazy(
                "The queueing system is not running, so no waiting campaign can start. An operator has to get it "
                "running again."
            ),
        ),
        (
            # Translators: {kueue_namespace} is a namespace's name; {replicas_ready} counts the ready replicas: "0 of
            # 1 replicas ready"; {kueue_pods} lists each pod with its state: "pod kueue-x (manager) CrashLoopBackOff
            # after 14 restarts".
            gettext_lazy("Kueue's controller {deployment} in {kueue_namespace} has {replicas_ready}; {kueue_pods}."),
            # Translators: {kueue_namespace} is a namespace's name; {replicas_ready} counts the ready replicas: "0 of
            # 1 replicas ready".
            gettext_lazy("Kueue's controller {deployment} in {kueue_namespace} has {replicas_ready}."),
            # Translators: {kueue_pods} lists each pod with its state: "pod kueue-x CrashLoopBackOff after 14
            # restarts".
            gettext_lazy("Kueue's controller {deployment} in {kueue_namespace} has no ready pod: {kueue_pods}."),
            gettext_lazy("Kueue's controller {deployment} in {kueue_namespace} is not ready."),
        ),
    ),
    "kueue.missing": FindingWords(
        gettext_lazy(
            "The queueing system was not found where this site looks for it, so no waiting campaign can start. An "
            "operator has to act."
        ),
        gettext_lazy(
            # Translators: {deployments} lists the Deployments' names, separated by commas.
            "The namespace {kueue_namespace} holds no Deployment {deployment}; its Deployments: {deployments}."
        ),
    ),
    "results.other_address": FindingWords(
        gettext_lazy(
            # Translators: {campaign_address} and {site_address} are web addresses (https://...).
            "Campaign {campaign} publishes its results under {campaign_address}, not under this site's "
            "{site_address}, so this site cannot open its run logs and transcriptions. An operator has to make it "
            "publish here."
        ),
        # Translators: {env} is an environment variable's name; {campaign_address} and {site_address} are web
        # addresses.
        gettext_lazy("The Job {job} sets {env} to {campaign_address}; this site's results address is {site_address}."),
    ),
    "model.not_in_cache": FindingWords(
        (
            gettext_lazy(
                # Translators: {volume} is a volume's id, {one_model} a model's name on the model hub.
                "Volume {volume} of campaign {campaign} stopped: the model {one_model} is not in the model cache. "
                "Trying again will not help until an operator fills the cache again."
            ),
            gettext_lazy(
                # Translators: {volume} is a volume's id.
                "Volume {volume} of campaign {campaign} stopped: a model of the pipeline {pipeline} is not in the "
                "model cache. Trying again will not help until an operator fills the cache again."
            ),
            gettext_lazy(
                # Translators: {one_model} is a model's name on the model hub.
                "A volume of campaign {campaign} stopped: the model {one_model} is not in the model cache. Trying "
                "again will not help until an operator fills the cache again."
            ),
            gettext_lazy(
                "A volume of campaign {campaign} stopped: a model of the pipeline {pipeline} is not in the model "
                "cache. Trying again will not help until an operator fills the cache again."
            ),
        ),
        gettext_lazy(
            # Translators: {models} lists models' names, each with its revision.
            "The pod {pod} says model files are not in the offline cache (models: {models}). Retries cannot help "
            "until the warm-up Job {warmup_job} fills the cache again."
        ),
    ),
}
UNKNOWN_CODE = FindingWords(gettext_lazy("A problem was found that this site has no words for yet."))
# Translators: {since} is a time: "24 Sep 06:35 CET".
SINCE = gettext_lazy("Since {since}.")
# A campaign or pipeline whose name was not read.
UNNAMED = pgettext_lazy("a campaign or pipeline whose name was not read", "(unnamed)")

# The pieces a detail lead is made of (each item of a list value, in the operator's words).
ITEM_WORDS = {
    # Translators: {field} is a Job's field (nodeSelector), {warmup} and {campaign} its value in each Job.
    "difference": pgettext_lazy("an item of a list", "{field}: {warmup} in the warm-up, {campaign} in the campaign"),
    "waiting": (
        # Translators: a pod that waits; {node} is a machine's name, {since} and {until} are times.
        pgettext_lazy("an item of a list", "{pod} on {node} since {since}, gives up at {until}"),
        # Translators: a pod that waits; {since} and {until} are times.
        pgettext_lazy("an item of a list", "{pod} since {since}, gives up at {until}"),
        "{pod}",
    ),
    # Translators: {taint} is a taint as Kubernetes writes it (dedicated=ocr-only:NoSchedule).
    "taint": pgettext_lazy("an item of a list", "flavor {flavor} taints its nodes {taint}"),
    "mismatch": (
        # Translators: {has} and {wants} are node labels (gpu=a100).
        pgettext_lazy("an item of a list", "flavor {flavor} labels its nodes {has}, the pods ask for {wants}"),
        # Translators: {wants} is a node label (gpu=a100).
        pgettext_lazy("an item of a list", "flavor {flavor} has no label for {wants}"),
    ),
    # Translators: {resources} lists resources' names (nvidia.com/gpu), separated by commas.
    "resources": pgettext_lazy("an item of a list", "the ClusterQueue offers no {resources}"),
    # Translators: {missing_flavors} lists flavors' names, separated by commas.
    "missing_flavors": pgettext_lazy("an item of a list", "no ResourceFlavor {missing_flavors} exists"),
    # Translators: {needed} is an amount (4, 8Gi), {resource} a resource's name (nvidia.com/gpu).
    "shortfall": pgettext_lazy("an item of a list", "{needed} more {resource} in flavor {flavor}"),
    "limit": pgettext_lazy(
        "an item of a list",
        # Translators: {request} and {capacity} are amounts (4, 32Gi), {resource} a resource's name (nvidia.com/gpu).
        "{request} of {resource} in flavor {flavor}, where the queue can give at most {capacity}",
    ),
    "kueue_pod": (
        # Translators: {container} is a container's name, {reason} Kubernetes' word for its state
        # (CrashLoopBackOff), {restarts} counts restarts: "14 restarts".
        pgettext_lazy("an item of a list", "pod {pod} ({container}) {reason} after {restarts}"),
        # Translators: {reason} is Kubernetes' word for the pod's state (CrashLoopBackOff), {restarts} counts
        # restarts: "14 restarts".
        pgettext_lazy("an item of a list", "pod {pod} {reason} after {restarts}"),
    ),
    "model": (
        # Translators: {model} is a model's name on the model hub, {revision} its revision (a commit's hash).
        pgettext_lazy("an item of a list", "{model} at revision {revision}"),
        "{model}",
    ),
}
# Where a warm-up wait's limit was read, said in brackets after it.
LIMIT_WHERE = {
    "command": pgettext_lazy("where a limit was read", "read from its warm-up wait command"),
    "args": pgettext_lazy("where a limit was read", "read from its warm-up wait arguments"),
    "env": pgettext_lazy("where a limit was read", "read from its warm-up wait environment"),
    "message": pgettext_lazy("where a limit was read", "read from a pod's exit message"),
    "default": pgettext_lazy("where a limit was read", "no limit was found in the Job: the default"),
}

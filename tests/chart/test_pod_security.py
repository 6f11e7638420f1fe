"""The Pod Security Standard "restricted", checked on every pod spec the chart renders."""

import pytest

from tests.chart.render import FULL_VALUES, render

POD_KINDS = {"Deployment", "StatefulSet", "DaemonSet", "Job", "ReplicaSet", "Pod", "CronJob"}
# Volume types the restricted profile admits.
RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                      "projected", "secret"}


def pod_specs(objects):
    for obj in objects:
        if obj["kind"] not in POD_KINDS:
            continue
        spec = obj["spec"]
        if obj["kind"] == "CronJob":
            spec = spec["jobTemplate"]["spec"]
        yield obj["metadata"]["name"], spec["template"]["spec"] if "template" in spec else spec


def restricted_violations(pod):
    """Every rule of the restricted profile (Kubernetes 1.30) this pod spec breaks, in words."""
    found = []
    pod_context = pod.get("securityContext") or {}
    for flag in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(flag):
            found.append(f"{flag} is set")
    for volume in pod.get("volumes") or []:
        kinds = set(volume) - {"name"}
        if not kinds <= RESTRICTED_VOLUMES:
            found.append(f"volume {volume['name']} is {sorted(kinds)}")
    if (pod_context.get("seccompProfile") or {}).get("type") not in ("RuntimeDefault", "Localhost"):
        found.append("the pod has no RuntimeDefault or Localhost seccomp profile")
    if pod_context.get("runAsUser") == 0:
        found.append("the pod runs as user 0")
    containers = (pod.get("initContainers") or []) + pod["containers"] + (pod.get("ephemeralContainers") or [])
    for container in containers:
        name, context = container["name"], container.get("securityContext") or {}
        if context.get("privileged"):
            found.append(f"{name} is privileged")
        if context.get("allowPrivilegeEscalation") is not False:
            found.append(f"{name} does not set allowPrivilegeEscalation: false")
        if not (context.get("runAsNonRoot") or pod_context.get("runAsNonRoot")):
            found.append(f"{name} may run as root")
        if context.get("runAsUser") == 0:
            found.append(f"{name} runs as user 0")
        capabilities = context.get("capabilities") or {}
        if "ALL" not in (capabilities.get("drop") or []):
            found.append(f"{name} does not drop ALL capabilities")
        if set(capabilities.get("add") or []) - {"NET_BIND_SERVICE"}:
            found.append(f"{name} adds capabilities")
        seccomp = (context.get("seccompProfile") or {}).get("type")
        if seccomp is not None and seccomp not in ("RuntimeDefault", "Localhost"):
            found.append(f"{name} sets seccomp {seccomp}")
        for port in container.get("ports") or []:
            if port.get("hostPort"):
                found.append(f"{name} uses a host port")
        # Not part of the profile, but the issue asks for it: a read-only root and resources.
        if context.get("readOnlyRootFilesystem") is not True:
            found.append(f"{name} has a writable root filesystem")
        if not (container.get("resources") or {}).get("limits") or not container["resources"].get("requests"):
            found.append(f"{name} has no resource requests and limits")
    return found


@pytest.mark.parametrize("values", [{}, FULL_VALUES], ids=["defaults", "full"])
def test_every_rendered_pod_spec_meets_the_restricted_profile(values):
    specs = list(pod_specs(render(values, hooks=True)))  # the helm test's pod too
    assert specs, "the chart rendered no pod at all"
    for name, pod in specs:
        assert restricted_violations(pod) == [], name


def test_the_check_itself_finds_what_it_looks_for():
    _name, pod = next(pod_specs(render()))
    pod["hostNetwork"] = True
    pod["containers"][0]["securityContext"]["capabilities"] = {"add": ["SYS_ADMIN"]}
    pod["volumes"].append({"name": "host", "hostPath": {"path": "/"}})
    found = restricted_violations(pod)
    assert "hostNetwork is set" in found
    assert "web does not drop ALL capabilities" in found and "web adds capabilities" in found
    assert "volume host is ['hostPath']" in found


def test_what_must_be_written_has_an_empty_dir_and_nothing_else_is_writable():
    _name, pod = next(pod_specs(render({"metrics": {"enabled": True}})))
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    for mount in pod["containers"][0]["volumeMounts"]:
        volume = volumes[mount["name"]]
        assert "emptyDir" in volume or mount.get("readOnly") is True, mount
    assert {m["mountPath"] for m in pod["containers"][0]["volumeMounts"] if "emptyDir" in volumes[m["name"]]} == {
        "/tmp", "/var/run/htrbrowser-metrics"}

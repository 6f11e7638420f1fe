"""checkov (Bridgecrew's policy scanner) finds nothing over every value set the chart ships.

checkov pins dependencies of its own that clash with ours, so it runs from a virtual environment of
its own, made on first use from tests/chart/checkov-requirements.txt (the package index must be
reachable then) and kept in the temporary folder for later runs. A finding that does not apply is
skipped in the manifest itself, with its reason (`checkov.io/skipN` annotations), and docs/installing.md
lists them.
"""

from __future__ import annotations

import fcntl
import json
import subprocess
import tempfile
import venv
from pathlib import Path

import pytest
import yaml

from tests.chart.render import FULL_VALUES, merged, render
from tests.chart.test_docs import MINIMAL

REQUIREMENTS = Path(__file__).with_name("checkov-requirements.txt")
VALUE_SETS = {
    "defaults": ({}, True),
    "full": (merged(FULL_VALUES, {"metrics": {"serviceMonitor": {"enabled": True}, "prometheusRule": {"enabled": True},
                                              "grafanaDashboard": {"enabled": True}}}), True),
    "readme-minimal": (MINIMAL, False),
    "pinned": ({"image": {"digest": "sha256:" + "0f" * 32}}, True),
}


@pytest.fixture(scope="session")
def checkov() -> Path:
    pinned = REQUIREMENTS.read_text().strip()
    home = Path(tempfile.gettempdir()) / f"htrbrowser-{pinned.replace('==', '-')}"
    executable = home / "bin" / "checkov"
    # Test workers start at once: one builds the environment while the others wait for it.
    with open(f"{home}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not executable.exists():
            venv.EnvBuilder(with_pip=True, clear=True).create(home)
            # No byte-compiling of checkov's many packages up front: most of them are never imported.
            pip = [str(home / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile", "-r", str(REQUIREMENTS)]
            installed = subprocess.run(pip, capture_output=True, text=True, timeout=900)
            assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    return executable


def scan(checkov: Path, manifests: dict[str, list[dict]], folder: Path) -> dict[str, dict]:
    """One checkov run over several manifests (its start-up is most of its time): each one's failed
    check ids with their resources, and how many checks passed, by name."""
    for name, objects in manifests.items():
        (folder / name).mkdir()
        (folder / name / "rendered.yaml").write_text(yaml.safe_dump_all(objects, sort_keys=False))
    ran = subprocess.run([str(checkov), "-d", str(folder), "--framework", "kubernetes", "--compact",
                          "-o", "json"], capture_output=True, text=True, timeout=600)
    report = json.loads(ran.stdout)
    results = (report[0] if isinstance(report, list) else report).get("results", {})
    found = {name: {"failed": [], "passed": 0} for name in manifests}
    for check in results.get("failed_checks", []):
        found[_manifest_of(check)]["failed"].append((check["check_id"], check["resource"]))
    for check in results.get("passed_checks", []):
        found[_manifest_of(check)]["passed"] += 1
    return found


def _manifest_of(check: dict) -> str:
    return Path(check["file_path"]).parent.name


def _planted() -> list[dict]:
    """The Deployment with its reasons taken away and a writable root filesystem: checkov must object."""
    deployment = next(obj for obj in render(hooks=True) if obj["kind"] == "Deployment")
    deployment["metadata"].pop("annotations")
    deployment["spec"]["template"]["spec"]["containers"][0]["securityContext"]["readOnlyRootFilesystem"] = False
    return [deployment]


def test_checkov_finds_nothing_on_any_shipped_value_set_and_every_skip_gives_its_reason(checkov, tmp_path):
    rendered = {name: render(values, given=given, hooks=True) for name, (values, given) in VALUE_SETS.items()}
    found = scan(checkov, {**rendered, "planted": _planted()}, tmp_path)
    for name, objects in rendered.items():
        assert found[name]["failed"] == [], name
        assert found[name]["passed"] > 100, name
        for obj in objects:
            for key, text in (obj["metadata"].get("annotations") or {}).items():
                if key.startswith("checkov.io/skip"):
                    check, _, reason = text.partition("=")
                    assert check.startswith("CKV_K8S_") and len(reason.split()) >= 5, (obj["metadata"]["name"], text)
    # The same run finds what it looks for where it is there to find.
    assert {"CKV_K8S_22", "CKV_K8S_38", "CKV_K8S_43"} <= {check for check, _ in found["planted"]["failed"]}

"""Keys that never change behind the operator's back.

Generated Secrets are kept with `lookup`, which finds nothing under `helm template` and Argo CD: there
every render would make new keys and log everyone out. So without a cluster to ask (or with gitOps on)
the chart requires existing Secrets and says which; the generating side is rendered here from a copy of
the chart whose one "may I generate?" definition answers yes, since no offline render can see a cluster.
"""

import base64
import re
import shutil

import helm_python
import pytest
import yaml

from tests.chart.render import CHART, NAMESPACE, OFFLINE, RELEASE, container_env, merged, one, render, render_files

API = {"network": {"apiServer": {"cidrs": ["192.0.2.1/32"]}}}
DEFINITION = re.compile(r'(\{\{- define "htrbrowser.mayGenerateSecrets" -\}\}\n)(.*?)(\n\{\{- end -\}\})', re.S)


def refusal(values) -> str:
    with pytest.raises(helm_python.HelmError) as refused:
        render_files(values, given=False)
    return str(refused.value)


@pytest.mark.parametrize("values", [API, {**API, "gitOps": True}], ids=["no-cluster", "gitops"])
def test_without_a_cluster_or_under_gitops_each_missing_secret_is_named(values):
    message = refusal(values)
    assert "results.sessionSecret is empty and a generated session key would change on every render" in message
    assert "set results.sessionSecret to its name" in message
    message = refusal({**values, "results": {"sessionSecret": "htrbrowser-session-key"}})
    assert "django.secretKeySecret is empty and a generated Django key would change on every render" in message
    assert ("gitOps is true" in message) == bool(values.get("gitOps"))


def test_with_both_secrets_named_nothing_is_generated_and_both_are_mounted_as_files():
    objects = render(OFFLINE, given=False)
    assert [obj for obj in objects if obj["kind"] == "Secret"] == []
    pod = one(objects, "Deployment")["spec"]["template"]["spec"]
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    mounts = {mount["mountPath"]: mount for mount in pod["containers"][0]["volumeMounts"]}
    env = container_env(one(objects, "Deployment"))
    for variable, secret, key in (("DJANGO_SECRET_KEY_FILE", "htrbrowser-django-key", "DJANGO_SECRET_KEY"),
                                  ("HTRFLOW_SESSION_KEY_FILE", "htrbrowser-session-key", "key")):
        folder, name = env[variable]["value"].rsplit("/", 1)
        mount = mounts[folder]
        assert mount["readOnly"] is True
        source = volumes[mount["name"]]["secret"]
        assert source["secretName"] == secret
        assert source["items"] == [{"key": key, "path": name}]
    assert "DJANGO_SECRET_KEY" not in env


@pytest.fixture(scope="module")
def generating_chart(tmp_path_factory):
    """The chart as it renders against a cluster it can see (lookup finds the namespace, no Secret yet)."""
    copy = tmp_path_factory.mktemp("chart") / "htrbrowser"
    shutil.copytree(CHART, copy)
    helpers = copy / "templates" / "_helpers.tpl"
    # The definition's lookup of the release namespace finds it, as against a cluster; gitOps still counts.
    text, replaced = DEFINITION.subn(
        lambda found: found[1] + found[2].replace('(lookup "v1" "Namespace" "" .Release.Namespace)', "true")
        + found[3], helpers.read_text())
    assert "lookup" not in DEFINITION.search(text)[2]
    assert replaced == 1, "templates/_helpers.tpl has lost its mayGenerateSecrets definition"
    helpers.write_text(text)
    return copy


def render_copy(chart, values):
    with helm_python.Chart.load(chart) as loaded:
        files = loaded.render(values, name=RELEASE, namespace=NAMESPACE, is_install=True)
    return [doc for path, text in sorted(files.items()) if not path.endswith("NOTES.txt")
            for doc in yaml.safe_load_all(text) if doc]


def test_with_a_cluster_the_secrets_are_generated_once_and_kept_across_upgrades_and_uninstall(generating_chart):
    objects = render_copy(generating_chart, merged(API, {"image": {"tag": "1.0.0"}}))
    secrets = {obj["metadata"]["name"]: obj for obj in objects if obj["kind"] == "Secret"}
    assert set(secrets) == {"htrbrowser-django", "htrbrowser-session"}
    for secret in secrets.values():
        assert secret["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    key_text = base64.b64decode(secrets["htrbrowser-session"]["data"]["key"])
    assert len(base64.b64decode(key_text, validate=True)) == 32  # the key file's format
    assert len(base64.b64decode(secrets["htrbrowser-django"]["data"]["DJANGO_SECRET_KEY"])) >= 50
    pod = one(objects, "Deployment")["spec"]["template"]["spec"]
    mounted = {volume["secret"]["secretName"] for volume in pod["volumes"] if "secret" in volume}
    assert mounted == set(secrets)


def test_gitops_wins_over_a_cluster_that_could_be_asked(generating_chart):
    with pytest.raises(helm_python.HelmError, match="gitOps is true"):
        render_copy(generating_chart, merged(API, {"gitOps": True}))
    named = render_copy(generating_chart, merged(OFFLINE, {"gitOps": True}))
    assert [obj for obj in named if obj["kind"] == "Secret"] == []


def manage_check(tmp_path, **env):
    import os
    import subprocess
    import sys

    from tests.chart.render import CHART

    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HTRFLOW_", "S3_"))}
    session_key = tmp_path / "session-key"
    session_key.write_text(base64.b64encode(os.urandom(32)).decode())
    clean.update(DJANGO_SETTINGS_MODULE="htrbrowser.settings", DJANGO_ALLOWED_HOSTS="htr.example.org",
                 HTRFLOW_STATE_DIR=str(tmp_path), HTRFLOW_SESSION_KEY_FILE=str(session_key), **env)
    return subprocess.run([sys.executable, "manage.py", "check"], cwd=CHART.parents[1], env=clean,
                          capture_output=True, text=True, timeout=60)


def test_the_app_reads_django_s_key_from_the_mounted_file_and_refuses_two_ways_or_an_unreadable_file(tmp_path):
    key_file = tmp_path / "key"
    key_file.write_text("a-mounted-django-key-" + "z" * 40 + "\n")
    assert manage_check(tmp_path, DJANGO_SECRET_KEY_FILE=str(key_file)).returncode == 0
    both = manage_check(tmp_path, DJANGO_SECRET_KEY_FILE=str(key_file), DJANGO_SECRET_KEY="x" * 50)
    assert both.returncode != 0
    assert both.stderr.strip().splitlines() == ["htrbrowser cannot start: DJANGO_SECRET_KEY and DJANGO_SECRET_KEY_FILE"
                                                " are both set: give the key one way only."]
    missing = manage_check(tmp_path, DJANGO_SECRET_KEY_FILE=str(tmp_path / "absent"))
    assert missing.returncode != 0 and "DJANGO_SECRET_KEY_FILE names" in missing.stderr
    assert "Traceback" not in missing.stderr
    (tmp_path / "empty").write_text("\n")
    empty = manage_check(tmp_path, DJANGO_SECRET_KEY_FILE=str(tmp_path / "empty"))
    assert empty.returncode != 0 and "which is empty" in empty.stderr

"""Start-up: settings come from the environment and a bad value is one sentence."""

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest

from htrbrowser import env

ROOT = Path(__file__).resolve().parent.parent

PRODUCTION = {
    "DJANGO_SECRET_KEY": "a-production-secret-" + "q7" * 30,
    "DJANGO_ALLOWED_HOSTS": "htr.example.org",
    "HTRFLOW_RESULTS_URL": "https://htr.example.org/results",
}


def run_manage(*args, extra_env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HTRFLOW_", "S3_"))}
    clean.update(extra_env)
    clean["DJANGO_SETTINGS_MODULE"] = "htrbrowser.settings"
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=60
    )


def test_production_settings_pass_the_deploy_check_without_warnings(tmp_path):
    key_file = tmp_path / "session-key"
    key_file.write_text(base64.b64encode(os.urandom(32)).decode())
    production = {**PRODUCTION, "HTRFLOW_SESSION_KEY_FILE": str(key_file)}
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", extra_env=production)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr


@pytest.mark.parametrize(
    "name, value",
    [
        ("HTRFLOW_SESSION_HOURS", "eight"),
        ("HTRFLOW_KEY_DERIVATION", "md5"),
        ("DJANGO_DEBUG", "perhaps"),
        ("HTRFLOW_RESULTS_URL", "ftp://example.org/results"),
        ("HTRFLOW_TRUSTED_HOPS", "-1"),
        ("HTRFLOW_KUEUE_NAMESPACE", "../kube-system"),
        ("HTRFLOW_LANGUAGE", "de"),
        ("HTRFLOW_TIME_ZONE", "Mars/Olympus_Mons"),
    ],
)
def test_a_bad_setting_stops_start_up_with_one_sentence_naming_it(name, value):
    result = run_manage("check", extra_env={**PRODUCTION, name: value})
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert name in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_missing_secret_key_outside_debug_is_refused():
    result = run_manage("check", extra_env={"DJANGO_ALLOWED_HOSTS": "x"})
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_env_helpers_read_and_refuse(monkeypatch):
    monkeypatch.setenv("X_INT", "12")
    monkeypatch.setenv("X_LIST", " a, b ,,c")
    monkeypatch.setenv("X_BOOL", "Yes")
    assert env.env_int("X_INT", 1) == 12
    assert env.env_list("X_LIST") == ["a", "b", "c"]
    assert env.env_bool("X_BOOL", False) is True
    assert env.env_int("X_UNSET", 7) == 7
    monkeypatch.setenv("X_URL", "https://user@example.org/results")
    with pytest.raises(env.SettingError, match="X_URL"):
        env.env_url("X_URL")
    monkeypatch.setenv("X_URL", "https://example.org/results/")
    assert env.env_url("X_URL") == "https://example.org/results"


def test_a_missing_session_key_file_is_named_by_the_deploy_check(tmp_path):
    missing = {**PRODUCTION, "HTRFLOW_SESSION_KEY_FILE": str(tmp_path / "absent")}
    result = run_manage("check", "--deploy", extra_env=missing)
    assert result.returncode != 0
    assert "HTRFLOW_SESSION_KEY_FILE" in result.stderr
    assert "Traceback" not in result.stderr

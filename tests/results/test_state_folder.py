"""HTRFLOW_STATE_DIR must be private: made with mode 0700, and refused at start-up (one sentence, no
traceback) when another user owns it or others may write to it. Only without Redis: with
HTRFLOW_REDIS_URL the folder is not used."""

import os
import pwd
import subprocess
import sys

import pytest
from django.test import RequestFactory

from results.accounts import counters, login
from tests.fixtures.serving import ROOT, dockerfile_command, free_port, production_env

NOBODY = pwd.getpwnam("nobody").pw_uid
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a folder to another user")


@pytest.fixture
def open_folder(tmp_path):
    folder = tmp_path / "open"
    folder.mkdir()
    folder.chmod(0o777)
    return folder


@pytest.fixture
def foreign_folder(tmp_path):
    folder = tmp_path / "foreign"
    folder.mkdir(mode=0o700)
    os.chown(folder, NOBODY, -1)
    return folder


def test_a_private_folder_of_ones_own_or_a_missing_one_is_fine(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    assert counters.state_folder_problem(private) is None
    assert counters.state_folder_problem(tmp_path / "not-yet") is None


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702, 0o1777])
def test_a_folder_others_may_write_to_is_named_with_what_to_do(tmp_path, mode):
    folder = tmp_path / "state"
    folder.mkdir()
    folder.chmod(mode)
    assert counters.state_folder_problem(folder) == (
        f"The folder {folder} (HTRFLOW_STATE_DIR) may be written by other users (mode {mode & 0o7777:04o}), "
        f"who could change the failed-login counts kept there: run `chmod 700 {folder}`, "
        "or set HTRFLOW_STATE_DIR to a private folder."
    )


def test_a_folder_of_another_user_is_named_with_what_to_do(tmp_path, monkeypatch):
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    me = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: me + 1000)  # the folder is someone else's now
    assert counters.state_folder_problem(folder) == (
        f"The folder {folder} (HTRFLOW_STATE_DIR) belongs to another user (uid {me}), who could change the "
        f"failed-login counts kept there: remove it, or set HTRFLOW_STATE_DIR to a folder this user "
        f"(uid {me + 1000}) owns or may create."
    )


@needs_root
def test_a_link_to_ones_own_folder_planted_by_another_user_is_refused(tmp_path):
    target = tmp_path / "mine"
    target.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(target)
    os.chown(link, NOBODY, -1, follow_symlinks=False)
    assert f"belongs to another user (uid {NOBODY})" in counters.state_folder_problem(link)


def test_the_folder_is_made_private_whatever_the_umask(tmp_path):
    folder = tmp_path / "made" / "state"
    previous = os.umask(0)
    try:
        counters.FileCounters(str(folder)).add("n", 1, 60)
    finally:
        os.umask(previous)
    assert folder.stat().st_mode & 0o777 == 0o700


def test_a_folder_opened_up_after_start_up_pauses_logins_with_a_sentence(settings, open_folder, store_calls):
    settings.HTRFLOW_REDIS_URL = ""
    settings.HTRFLOW_STATE_DIR = str(open_folder)
    answer = login.attempt(_request(), "alice", "pw")
    assert answer.status == 503
    assert answer.sentence == (
        "Logins are paused because the site cannot write its login limits; "
        "tell an operator to give it a private, writable HTRFLOW_STATE_DIR."
    )
    assert store_calls == []
    assert not (open_folder / counters.FILE_NAME).exists()


def _request():
    return RequestFactory().post("/results/_login", REMOTE_ADDR="203.0.113.90")


# --- start-up: manage.py and the image's gunicorn command ----------------------------------------


KINDS = [
    pytest.param("open", "may be written by other users (mode 0777)", id="open"),
    pytest.param("foreign", f"belongs to another user (uid {NOBODY})", id="foreign", marks=needs_root),
]


def manage_check(tmp_path, **extra):
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=production_env(tmp_path, **extra),
        capture_output=True, text=True, timeout=120,
    )


def assert_refused_with(result, folder, words):
    assert result.returncode != 0
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"htrbrowser cannot start: The folder {folder} (HTRFLOW_STATE_DIR) {words}")


def test_manage_py_check_passes_with_a_private_folder(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    result = manage_check(tmp_path, HTRFLOW_STATE_DIR=str(private))
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("kind, words", KINDS)
def test_manage_py_refuses_a_folder_others_may_write_to_or_of_another_user(tmp_path, request, kind, words):
    folder = request.getfixturevalue(f"{kind}_folder")
    assert_refused_with(manage_check(tmp_path, HTRFLOW_STATE_DIR=str(folder)), folder, words)


@pytest.mark.parametrize("kind, words", KINDS)
def test_with_redis_the_folder_is_not_used_and_not_checked(tmp_path, request, kind, words):
    folder = request.getfixturevalue(f"{kind}_folder")
    result = manage_check(tmp_path, HTRFLOW_STATE_DIR=str(folder), HTRFLOW_REDIS_URL="redis://127.0.0.1:1/0")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("kind, words", KINDS)
def test_the_images_gunicorn_stops_with_the_sentence(tmp_path, request, kind, words):
    folder = request.getfixturevalue(f"{kind}_folder")
    result = subprocess.run(
        dockerfile_command(free_port()), cwd=ROOT, env=production_env(tmp_path, HTRFLOW_STATE_DIR=str(folder)),
        capture_output=True, text=True, timeout=60,
    )
    assert_refused_with(result, folder, words)

"""Settings for the test run: the product's own settings with development values."""

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECRET_KEY", "test-secret-key-that-is-long-enough-for-django-checks-0123456789")
os.environ.setdefault("HTRFLOW_HTTPS", "false")
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver,localhost,127.0.0.1")
# Tests read times in UTC and words in English unless a test activates another zone or language; set, not
# defaulted, so a developer's own HTRFLOW_TIME_ZONE or HTRFLOW_LANGUAGE cannot change what the tests read.
os.environ["HTRFLOW_TIME_ZONE"] = "UTC"
os.environ["HTRFLOW_LANGUAGE"] = "en"
# The failed-login counts of this run, in a folder of its own: the default (the machine's temporary
# folder) would be shared with every other test run and demo on the machine. Each pytest-xdist worker
# makes its own as well (workers inherit the controller's environment, and one worker's
# `ratelimit.reset()` must not clear counts another worker's test is making); processes a test starts
# inherit their worker's.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if "HTRFLOW_STATE_DIR" not in os.environ or os.environ.get("HTRFLOW_TEST_STATE_WORKER", _WORKER) != _WORKER:
    _STATE_DIR = tempfile.mkdtemp(prefix=f"htrbrowser-test-state-{_WORKER}-" if _WORKER else "htrbrowser-test-state-")
    os.environ["HTRFLOW_STATE_DIR"] = _STATE_DIR
    os.environ["HTRFLOW_TEST_STATE_WORKER"] = _WORKER
    atexit.register(shutil.rmtree, _STATE_DIR, ignore_errors=True)

from htrbrowser.settings import *  # noqa: E402,F403

STORAGES = {"staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# pytest-django's live_server wraps each test in a transaction; the product has no
# models, so an in-memory database only satisfies that machinery.
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
# A page waits this long for the results store before it answers from what is known: far longer than
# a healthy store double needs on a loaded machine, so tests of a healthy store never meet "progress not
# known yet" or an access check still under way. Tests of a slow store set it short (tests/fixtures/store.py).
HTRFLOW_STORE_WAIT_SECONDS = 5.0

"""Settings for the test run: the product's own settings with development values."""

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECRET_KEY", "test-secret-key-that-is-long-enough-for-django-checks-0123456789")
os.environ.setdefault("HTRFLOW_HTTPS", "false")
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver,localhost,127.0.0.1")
# The failed-login counts of this run, in a folder of its own: the default (the machine's temporary
# folder) would be shared with every other test run and demo on the machine.
if "HTRFLOW_STATE_DIR" not in os.environ:
    _STATE_DIR = tempfile.mkdtemp(prefix="htrbrowser-test-state-")
    os.environ["HTRFLOW_STATE_DIR"] = _STATE_DIR
    atexit.register(shutil.rmtree, _STATE_DIR, ignore_errors=True)

from htrbrowser.settings import *  # noqa: E402,F403

STORAGES = {"staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# pytest-django's live_server wraps each test in a transaction; the product has no
# models, so an in-memory database only satisfies that machinery.
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}

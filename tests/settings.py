"""Settings for the test run: the product's own settings with development values."""

import os

os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECRET_KEY", "test-secret-key-that-is-long-enough-for-django-checks-0123456789")
os.environ.setdefault("HTRFLOW_HTTPS", "false")
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver,localhost,127.0.0.1")

from htrbrowser.settings import *  # noqa: E402,F403

STORAGES = {"staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# pytest-django's live_server wraps each test in a transaction; the product has no
# models, so an in-memory database only satisfies that machinery.
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}

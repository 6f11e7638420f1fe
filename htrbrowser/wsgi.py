"""WSGI entry point (gunicorn serves `htrbrowser.wsgi:application`)."""

import os
import sys

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

from htrbrowser.env import SettingError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "htrbrowser.settings")

try:
    application = get_wsgi_application()
    # Import every view now (gunicorn --preload: once, in the master), not on each worker's first request.
    get_resolver().check()
except SettingError as error:
    sys.exit(f"htrbrowser cannot start: {error}")

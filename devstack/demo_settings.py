"""The demo's settings: the product's own (htrbrowser/settings.py), debug off as in production unless
DJANGO_DEBUG is set, with static files served from the source folders, so ``make demo`` needs no
``collectstatic`` and shows a changed stylesheet or script at the next reload (as the tests serve them).
"""

from htrbrowser.settings import *  # noqa: F403

STORAGES = {"staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

"""Settings for htrbrowser, read from the environment only.

Production defaults are safe (DEBUG off, secure cookies, HSTS); the demo
(`make demo`) sets its own development values. Every variable is read through
its entry in htrbrowser/configuration.py, which docs/configuration.md lists.
"""

import socket
import tempfile
from pathlib import Path

from htrbrowser.configuration import read
from htrbrowser.env import SettingError
from results.accounts.counters import state_folder_problem

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = read("DJANGO_DEBUG")


def _secret_key() -> str:
    """DJANGO_SECRET_KEY, or the content of the file DJANGO_SECRET_KEY_FILE names (a mounted Secret, as the
    chart gives it, so the key is in no process environment); one of the two, never both."""
    key, key_file = read("DJANGO_SECRET_KEY"), read("DJANGO_SECRET_KEY_FILE")
    if key and key_file:
        raise SettingError("DJANGO_SECRET_KEY and DJANGO_SECRET_KEY_FILE are both set: give the key one way only.")
    if key_file:
        try:
            key = Path(key_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as error:
            raise SettingError(f"DJANGO_SECRET_KEY_FILE names {key_file}, which cannot be read: {error}.") from None
        if not key:
            raise SettingError(f"DJANGO_SECRET_KEY_FILE names {key_file}, which is empty.")
    return key


SECRET_KEY = _secret_key()
if not SECRET_KEY:
    if not DEBUG:
        raise SettingError(
            "DJANGO_SECRET_KEY (or DJANGO_SECRET_KEY_FILE) must be set (a long random string) when DJANGO_DEBUG is off."
        )
    SECRET_KEY = "development-only-not-secret-" + "x" * 40

ALLOWED_HOSTS = read("DJANGO_ALLOWED_HOSTS")

INSTALLED_APPS = [
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",  # one template serves a page and the fragments its polls ask for
    "campaigns",
    "results",
]

# Order matters: scheme and host are settled first; the security headers wrap everything
# after them, so answers returned early (login redirects, 401s, CSRF refusals) carry them too.
MIDDLEWARE = [
    "htrbrowser.logs.RequestLogMiddleware",
    "htrbrowser.middleware.ForwardedHeadersMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "htrbrowser.middleware.SecurityHeadersMiddleware",
    # Before CommonMiddleware, which enforces ALLOWED_HOSTS: a kubelet probe's Host is the pod's IP.
    "htrbrowser.probes.ProbeMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "htrbrowser.middleware.InViewMiddleware",
    # The reader's language and zone, before anything that answers in words (CommonMiddleware's redirects on).
    "django.middleware.locale.LocaleMiddleware",
    "htrbrowser.middleware.ReaderZoneMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "results.accounts.middleware.ResultsSessionMiddleware",
]

ROOT_URLCONF = "htrbrowser.urls"
WSGI_APPLICATION = "htrbrowser.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "htrbrowser.context.site",
                "results.accounts.context.results_user",
            ],
        },
    },
]

# No database: everything shown is read from the cluster and the results store.
DATABASES = {}

# --- State shared by the processes serving the site -----------------------------------------
# Failed-login counts (results/accounts/counters.py, whole numbers only): in Redis when HTRFLOW_REDIS_URL is
# set (shared by every replica), otherwise in a SQLite file in HTRFLOW_STATE_DIR shared by the
# workers of one pod. That folder is created with mode 0700; one that another user owns or may
# write to stops start-up, since whoever can write there could change the counts.
HTRFLOW_REDIS_URL = read("HTRFLOW_REDIS_URL")
HTRFLOW_STATE_DIR = read("HTRFLOW_STATE_DIR", str(Path(tempfile.gettempdir()) / "htrbrowser"))
if not HTRFLOW_REDIS_URL and (_STATE_DIR_PROBLEM := state_folder_problem(HTRFLOW_STATE_DIR)):
    raise SettingError(_STATE_DIR_PROBLEM)
# Seconds: connect and read timeouts of every Redis call.
HTRFLOW_REDIS_TIMEOUT = read("HTRFLOW_REDIS_TIMEOUT")
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Readers' language and time zone ----------------------------------------------------------------------
# English is the source language; Swedish comes from locale/sv (compiled by `make messages` and in the image).
# LocaleMiddleware picks the reader's choice (the language switch's cookie), else Accept-Language, else this.
USE_I18N = True
LANGUAGES = [("sv", "Svenska"), ("en", "English")]
LANGUAGE_CODE = read("HTRFLOW_LANGUAGE")
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_HTTPONLY = True
# Times are kept and compared in UTC; they are said in the reader's zone (core/times.py), which
# htrbrowser.middleware.ReaderZoneMiddleware activates: the browser's, else HTRFLOW_TIME_ZONE.
TIME_ZONE = "UTC"
USE_TZ = True
HTRFLOW_TIME_ZONE = read("HTRFLOW_TIME_ZONE")

STATIC_URL = "/static/"
# Where `collectstatic` gathers files for whitenoise (the image collects them at build time).
STATIC_ROOT = Path(read("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    }
}

# --- Security --------------------------------------------------------------
# Behind https (the default outside the demo) cookies are Secure and HSTS is on.
HTTPS = read("HTRFLOW_HTTPS", not DEBUG)
# How many front proxies (ingress, load balancer) may set X-Forwarded-* headers. Only
# htrbrowser.middleware.ForwardedHeadersMiddleware reads them (the entries those proxies
# appended); Django's SECURE_PROXY_SSL_HEADER and USE_X_FORWARDED_HOST stay off on purpose.
TRUSTED_HOPS = read("HTRFLOW_TRUSTED_HOPS")
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
LANGUAGE_COOKIE_SECURE = HTTPS
CSRF_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Strict"
CSRF_FAILURE_VIEW = "htrbrowser.views.csrf_failure"
SECURE_SSL_REDIRECT = read("HTRFLOW_SSL_REDIRECT", HTTPS)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^readyz/namespaces$"]
SECURE_HSTS_SECONDS = read("HTRFLOW_HSTS_SECONDS", 31536000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = read("HTRFLOW_HSTS_INCLUDE_SUBDOMAINS")
SECURE_HSTS_PRELOAD = read("HTRFLOW_HSTS_PRELOAD")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SILENCED_SYSTEM_CHECKS = []
if not SECURE_HSTS_PRELOAD:
    # Preloading is an opt-in promise to browser vendors; leaving it off is a choice, not an oversight.
    SILENCED_SYSTEM_CHECKS.append("security.W021")

# --- Cluster ---------------------------------------------------------------
_POD_NAMESPACE_FILE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")


def _default_namespaces():
    try:
        return [_POD_NAMESPACE_FILE.read_text().strip()]
    except OSError:
        return ["htr-batch"]


# Outside a cluster the API is found through a kubeconfig file, as kubectl does; in a pod (Kubernetes sets
# KUBERNETES_SERVICE_HOST) through the pod's ServiceAccount.
KUBECONFIG = read("KUBECONFIG")
KUBERNETES_SERVICE_HOST = read("KUBERNETES_SERVICE_HOST")
HTRFLOW_NAMESPACES = read("HTRFLOW_NAMESPACES", ()) or _default_namespaces()
# Kueue's own namespace, where its controller's Deployment and pods are read (whether Kueue runs); empty: not read.
HTRFLOW_KUEUE_NAMESPACE = read("HTRFLOW_KUEUE_NAMESPACE")
# Seconds: connect and read timeouts for every Kubernetes API call.
HTRFLOW_KUBE_TIMEOUT = read("HTRFLOW_KUBE_TIMEOUT")
# Seconds a cluster snapshot is shared by all requests in a process.
HTRFLOW_SNAPSHOT_SECONDS = read("HTRFLOW_SNAPSHOT_SECONDS")
# Keep the campaign status records current (needs write access to ConfigMaps).
HTRFLOW_WRITE_STATUS = read("HTRFLOW_WRITE_STATUS")
# Minutes a running campaign's pods may run with no volume finished before it needs attention (stalled);
# unset: several usual volume times, at least 20 minutes (campaigns.domain.pace).
HTRFLOW_STALL_MINUTES = read("HTRFLOW_STALL_MINUTES")
# Names this process as holder of the status writer's Lease (campaigns/cluster/status_lease.py).
POD_NAME = read("POD_NAME", read("HOSTNAME") or socket.gethostname())

# --- Results store and sessions ------------------------------------------------
# Browser-facing base of the results proxy; empty means this site's own /results.
HTRFLOW_RESULTS_URL = read("HTRFLOW_RESULTS_URL")
HTRFLOW_RESULTS_NAMESPACE = read("HTRFLOW_RESULTS_NAMESPACE", HTRFLOW_NAMESPACES[0])
HTRFLOW_SESSION_HOURS = read("HTRFLOW_SESSION_HOURS")
HTRFLOW_KEY_DERIVATION = read("HTRFLOW_KEY_DERIVATION")
HTRFLOW_SESSION_KEY_FILE = read("HTRFLOW_SESSION_KEY_FILE")
# Who sees which campaigns: any account the store accepts sees all, or (namespace-readers) each account
# sees the campaigns whose results it may read, proved again every HTRFLOW_ACCESS_SECONDS (docs/configuration.md).
HTRFLOW_CARDS_FOR = read("HTRFLOW_CARDS_FOR")
# Seconds a proof of what an account may read is good for; it is renewed in the background after half.
HTRFLOW_ACCESS_SECONDS = read("HTRFLOW_ACCESS_SECONDS")
# Hours a feed token may show what its person's account was last proved to read at a visit with a session;
# older, the feed is refused with a sentence until they use the site again (results/accounts/feeds.py).
HTRFLOW_FEED_RIGHTS_HOURS = read("HTRFLOW_FEED_RIGHTS_HOURS")
# Files one person may be downloading from one process at once; past it, 429 (results/store/downloads.py).
HTRFLOW_DOWNLOADS_PER_PERSON = read("HTRFLOW_DOWNLOADS_PER_PERSON")
# Whether a download's body may go from the store's socket to the client's inside the kernel
# (results/store/splice.py).
HTRFLOW_SPLICE = read("HTRFLOW_SPLICE")
# Viewer requests (run log, ALTO page) one person may have served at once, across replicas where Redis is
# set; past it, 429 (results/viewers/slots.py).
HTRFLOW_VIEWS_PER_PERSON = read("HTRFLOW_VIEWS_PER_PERSON")
S3_ENDPOINT = read("S3_ENDPOINT")
S3_BUCKET = read("S3_BUCKET")
S3_VERIFY_TLS = read("S3_VERIFY_TLS")
# Seconds: connect and read timeouts for every store call.
HTRFLOW_S3_TIMEOUT = read("HTRFLOW_S3_TIMEOUT")
# Seconds a page, poll or read-API answer waits for the store (its access check, then its progress reads)
# before it answers from what is known; reads not answered by then go on in the background.
HTRFLOW_STORE_WAIT_SECONDS = read("HTRFLOW_STORE_WAIT_SECONDS")

# --- Operations ----------------------------------------------------------------
# Metrics are always counted; HTRFLOW_METRICS lets the gunicorn configuration serve them on their
# own port (see htrbrowser/gunicorn_conf.py, which reads these variables itself).
HTRFLOW_METRICS = read("HTRFLOW_METRICS")
HTRFLOW_METRICS_PORT = read("HTRFLOW_METRICS_PORT")
HTRFLOW_LOG_FORMAT = read("HTRFLOW_LOG_FORMAT")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "htrbrowser.logs.RequestIdFilter"},
        "quiet_expected_outages": {"()": "htrbrowser.logs.QuietExpectedOutages"},
    },
    "formatters": {
        "plain": {"()": "htrbrowser.logs.PlainFormatter"},
        "json": {"()": "htrbrowser.logs.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": HTRFLOW_LOG_FORMAT,
            "filters": ["request_id"],
        }
    },
    "root": {
        "handlers": ["console"],
        "level": read("HTRFLOW_LOG_LEVEL"),
    },
    "loggers": {
        "kubernetes": {"level": "WARNING"},
        "botocore": {"level": "WARNING"},
        "urllib3": {"level": "WARNING"},
        # Every request has its own line (htrbrowser.requests); runserver's would repeat it.
        "django.server": {"level": "WARNING"},
        "django.request": {"filters": ["quiet_expected_outages"]},
    },
}

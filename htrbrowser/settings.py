"""Settings for htrbrowser, read from the environment only.

Production defaults are safe (DEBUG off, secure cookies, HSTS); the demo
(`make demo`) sets its own development values. See README.md for the table.
"""

import re
import tempfile
from pathlib import Path

from htrbrowser.env import (
    SettingError,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_redis_url,
    env_str,
    env_url,
)
from results.accounts.counters import state_folder_problem

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DJANGO_DEBUG", False)


def _secret_key() -> str:
    """DJANGO_SECRET_KEY, or the content of the file DJANGO_SECRET_KEY_FILE names (a mounted Secret, as the
    chart gives it, so the key is in no process environment); one of the two, never both."""
    key, key_file = env_str("DJANGO_SECRET_KEY", ""), env_str("DJANGO_SECRET_KEY_FILE", "")
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

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1"])

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
HTRFLOW_REDIS_URL = env_redis_url("HTRFLOW_REDIS_URL", "")
HTRFLOW_STATE_DIR = env_str("HTRFLOW_STATE_DIR", str(Path(tempfile.gettempdir()) / "htrbrowser"))
if not HTRFLOW_REDIS_URL and (_STATE_DIR_PROBLEM := state_folder_problem(HTRFLOW_STATE_DIR)):
    raise SettingError(_STATE_DIR_PROBLEM)
# Seconds: connect and read timeouts of every Redis call.
HTRFLOW_REDIS_TIMEOUT = env_float("HTRFLOW_REDIS_TIMEOUT", 2.0, minimum=0.1)
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
# Where `collectstatic` gathers files for whitenoise (the image collects them at build time).
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles")))
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
HTTPS = env_bool("HTRFLOW_HTTPS", not DEBUG)
# How many front proxies (ingress, load balancer) may set X-Forwarded-* headers. Only
# htrbrowser.middleware.ForwardedHeadersMiddleware reads them (the entries those proxies
# appended); Django's SECURE_PROXY_SSL_HEADER and USE_X_FORWARDED_HOST stay off on purpose.
TRUSTED_HOPS = env_int("HTRFLOW_TRUSTED_HOPS", 0, minimum=0, maximum=10)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
CSRF_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Strict"
CSRF_FAILURE_VIEW = "htrbrowser.views.csrf_failure"
SECURE_SSL_REDIRECT = env_bool("HTRFLOW_SSL_REDIRECT", HTTPS)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SECURE_HSTS_SECONDS = env_int("HTRFLOW_HSTS_SECONDS", 31536000 if HTTPS else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HTRFLOW_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("HTRFLOW_HSTS_PRELOAD", False)
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


# Outside a cluster the API is found through a kubeconfig file, as kubectl does.
KUBECONFIG = env_str("KUBECONFIG", "")
HTRFLOW_NAMESPACES = env_list("HTRFLOW_NAMESPACES") or _default_namespaces()
# Kueue's own namespace, where its controller's Deployment and pods are read (whether Kueue runs); empty: not read.
HTRFLOW_KUEUE_NAMESPACE = env_str("HTRFLOW_KUEUE_NAMESPACE", "kueue-system").strip()
if HTRFLOW_KUEUE_NAMESPACE and not re.fullmatch(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?", HTRFLOW_KUEUE_NAMESPACE):
    raise SettingError(
        f"HTRFLOW_KUEUE_NAMESPACE must be a namespace name (lower-case letters, digits and '-'), or empty to not read "
        f"Kueue's controller, not {HTRFLOW_KUEUE_NAMESPACE!r}."
    )
# Seconds: connect and read timeouts for every Kubernetes API call.
HTRFLOW_KUBE_TIMEOUT = env_float("HTRFLOW_KUBE_TIMEOUT", 5.0, minimum=0.1)
# Seconds a cluster snapshot is shared by all requests in a process.
HTRFLOW_SNAPSHOT_SECONDS = env_float("HTRFLOW_SNAPSHOT_SECONDS", 5.0, minimum=0.0)
# Keep the campaign status records current (needs write access to ConfigMaps).
HTRFLOW_WRITE_STATUS = env_bool("HTRFLOW_WRITE_STATUS", True)
# Minutes a running campaign's pods may run with no volume finished before it needs attention (stalled);
# unset: several usual volume times, at least 20 minutes (campaigns.domain.pace).
HTRFLOW_STALL_MINUTES = env_float("HTRFLOW_STALL_MINUTES", None, minimum=0.05)

# --- Results store and sessions ------------------------------------------------
# Browser-facing base of the results proxy; empty means this site's own /results.
HTRFLOW_RESULTS_URL = env_url("HTRFLOW_RESULTS_URL", "")
HTRFLOW_RESULTS_NAMESPACE = env_str("HTRFLOW_RESULTS_NAMESPACE", HTRFLOW_NAMESPACES[0])
HTRFLOW_SESSION_HOURS = env_int("HTRFLOW_SESSION_HOURS", 8, minimum=1, maximum=24 * 30)
HTRFLOW_KEY_DERIVATION = env_choice("HTRFLOW_KEY_DERIVATION", "none", {"none", "hcp"})
HTRFLOW_SESSION_KEY_FILE = env_str("HTRFLOW_SESSION_KEY_FILE", "/secrets/session/key")
# Who sees which campaigns: any account the store accepts sees all, or (namespace-readers) each account
# sees the campaigns whose results it may read, proved again every HTRFLOW_ACCESS_SECONDS (see README).
HTRFLOW_CARDS_FOR = env_choice("HTRFLOW_CARDS_FOR", "namespace-readers", {"store-accounts", "namespace-readers"})
# Seconds a proof of what an account may read is good for; it is renewed in the background after half.
HTRFLOW_ACCESS_SECONDS = env_float("HTRFLOW_ACCESS_SECONDS", 300.0, minimum=1.0)
# Hours a feed token may show what its person's account was last proved to read at a visit with a session;
# older, the feed is refused with a sentence until they use the site again (results/accounts/feeds.py).
HTRFLOW_FEED_RIGHTS_HOURS = env_float("HTRFLOW_FEED_RIGHTS_HOURS", 72.0, minimum=0.01)
# Files one person may be downloading from one process at once; past it, 429 (results/store/downloads.py).
HTRFLOW_DOWNLOADS_PER_PERSON = env_int("HTRFLOW_DOWNLOADS_PER_PERSON", 4, minimum=1, maximum=1000)
# Viewer requests (run log, ALTO page) one person may have served at once, across replicas where Redis is
# set; past it, 429 (results/viewers/slots.py).
HTRFLOW_VIEWS_PER_PERSON = env_int("HTRFLOW_VIEWS_PER_PERSON", 3, minimum=1, maximum=1000)
S3_ENDPOINT = env_url("S3_ENDPOINT", "")
S3_BUCKET = env_str("S3_BUCKET", "htrflow-results")
S3_VERIFY_TLS = env_bool("S3_VERIFY_TLS", True)
# Seconds: connect and read timeouts for every store call.
HTRFLOW_S3_TIMEOUT = env_float("HTRFLOW_S3_TIMEOUT", 5.0, minimum=0.1)
# Seconds a page, poll or read-API answer waits for the store (its access check, then its progress reads)
# before it answers from what is known; reads not answered by then go on in the background.
HTRFLOW_STORE_WAIT_SECONDS = env_float("HTRFLOW_STORE_WAIT_SECONDS", 0.4, minimum=0.0)

# --- Operations ----------------------------------------------------------------
# Metrics are always counted; HTRFLOW_METRICS lets the gunicorn configuration serve them on their
# own port (see htrbrowser/gunicorn_conf.py, which reads these variables itself).
HTRFLOW_METRICS = env_bool("HTRFLOW_METRICS", False)
HTRFLOW_METRICS_PORT = env_int("HTRFLOW_METRICS_PORT", 9100, minimum=1, maximum=65535)
HTRFLOW_LOG_FORMAT = env_choice("HTRFLOW_LOG_FORMAT", "plain", {"plain", "json"})

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
        "level": env_choice("HTRFLOW_LOG_LEVEL", "INFO", {"DEBUG", "INFO", "WARNING", "ERROR"}),
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

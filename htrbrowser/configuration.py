"""The product's configuration: every environment variable it reads, each listed once.

Each entry says the variable's name, what it accepts, its default, what it means in one sentence and
the chart value that sets it. `htrbrowser/settings.py` and the gunicorn configuration read their
environment through `read` only, which knows no variable without an entry here, so a setting cannot
exist without its line in docs/configuration.md. A few are read by others (Django, prometheus_client,
the cluster client); they are listed too, with who reads them.

    python -m htrbrowser.configuration --markdown   # the tables of docs/configuration.md

tests/test_configuration.py keeps the document, this registry and the chart's environment in step.
Nothing here imports Django: gunicorn's configuration reads it before the app exists.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from htrbrowser.env import (
    SettingError,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_redis_url,
    env_str,
    env_time_zone,
    env_url,
)

BEGIN = (
    "<!-- settings: made by `python -m htrbrowser.configuration --markdown`, checked by tests/test_configuration.py -->"
)
END = "<!-- end of settings -->"

SETTINGS_PY = "htrbrowser/settings.py"
GUNICORN_CONF = "htrbrowser/gunicorn_conf.py"


class _Derived:
    """The default of a setting whose reader works it out from other settings (passed to `read`)."""

    def __repr__(self) -> str:
        return "DERIVED"


DERIVED = _Derived()


@dataclass(frozen=True)
class Kind:
    """What a variable accepts: how the document says it, and the reader (env.py) that parses it."""

    words: str
    parse: Callable[[str, object], object]  # (name, default) -> value, or SettingError with one sentence


def text(words: str = "text") -> Kind:
    return Kind(words, env_str)


def flag() -> Kind:
    return Kind("`true` or `false`", env_bool)


def whole(minimum: int, maximum: int | None = None) -> Kind:
    words = f"whole number, at least {minimum}" if maximum is None else f"whole number from {minimum} to {maximum}"
    return Kind(words, partial(env_int, minimum=minimum, maximum=maximum))


def number(minimum: float = 0.0) -> Kind:
    return Kind(f"number, at least {minimum:g}", partial(env_float, minimum=minimum))


def listed() -> Kind:
    return Kind("comma-separated list", env_list)


def one_of(*choices: str) -> Kind:
    return Kind("one of " + ", ".join(f"`{choice}`" for choice in choices), partial(env_choice, choices=set(choices)))


def time_zone() -> Kind:
    return Kind("time zone of the tz database", env_time_zone)


def http_url() -> Kind:
    return Kind("http or https URL", env_url)


def redis_url() -> Kind:
    return Kind("`redis://`, `rediss://` or `unix://` URL", env_redis_url)


_NAMESPACE = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")


def _namespace_name(name: str, default: object) -> str:
    """Set and empty means "do not read" (the chart without `clusterScoped` has no Role there): only an unset
    variable takes the default."""
    if name in os.environ and not os.environ[name].strip():
        return ""
    value = env_str(name, default).strip()
    if value and not _NAMESPACE.fullmatch(value):
        raise SettingError(
            f"{name} must be a namespace name (lower-case letters, digits and '-'), or empty to not read "
            f"Kueue's controller, not {value!r}."
        )
    return value


def namespace_name() -> Kind:
    return Kind("namespace name", _namespace_name)


@dataclass(frozen=True)
class Setting:
    name: str
    kind: Kind
    default: object  # the value when unset, or DERIVED (its reader works it out; `shown` says how)
    meaning: str  # one plain sentence
    chart_values: tuple[str, ...] = ()  # values.yaml paths that set it
    chart_note: str = ""  # how the chart sets it, beyond naming those values
    shown: str = ""  # the default as the document writes it, when the value alone would mislead
    read_by: tuple[str, ...] = (SETTINGS_PY,)  # files (checked to name it) or programs that read it

    @property
    def set_by_chart(self) -> bool:
        return bool(self.chart_values or self.chart_note)


def _s(name, kind, default, meaning, **more) -> Setting:
    return Setting(name, kind, default, meaning, **more)


DJANGO = (
    _s("DJANGO_SECRET_KEY", text(), "", "Django's signing key (a long random string).",
       shown="required unless debug"),
    _s("DJANGO_SECRET_KEY_FILE", text("file path"), "",
       "A file holding the signing key instead (a mounted Secret); give the key one way only, never both.",
       chart_values=("django.secretKeySecret",), chart_note="`/secrets/django/key`, mounted from that Secret"),
    _s("DJANGO_DEBUG", flag(), False,
       "Development mode: Django's own debug pages, and https off unless `HTRFLOW_HTTPS` turns it on.",
       chart_note="always `false`"),
    _s("DJANGO_ALLOWED_HOSTS", listed(), ["localhost", "127.0.0.1"],
       "Host names the site answers to (`/healthz`, `/readyz` and `/readyz/namespaces` answer any Host).",
       chart_values=("web.allowedHosts", "web.ingress.host", "web.httpRoute.hostnames"),
       chart_note="with the Service's own names"),
    _s("DJANGO_STATIC_ROOT", text("folder path"), DERIVED,
       "Where `collectstatic` gathers the static files whitenoise serves (the image gathers them when built).",
       shown="`staticfiles` in the project folder"),
    _s("DJANGO_SETTINGS_MODULE", text("Python module"), "htrbrowser.settings",
       "The settings module Django loads; the demo uses `devstack.demo_settings`.",
       read_by=("Django; manage.py and htrbrowser/wsgi.py set the default",)),
)

SECURITY = (
    _s("HTRFLOW_HTTPS", flag(), DERIVED,
       "The site is served over https: Secure `__Host-` cookies, HSTS, and plain http redirected to https.",
       chart_values=("web.https",), shown="`true` unless debug"),
    _s("HTRFLOW_SSL_REDIRECT", flag(), DERIVED,
       "Redirect plain http to https (`/healthz`, `/readyz` and `/readyz/namespaces` are exempt).",
       shown="as `HTRFLOW_HTTPS`"),
    _s("HTRFLOW_HSTS_SECONDS", whole(minimum=0), DERIVED, "HSTS max-age, in seconds.",
       chart_values=("web.hsts.seconds",), shown="`31536000` over https, else `0`"),
    _s("HTRFLOW_HSTS_INCLUDE_SUBDOMAINS", flag(), True, "HSTS covers the site's subdomains too.",
       chart_values=("web.hsts.includeSubdomains",)),
    _s("HTRFLOW_HSTS_PRELOAD", flag(), False, "Ask browsers to preload HSTS (an opt-in promise to their makers).",
       chart_values=("web.hsts.preload",)),
    _s("HTRFLOW_TRUSTED_HOPS", whole(0, 10), 0,
       "How many front proxies (ingress, load balancer) are believed when they append `X-Forwarded-*` entries.",
       chart_values=("web.trustedHops",), chart_note="null: `1` with an Ingress or HTTPRoute, else `0`"),
)

READERS = (
    _s("HTRFLOW_LANGUAGE", one_of("en", "sv"), "en",
       "The language of a reader whose browser asks for none the site speaks (English or Swedish); a reader "
       "may switch in the header.", chart_values=("web.language",)),
    _s("HTRFLOW_TIME_ZONE", time_zone(), "Europe/Stockholm",
       "The zone times are said in until a reader's browser has told its own (on the first page it shows).",
       chart_values=("web.timeZone",)),
)

SHARED_STATE = (
    _s("HTRFLOW_REDIS_URL", redis_url(), "",
       "A Redis every replica shares, where failed logins and each person's open viewer requests are counted.",
       chart_values=("redis.url", "redis.existingSecret"), shown="unset: counted per pod"),
    _s("HTRFLOW_REDIS_TIMEOUT", number(0.1), 2.0,
       "Seconds, connect and read timeout of every Redis call; while Redis does not answer, logins are refused."),
    _s("HTRFLOW_STATE_DIR", text("folder path"), DERIVED,
       "Folder of the pod's own counts when `HTRFLOW_REDIS_URL` is unset (see below).",
       shown="`htrbrowser` in the temporary folder"),
)

CLUSTER = (
    _s("KUBECONFIG", text("file path"), "", "The kubeconfig file to use outside a cluster, as kubectl does."),
    _s("KUBERNETES_SERVICE_HOST", text("address"), "",
       "Set by Kubernetes in every pod: when present the cluster is asked with the pod's ServiceAccount and "
       "`KUBECONFIG` is not read.", shown="set by Kubernetes"),
    _s("HTRFLOW_NAMESPACES", listed(), DERIVED, "The namespaces whose campaigns are shown.",
       chart_values=("namespaces",), chart_note="empty: the release namespace",
       shown="the pod's namespace, else `htr-batch`"),
    _s("HTRFLOW_KUEUE_NAMESPACE", namespace_name(), "kueue-system",
       "Kueue's own namespace, where its controller's Deployments and pods are watched to say whether Kueue runs.",
       chart_values=("kube.kueueNamespace", "clusterScoped"), chart_note="set only with `clusterScoped`"),
    _s("HTRFLOW_KUBE_TIMEOUT", number(0.1), 5.0, "Seconds, connect and read timeout of every Kubernetes call.",
       chart_values=("kube.timeoutSeconds",)),
    _s("HTRFLOW_SNAPSHOT_SECONDS", number(0.0), 5.0,
       "At most how often, in seconds, the watched cluster state is projected anew (only when something changed).",
       chart_values=("kube.snapshotSeconds",)),
    _s("HTRFLOW_WRITE_STATUS", flag(), True,
       "Keep each campaign's status record current, one writer at a time (needs write access to ConfigMaps).",
       chart_values=("statusRecords.enabled",)),
    _s("HTRFLOW_STALL_MINUTES", number(0.05), None,
       "Minutes a running campaign's pods may run with no volume finished before it is stalled and needs "
       "attention.", chart_values=("kube.stallMinutes",),
       shown="unset: four usual volume times, at least 20 minutes, 60 before any volume finished"),
    _s("POD_NAME", text(), DERIVED, "Names this process (with its pid) as holder of the status writer's Lease.",
       shown="`HOSTNAME`, else the machine's host name"),
    _s("HOSTNAME", text(), "", "The host name the container runtime sets; read only when `POD_NAME` is unset.",
       shown="set by the container runtime"),
)

RESULTS = (
    _s("HTRFLOW_RESULTS_URL", http_url(), "",
       "The browser-facing base of the results proxy; the viewers read only under it.",
       chart_values=("resultsUrl",), shown="this site's `/results`"),
    _s("HTRFLOW_RESULTS_NAMESPACE", text("namespace name"), DERIVED,
       "The key prefix in the store under which a login is proved.",
       chart_values=("resultsNamespace",), shown="the first shown namespace"),
    _s("HTRFLOW_SESSION_HOURS", whole(1, 24 * 30), 8, "Lifetime of a results session, in hours.",
       chart_values=("results.sessionHours",)),
    _s("HTRFLOW_KEY_DERIVATION", one_of("none", "hcp"), "none",
       "`none`: a login is the store's access key and secret; `hcp`: a user name and password the S3 keys are "
       "derived from.", chart_values=("results.keyDerivation",)),
    _s("HTRFLOW_SESSION_KEY_FILE", text("file path"), "/secrets/session/key",
       "File holding the base64-encoded 32-byte key that seals sessions; each pod re-reads it when it changes.",
       chart_values=("results.sessionSecret",), chart_note="`/secrets/session/key`, mounted from that Secret"),
    _s("HTRFLOW_CARDS_FOR", one_of("namespace-readers", "store-accounts"), "namespace-readers",
       "Who sees which campaigns: each account those whose results it may read, or any account the store "
       "accepts all of them (see below).", chart_values=("results.cardsFor",)),
    _s("HTRFLOW_ACCESS_SECONDS", number(1.0), 300.0,
       "Seconds a proof of what an account may read is good for; it is renewed in the background after half.",
       chart_values=("results.accessSeconds",)),
    _s("HTRFLOW_FEED_RIGHTS_HOURS", number(0.01), 72.0,
       "Hours a feed token may show what its person's account was last proved to read; older, the feed asks "
       "them to log in once."),
    _s("HTRFLOW_DOWNLOADS_PER_PERSON", whole(1, 1000), 4,
       "Files one person may be downloading from one process at once; the next gets 429 with `Retry-After`."),
    _s("HTRFLOW_SPLICE", flag(), True,
       "`false` passes every download's bytes through Python; by default, on Linux, a file's body goes from the "
       "store's connection to the client's inside the kernel (`splice`) when both are plain HTTP."),
    _s("HTRFLOW_VIEWS_PER_PERSON", whole(1, 1000), 3,
       "Viewer requests (run log, ALTO page) one person may have served at once; the next gets 429 with "
       "`Retry-After` (see below)."),
    _s("S3_ENDPOINT", http_url(), "", "The store's S3 endpoint.", chart_values=("s3.existingSecret",),
       chart_note="its key `S3_ENDPOINT`, if there"),
    _s("S3_BUCKET", text(), "htrflow-results", "The results bucket.", chart_values=("s3.existingSecret",),
       chart_note="its key `S3_BUCKET`"),
    _s("S3_VERIFY_TLS", flag(), True, "`false` skips the store's certificate checks (logged as a warning).",
       chart_values=("s3.existingSecret",), chart_note="its key `S3_VERIFY_TLS`, if there"),
    _s("HTRFLOW_S3_TIMEOUT", number(0.1), 5.0, "Seconds, connect and read timeout of every store call.",
       chart_values=("s3.timeoutSeconds",)),
    _s("HTRFLOW_STORE_WAIT_SECONDS", number(0.0), 0.4,
       "Seconds a page, poll or read-API answer waits for the store before it answers from what is known "
       "(see below).", chart_values=("s3.pageWaitSeconds",)),
)

OPERATIONS = (
    _s("HTRFLOW_LOG_LEVEL", one_of("DEBUG", "INFO", "WARNING", "ERROR"), "INFO", "The log level.",
       chart_values=("django.logLevel",)),
    _s("HTRFLOW_LOG_FORMAT", one_of("plain", "json"), "plain",
       "`json`: one JSON object a line (time, level, logger, message, request id, more fields), gunicorn's "
       "own lines too.", chart_values=("web.logFormat",), read_by=(SETTINGS_PY, GUNICORN_CONF)),
    _s("HTRFLOW_GRACEFUL_SECONDS", whole(1, 3600), 120,
       "Seconds gunicorn lets requests in flight (a slow download) finish after it is told to stop.",
       chart_values=("web.shutdown.gracefulSeconds",), read_by=(GUNICORN_CONF,)),
    _s("HTRFLOW_METRICS", flag(), False, "Serve Prometheus metrics on a port of their own (gunicorn).",
       chart_values=("metrics.enabled",), read_by=(SETTINGS_PY, GUNICORN_CONF)),
    _s("HTRFLOW_METRICS_PORT", whole(1, 65535), 9100, "Port of the metrics listener, never the site's.",
       chart_values=("metrics.port",), read_by=(SETTINGS_PY, GUNICORN_CONF)),
    _s("HTRFLOW_METRICS_ADDRESS", text("address"), "",
       "Address the metrics listener binds.", chart_values=("metrics.address",),
       shown="the site's address (loopback when it binds several or a unix socket)", read_by=(GUNICORN_CONF,)),
    _s("HTRFLOW_METRICS_DIR", text("folder path"), "",
       "Where the workers write their figures (emptied at start).", shown="a fresh temporary folder",
       read_by=(GUNICORN_CONF,)),
    _s("PROMETHEUS_MULTIPROC_DIR", text("folder path"), "",
       "The folder prometheus_client's processes share: with metrics on the gunicorn configuration sets it "
       "(to `HTRFLOW_METRICS_DIR` when that is set), with metrics off it removes it.",
       chart_values=("metrics.enabled",), chart_note="an emptyDir, with metrics on",
       shown="unset", read_by=(GUNICORN_CONF, "core/metrics.py", "prometheus_client")),
)

DEVSTACK = (
    _s("HTRFLOW_DEMO_PORT", text("port number"), "8000", "The port `make demo` serves the site on, on 127.0.0.1.",
       read_by=("devstack/demo.py",)),
)

GROUPS = (
    ("Django", DJANGO),
    ("Security", SECURITY),
    ("Readers' language and time zone", READERS),
    ("State shared by the site's processes", SHARED_STATE),
    ("Cluster", CLUSTER),
    ("Results store and sessions", RESULTS),
    ("Operations", OPERATIONS),
    ("The devstack (not the product)", DEVSTACK),
)

SETTINGS: dict[str, Setting] = {setting.name: setting for _title, group in GROUPS for setting in group}

_OWN = object()


def read(name: str, default: object = _OWN) -> object:
    """The value of a registered variable, parsed as its entry says (a bad value: SettingError naming it).
    `default` replaces the entry's own; an entry whose default is DERIVED must be given one."""
    setting = SETTINGS[name]  # KeyError: a variable with no entry here is not read
    if default is _OWN:
        if setting.default is DERIVED:
            raise TypeError(f"{name}'s default is worked out by its reader, which must pass it to read().")
        default = setting.default
    return setting.kind.parse(name, default)


# --- the document ------------------------------------------------------------------------------------


def shown_default(setting: Setting) -> str:
    if setting.shown:
        return setting.shown
    value = setting.default
    if value is None or value == "":
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float):
        return f"`{value:g}`"
    if isinstance(value, list):
        return f"`{','.join(value)}`"
    return f"`{value}`"


def shown_chart(setting: Setting) -> str:
    values = ", ".join(f"`{value}`" for value in setting.chart_values)
    if values and setting.chart_note:
        return f"{values} ({setting.chart_note})"
    return values or setting.chart_note or "—"


def _cell(words: str) -> str:
    return words.replace("|", "\\|")


def markdown() -> str:
    """The tables of docs/configuration.md, one per group, between the markers the test looks for."""
    lines = [BEGIN]
    for title, group in GROUPS:
        lines += ["", f"### {title}", "", "| Variable | Default | Accepts | Meaning | Chart value |",
                  "|---|---|---|---|---|"]
        lines += [
            f"| `{s.name}` | {_cell(shown_default(s))} | {_cell(s.kind.words)} | {_cell(s.meaning)} "
            f"| {_cell(shown_chart(s))} |"
            for s in group
        ]
    lines += ["", END]
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m htrbrowser.configuration", description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", required=True,
                        help="print the settings tables of docs/configuration.md")
    parser.parse_args()
    print(markdown())

# htrbrowser: gunicorn serving Django, static files through whitenoise.

# The Swedish catalogue (locale/sv/LC_MESSAGES/*.po) compiled with Debian's gettext in a stage of its own, so the
# site's image carries the compiled .mo files but not gettext. msgfmt --check-format is what Django's
# compilemessages runs: a translation that lost a placeholder stops the build.
FROM python:3.11-slim AS catalogues
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
COPY locale locale
RUN set -eu; for po in $(find locale -name '*.po'); do msgfmt --check-format -o "${po%.po}.mo" "$po"; done

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY requirements.txt .
RUN pip install --no-deps -r requirements.txt && pip check

COPY manage.py ./
COPY htrbrowser htrbrowser
COPY core core
COPY campaigns campaigns
COPY results results
COPY templates templates
COPY static static
COPY --from=catalogues /build/locale locale

# Static files are collected at build time; the throwaway secret only satisfies settings.
RUN DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
    && useradd --system --uid 10001 --home /app htrbrowser

USER 10001
# 9100: metrics, only with HTRFLOW_METRICS=true (never through the site's port).
EXPOSE 8000 9100
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status == 200 else 1)"
# gunicorn believes no forwarded header itself (--forwarded-allow-ips ""): the app's HTRFLOW_TRUSTED_HOPS
# rule is the one rule, so a proxy in the same pod cannot make plain http look like https, and a
# SCRIPT_NAME header is dropped. No control socket: nothing manages gunicorn at run time, and the
# root filesystem of a pod is read-only (/tmp is its one writable place).
# One worker with threads: the pod has one reader of the cluster (campaigns/cluster/board.py) whatever the
# number of open pages; pages and polls only look its reading up. 96 threads, because a download on a
# slow link holds one for minutes: with each person held to 4 at once (HTRFLOW_DOWNLOADS_PER_PERSON),
# 64 such downloads leave pages and probes threads to spare (benchmarks/bench_slow_clients.py). The viewers,
# which hold the CPU rather than a slow link, are held to 3 requests per person at once (HTRFLOW_VIEWS_PER_PERSON).
# --config adds metrics across workers (HTRFLOW_METRICS, on port 9100) and JSON logs (HTRFLOW_LOG_FORMAT).
CMD ["gunicorn", "htrbrowser.wsgi:application", "--config", "htrbrowser/gunicorn_conf.py", "--preload", "--bind", "0.0.0.0:8000", "--workers", "1", "--threads", "96", "--timeout", "60", "--forwarded-allow-ips", "", "--no-control-socket"]

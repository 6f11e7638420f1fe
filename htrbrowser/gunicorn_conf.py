"""gunicorn's configuration for the image (`gunicorn --config htrbrowser/gunicorn_conf.py ...`).

Command-line options still win; this file adds what a command line cannot say:

- **Metrics** (`HTRFLOW_METRICS=true`): every worker writes its figures to files in one folder
  (`HTRFLOW_METRICS_DIR`, else a fresh temporary folder), emptied at start; a worker that exits is
  marked dead so its gauges stop counting; the master serves the sum on its own port
  (`HTRFLOW_METRICS_PORT`, 9100, on `HTRFLOW_METRICS_ADDRESS`, else on the address the site is
  bound to: all addresses in the image, loopback when the site listens on loopback only), which the
  site's public port never answers. With the setting off nothing here changes how gunicorn runs.
- **Logs**: gunicorn's access log is off, because the site logs one line per request itself (with its
  request id); with `HTRFLOW_LOG_FORMAT=json` gunicorn's own messages are JSON lines too.
- **Closing a connection never holds the worker.** gunicorn's threaded worker closes a finished
  connection gracefully in its one event-loop thread: it half-closes, then waits up to 2 s for the
  client to close too. A slow client still reading a download whose end the kernel already holds
  makes each such close wait the whole 2 s, and meanwhile the worker accepts and answers nothing:
  16 slow downloads ending together held `/healthz` for 23 s (benchmarks/bench_soak.py). Those waits
  run in `LINGERING_CLOSES` threads of their own instead (`post_worker_init`).
- **Idle connections are kept 75 s** (`keepalive`), not gunicorn's 2 s. A client (or a proxy in front)
  that sends its next request on a kept connection just as the worker closes it gets no answer at all:
  a browser sends it again, a script or a proxy reports an error (ingress-nginx keeps connections to
  the pods 60 s, a load balancer about as long; with 2 s the soak's file reader, asking every 3 s, lost
  one or two requests per window of relists, when the worker's loop ran late). Kept connections wait
  in the worker's poller, not in a thread.
- **A stop lets requests in flight finish** for `HTRFLOW_GRACEFUL_SECONDS` (120 s), not gunicorn's
  30 s, which cut slow downloads at every rollout; the chart sizes the pod's grace period to match.
- **A graceful stop gives the status writer's Lease up** as soon as the worker is told to stop
  (SIGTERM), not after its last slow download: the next pod writes status records at once instead of
  waiting out the Lease (`campaigns.cluster.status_lease.release`). `worker_exit` does it too, for a
  worker whose server installs its own signal handlers.
"""

import os
import shutil
import signal
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gunicorn import util as gunicorn_util
from gunicorn.workers import gthread

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from htrbrowser.configuration import read  # noqa: E402
from htrbrowser.env import SettingError  # noqa: E402

try:
    METRICS = read("HTRFLOW_METRICS")
    METRICS_PORT = read("HTRFLOW_METRICS_PORT")
    METRICS_ADDRESS = read("HTRFLOW_METRICS_ADDRESS")
    LOG_FORMAT = read("HTRFLOW_LOG_FORMAT")
    GRACEFUL_SECONDS = read("HTRFLOW_GRACEFUL_SECONDS")
except SettingError as error:  # one sentence, as settings.py gives, not gunicorn's traceback
    print(error, file=sys.stderr)
    sys.exit(2)

# The site's own request lines replace the access log (see htrbrowser/logs.py).
accesslog = None
# Longer than the idle timeout of the proxies in front (see the module's docstring).
keepalive = 75
# gunicorn's 30 s would cut a download on a slow link at every rollout; the chart's grace period is sized
# around this (web.shutdown).
graceful_timeout = GRACEFUL_SECONDS

if LOG_FORMAT == "json":
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "htrbrowser.logs.RequestIdFilter"}},
        "formatters": {"json": {"()": "htrbrowser.logs.JsonFormatter"}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "filters": ["request_id"],
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            "gunicorn.error": {"handlers": ["console"], "level": "INFO", "propagate": False},
            "gunicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }


_made_folder = ""


def _metrics_folder() -> str:
    """The folder every worker writes to, emptied: files of an earlier run would count again."""
    chosen = read("HTRFLOW_METRICS_DIR") or read("PROMETHEUS_MULTIPROC_DIR")
    if not chosen:
        global _made_folder
        _made_folder = tempfile.mkdtemp(prefix="htrbrowser-metrics-")
        return _made_folder
    folder = Path(chosen)
    folder.mkdir(parents=True, exist_ok=True)
    for leftover in folder.iterdir():
        if leftover.suffix == ".db":
            leftover.unlink()
        elif leftover.is_dir():
            shutil.rmtree(leftover, ignore_errors=True)
    return str(folder)


if METRICS:
    # Before anything imports prometheus_client: the library picks its storage when first imported.
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_folder()
else:
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)


def metrics_address(site_addresses) -> str:
    """Where the metrics listen: `HTRFLOW_METRICS_ADDRESS` when set, else the one host the site is bound
    to (a site kept to loopback keeps its metrics there too); loopback when the site binds several
    hosts or a unix socket, since no single answer would be right."""
    if METRICS_ADDRESS:
        return METRICS_ADDRESS
    hosts = {address[0] if isinstance(address, tuple) else None for address in site_addresses}
    if len(hosts) == 1 and None not in hosts:
        return hosts.pop()
    return "127.0.0.1"


def when_ready(server):
    if not METRICS:
        return
    from prometheus_client import start_http_server

    # gunicorn reads this file before the app exists; the registry is loaded only when it is served.
    from core import metrics

    address = metrics_address(server.cfg.address)
    start_http_server(METRICS_PORT, address, registry=metrics.registry())
    server.log.info("Metrics served on %s:%s", address, METRICS_PORT)


def child_exit(server, worker):
    if not METRICS:
        return
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    if _made_folder:
        shutil.rmtree(_made_folder, ignore_errors=True)


# --- the status writer's Lease, given up by a worker that stops ---------------------------------------

STATUS_LEASE = "campaigns.cluster.status_lease"


def _give_up_status_lease(log) -> None:
    """Give up the Leases this worker holds. Only a worker that loaded the module can hold one, so
    nothing is imported here (gunicorn reads this file before the app exists)."""
    lease = sys.modules.get(STATUS_LEASE)
    if lease is None:
        return
    try:
        lease.release()  # logs each Lease it gives up
    except Exception as error:  # noqa: BLE001 - a stopping worker must stop whatever the API says
        log.warning("Could not give up the status writer Lease: %s", error)


LINGERING_CLOSES = 8  # threads that wait for clients to close finished connections


def _lingering_closes_off_the_loop() -> None:
    """Make the threaded worker's graceful closes wait in threads of their own, not in its event loop
    (see the module's docstring); left alone when gunicorn's worker is not the one this was made for."""
    original = getattr(getattr(gthread, "TConn", None), "close", None)
    if original is None or getattr(original, "off_the_loop", False) or not hasattr(gunicorn_util, "close_graceful"):
        return
    lingering = ThreadPoolExecutor(max_workers=LINGERING_CLOSES, thread_name_prefix="lingering close")

    def close(self, graceful=False):
        if not graceful:
            return original(self)
        self.sock.setblocking(True)
        lingering.submit(gunicorn_util.close_graceful, self.sock)

    close.off_the_loop = True
    gthread.TConn.close = close


def post_worker_init(worker):
    """Graceful closes off the event loop; on SIGTERM, give the Lease up at once (in a thread: a signal
    handler must not wait on the API), then stop as gunicorn does: in-flight responses may take up to
    the graceful timeout."""
    if isinstance(worker, gthread.ThreadWorker):
        _lingering_closes_off_the_loop()
    previous = signal.getsignal(signal.SIGTERM)
    if not callable(previous):
        return

    def stopping(signum, frame):
        threading.Thread(target=_give_up_status_lease, args=(worker.log,), name="lease release", daemon=True).start()
        previous(signum, frame)

    signal.signal(signal.SIGTERM, stopping)


def worker_exit(server, worker):
    _give_up_status_lease(worker.log)

"""``make demo``: the browser on a laptop, against stand-ins for the cluster, the store and the archive.

Run as ``python -m devstack.demo [--port 8000]`` (or set ``HTRFLOW_DEMO_PORT``). It starts the
Kubernetes API double, the S3 store double and the IIIF image server, loads the demo scene,
starts the simulator that moves it forward, writes a kubeconfig, a session key and a Django secret key
under ``.devstack/<port>/`` and runs the web app (Django's ``runserver``, debug off unless
``DJANGO_DEBUG`` is set) on http://127.0.0.1:<port>.
Ctrl-C or SIGTERM stops everything it started.
"""

from __future__ import annotations

import argparse
import base64
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

from devstack.store import PROJECT_PIPELINE

HOST = "127.0.0.1"
PROJECT_ROOT = Path(__file__).resolve().parent.parent
STATE_DIR = PROJECT_ROOT / ".devstack"
READY_SECONDS = 90
STOP_SECONDS = 10


class DemoError(Exception):
    """Something the person running the demo can act on, said in one sentence."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m devstack.demo", description="Run htrbrowser on the devstack.")
    default = os.environ.get("HTRFLOW_DEMO_PORT", "8000")
    parser.add_argument("--port", default=default, help="port of the web app on 127.0.0.1 (default 8000)")
    parser.add_argument(
        "--kueue-down",
        action="store_true",
        help="start with Kueue's controller crash-looping, to see what the pages say then (kueue.down)",
    )
    args = parser.parse_args(argv)
    try:
        args.port = int(args.port)
    except ValueError:
        parser.error(f"the port must be a number, not {args.port!r}")
    if not 1 <= args.port <= 65535:
        parser.error(f"the port must be between 1 and 65535, not {args.port}")
    return args


def port_is_free(port: int) -> bool:
    """True when nothing listens on HOST:port (a port in TIME_WAIT counts as free, as for runserver)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError:
            return False
    return True


def write_session_key(path: Path) -> Path:
    """A fresh session key: base64 of 32 random bytes, readable by this user only."""
    return _write_private(path, base64.b64encode(secrets.token_bytes(32)).decode("ascii"))


def write_secret_key(path: Path) -> Path:
    """A fresh Django secret key for this demo (it runs without debug, which needs one)."""
    return _write_private(path, secrets.token_urlsafe(48))


def _write_private(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text + "\n")
    return path


def web_environment(port: int, kubeconfig: Path, session_key: Path, store, state: Path) -> dict[str, str]:
    """The web app's environment: the product's production settings (devstack/demo_settings.py) with the
    demo's stand-ins. Debug stays off, so a foreign Host, too many query parameters or an unknown address
    is answered with the product's own pages, never Django's debug page with this environment in it; it
    is on only when whoever runs the demo sets DJANGO_DEBUG themselves."""
    env = dict(os.environ)
    if not (env.get("DJANGO_SECRET_KEY") or env.get("DJANGO_SECRET_KEY_FILE")):
        env["DJANGO_SECRET_KEY_FILE"] = str(write_secret_key(state / "django-secret.key"))
    env.update(
        DJANGO_SETTINGS_MODULE="devstack.demo_settings",
        HTRFLOW_HTTPS="false",
        KUBECONFIG=str(kubeconfig),
        HTRFLOW_NAMESPACES="htr-batch",
        HTRFLOW_RESULTS_NAMESPACE="htr-batch",
        S3_ENDPOINT=store.endpoint,
        S3_BUCKET=store.bucket,
        HTRFLOW_RESULTS_URL=f"http://{HOST}:{port}/results",
        HTRFLOW_SESSION_KEY_FILE=str(session_key),
        HTRFLOW_KEY_DERIVATION="none",
        # The failed-login counts of this demo, beside its other files (not the machine's /tmp).
        HTRFLOW_STATE_DIR=str(state / "limits"),
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        PYTHONUNBUFFERED="1",
    )
    return env


def login_help(scene, store, port: int) -> str:
    """What to type on the login page, and what each account will be shown."""
    denied = ", ".join(scene.volumes["limited_denied"])
    campaign = scene.situations["limited_denied"]
    accounts = store.accounts
    rows = [
        ("full", "reads every result in the namespace"),
        ("limited", f"reads every result except volumes {denied} of {campaign}"),
        ("project", f"reads only pipeline {PROJECT_PIPELINE}'s results, so it is shown only that pipeline's campaigns"),
        ("outsider", "is a valid store account that may read no results, so it is shown no campaigns"),
    ]
    lines = [
        "",
        f"htrbrowser demo is running at http://{HOST}:{port}/",
        "Log in on the site with one of these store accounts:",
    ]
    for name, sees in rows:
        account = accounts[name]
        lines.append(f"  {name:9} user {account.username:16} password {account.password:18} {sees}")
    lines += [
        "The scene moves every few seconds: pages are processed, volumes finish, a queued campaign is admitted.",
        "Press Ctrl-C to stop.",
        "",
    ]
    return "\n".join(lines)


def _die_with_parent() -> None:
    """In the web app's process: ask Linux to stop it if the demo itself is killed (best effort)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Demo:
    """Everything ``make demo`` starts, so it can all be stopped in reverse order."""

    def __init__(self, port: int, kueue_down: bool = False):
        self.port = port
        self.kueue_down = kueue_down
        self.kube = None
        self.store = None
        self.images = None
        self.simulator = None
        self.web: subprocess.Popen | None = None
        self.scene = None

    def start(self) -> None:
        # Imported only when starting: a taken port or a bad argument is answered before these load.
        from devstack.images import ImageServer  # (as above)
        from devstack.kubeapi import KubeDouble  # (as above)
        from devstack.scene import build_scene, load_scene  # (as above)
        from devstack.simulator import Simulator  # (as above)
        from devstack.store import StoreDouble  # (as above)

        print("Starting the Kubernetes API double, the S3 store double and the image server ...", flush=True)
        self.kube = KubeDouble().start(HOST, 0)
        self.store = StoreDouble().start(HOST, 0)
        self.images = ImageServer().start(HOST, 0)
        print("Loading the demo scene ...", flush=True)
        results_url = f"http://{HOST}:{self.port}/results"
        self.scene = build_scene(datetime.now(UTC), self.images.base, results_url, kueue_down=self.kueue_down)
        load_scene(self.scene, self.kube, self.store, self.images)
        self.simulator = Simulator(self.scene, self.kube, self.store, self.images).start()
        # One folder per port, so two demos side by side never rewrite each other's files.
        state = STATE_DIR / str(self.port)
        kubeconfig = self.kube.write_kubeconfig(state / "kubeconfig")
        session_key = write_session_key(state / "session.key")
        print(f"Starting the web app on http://{HOST}:{self.port}/ ...", flush=True)
        self.web = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"{HOST}:{self.port}"],
            cwd=str(PROJECT_ROOT),
            env=web_environment(self.port, kubeconfig, session_key, self.store, state),
            start_new_session=True,  # Ctrl-C reaches us; we stop the web app ourselves
            preexec_fn=_die_with_parent,
        )
        self.wait_until_ready()
        print(login_help(self.scene, self.store, self.port), flush=True)

    def wait_until_ready(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        address = f"http://{HOST}:{self.port}/healthz"
        while time.monotonic() < deadline:
            if self.web.poll() is not None:
                raise DemoError(f"the web app stopped during start-up (exit code {self.web.returncode}); see above.")
            try:
                with urllib.request.urlopen(address, timeout=2) as answer:  # noqa: S310 - our own local address
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.3)
        raise DemoError(f"the web app did not answer on {address} within {READY_SECONDS} s.")

    def stop(self) -> None:
        """Stop what was started, newest first; safe to call more than once."""
        web, self.web = self.web, None
        if web is not None and web.poll() is None:
            web.terminate()
            try:
                web.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                web.kill()
                web.wait(timeout=STOP_SECONDS)
        for name in ("simulator", "images", "store", "kube"):
            part = getattr(self, name)
            setattr(self, name, None)
            if part is not None:
                try:
                    part.stop()
                except Exception as error:  # keep stopping the rest
                    print(f"Stopping the {name} failed: {error}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not port_is_free(args.port):
        print(
            f"Port {args.port} on {HOST} is already in use: stop what uses it or choose another with --port.",
            file=sys.stderr,
        )
        return 2
    stopping = threading.Event()

    def ask_to_stop(signum, frame):
        stopping.set()
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, ask_to_stop)
    signal.signal(signal.SIGINT, ask_to_stop)
    demo = Demo(args.port, kueue_down=args.kueue_down)
    code = 0
    try:
        demo.start()
        while demo.web.poll() is None:
            time.sleep(0.5)
        print(f"The web app stopped (exit code {demo.web.returncode}); stopping the demo.", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        print("\nStopping the demo ...", flush=True)
    except DemoError as error:
        print(f"The demo could not start: {error}", file=sys.stderr)
        code = 1
    except Exception as error:  # a stand-in failed to start: one sentence, not a traceback
        print(f"The demo could not start: {type(error).__name__}: {error}", file=sys.stderr)
        code = 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        demo.stop()
    if code == 0:
        print("Demo stopped.", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())

"""The product as production runs it: the Dockerfile's gunicorn command, a deployment's settings.

`App(kubeconfig=..., s3_endpoint=...)` collects the static files (the image does so at build time),
starts gunicorn with the Dockerfile's CMD bound to a free local port, and waits for `/healthz`.
Everything else is left at its default (snapshot period, status records, namespaces).
`cpu_seconds()` and `rss()` read /proc: the master's own time plus that of the workers it reaped,
and each live worker's; `login()` logs in through the product's own login.
"""

from __future__ import annotations

import base64
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

from benchmarks.archive.servers import ROOT

TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
START_TIMEOUT = 60.0
PR_SET_PDEATHSIG = 1


def dockerfile_command(port: int, threads: int | None = None) -> list[str]:
    """The image's CMD (parsed from the Dockerfile, so it stays in step), bound to 127.0.0.1:port;
    ``threads`` replaces its thread count (to compare sizes side by side)."""
    line = next(line for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("CMD "))
    command = json.loads(line[4:])
    command[command.index("--bind") + 1] = f"127.0.0.1:{port}"
    if threads is not None:
        command[command.index("--threads") + 1] = str(threads)
    return [str(Path(sys.executable).parent / command[0]), *command[1:]]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM when the benchmark dies, so gunicorn never outlives it."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # fields from the third (state) on


class App:
    def __init__(
        self, folder: Path, kubeconfig: str, s3_endpoint: str, bucket: str, threads: int | None = None
    ):
        self.threads = threads
        self.folder = folder
        key_file = folder / "session-key"
        key_file.write_text(base64.b64encode(os.urandom(32)).decode() + "\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HTRFLOW_", "S3_", "KUBE"))}
        env.update(
            KUBECONFIG=kubeconfig,
            S3_ENDPOINT=s3_endpoint,
            S3_BUCKET=bucket,
            HTRFLOW_SESSION_KEY_FILE=str(key_file),
            DJANGO_SECRET_KEY=base64.b64encode(os.urandom(40)).decode(),
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            DJANGO_STATIC_ROOT=str(folder / "static"),
            HTRFLOW_HTTPS="false",
        )
        self.env = env
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.log_path = folder / "gunicorn.log"

    def start(self) -> App:
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput"], cwd=ROOT, env=self.env,
                       check=True, capture_output=True, timeout=120)
        self.started = time.monotonic()
        with self.log_path.open("wb") as log:
            command = dockerfile_command(self.port, self.threads)
            self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log,
                                            stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn stopped at start:\n{self.log_tail()}")
            try:
                requests.get(self.base + "/healthz", timeout=2)
                if len(self.workers()) >= 1:
                    self.ready_seconds = time.monotonic() - self.started
                    return self
            except requests.RequestException:  # not listening yet, or workers still booting
                pass
            time.sleep(0.1)
        raise RuntimeError(f"gunicorn did not answer within {START_TIMEOUT:g} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)

    # --- what the processes cost -------------------------------------------------------------------

    def workers(self) -> list[int]:
        if self.process is None:
            return []
        master = self.process.pid
        try:
            children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        except OSError:
            return []
        return [int(pid) for pid in children]

    def cpu_seconds(self) -> float:
        """utime+stime of the master and its live workers, plus what its reaped workers used."""
        master = _stat(self.process.pid)
        total = sum(int(master[i]) for i in (11, 12, 13, 14)) if master else 0
        for pid in self.workers():
            fields = _stat(pid)
            if fields:
                total += int(fields[11]) + int(fields[12])
        return total / TICK

    def rss(self) -> dict[int, int]:
        """Resident bytes of each live worker."""
        found = {}
        for pid in self.workers():
            fields = _stat(pid)
            if fields:
                found[pid] = int(fields[21]) * PAGE
        return found

    def login(self, username: str, password: str) -> requests.Session:
        """A session logged in through POST /results/_login, as the login page's script does."""
        session = requests.Session()
        answer = session.post(self.base + "/results/_login", json={"username": username, "password": password},
                              headers={"Origin": self.base}, timeout=30)
        if answer.status_code != 204:
            raise RuntimeError(f"login as {username} answered {answer.status_code}: {answer.text[:200]}")
        return session

"""The benchmark's stand-ins, in a child process of their own.

The Kubernetes double serialises ~60 MB per full snapshot; in the benchmark's own process that
work would compete with the simulated tabs for the GIL and inflate the latencies they measure.
So a child runs the double and the S3 store double with the archive loaded, and three counting
forwarders (`tcpcount.Forwarder`): `kube` (the product's way to the API server), `raw` (the
benchmark's own list calls, counted apart) and `store` (S3 requests by method and key suffix).

`Servers()` starts the child and reads its addresses; `counts()` asks for the forwarders'
counters; `move(True)` lets the scene advance every few seconds (`Archive.advance`);
`misbehave_watches(mode)` has the Kubernetes double answer watches badly (the soak's expired watches). The child
leaves, stopping everything it started, when its stdin closes, so it never outlives the benchmark.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

from benchmarks.archive.size import SCALE

ROOT = Path(__file__).resolve().parents[2]
MOVE_SECONDS = 5.0
START_TIMEOUT = 120.0 * SCALE  # building the archive takes longer the bigger it is


class Servers:
    """Parent side: start the child, ask it things, stop it."""

    def __init__(self):
        self._process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.archive.servers"],
            cwd=str(ROOT),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            self.info = self._reply(START_TIMEOUT)
        except BaseException:
            self.stop()
            raise

    def _reply(self, timeout: float) -> dict:
        answer: dict = {}
        reader = threading.Thread(target=lambda: answer.update(line=self._process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        if not answer.get("line"):
            raise RuntimeError("the benchmark's servers did not answer (see the errors above)")
        return json.loads(answer["line"])

    def ask(self, op: str, **values) -> dict:
        self._process.stdin.write(json.dumps({"op": op, **values}) + "\n")
        self._process.stdin.flush()
        return self._reply(30.0)

    def counts(self) -> dict:
        return self.ask("counts")

    def move(self, moving: bool) -> dict:
        return self.ask("move", moving=moving)

    def misbehave_watches(self, mode: str | None) -> dict:
        """Have the Kubernetes double answer every watch as `mode` says (devstack.kube_watch), or well (None)."""
        return self.ask("misbehave", mode=mode)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        process.stdout.close()

    def __enter__(self) -> Servers:
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()


# --- the child -----------------------------------------------------------------------------------


def _kubeconfig(kube, folder: Path, server: str) -> Path:
    """The double's kubeconfig, pointed at `server` (the counting forwarder) instead of the double."""
    path = kube.write_kubeconfig(folder / "kubeconfig")
    config = yaml.safe_load(path.read_text())
    config["clusters"][0]["cluster"]["server"] = server
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


class _Mover:
    """Advances the scene every MOVE_SECONDS while moving is on."""

    def __init__(self, archive):
        self.archive = archive
        self.moving = threading.Event()
        self.stopping = threading.Event()
        self.moved = 0
        self.thread = threading.Thread(target=self._run, name="scene-mover", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopping.wait(MOVE_SECONDS):
            if self.moving.is_set():
                self.moved += self.archive.advance()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=10)


def _serve() -> None:
    from benchmarks.archive.scene import Archive
    from benchmarks.archive.tcpcount import Forwarder
    from devstack.kubeapi import KubeDouble
    from devstack.store import StoreDouble

    began = time.monotonic()
    folder = Path(tempfile.mkdtemp(prefix="bench-archive-"))
    kube = KubeDouble().start()
    stopping = [kube.stop, lambda: shutil.rmtree(folder, ignore_errors=True)]
    try:
        store = StoreDouble().start()
        stopping.insert(0, store.stop)
        archive = Archive(kube, store)
        built = archive.load()
        kube_port = int(kube.url.rsplit(":", 1)[1])
        forwarders = {
            "kube": Forwarder(("127.0.0.1", kube_port)).start(),
            "raw": Forwarder(("127.0.0.1", kube_port)).start(),
            "store": Forwarder((store.host, int(store.endpoint.rsplit(":", 1)[1])), count_requests=True).start(),
        }
        stopping[:0] = [f.stop for f in forwarders.values()]
        mover = _Mover(archive)
        stopping.insert(0, mover.stop)
        _say(
            {
                "kubeconfig": str(_kubeconfig(kube, folder, forwarders["kube"].url)),
                "raw_url": forwarders["raw"].url,
                "token": kube.token,
                "s3_endpoint": forwarders["store"].url,
                "bucket": store.bucket,
                "namespace": store.namespace,
                "built": built,
                "build_seconds": round(time.monotonic() - began, 1),
            }
        )
        for line in sys.stdin:
            command = json.loads(line)
            if command["op"] == "counts":
                _say({name: f.counts() for name, f in forwarders.items()} | {"moved": mover.moved})
            elif command["op"] == "move":
                (mover.moving.set if command["moving"] else mover.moving.clear)()
                _say({"moving": mover.moving.is_set(), "moved": mover.moved})
            elif command["op"] == "misbehave":
                kube.misbehave_watches(command["mode"])
                _say({"misbehaving": kube.watch_misbehaviour})
            else:
                _say({"error": f"unknown command {command['op']!r}"})
    finally:
        for stop in stopping:
            stop()


def _say(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    _serve()

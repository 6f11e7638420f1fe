"""A TCP forwarder that counts what crosses it, so traffic is measured on the wire.

`Forwarder(("127.0.0.1", port)).start()` listens on a free local port and relays every connection
to the target, counting bytes each way whatever the server or the client do. With
`count_requests=True` it also reads the HTTP/1.1 requests going up (request line, `Content-Length`
bodies skipped) and counts them by method and key suffix, e.g. `GET progress.json`. A connection
whose requests it cannot follow (chunked bodies) is counted in `unparsed` and still relayed.
"""

from __future__ import annotations

import socket
import threading
from collections import Counter
from urllib.parse import unquote, urlsplit

CHUNK = 256 * 1024
HEAD_MAX = 64 * 1024


def key_suffix(path: str) -> str:
    """What a request asks for, by the end of its key: 'progress.json', '.xml', '/' for a prefix."""
    last = unquote(urlsplit(path).path).rsplit("/", 1)[-1]
    if not last:
        return "/"
    if last.endswith(".json"):
        return last
    return "." + last.rsplit(".", 1)[1] if "." in last else "other"


class _RequestReader:
    """Follows the HTTP requests of one connection as bytes arrive; calls `seen(method, path)`."""

    def __init__(self, seen):
        self.seen = seen
        self.buffer = b""
        self.body_left = 0
        self.lost = False

    def feed(self, data: bytes) -> None:
        if self.lost:
            return
        self.buffer += data
        while True:
            if self.body_left:
                taken = min(self.body_left, len(self.buffer))
                self.buffer, self.body_left = self.buffer[taken:], self.body_left - taken
                if self.body_left:
                    return
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                self.lost = len(self.buffer) > HEAD_MAX
                return
            head, self.buffer = self.buffer[:end].decode("latin-1"), self.buffer[end + 4 :]
            lines = head.split("\r\n")
            method, _, rest = lines[0].partition(" ")
            self.seen(method, rest.rpartition(" ")[0])
            fields = (line.partition(":") for line in lines[1:])
            headers = {name.strip().lower(): value.strip() for name, _, value in fields}
            if "chunked" in headers.get("transfer-encoding", "").lower():
                self.lost = True
                return
            self.body_left = int(headers.get("content-length") or 0)


class Forwarder:
    """Relay 127.0.0.1:<port> to `target`, counting bytes (and HTTP requests when asked)."""

    def __init__(self, target: tuple[str, int], count_requests: bool = False):
        self.target = target
        self.count_requests = count_requests
        self._lock = threading.Lock()
        self._up = self._down = self._connections = self._unparsed = 0
        self._requests: Counter = Counter()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._threads: list[threading.Thread] = []

    def start(self) -> Forwarder:
        listener = socket.create_server(("127.0.0.1", 0))
        listener.settimeout(0.5)  # so that stop() is noticed: closing does not wake accept()
        self._listener = listener
        thread = threading.Thread(target=self._accept, name="forwarder", daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    @property
    def port(self) -> int:
        return self._listener.getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def counts(self) -> dict:
        with self._lock:
            return {
                "bytes_up": self._up,
                "bytes_down": self._down,
                "connections": self._connections,
                "unparsed": self._unparsed,
                "requests": {f"{m} {s}": n for (m, s), n in self._requests.items()},
            }

    def stop(self) -> None:
        listener, self._listener = self._listener, None
        if listener is None:
            return
        listener.close()
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        for thread in self._threads:
            thread.join(timeout=5)

    # --- relaying -------------------------------------------------------------------------------

    def _accept(self) -> None:
        while (listener := self._listener) is not None:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            try:
                server = socket.create_connection(self.target, timeout=10)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self._connections += 1
                self._sockets.update((client, server))
            reader = _RequestReader(self._seen) if self.count_requests else None
            for source, sink, upward in ((client, server, True), (server, client, False)):
                thread = threading.Thread(
                    target=self._pump, args=(source, sink, upward, reader), name="forwarder-pump", daemon=True
                )
                thread.start()
                self._threads.append(thread)
            self._threads = [t for t in self._threads if t.is_alive()]

    def _seen(self, method: str, path: str) -> None:
        with self._lock:
            self._requests[(method, key_suffix(path))] += 1

    def _pump(self, source: socket.socket, sink: socket.socket, upward: bool, reader: _RequestReader | None) -> None:
        try:
            while True:
                data = source.recv(CHUNK)
                if not data:
                    break
                if upward and reader is not None:
                    was_lost = reader.lost
                    reader.feed(data)
                    if reader.lost and not was_lost:
                        with self._lock:
                            self._unparsed += 1
                with self._lock:
                    if upward:
                        self._up += len(data)
                    else:
                        self._down += len(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            try:
                sink.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            with self._lock:
                done = source not in self._sockets or sink not in self._sockets
                self._sockets.discard(source)
            if done:
                source.close()
                sink.close()

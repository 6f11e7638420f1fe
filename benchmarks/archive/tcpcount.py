"""A TCP forwarder that counts what crosses it, so traffic is measured on the wire.

`Forwarder(("127.0.0.1", port)).start()` listens on a free local port and relays every connection
to the target, counting bytes each way whatever the server or the client do. With
`count_requests=True` it also reads the HTTP/1.1 requests going up (request line, `Content-Length`
bodies skipped) and counts them by method and key suffix, e.g. `GET progress.json`. A connection
whose requests it cannot follow (chunked bodies) is counted in `unparsed` and still relayed.
The relaying itself is benchmarks/relay.py's.
"""

from __future__ import annotations

from collections import Counter
from urllib.parse import unquote, urlsplit

from benchmarks.relay import Relay

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


class Forwarder(Relay):
    """Relay 127.0.0.1:<port> to `target`, counting bytes (and HTTP requests when asked)."""

    def __init__(self, target: tuple[str, int], count_requests: bool = False):
        super().__init__(target, "forwarder")
        self.count_requests = count_requests
        self._up = self._down = self._unparsed = 0
        self._requests: Counter = Counter()

    def start(self) -> Forwarder:
        self._listen_on(0)
        return self

    def counts(self) -> dict:
        with self._lock:
            return {
                "bytes_up": self._up,
                "bytes_down": self._down,
                "connections": self.connections,
                "unparsed": self._unparsed,
                "requests": {f"{m} {s}": n for (m, s), n in self._requests.items()},
            }

    def stop(self) -> None:
        """Stop, and wait for the cut connections' pumps so that the counts are final."""
        self._stopped = True
        for pair in self._unlisten():
            for pump in pair.pumps:
                pump.join(timeout=5)

    # --- counting -------------------------------------------------------------------------------

    def _new_state(self) -> _RequestReader | None:
        return _RequestReader(self._seen) if self.count_requests else None

    def _seen(self, method: str, path: str) -> None:
        with self._lock:
            self._requests[(method, key_suffix(path))] += 1

    def _passing(self, data: bytes, upward: bool, state: object) -> None:
        lost = False
        if upward and isinstance(reader := state, _RequestReader):
            was_lost = reader.lost
            reader.feed(data)
            lost = reader.lost and not was_lost
        with self._lock:
            self._unparsed += int(lost)
            if upward:
                self._up += len(data)
            else:
                self._down += len(data)

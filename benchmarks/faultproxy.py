"""A TCP proxy that can play a server going away or slowing down, for the soak (bench_soak.py).

`FaultProxy(("127.0.0.1", port)).start()` listens on a free local port outside the kernel's
ephemeral range (so no outgoing connection takes it while the proxy is "gone") and relays every
connection to the target. Three states, switched from any thread:

- `forward()`: relay (the start state; after `refuse()` it listens on the same port again);
- `refuse()`: stop listening and cut every open connection both ways, as a server that went away:
  new connections are refused by the kernel (ECONNREFUSED), open ones end at once;
- `delay(seconds)`: relay, but hold every piece a client sends `seconds` before passing it on, so
  every answer comes at least that late (a slow server; a stream already flowing down is not held).

It knows nothing of HTTP; `connections` counts those accepted, `refused_cuts` those it cut.
"""

from __future__ import annotations

import random
import socket
import threading
import time

CHUNK = 256 * 1024
ACCEPT_POLL = 0.2  # seconds: how soon a listener closed by refuse() or stop() is noticed


def _ephemeral_range() -> tuple[int, int]:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as ports:
            low, high = (int(value) for value in ports.read().split())
        return low, high
    except (OSError, ValueError):
        return 32768, 60999


def _listen(port: int) -> socket.socket:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("127.0.0.1", port))
        listener.listen(128)
    except OSError:
        listener.close()
        raise
    listener.settimeout(ACCEPT_POLL)
    return listener


def _free_port_below_ephemeral() -> int:
    low, _high = _ephemeral_range()
    for _ in range(200):
        port = random.randint(max(1025, low - 12000), low - 1)
        try:
            _listen(port).close()
        except OSError:
            continue
        return port
    raise RuntimeError("no free port below the ephemeral range for the fault proxy")


class FaultProxy:
    """Relay 127.0.0.1:<port> to `target`; `refuse()`, `delay(s)` and `forward()` change how."""

    def __init__(self, target: tuple[str, int], name: str = "proxy"):
        self.target = target
        self.name = name
        self.port = 0
        self.connections = 0
        self.refused_cuts = 0
        self._delay = 0.0
        self._lock = threading.Lock()
        self._pairs: dict[tuple[socket.socket, socket.socket], int] = {}  # each pair: its pumps ended
        self._listener: socket.socket | None = None
        self._accepting: threading.Thread | None = None
        self._stopped = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def state(self) -> str:
        if self._listener is None:
            return "refusing"
        return f"delaying {self._delay:g} s" if self._delay else "forwarding"

    def start(self) -> FaultProxy:
        self.port = _free_port_below_ephemeral()
        self.forward()
        return self

    def forward(self) -> None:
        """Relay at once (listening again after `refuse()`)."""
        self._delay = 0.0
        with self._lock:
            if self._listener is not None or self._stopped:
                return
            self._listener = _listen(self.port)
            self._accepting = threading.Thread(
                target=self._accept, args=(self._listener,), name=f"{self.name}-accept", daemon=True
            )
            self._accepting.start()

    def delay(self, seconds: float) -> None:
        """Hold what clients send `seconds` before relaying it (listening, if refusing)."""
        self.forward()
        self._delay = float(seconds)

    def refuse(self) -> None:
        """Stop listening and cut every open connection: a server that went away."""
        with self._lock:
            listener, self._listener = self._listener, None
            accepting, self._accepting = self._accepting, None
            pairs = list(self._pairs)
            self._pairs.clear()
            self.refused_cuts += len(pairs)
        if listener is not None:
            listener.close()
        if accepting is not None:
            accepting.join(ACCEPT_POLL * 10)
        for pair in pairs:
            _cut(*pair)

    def stop(self) -> None:
        self._stopped = True
        self.refuse()

    # --- relaying -------------------------------------------------------------------------------

    def _accept(self, listener: socket.socket) -> None:
        while self._listener is listener:
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
            pair = (client, server)
            with self._lock:
                if self._listener is not listener:  # refused meanwhile: this one goes too
                    _cut(*pair)
                    return
                self.connections += 1
                self._pairs[pair] = 0
            for source, sink, upward in ((client, server, True), (server, client, False)):
                threading.Thread(
                    target=self._pump, args=(pair, source, sink, upward), name=f"{self.name}-pump", daemon=True
                ).start()

    def _pump(self, pair, source: socket.socket, sink: socket.socket, upward: bool) -> None:
        try:
            while True:
                data = source.recv(CHUNK)
                if not data:
                    break
                held = self._delay if upward else 0.0
                if held:
                    time.sleep(held)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            try:
                sink.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            with self._lock:
                ended = self._pairs.get(pair)
                if ended is not None:  # not cut by refuse(): the second pump to end closes the pair
                    self._pairs[pair] = ended + 1
                    last = ended == 1
                    if last:
                        del self._pairs[pair]
                else:
                    last = False
            if last:
                _close(*pair)


def _cut(*sockets: socket.socket) -> None:
    for sock in sockets:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    _close(*sockets)


def _close(*sockets: socket.socket) -> None:
    for sock in sockets:
        try:
            sock.close()
        except OSError:
            pass

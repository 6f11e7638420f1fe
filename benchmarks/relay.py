"""The TCP relay under the benchmarks' fault proxy (faultproxy.py) and counting forwarder (archive/tcpcount.py).

A `Relay` listens on 127.0.0.1 and, for every connection it accepts, connects to its target
(10 s to connect; a client whose target will not answer is closed) and runs two pumps, one each way.
A pump reads up to CHUNK bytes, shows them to `_passing(data, upward, state)` (the subclass's part:
count them, hold them back) and sends them on; at the end of its stream it shuts the other side's
writing half, so each direction ends by itself, and the second pump to end closes the pair.
`_unlisten()` closes the listener (its accept thread notices within ACCEPT_POLL) and cuts every
open pair both ways at once; `_listen_on(port)` listens again, on the same port if asked. After
`stop()` it never listens again. `connections` counts the pairs made, `url` is where clients go.
"""

from __future__ import annotations

import socket
import threading

CHUNK = 256 * 1024
ACCEPT_POLL = 0.2  # seconds: how soon a listener closed by `_unlisten()` is noticed (closing does not wake accept())


def listen(port: int) -> socket.socket:
    """A listener on 127.0.0.1:`port` (0: any free port), accepting with a timeout of ACCEPT_POLL."""
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


class _Pair:
    """One relayed connection: the client's socket, the target's, their pumps and the subclass's state."""

    def __init__(self, client: socket.socket, server: socket.socket, state: object):
        self.sockets = (client, server)
        self.state = state
        self.pumps: list[threading.Thread] = []
        self.ended = 0


class Relay:
    """Relay 127.0.0.1:<port> to `target`; subclasses say what happens to the bytes on the way."""

    def __init__(self, target: tuple[str, int], name: str):
        self.target = target
        self.name = name
        self.port = 0
        self.connections = 0
        self._lock = threading.Lock()
        self._pairs: set[_Pair] = set()
        self._listener: socket.socket | None = None
        self._accepting: threading.Thread | None = None
        self._stopped = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop listening and cut every open connection, for good."""
        self._stopped = True
        self._unlisten()

    # --- hooks ----------------------------------------------------------------------------------

    def _new_state(self) -> object:
        """What `_passing` is given for every piece of one new connection (None here)."""
        return None

    def _passing(self, data: bytes, upward: bool, state: object) -> None:
        """Called in the pump before `data` is sent on (`upward`: from the client to the target)."""

    # --- listening ------------------------------------------------------------------------------

    def _listen_on(self, port: int) -> None:
        """Listen on `port` (0: any free one) and relay, unless listening already or stopped."""
        with self._lock:
            if self._listener is not None or self._stopped:
                return
            self._listener = listen(port)
            self.port = self._listener.getsockname()[1]
            self._accepting = threading.Thread(
                target=self._accept, args=(self._listener,), name=f"{self.name}-accept", daemon=True
            )
            self._accepting.start()

    def _unlisten(self) -> list[_Pair]:
        """Stop listening and cut every open pair both ways; returns the pairs cut."""
        with self._lock:
            listener, self._listener = self._listener, None
            accepting, self._accepting = self._accepting, None
            pairs = list(self._pairs)
            self._pairs.clear()
        if listener is not None:
            listener.close()
        if accepting is not None:
            accepting.join(ACCEPT_POLL * 10)
        for pair in pairs:
            _cut(*pair.sockets)
        return pairs

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
            pair = _Pair(client, server, self._new_state())
            with self._lock:
                if self._listener is not listener:  # unlistened meanwhile: this one goes too
                    _cut(client, server)
                    return
                self.connections += 1
                self._pairs.add(pair)
                for source, sink, upward in ((client, server, True), (server, client, False)):
                    pump = threading.Thread(
                        target=self._pump, args=(pair, source, sink, upward), name=f"{self.name}-pump", daemon=True
                    )
                    pair.pumps.append(pump)
                    pump.start()

    def _pump(self, pair: _Pair, source: socket.socket, sink: socket.socket, upward: bool) -> None:
        try:
            while True:
                data = source.recv(CHUNK)
                if not data:
                    break
                self._passing(data, upward, pair.state)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            try:
                sink.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            with self._lock:
                pair.ended += 1
                last = pair.ended == 2 and pair in self._pairs  # not cut: the second pump to end closes
                if last:
                    self._pairs.discard(pair)
            if last:
                _close(*pair.sockets)


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

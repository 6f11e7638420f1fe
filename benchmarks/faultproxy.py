"""A TCP proxy that can play a server going away or slowing down, for the soak (bench_soak.py).

`FaultProxy(("127.0.0.1", port)).start()` listens on a free local port outside the kernel's
ephemeral range (so no outgoing connection takes it while the proxy is "gone") and relays every
connection to the target (the relaying itself: relay.py). Three states, switched from any thread:

- `forward()`: relay (the start state; after `refuse()` it listens on the same port again);
- `refuse()`: stop listening and cut every open connection both ways, as a server that went away:
  new connections are refused by the kernel (ECONNREFUSED), open ones end at once;
- `delay(seconds)`: relay, but hold every piece a client sends `seconds` before passing it on, so
  every answer comes at least that late (a slow server; a stream already flowing down is not held).

It knows nothing of HTTP; `connections` counts those accepted, `refused_cuts` those it cut.
"""

from __future__ import annotations

import random
import threading
import time

from benchmarks.relay import Relay, listen


def _ephemeral_range() -> tuple[int, int]:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as ports:
            low, high = (int(value) for value in ports.read().split())
        return low, high
    except (OSError, ValueError):
        return 32768, 60999


def _free_port_below_ephemeral() -> int:
    low, _high = _ephemeral_range()
    for _ in range(200):
        port = random.randint(max(1025, low - 12000), low - 1)
        try:
            listen(port).close()
        except OSError:
            continue
        return port
    raise RuntimeError("no free port below the ephemeral range for the fault proxy")


class FaultProxy(Relay):
    """Relay 127.0.0.1:<port> to `target`; `refuse()`, `delay(s)` and `forward()` change how."""

    def __init__(self, target: tuple[str, int], name: str = "proxy"):
        super().__init__(target, name)
        self.refused_cuts = 0
        self._delay = 0.0
        self._cuts_lock = threading.Lock()

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
        self._listen_on(self.port)

    def delay(self, seconds: float) -> None:
        """Hold what clients send `seconds` before relaying it (listening, if refusing)."""
        self.forward()
        self._delay = float(seconds)

    def refuse(self) -> None:
        """Stop listening and cut every open connection: a server that went away."""
        cut = self._unlisten()
        with self._cuts_lock:
            self.refused_cuts += len(cut)

    def stop(self) -> None:
        self._stopped = True
        self.refuse()

    def _passing(self, data: bytes, upward: bool, state: object) -> None:
        if upward and (held := self._delay):
            time.sleep(held)

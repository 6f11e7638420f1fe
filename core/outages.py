"""Expected outages, logged once per change of state instead of once per request.

A store or cluster that stops answering makes every request fail the same way; an operator needs
to read "it broke at 14:02, with this sentence" and "it works again at 14:09", not one ERROR line
(with a traceback) per request in between. `Outage(name)` remembers, per process, whether the
thing it watches is working; `failing(sentence)` logs one WARNING when it starts failing (or starts
failing for another reason), `working()` one WARNING when it answers again.
"""

from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger("core.outages")

MAX_SENTENCE = 300


class Outage:
    def __init__(self, name: str, logger: logging.Logger | None = None):
        self.name = name
        self.logger = logger or log
        self._lock = threading.Lock()
        self._sentence: str | None = None  # None: working
        self._since = 0.0

    @property
    def is_failing(self) -> bool:
        return self._sentence is not None

    def failing(self, sentence: str, **fields) -> bool:
        """Note a failure; True (and one WARNING) when this is a change of state or of reason."""
        sentence = " ".join(str(sentence).split())[:MAX_SENTENCE] or "no reason given"
        with self._lock:
            if self._sentence == sentence:
                return False
            started = self._sentence is None
            self._sentence = sentence
            if started:
                self._since = time.monotonic()
        self.logger.warning(
            "%s failing: %s",
            self.name,
            sentence,
            extra={"outage": self.name, "state": "failing", "sentence": sentence, **fields},
        )
        return True

    def working(self, **fields) -> bool:
        """Note a success; True (and one WARNING) when it was failing until now."""
        with self._lock:
            if self._sentence is None:
                return False
            self._sentence = None
            lasted = time.monotonic() - self._since
        self.logger.warning(
            "%s working again after %.0f s",
            self.name,
            lasted,
            extra={"outage": self.name, "state": "working", "failed_seconds": round(lasted, 1), **fields},
        )
        return True

    def reset(self) -> None:
        """Tests: start from "working" without logging."""
        with self._lock:
            self._sentence = None

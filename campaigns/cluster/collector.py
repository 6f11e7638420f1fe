"""Python's cyclic garbage collector, kept off what the readings hold.

A full pass of the collector walks every object it tracks and holds every thread meanwhile. At five
times the archive a namespace's reading is about 400 000 such objects (campaigns, volumes, their
sentences, the informers' objects): each full pass took about 300 ms, came about twice a minute
with no tab open and more often with 50 tabs polling, and freed nothing (a reading makes no
reference cycles; what it drops is freed as its last reference goes). Those pauses, not the
readings' own work, were the polls' slowest answers.

So after each reading everything the process holds is set aside from the collector (`gc.freeze`,
which costs nothing): its automatic passes look only at what came since, and stay short. Objects
are still freed as their last reference goes; only garbage caught in a cycle waits while frozen.
To bound that wait, once every `THAW_SECONDS` the frozen objects are handed back and collected in
one full pass, in a board's thread after its reading (one pause every ten minutes).
"""

from __future__ import annotations

import gc
import threading
import time

THAW_SECONDS = 600.0

_lock = threading.Lock()
_last_thaw = {"at": time.monotonic()}


def after_reading() -> None:
    """Set aside from the collector what the process holds now; every `THAW_SECONDS`, first hand back
    and collect what was set aside before."""
    with _lock:
        if time.monotonic() - _last_thaw["at"] >= THAW_SECONDS:
            gc.unfreeze()
            gc.collect()
            _last_thaw["at"] = time.monotonic()
        gc.freeze()

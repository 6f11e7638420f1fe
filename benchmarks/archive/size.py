"""How big the archive benchmark's archive is: `ARCHIVE_SCALE` (a whole number, 1 unless set).

At 1 (`make bench-archive`): 40 campaigns of 5 000 volumes (2 880 pods, 800 running), 2 volumes
finishing per 5 s, 20 tabs. At 5 (`make bench-archive ARCHIVE_SCALE=5`): 200 campaigns (1 000 000
volumes, 14 400 pods, 4 000 running), 10 volumes per 5 s, 50 tabs. Campaigns and the rate of
change grow with the scale; tabs are 20, or 10 per unit of scale when that is more.
The benchmark's child process (the stand-ins) reads the same variable, so both sides agree.
"""

from __future__ import annotations

import os

SCALE_VARIABLE = "ARCHIVE_SCALE"
MAX_SCALE = 10


def scale() -> int:
    text = os.environ.get(SCALE_VARIABLE, "").strip() or "1"
    try:
        value = int(text)
    except ValueError:
        raise SystemExit(f"{SCALE_VARIABLE} must be a whole number from 1 to {MAX_SCALE}, not {text!r}") from None
    if not 1 <= value <= MAX_SCALE:
        raise SystemExit(f"{SCALE_VARIABLE} must be a whole number from 1 to {MAX_SCALE}, not {value}")
    return value


SCALE = scale()
CAMPAIGNS = 40 * SCALE
FINISHING_PER_STEP = 2 * SCALE  # 800 pods per 40 campaigns at ~30 min a volume: ~2 per 5 s
TABS = max(20, 10 * SCALE)

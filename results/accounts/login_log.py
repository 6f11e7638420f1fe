"""One log line and one count per login attempt: who, from where, and how it ended. Never a secret.

The user name is what was typed (bounded; control characters never get this far), the address is
the client's as `results.accounts.forwarded.client_address` determines it behind trusted proxies.
"""

from __future__ import annotations

import logging

from core import metrics

log = logging.getLogger("results.accounts.login")
MAX_SHOWN = 128


def login_ended(address: str, username: str, outcome: str, limit: str | None = None) -> None:
    """`outcome`: `accepted`, or a refusal reason (`wrong`, `rate_limited`, `unreachable`, ...)."""
    user = str(username)[:MAX_SHOWN]
    metrics.login(outcome)
    fields = {"user": user, "client": address, "outcome": outcome}
    if limit:
        metrics.login_refused(limit)
        fields["limit"] = limit
        log.info("Login by %r from %s refused by the %s rate limit.", user, address, limit, extra=fields)
    elif outcome == "accepted":
        log.info("Login accepted for %r from %s.", user, address, extra=fields)
    else:
        log.info("Login by %r from %s refused: %s.", user, address, outcome, extra=fields)

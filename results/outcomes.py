"""What can happen when the results store is asked, and what each means for a person.

The file route, the login and the in-process reader share these, so one store
answer reads the same wherever it surfaces.
"""

import enum
from dataclasses import dataclass
from datetime import datetime


class Outcome(enum.StrEnum):
    NO_SESSION = "no_session"
    SESSION_ENDED = "session_ended"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    BAD_KEY = "bad_key"
    UNSATISFIABLE = "unsatisfiable"
    NO_REASON = "no_reason"
    UNREACHABLE = "unreachable"
    TIMEOUT = "timeout"


STATUS = {
    Outcome.NO_SESSION: 401,
    Outcome.SESSION_ENDED: 401,
    Outcome.FORBIDDEN: 403,
    Outcome.NOT_FOUND: 404,
    Outcome.BAD_KEY: 404,
    Outcome.UNSATISFIABLE: 416,
    Outcome.NO_REASON: 502,
    Outcome.UNREACHABLE: 502,
    Outcome.TIMEOUT: 504,
}

SENTENCE = {
    Outcome.NO_SESSION: "Log in with your store account to read results.",
    Outcome.SESSION_ENDED: "The results store no longer accepts your login; log in again.",
    Outcome.FORBIDDEN: "Your store account may not read this file.",
    Outcome.NOT_FOUND: "The results store has no file at this address.",
    Outcome.BAD_KEY: "This address does not name a results file.",
    Outcome.UNSATISFIABLE: "The requested byte range lies outside the file.",
    Outcome.NO_REASON: (
        "The results store refused without giving a reason; the bucket or namespace may be set wrongly."
    ),
    Outcome.UNREACHABLE: "The results store could not be reached.",
    Outcome.TIMEOUT: "The results store did not answer in time.",
}


class StoreError(Exception):
    """A store answer that is not the file: an outcome, its HTTP status and a sentence for a person."""

    def __init__(self, outcome, sentence=None):
        self.outcome = Outcome(outcome)
        self.status = STATUS[self.outcome]
        self.sentence = sentence or SENTENCE[self.outcome]
        super().__init__(self.sentence)


class NotModified(Exception):
    """The store says the copy the client holds is current (a conditional GET answered 304)."""

    def __init__(self, etag=None, last_modified=None):
        self.etag = etag
        self.last_modified = last_modified
        super().__init__("not modified")


@dataclass(frozen=True)
class Blob:
    """Bytes read from one object: ``body`` is bytes ``start``..``end`` (inclusive) of ``size``."""

    key: str
    body: bytes
    size: int
    start: int
    end: int
    etag: str | None
    last_modified: datetime | None
    content_type: str | None

    @property
    def complete(self):
        """True when the body is the whole object."""
        return self.start == 0 and len(self.body) == self.size

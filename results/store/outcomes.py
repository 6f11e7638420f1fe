"""What can happen when the results store is asked, and what each means for a person.

The file route, the login and the in-process reader share these, so one store
answer reads the same wherever it surfaces.
"""

import enum
import logging
from dataclasses import dataclass
from datetime import datetime

from botocore.exceptions import ClientError, ConnectTimeoutError, ReadTimeoutError, SSLError
from django.utils.translation import gettext_lazy

logger = logging.getLogger("results.store.s3")
# When to ask again after the store could not be reached or did not answer in time (Retry-After on a
# raw file): long enough for a store's pod to restart, short enough for a person; `curl --retry` waits it.
STORE_RETRY_AFTER_SECONDS = 30
WRONG_ACCOUNT_CODES = {"InvalidAccessKeyId", "SignatureDoesNotMatch"}
# Why a store that answered nothing usable was not reached (``StoreError.cause``): a page that says one
# sentence per outcome (a card's progress) can still tell these apart from a store that is down.
TLS = "tls"  # the TLS handshake failed: the store's certificate was not accepted (S3_VERIFY_TLS, S3_ENDPOINT)
STORE_FAULT = "store_fault"  # the store answered 5xx: a fault of its own


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
    TOO_MANY_DOWNLOADS = "too_many_downloads"


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
    Outcome.TOO_MANY_DOWNLOADS: 429,
}

# What each outcome means for a person, said in the language of whoever reads it (lazy: a StoreError made in
# one request or thread may be read in another).
SENTENCE = {
    Outcome.NO_SESSION: gettext_lazy("Log in with your store account to read results."),
    Outcome.SESSION_ENDED: gettext_lazy("The results store no longer accepts your login; log in again."),
    Outcome.FORBIDDEN: gettext_lazy("Your store account may not read this file."),
    Outcome.NOT_FOUND: gettext_lazy("The results store has no file at this address."),
    Outcome.BAD_KEY: gettext_lazy("This address does not name a results file."),
    Outcome.UNSATISFIABLE: gettext_lazy("The requested byte range lies outside the file."),
    Outcome.NO_REASON: gettext_lazy(
        "The results store refused without giving a reason; the bucket or namespace may be set wrongly."
    ),
    Outcome.UNREACHABLE: gettext_lazy("The results store could not be reached."),
    Outcome.TIMEOUT: gettext_lazy("The results store did not answer in time."),
    Outcome.TOO_MANY_DOWNLOADS: gettext_lazy(
        "You are already downloading as many files from this site as one person may at once; "
        "try again when one of them has finished."
    ),
}


class StoreError(Exception):
    """A store answer that is not the file: an outcome, its HTTP status and a sentence for a person."""

    def __init__(self, outcome, sentence=None, cause=""):
        self.outcome = Outcome(outcome)
        self.status = STATUS[self.outcome]
        self._sentence = sentence or SENTENCE[self.outcome]  # lazy: said when read, in the reader's language
        self.cause = cause  # TLS, STORE_FAULT or ""
        super().__init__(self._sentence)

    @property
    def sentence(self) -> str:
        return str(self._sentence)


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


# --- store answers -> outcomes (results.store.s3 and results.store.watch both read them) ------------


def error_code(error):
    return str(error.response.get("Error", {}).get("Code") or "")


def http_status(error):
    return int(error.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)


def outcome_of(error, *, head=False):
    """Map a boto3/botocore exception to an Outcome (and a sentence where a general one misleads)."""
    if isinstance(error, ClientError):
        return _client_error_outcome(error, head=head)
    if isinstance(error, (ReadTimeoutError, ConnectTimeoutError)):
        return StoreError(Outcome.TIMEOUT)
    if isinstance(error, SSLError):
        return StoreError(
            Outcome.UNREACHABLE,
            gettext_lazy(
                "The results store could not be reached over TLS: its certificate was not accepted "
                "(see S3_VERIFY_TLS and S3_ENDPOINT)."
            ),
            cause=TLS,
        )
    return StoreError(Outcome.UNREACHABLE)


def _client_error_outcome(error, *, head):
    code, status = error_code(error), http_status(error)
    if code in WRONG_ACCOUNT_CODES:
        return StoreError(Outcome.SESSION_ENDED)
    if code == "AccessDenied" or (head and status == 403):
        return StoreError(Outcome.FORBIDDEN)
    if code == "NoSuchBucket":
        return StoreError(
            Outcome.NOT_FOUND, gettext_lazy("The results bucket does not exist on the store; S3_BUCKET may be wrong.")
        )
    if code in ("NoSuchKey", "NotFound") or status == 404:
        return StoreError(Outcome.NOT_FOUND)
    if code == "InvalidRange" or status == 416:
        return StoreError(Outcome.UNSATISFIABLE)
    if status == 408 or code == "RequestTimeout":
        return StoreError(Outcome.TIMEOUT)
    if status >= 500:
        return StoreError(
            Outcome.UNREACHABLE,
            gettext_lazy("The results store reported a fault of its own; try again shortly."),
            cause=STORE_FAULT,
        )
    if code and code != str(status):
        logger.warning("The results store answered %s with code %s.", status, code[:64])
    return StoreError(Outcome.NO_REASON)


def is_not_modified(error):
    return isinstance(error, ClientError) and http_status(error) == 304

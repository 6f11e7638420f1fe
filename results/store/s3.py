"""The only module that talks to the results store (S3).

Each person's own account is used for every call; the proxy has no bucket
credential of its own. Clients are SigV4, path-style, region us-east-1, send
checksums only when an operation requires them (some stores refuse the newer
ones), have connect and read timeouts, never repeat a timed-out call, and are reused per
account from a small LRU cache. Store failures become an ``Outcome``.
"""

import hashlib
import logging
import threading
from collections import OrderedDict

import boto3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
)
from django.conf import settings

from results.store.outcomes import (
    WRONG_ACCOUNT_CODES,
    NotModified,
    Outcome,
    StoreError,
    error_code,
    http_status,
    is_not_modified,
    outcome_of,
)
from results.store.watch import watched

logger = logging.getLogger(__name__)

REGION = "us-east-1"
MAX_CLIENTS = 64
# botocore makes one attempt only: its retries would repeat a read timeout, so a hung store
# would cost two timeouts before a 504. A refused connection (quick) is retried once here.
TOTAL_ATTEMPTS = 1
# Connections kept open per account. One person's background readers alone may call at once: progress
# (12 + 4 threads, campaigns/store/progress.py) and the access checks (6 + 8, results/store/access.py),
# and their downloads (4 by default); botocore's 10 made it close and reopen a connection per call past
# ten, and log a warning each time.
MAX_CONNECTIONS = 40

ACCOUNT_VALID_CODES = {"NoSuchKey", "AccessDenied", "InvalidRange"}

_clients = OrderedDict()
_clients_lock = threading.Lock()
_warned_insecure = False
_session = None


def client_for(access_key, secret_key):
    """The S3 client for one account, made once and reused (bounded LRU)."""
    marker = (
        settings.S3_ENDPOINT,
        bool(settings.S3_VERIFY_TLS),
        float(settings.HTRFLOW_S3_TIMEOUT),
        access_key,
        hashlib.sha256(secret_key.encode("utf-8")).hexdigest(),
    )
    with _clients_lock:
        client = _clients.get(marker)
        if client is not None:
            _clients.move_to_end(marker)
            return client
        client = _make_client(access_key, secret_key)
        _clients[marker] = client
        while len(_clients) > MAX_CLIENTS:
            _clients.popitem(last=False)
        return client


def _boto3_session():
    """One boto3 session for every account's client: a new session reads the S3 service model again
    (about 190 ms of CPU per client, against 14 ms). Clients are made under `_clients_lock`, since a
    session is not safe to share between threads while it makes them; the clients themselves are."""
    global _session
    if _session is None:
        _session = boto3.session.Session()
    return _session


def forget_clients():
    """Drop every cached client (tests, and after settings change)."""
    with _clients_lock:
        _clients.clear()


def _make_client(access_key, secret_key):
    global _warned_insecure
    verify = bool(settings.S3_VERIFY_TLS)
    if not verify and not _warned_insecure:
        logger.warning("S3_VERIFY_TLS is false: the results store's certificate is not checked.")
        _warned_insecure = True
    timeout = float(settings.HTRFLOW_S3_TIMEOUT)
    config = Config(
        signature_version="s3v4",
        region_name=REGION,
        s3={"addressing_style": "path"},
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
        connect_timeout=timeout,
        read_timeout=timeout,
        retries={"total_max_attempts": TOTAL_ATTEMPTS, "mode": "standard"},
        max_pool_connections=MAX_CONNECTIONS,
    )
    return _boto3_session().client(
        "s3",
        endpoint_url=settings.S3_ENDPOINT or None,
        aws_access_key_id=access_key,
        aws_secret_access_key=secret_key,
        config=config,
        verify=verify,
    )


# --- calls ------------------------------------------------------------------------------------


@watched
def _once_more_if_refused(call):
    """``call()``, repeated once when the connection was refused outright.

    A refused connection fails at once (a store restarting, a blip), so one more try costs
    nothing; a timeout is never repeated, so a hung store answers 504 within one timeout.
    """
    try:
        return call()
    except ConnectTimeoutError:
        raise
    except EndpointConnectionError:
        return call()


def get_object(access_key, secret_key, key, *, range_header=None, if_none_match=None, if_modified_since=None):
    """GetObject as the account. Returns boto3's answer (``Body`` streams). Raises StoreError or NotModified."""
    params = {"Bucket": settings.S3_BUCKET, "Key": key}
    if range_header:
        params["Range"] = range_header
    if if_none_match:
        params["IfNoneMatch"] = if_none_match
    elif if_modified_since is not None:
        params["IfModifiedSince"] = if_modified_since
    try:
        client = client_for(access_key, secret_key)
        return _once_more_if_refused(lambda: client.get_object(**params))
    except (ClientError, BotoCoreError) as error:
        if is_not_modified(error):
            headers = error.response.get("ResponseMetadata", {}).get("HTTPHeaders", {})
            raise NotModified(headers.get("etag"), headers.get("last-modified")) from None
        raise outcome_of(error) from None


def head_object(access_key, secret_key, key):
    """HeadObject as the account. Raises StoreError."""
    try:
        client = client_for(access_key, secret_key)
        return _once_more_if_refused(lambda: client.head_object(Bucket=settings.S3_BUCKET, Key=key))
    except (ClientError, BotoCoreError) as error:
        raise outcome_of(error, head=True) from None


def prove_account(access_key, secret_key, *, ask_listing=False):
    """Prove the account with one ranged GET of ``<ns>/``; say whether it may read under ``<ns>/``.

    Returns True when the GET shows the account may read or list under the namespace (the key, or
    its absence, was revealed: S3 tells that only to an account allowed to read or list there; which
    of the two, ``results.store.access`` settles with objects known to exist), False or None when it was
    refused (AccessDenied). With ``ask_listing``, a refused GET is followed by one
    listing of ``<ns>/`` (``MaxKeys=1``): an account that may list there is a reader too (True),
    else False; without it the answer is None (not asked). Raises StoreError: SESSION_ENDED for
    a wrong account, NO_REASON for a bare 403/400, UNREACHABLE, TIMEOUT.
    """
    return may_read_prefix(access_key, secret_key, f"{settings.HTRFLOW_RESULTS_NAMESPACE}/", ask_listing=ask_listing)


def may_read_prefix(access_key, secret_key, prefix, *, ask_listing=True):
    """Whether the account may read under the key ``prefix`` (ending in ``/``): one ranged GET of the
    key ``prefix`` itself, and when that is refused (and ``ask_listing``), one listing of it.

    Returns True or False (None when refused and not asked to list). "No such key" counts as leave to
    read (S3 says it only to an account that may read or list there); "no such bucket" proves nothing
    (StoreError NO_REASON). Raises StoreError as ``prove_account`` does.
    """
    client, error = _first_byte(access_key, secret_key, prefix)
    if error is None:
        return True
    code, status = error_code(error), http_status(error)
    if code == "AccessDenied":
        return _may_list(client, prefix) if ask_listing else None
    if code == "NoSuchBucket":  # another bucket than S3_BUCKET answers: nothing is proved
        raise StoreError(Outcome.NO_REASON)
    if code in ACCOUNT_VALID_CODES or status in (404, 416):
        return True
    raise outcome_of(error)


def may_read_key(access_key, secret_key, key):
    """Whether the account may read ``key``, an object known to exist: True when a ranged GET of it is
    answered, False when refused, None when it is not there (which proves nothing either way).
    Raises StoreError as ``prove_account`` does."""
    _client, error = _first_byte(access_key, secret_key, key)
    if error is None:
        return True
    code, status = error_code(error), http_status(error)
    if code == "AccessDenied":
        return False
    if code == "InvalidRange" or status == 416:  # an empty object: it was read
        return True
    if code == "NoSuchKey":
        return None
    raise outcome_of(error)


def _first_byte(access_key, secret_key, key):
    """``(client, None)`` when a ranged GET of ``key``'s first byte was answered, ``(client, ClientError)``
    when the store refused it. A wrong account raises StoreError SESSION_ENDED; a store that cannot be
    reached raises its outcome."""
    client = None
    try:
        client = client_for(access_key, secret_key)
        answer = _once_more_if_refused(
            lambda: client.get_object(Bucket=settings.S3_BUCKET, Key=key, Range="bytes=0-0")
        )
    except ClientError as error:
        if error_code(error) in WRONG_ACCOUNT_CODES:
            raise StoreError(Outcome.SESSION_ENDED) from None
        return client, error
    except BotoCoreError as error:
        raise outcome_of(error) from None
    answer["Body"].close()
    return client, None


def _may_list(client, prefix):
    """True when the account may list under ``prefix``; False when refused or when the store fails."""
    try:
        client.list_objects_v2(Bucket=settings.S3_BUCKET, Prefix=prefix, MaxKeys=1)
    except ClientError as error:
        if error_code(error) != "AccessDenied":
            logger.warning("Listing %s to prove a reader answered %s.", prefix, http_status(error))
        return False
    except BotoCoreError as error:
        logger.warning("Listing %s to prove a reader failed: %s.", prefix, type(error).__name__)
        return False
    return True

"""The results session: the person's store account sealed into a cookie.

The cookie holds ``{user, access_key, secret_key, issued_at, reads_namespace}`` encrypted and
authenticated with AES-GCM under a key read from ``HTRFLOW_SESSION_KEY_FILE`` (a
base64-encoded 32-byte key). Nothing is kept on the server, so any replica with
the same key file serves the same session, and neither the cookie nor the server
reveals the secret. The cookie name is bound into the seal, so a cookie presented
under another name (an unprefixed one over https) does not open.
"""

import base64
import binascii
import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings

from results.store import access

logger = logging.getLogger(__name__)

PLAIN_COOKIE = "htrflow_session"
SECURE_COOKIE = "__Host-htrflow_session"
_NONCE_BYTES = 12
# A sealed account is a few hundred bytes; anything much larger is not ours.
_MAX_COOKIE_CHARS = 4096


class SessionKeyError(Exception):
    """The session key file is missing or unusable; ``str()`` is one sentence for an operator."""


@dataclass(frozen=True)
class ResultsSession:
    """The logged-in person's store account. The secret never shows in a repr."""

    user: str
    access_key: str = field(repr=False)
    secret_key: str = field(repr=False)
    issued_at: int = 0
    # Proven at login: the account may read under the results namespace (None: not proven either way).
    reads_namespace: bool | None = None


_key_cache = {}
_key_lock = threading.Lock()


def load_key():
    """The 32-byte sealing key, re-read when the file changes. Raises SessionKeyError."""
    path = settings.HTRFLOW_SESSION_KEY_FILE
    try:
        stat = os.stat(path)
    except OSError:
        raise SessionKeyError(
            f"The session key file {path} (HTRFLOW_SESSION_KEY_FILE) cannot be read: "
            "mount a file holding a base64-encoded 32-byte key there."
        ) from None
    marker = (path, stat.st_mtime_ns, stat.st_size)
    with _key_lock:
        if marker in _key_cache:
            return _key_cache[marker]
    key = _read_key(path)
    with _key_lock:
        _key_cache.clear()
        _key_cache[marker] = key
    return key


def _read_key(path):
    try:
        with open(path, "rb") as handle:
            text = handle.read(4096).strip()
        key = base64.b64decode(text, validate=True)
    except OSError:
        raise SessionKeyError(f"The session key file {path} (HTRFLOW_SESSION_KEY_FILE) cannot be read.") from None
    except (binascii.Error, ValueError):
        raise SessionKeyError(
            f"The session key file {path} (HTRFLOW_SESSION_KEY_FILE) is not base64: "
            "it must hold a base64-encoded 32-byte key, e.g. from `head -c 32 /dev/urandom | base64`."
        ) from None
    if len(key) != 32:
        raise SessionKeyError(
            f"The session key file {path} (HTRFLOW_SESSION_KEY_FILE) holds {len(key)} bytes after base64 "
            "decoding; it must hold exactly 32."
        )
    return key


def new_key_text():
    """A fresh key in the file format (base64 of 32 random bytes)."""
    return base64.b64encode(os.urandom(32)).decode("ascii")


def cookie_name(request):
    return SECURE_COOKIE if request.is_secure() else PLAIN_COOKIE


def lifetime_seconds():
    return int(settings.HTRFLOW_SESSION_HOURS) * 3600


def seal(session, name, key=None):
    """Encrypt a session for the cookie called ``name``."""
    key = key or load_key()
    payload = json.dumps(
        {
            "u": session.user,
            "a": session.access_key,
            "s": session.secret_key,
            "t": session.issued_at,
            "r": session.reads_namespace,
        },
        separators=(",", ":"),
    ).encode("utf-8")
    nonce = os.urandom(_NONCE_BYTES)
    sealed = AESGCM(key).encrypt(nonce, payload, name.encode("ascii"))
    return base64.urlsafe_b64encode(nonce + sealed).decode("ascii").rstrip("=")


def unseal(value, name, key=None, now=None):
    """The session in a cookie value, or None if it is tampered, expired, foreign or malformed."""
    if not value or len(value) > _MAX_COOKIE_CHARS:
        return None
    try:
        key = key or load_key()
    except SessionKeyError as error:
        logger.error("%s", error)
        return None
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        payload = AESGCM(key).decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], name.encode("ascii"))
        data = json.loads(payload)
        session = ResultsSession(
            user=data["u"],
            access_key=data["a"],
            secret_key=data["s"],
            issued_at=int(data["t"]),
            reads_namespace=data.get("r") if data.get("r") in (True, False) else None,
        )
    except (InvalidTag, ValueError, binascii.Error, KeyError, TypeError):
        return None
    now = time.time() if now is None else now
    if not (session.issued_at <= now + 60 and now < session.issued_at + lifetime_seconds()):
        return None
    return session


def session_from_request(request):
    """The session carried by the request's cookie (only the name right for its scheme)."""
    name = cookie_name(request)
    return unseal(request.COOKIES.get(name), name)


def start(response, request, user, access_key, secret_key, reads_namespace=None):
    """Set a new session cookie on the response, replacing any older one. The account's proof of what
    it may read starts again from this login's."""
    access.forget(access_key, secret_key)
    session = ResultsSession(
        user=user,
        access_key=access_key,
        secret_key=secret_key,
        issued_at=int(time.time()),
        reads_namespace=reads_namespace,
    )
    name = cookie_name(request)
    response.set_cookie(
        name,
        seal(session, name),
        max_age=lifetime_seconds(),
        path="/",
        secure=request.is_secure(),
        httponly=True,
        samesite="Strict",
    )
    return session


def end(response, request):
    """Clear the session cookie."""
    # Django marks the deletion Secure itself for a __Host- name.
    response.delete_cookie(cookie_name(request), path="/", samesite="Strict")

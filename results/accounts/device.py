"""The device cookie: "this browser has logged in as <name>", so strangers cannot lock its owner out.

OWASP's answer to lock-out attacks (Slow Down Online Guessing Attacks with Device Cookies): after a
successful login the browser gets a long-lived cookie, signed with Django's signing (under
``DJANGO_SECRET_KEY``), that holds a hash of the normalised user name and a random device id;
never the password, never the name itself. A later attempt for the same name from that browser
counts against its own limit (``results.accounts.ratelimit.DEVICE_LIMIT``, per device) instead of the
limits per address and per name, which strangers can fill. A cookie that is forged, tampered,
expired, for another name or under the wrong name (an unprefixed one over https) counts for
nothing: the attempt is limited like any from an unknown browser.

The cookie is ``HttpOnly``, ``SameSite=Strict``, ``Path=/`` and, over https, ``Secure`` with the
``__Host-`` prefix, like the session cookie. Logging out keeps it: it says where the person logs in
from, not that they are logged in. One browser holds one: a login as another name replaces it.
"""

import hashlib
import secrets

from django.core import signing

from results.accounts.ratelimit import normalised_name

PLAIN_COOKIE = "htrflow_device"
SECURE_COOKIE = "__Host-htrflow_device"
LIFETIME_SECONDS = 90 * 24 * 3600
_SALT = "results.device"  # the module's first name: cookies already given out are signed with it
# A signed cookie of ours is about 120 characters; anything much larger is not ours.
_MAX_COOKIE_CHARS = 512


def cookie_name(request):
    return SECURE_COOKIE if request.is_secure() else PLAIN_COOKIE


def _name_hash(username):
    return hashlib.sha256(normalised_name(username).encode("utf-8")).hexdigest()[:32]


def _signer_salt(name):
    # The cookie's name is part of the signature: a value copied under another name does not verify.
    return f"{_SALT}:{name}"


def remember(response, request, username):
    """Give this browser a fresh device cookie for ``username`` (after a successful login)."""
    name = cookie_name(request)
    value = signing.dumps({"u": _name_hash(username), "d": secrets.token_urlsafe(16)}, salt=_signer_salt(name))
    response.set_cookie(
        name,
        value,
        max_age=LIFETIME_SECONDS,
        path="/",
        secure=request.is_secure(),
        httponly=True,
        samesite="Strict",
    )


def device_for(request, username):
    """The device id of the request's device cookie when it is valid for ``username``, else None."""
    name = cookie_name(request)
    value = request.COOKIES.get(name)
    if not value or len(value) > _MAX_COOKIE_CHARS:
        return None
    try:
        data = signing.loads(value, salt=_signer_salt(name), max_age=LIFETIME_SECONDS)
    except (signing.BadSignature, ValueError):
        return None
    if not isinstance(data, dict) or data.get("u") != _name_hash(username):
        return None
    device = data.get("d")
    return device if isinstance(device, str) and 16 <= len(device) <= 64 else None

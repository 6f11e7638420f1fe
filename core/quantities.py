"""Kubernetes quantities (``4``, ``50m``, ``8Gi``, ``1e3``) as exact Decimals.

Below both apps: the projection reads a workload's requests and its queue's quota with it, and the
campaign diagnosis the amounts in Kueue's messages. Whole numbers keep their zeros (10Gi stays "10Gi").
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

_QUANTITY_RE = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:[eE]([+-]?\d{1,3}))?([A-Za-z]{0,2})$")

SUFFIXES = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": Decimal(10**3),
    "M": Decimal(10**6),
    "G": Decimal(10**9),
    "T": Decimal(10**12),
    "P": Decimal(10**15),
    "E": Decimal(10**18),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}


def parse_quantity(value: Any) -> Decimal | None:
    """A Kubernetes quantity as a Decimal, or None for anything else (bounded: at most 40 characters)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return Decimal(str(value))
        except InvalidOperation:
            return None
    if not isinstance(value, str) or len(value) > 40:
        return None
    match = _QUANTITY_RE.match(value.strip())
    if not match or match.group(3) not in SUFFIXES:
        return None
    try:
        number = Decimal(match.group(1))
        if match.group(2):
            number = number.scaleb(int(match.group(2)))
    except InvalidOperation:
        return None
    return number * SUFFIXES[match.group(3)]


def _plain(number: Decimal) -> str:
    """A Decimal without exponent or trailing fractional zeros (``200`` stays ``200``, ``1.50`` is ``1.5``)."""
    text = f"{number:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_quantity(resource: str, value: Decimal) -> str:
    """A quantity back in readable Kubernetes form: memory and storage in Ti/Gi/Mi/Ki, CPU in cores or
    millicores (``format_quantity("memory", parse_quantity("8Gi")) == "8Gi"``)."""
    if "memory" in resource or "storage" in resource:
        for suffix in ("Ti", "Gi", "Mi", "Ki"):
            unit = SUFFIXES[suffix]
            if value >= unit and value % unit == 0:
                return _plain(value / unit) + suffix
        return _plain(value)
    if value != value.to_integral_value() and (value * 1000) == (value * 1000).to_integral_value():
        return f"{int(value * 1000)}m"
    return _plain(value.normalize())

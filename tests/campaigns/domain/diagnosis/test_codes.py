"""Finding codes are an interface (wording, the read API, the metric and the chart's alerts match on them)."""

from __future__ import annotations

import re
from pathlib import Path

from campaigns.domain import diagnosis
from campaigns.domain.diagnosis import codes


def test_every_code_is_listed_once_in_area_dot_name_form_and_every_one_used_is_listed():
    assert len(codes.ALL) == len(set(codes.ALL))
    assert all(re.fullmatch(r"[a-z]+\.[a-z_]+", code) for code in codes.ALL)
    used = set()
    for path in Path(diagnosis.__file__).parent.glob("*.py"):
        used |= set(re.findall(r"codes\.([A-Z_]+)", path.read_text()))
    assert {getattr(codes, name) for name in used} <= set(codes.ALL)
    assert {name for name in dir(codes) if name.isupper() and name != "ALL"} == {
        name for name in dir(codes) if name.isupper() and getattr(codes, name) in codes.ALL
    }

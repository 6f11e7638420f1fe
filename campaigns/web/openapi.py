"""The read API's OpenAPI document (``openapi.yaml`` beside this module), served at /api/v1/openapi.json.

The document is written by hand and checked against the code by tests/campaigns/web/test_openapi.py; only the
finding codes are filled in here, from the diagnosis's own list, so a code added there is documented at once.
Like /api/v1/version it needs a session but no campaign's gate: it names no campaign.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import yaml
from django.http import JsonResponse

from campaigns.domain.diagnosis import codes
from campaigns.web.api import read_only

SOURCE = Path(__file__).with_name("openapi.yaml")


@functools.cache
def _loaded() -> dict:
    document = yaml.safe_load(SOURCE.read_text(encoding="utf-8"))
    document["components"]["schemas"]["FindingCode"]["enum"] = list(codes.ALL)
    return document


def document() -> dict:
    """The OpenAPI document as data (a copy: callers may change theirs)."""
    return copy.deepcopy(_loaded())


@read_only
def openapi_document(request):
    response = JsonResponse(_loaded(), json_dumps_params={"ensure_ascii": False})
    response["Cache-Control"] = "private, no-store"
    return response

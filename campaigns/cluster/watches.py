"""Following a list's changes: the API server's watch stream, from a list's resourceVersion on.

`watch` yields the server's events as they come; `campaigns.cluster.informer` applies them. The
request itself goes through `campaigns.cluster.kube` (its timeouts, errors and counts).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import urllib3
from django.conf import settings
from django.utils.translation import gettext_lazy

from campaigns.cluster import kube
from core import metrics

log = logging.getLogger(__name__)


class Expired(Exception):
    """The resourceVersion a watch started from is too old (410): list again."""


class NotAStream(Exception):
    """A watch answered with one whole body (a `Content-Length`, not chunked): a plain list from a
    proxy that dropped `watch=true`, or anything else that is not a stream of changes."""


def watch(
    path: str,
    resource_version: str,
    label_selector: str | None = None,
    field_selector: str | None = None,
    seconds: int = 60,
    streams: list | None = None,
) -> Iterator[dict]:
    """The changes of a list after `resource_version`, as the API server's watch events (dicts with
    `type` and `object`), bookmarks included, until the server ends the stream after `seconds`.

    Raises `Expired` when the version is too old, `kube.NotReadable`/`kube.ClusterUnavailable` as other
    calls do when the watch cannot start, and `NotAStream` (before reading its body, which may be a whole list)
    when the answer is not streamed: an API server streams a watch in chunks. A stream that breaks, or
    stays quiet for longer than `seconds` plus the call timeout, just ends. The open response is put in
    `streams` (if given), so another thread can end a blocked read with `end_stream`.
    """
    query = [
        ("watch", "true"),
        ("resourceVersion", resource_version),
        ("allowWatchBookmarks", "true"),
        ("timeoutSeconds", str(int(seconds))),
        *kube.selector_query(label_selector, field_selector),
    ]
    try:
        # The answer's head must come within the call timeout, as for any call; the stream after it
        # may then stay quiet up to `seconds` (bookmarks keep a healthy one talking).
        response = kube.request("GET", path, query)
    except kube.NotReadable as refused:
        if refused.status == 410:
            raise Expired() from None
        raise
    _quiet_for(response, seconds + float(settings.HTRFLOW_KUBE_TIMEOUT))
    if streams is not None:
        streams[:] = [response]
    try:
        if not _streamed(response):
            log.debug("watch of %s answered with a whole body, not a stream", path)
            response.close()  # its connection goes too: the unread body must not meet the next call
            raise NotAStream()
        yield from _events(response)
    except (urllib3.exceptions.HTTPError, OSError) as error:
        # The stream broke after it started (a restart, a proxy's idle limit): the caller watches
        # again from the last version it saw, and only a failure to reconnect counts as trouble.
        log.debug("watch of %s ended early: %s", path, type(error).__name__)
    finally:
        if streams is not None:
            streams.clear()
        response.release_conn()


def _events(response) -> Iterator[dict]:
    """The events of a streamed watch answer, one JSON object a line; an ERROR event is raised."""
    for line in response:
        if not line.strip():
            continue
        metrics.kube_bytes(len(line))
        try:
            event = json.loads(line)
        except ValueError:
            raise kube.ClusterUnavailable(
                gettext_lazy("The cluster's API sent a change that is not JSON."), kube.BROKEN
            ) from None
        if not isinstance(event, dict):
            continue
        if event.get("type") == "ERROR":
            status = event.get("object") or {}
            if status.get("code") == 410:
                raise Expired()
            raise kube.answered(int(status.get("code") or 500), status.get("reason"))
        event["_size"] = len(line)
        yield event


def _streamed(response) -> bool:
    """Whether an answer comes as a stream: chunked, or read to the connection's end (no length given)."""
    return bool(getattr(response, "chunked", False)) or response.headers.get("Content-Length") is None


def _quiet_for(response, seconds: float) -> None:
    """Let a streamed answer's socket wait `seconds` for each read from now on."""
    sock = getattr(getattr(response, "connection", None), "sock", None)
    if sock is not None:
        sock.settimeout(seconds)


def end_stream(streams: list) -> None:
    """End a watch stream another thread is reading (its read returns at once)."""
    for response in list(streams):
        try:
            response.shutdown()
        except Exception:  # noqa: BLE001, S110 - ending a stream that already ended is fine
            pass

"""A store object's body moved from the store's socket to the client's inside the kernel (Linux ``splice``).

Read and written by Python, every byte of a download crosses into this process and out again: two copies a
direct read from the store does not make, and on a machine of few cores they set the proxy's pace
(benchmarks/bench_proxy_speed.py). ``splice`` moves the bytes through a pipe without them entering the
process. It is used only where it is plainly safe, and the download is read and written as before otherwise:

- the server hands the app its client socket (gunicorn's ``gunicorn.socket``), a plain TCP one (no TLS);
- the store's answer is a plain HTTP body of known length on a plain socket (no TLS, no chunked framing, no
  content coding), as boto3 leaves it once the headers are read;
- the platform has ``os.splice`` and the setting ``HTRFLOW_SPLICE`` is on (it is by default).

The store's read timeout still holds: each wait for its next bytes is bounded by the socket's own timeout, and
a store that goes quiet ends the download early, as a read timeout does on the Python path. A client that
goes away ends it with an OSError, as it does on the Python path. The store's connection is closed after a
spliced body (its reader no longer knows where the body ends), so it is never reused mid-answer.
"""

from __future__ import annotations

import errno
import fcntl
import http.client
import io
import os
import select
import socket
import ssl
from dataclasses import dataclass

from django.conf import settings

# How much one splice moves at most: the pipe is asked for this size (Linux lets any process have 1 MiB).
PIPE_BYTES = 1024 * 1024
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)


class StoreWentQuiet(OSError):
    """The store sent nothing for as long as its read timeout allows."""


class Unsupported(OSError):
    """The kernel refused to splice these sockets before a byte moved: the body can still be read in Python."""


# What a kernel, or a sandbox in front of it, answers when it will not splice these descriptors at all.
_REFUSALS = (errno.EINVAL, errno.ENOSYS, errno.EPERM, errno.EOPNOTSUPP)


@dataclass
class Source:
    """The store's side of a body that can be spliced."""

    sock: socket.socket
    remaining: int  # body bytes not yet read from the socket
    timeout: float | None


def available() -> bool:
    """Whether this platform can splice, and the setting ``HTRFLOW_SPLICE`` lets it."""
    return hasattr(os, "splice") and bool(getattr(settings, "HTRFLOW_SPLICE", True))


def client_socket(environ) -> socket.socket | None:
    """The client's socket, when the server gives it to the app and it carries plain TCP."""
    sock = environ.get("gunicorn.socket")
    if not isinstance(sock, socket.socket) or isinstance(sock, ssl.SSLSocket) or sock.type != socket.SOCK_STREAM:
        return None
    return sock


def source_of(body) -> Source | None:
    """The store's socket under a boto3 StreamingBody, when its body can be spliced from here on.

    Only when nothing of the body waits in Python's buffers: what the reader has buffered must be read the
    ordinary way first (``buffered_bytes``)."""
    raw = getattr(body, "_raw_stream", None)  # urllib3's HTTPResponse
    answer = getattr(raw, "_fp", None)  # http.client's HTTPResponse
    if not isinstance(answer, http.client.HTTPResponse) or answer.chunked or answer.length is None:
        return None
    if getattr(raw, "_decoder", None) is not None or raw.headers.get("content-encoding", "identity") != "identity":
        return None
    reader = answer.fp
    sock = getattr(getattr(reader, "raw", None), "_sock", None)
    if not isinstance(reader, io.BufferedReader) or not isinstance(sock, socket.socket):
        return None
    if isinstance(sock, ssl.SSLSocket):
        return None
    return Source(sock=sock, remaining=answer.length, timeout=sock.gettimeout())


def buffered_bytes(body) -> bytes:
    """What the body's reader holds in its buffer, read the ordinary way (so the reader counts it); call before
    ``source_of``, whose ``remaining`` then starts where the socket stands.

    ``peek`` returns the buffer, or reads the socket once when the buffer is empty: either way, afterwards
    nothing of the body waits in Python's buffers."""
    answer = body._raw_stream._fp
    if not answer.length:
        return b""
    held = len(answer.fp.peek(0)[: answer.length])
    return body.read(held) if held else b""


def forward(source: Source, target: socket.socket) -> int:
    """Move ``source.remaining`` bytes from the store's socket to the client's; the bytes moved.

    Raises Unsupported when the kernel refuses the first move (nothing is lost: read on in Python),
    StoreWentQuiet when the store sends nothing within its timeout, and OSError when either side fails
    (the client gone, the store's connection reset); the bytes moved so far are then all there is."""
    pipe_out, pipe_in = os.pipe()
    moved = 0
    try:
        try:
            fcntl.fcntl(pipe_in, _F_SETPIPE_SZ, PIPE_BYTES)
        except OSError:
            pass  # a smaller pipe only means more splices
        poller = select.poll()
        poller.register(source.sock.fileno(), select.POLLIN)
        wait_ms = None if source.timeout is None else int(source.timeout * 1000)
        while source.remaining > 0:
            try:
                got = os.splice(source.sock.fileno(), pipe_in, min(source.remaining, PIPE_BYTES),
                                flags=os.SPLICE_F_MOVE | os.SPLICE_F_NONBLOCK)
            except BlockingIOError:
                if not poller.poll(wait_ms):
                    raise StoreWentQuiet("the store sent nothing within its read timeout") from None
                continue
            except OSError as error:
                if moved == 0 and error.errno in _REFUSALS:
                    raise Unsupported(error.errno, "the kernel will not splice these sockets") from error
                raise
            if got == 0:
                raise ConnectionResetError("the store closed its connection before the body's end")
            source.remaining -= got
            while got:
                sent = os.splice(pipe_out, target.fileno(), got, flags=os.SPLICE_F_MOVE | os.SPLICE_F_MORE)
                got -= sent
                moved += sent
        return moved
    finally:
        os.close(pipe_out)
        os.close(pipe_in)

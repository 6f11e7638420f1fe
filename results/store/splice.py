"""A store object's body moved from the store's socket to the client's inside the kernel (Linux ``splice``).

Read and written by Python, every byte of a download crosses into this process and out again: two copies a
direct read from the store does not make, and on a machine of few cores they set the proxy's pace
(benchmarks/bench_proxy_speed.py). ``splice`` moves the bytes through a pipe without them entering the
process. It is used only where it is plainly safe, and the download is read and written as before otherwise:

- the server hands the app its client socket (gunicorn's ``gunicorn.socket``): plain TCP (no TLS), HTTP/1.x
  (one answer at a time on it, never HTTP/2's streams), blocking, as gunicorn's threads write to it;
- the store's answer is a plain HTTP body of known length on a plain socket (no TLS, no chunked framing, no
  content coding), as boto3 leaves it once the headers are read, and the answer's own Content-Length is
  exactly what is left of it (the caller checks, since only it knows what it declared);
- the platform has ``os.splice``, the setting ``HTRFLOW_SPLICE`` is on (it is by default), and the kernel has
  not refused a splice in this process before.

The store's read timeout still holds: each wait for its next bytes is bounded by the socket's own timeout, and
a store that goes quiet ends the download early, as a read timeout does on the Python path. A client that
goes away ends it with an OSError, as it does on the Python path. The store's connection is closed after a
spliced body (its reader no longer knows where the body ends), so it is never reused mid-answer.

A kernel (or a sandbox's filter) that refuses to splice loses nothing: a refused move from the store's socket
has taken nothing; bytes already taken when the move to the client is refused are read back from the pipe and
sent, and the rest of that body is copied in Python. Either way the process stops trying.
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

# How much one splice moves at most. The pipe is asked for this size: larger pipes mean fewer calls, but
# pipe memory is counted per user (a node's pods of one uid share 64 MiB by default, and a process past it
# gets pipes of 4 KiB), so 96 downloads at once stay within a third of that.
PIPE_BYTES = 256 * 1024
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
# What a kernel, or a sandbox in front of it, answers when it will not splice these descriptors at all.
_REFUSALS = (errno.EINVAL, errno.ENOSYS, errno.EPERM, errno.EOPNOTSUPP)
_refused = [False]  # the kernel refused once: this process reads and writes in Python from then on


class StoreWentQuiet(OSError):
    """The store sent nothing for as long as its read timeout allows."""


class Unsupported(OSError):
    """The kernel refused the first move from the store's socket: nothing was taken, so read on in Python."""


@dataclass
class Source:
    """The store's side of a body that can be spliced."""

    sock: socket.socket
    remaining: int  # body bytes not yet read from the socket
    timeout: float | None


def forget() -> None:
    """Try splicing again, as if no refusal had been met (tests)."""
    _refused[0] = False


def available() -> bool:
    """Whether this platform can splice, the setting ``HTRFLOW_SPLICE`` lets it, and no refusal was met."""
    return hasattr(os, "splice") and bool(getattr(settings, "HTRFLOW_SPLICE", True)) and not _refused[0]


def client_socket(meta) -> socket.socket | None:
    """The client's socket, when the server hands it to the app (in the request's WSGI environment, ``meta``)
    and it carries plain, blocking HTTP/1.x."""
    sock = meta.get("gunicorn.socket")
    if not isinstance(sock, socket.socket) or isinstance(sock, ssl.SSLSocket) or sock.type != socket.SOCK_STREAM:
        return None
    if meta.get("SERVER_PROTOCOL") not in ("HTTP/1.0", "HTTP/1.1"):
        return None
    try:
        return sock if sock.gettimeout() is None else None
    except OSError:
        return None


def source_of(body) -> Source | None:
    """The store's socket under a boto3 StreamingBody, when its body can be spliced from here on.

    Only when nothing of the body waits in Python's buffers: what the reader has buffered must be read the
    ordinary way first (``buffered_bytes``). None when no body is left to splice."""
    raw = getattr(body, "_raw_stream", None)  # urllib3's HTTPResponse
    answer = getattr(raw, "_fp", None)  # http.client's HTTPResponse
    if not isinstance(answer, http.client.HTTPResponse) or answer.chunked or not answer.length:
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
    nothing of the body waits in Python's buffers (and when that was the whole rest, there is nothing left to
    splice)."""
    answer = body._raw_stream._fp
    if not answer.length:
        return b""
    held = len(answer.fp.peek(0)[: answer.length])
    return body.read(held) if held else b""


def forward(source: Source, target: socket.socket) -> int:
    """Move ``source.remaining`` bytes from the store's socket to the client's; the bytes moved.

    Raises Unsupported when the kernel refuses the first move from the store (nothing taken: read on in
    Python), StoreWentQuiet when the store sends nothing within its timeout, and OSError when either side fails
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
                got = os.splice(
                    source.sock.fileno(), pipe_in, min(source.remaining, PIPE_BYTES),
                    flags=os.SPLICE_F_MOVE | os.SPLICE_F_NONBLOCK,
                )
            except BlockingIOError:
                if not poller.poll(wait_ms):
                    raise StoreWentQuiet("the store sent nothing within its read timeout") from None
                continue
            except OSError as error:
                if moved == 0 and error.errno in _REFUSALS:
                    _refused[0] = True
                    raise Unsupported(error.errno, "the kernel will not splice from the store's socket") from error
                raise
            if got == 0:
                raise ConnectionResetError("the store closed its connection before the body's end")
            source.remaining -= got
            try:
                moved += _empty_into(pipe_out, target, got)
            except OSError as error:
                if moved != 0 or error.errno not in _REFUSALS:
                    raise
                _refused[0] = True
                moved += _send_back(pipe_out, target, got)
                return moved + _copy(source, target)
        return moved
    finally:
        os.close(pipe_out)
        os.close(pipe_in)


def _empty_into(pipe_out: int, target: socket.socket, count: int) -> int:
    """Move ``count`` bytes from the pipe to the client's socket (no SPLICE_F_MORE: the body's last bytes must
    leave at once, not wait for more that will not come)."""
    left = count
    while left:
        left -= os.splice(pipe_out, target.fileno(), left, flags=os.SPLICE_F_MOVE)
    return count


def _send_back(pipe_out: int, target: socket.socket, count: int) -> int:
    """The bytes a refused move left in the pipe, read back and sent the ordinary way."""
    left = count
    while left:
        piece = os.read(pipe_out, left)
        target.sendall(piece)
        left -= len(piece)
    return count


def _copy(source: Source, target: socket.socket) -> int:
    """The rest of the body copied in Python, once the kernel refused to move it (the socket's timeout holds)."""
    buffer = bytearray(min(source.remaining, PIPE_BYTES) or 1)
    view = memoryview(buffer)
    copied = 0
    while source.remaining > 0:
        got = source.sock.recv_into(view, min(source.remaining, len(buffer)))
        if got == 0:
            raise ConnectionResetError("the store closed its connection before the body's end")
        target.sendall(view[:got])
        source.remaining -= got
        copied += got
    return copied

"""A real local S3 server with per-account permissions, for tests and the demo.

``StoreDouble`` starts moto's S3 server in a child process (``python -m devstack.store``) on
127.0.0.1 with IAM enforcement on: every request is signature-checked against the account's
secret and its IAM policy is evaluated, so the store answers like a private bucket does:

- an unknown access key       -> ``InvalidAccessKeyId`` (403)
- a wrong secret              -> ``SignatureDoesNotMatch`` (403)
- a read the policy forbids   -> ``AccessDenied`` (403)
- a permitted read of nothing -> ``NoSuchKey`` (404)

Accounts (see ``DEMO_LOGINS``): ``full`` reads everything under ``<bucket>/<namespace>/``;
``limited`` reads the same except prefixes passed to ``deny_limited``; ``project`` reads only one
pipeline's results and run logs (``PROJECT_PIPELINE``), as a project's own account does;
``outsider`` is a valid account that may read nothing; ``writer`` (the admin) may do anything and is what the demo scene
and the simulator write with. Each reader exists twice: ``accounts[name]`` for the key
derivation ``none`` (login fields are the keys) and ``hcp_accounts[name]`` for ``hcp``
(access key = base64(username), secret = hex MD5(password)). Both identities of an account are
access keys of the same IAM user, so they share its permissions.

Why a child process: moto keeps a whole object in memory while serving it, so a 1 GiB object
would sit in the test process and spoil any memory measurement of the proxy; a child also
keeps the server's threads off the test process's GIL. The child reads its set-up from stdin,
creates users, keys and the bucket in its own memory (IAM has no API to choose an access key),
prints its port, then obeys one-line commands (``put_large``, ``put_many``, ``slow``) and exits when its stdin
closes, so it never outlives the process that started it.

A slow store: ``slow(seconds)`` (or ``with store.slowed(seconds):``) makes the server answer every
request, the writer's and IAM's included, only after that many seconds, from the next request on,
until it is set back to 0. The delay is a real wait in the server's request thread, so clients meet it
as they meet a store under load: the connection is taken at once and the answer comes late.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

REGION = "us-east-1"
MOTO_ACCOUNT_ID = "123456789012"
READER_POLICY_NAME = "htrflow-read"
ADMIN_USER = "devstack-writer"
STARTUP_TIMEOUT_SECONDS = 20.0
LARGE_PART_SIZE = 64 * 1024 * 1024
_PATTERN_BLOCK = bytes(range(256))


@dataclasses.dataclass(frozen=True)
class Account:
    """One store identity: what a person types (username/password) and what the store checks."""

    name: str
    username: str
    password: str
    access_key: str
    secret_key: str

    def __repr__(self) -> str:
        return f"Account(name={self.name!r}, username={self.username!r}, access_key={self.access_key!r})"


def hcp_keys(username: str, password: str) -> tuple[str, str]:
    """The keys a Hitachi Content Platform account derives from its login: base64(user), md5(password)."""
    access_key = base64.b64encode(username.encode("utf-8")).decode("ascii")
    secret_key = hashlib.md5(password.encode("utf-8")).hexdigest()  # noqa: S324 - HCP's own scheme
    return access_key, secret_key


def none_account(name: str, username: str, password: str) -> Account:
    """An identity for key derivation ``none``: the login fields are the keys themselves."""
    return Account(name, username, password, access_key=username, secret_key=password)


def hcp_account(name: str, username: str, password: str) -> Account:
    """An identity for key derivation ``hcp``."""
    access_key, secret_key = hcp_keys(username, password)
    if "/" in access_key or "," in access_key:
        raise ValueError(f"the HCP username {username!r} encodes to an access key the store cannot parse")
    return Account(name, username, password, access_key=access_key, secret_key=secret_key)


# Demo logins, meant to be typed on the login page (key derivation `none`).
DEMO_LOGINS = {
    "full": ("full-reader", "read-everything"),
    "limited": ("limited-reader", "read-most-things"),
    "project": ("project-reader", "read-one-pipeline"),
    "outsider": ("outsider", "read-nothing"),
}
# The same people on an HCP-style store (key derivation `hcp`).
HCP_LOGINS = {
    "full": ("hcp-full", "hcp-read-everything"),
    "limited": ("hcp-limited", "hcp-read-most-things"),
    "project": ("hcp-project", "hcp-read-one-pipeline"),
    "outsider": ("hcp-outsider", "hcp-read-nothing"),
}
WRITER_LOGIN = ("devstack-writer", "devstack-writer-secret")
READER_NAMES = ("full", "limited", "project", "outsider")
# The one pipeline whose results the project account may read (a running one in the demo scene).
PROJECT_PIPELINE = "swe-lines-v4"


def large_object_bytes(offset: int, length: int) -> bytes:
    """The bytes ``put_large`` writes at ``offset``: byte i of the object is ``i % 256``."""
    start = offset % 256
    repeats = (start + length) // 256 + 1
    return (_PATTERN_BLOCK * repeats)[start : start + length]


def reader_policy(bucket: str, namespace: str, denied_prefixes: list[str]) -> dict:
    """The IAM policy of a reader: read the namespace, minus the denied key prefixes."""
    allow = {
        "Sid": "ReadNamespace",
        "Effect": "Allow",
        "Action": ["s3:GetObject"],
        "Resource": [f"arn:aws:s3:::{bucket}/{namespace}/*"],
    }
    statements = [allow]
    if denied_prefixes:
        statements.append(
            {
                "Sid": "DenyPrefixes",
                "Effect": "Deny",
                "Action": ["s3:GetObject"],
                "Resource": [f"arn:aws:s3:::{bucket}/{prefix}*" for prefix in denied_prefixes],
            }
        )
    return {"Version": "2012-10-17", "Statement": statements}


def prefix_policy(bucket: str, prefixes: list[str]) -> dict:
    """The IAM policy of an account that may read only under the given key prefixes."""
    statement = {
        "Sid": "ReadPrefixes",
        "Effect": "Allow",
        "Action": ["s3:GetObject"],
        "Resource": [f"arn:aws:s3:::{bucket}/{prefix}*" for prefix in prefixes],
    }
    return {"Version": "2012-10-17", "Statement": [statement]}


def project_prefixes(namespace: str, pipeline: str = PROJECT_PIPELINE) -> list[str]:
    """What the project account reads: the pipeline's results and its run logs."""
    return [f"{namespace}/{pipeline}/", f"{namespace}/status/logs/{pipeline}/"]


ADMIN_POLICY = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}


class StoreError(RuntimeError):
    """The store double could not start or answer."""


class StoreDouble:
    """A moto S3 server with a results bucket and reader accounts. Use ``start``/``stop`` or ``with``."""

    def __init__(self, bucket: str = "htrflow-results", namespace: str = "htr-batch"):
        self.bucket = bucket
        self.namespace = namespace.strip("/")
        self.accounts = {name: none_account(name, *DEMO_LOGINS[name]) for name in READER_NAMES}
        self.hcp_accounts = {name: hcp_account(name, *HCP_LOGINS[name]) for name in READER_NAMES}
        self.writer = none_account("writer", *WRITER_LOGIN)
        self.denied_prefixes: list[str] = []
        self.startup_seconds: float | None = None
        self.delay_seconds = 0.0  # every answer comes this late (see ``slow``)
        self.host = "127.0.0.1"
        self._process: subprocess.Popen | None = None
        self._port: int | None = None
        self._admin = None
        self._iam = None
        self._lock = threading.Lock()

    # --- lifecycle -------------------------------------------------------------------------

    def start(self, host: str = "127.0.0.1", port: int = 0) -> StoreDouble:
        """Start the server and wait until it answers. Returns self."""
        if self._process is not None:
            raise StoreError("the store double is already running")
        began = time.monotonic()
        self.host = host
        self._stderr = tempfile.TemporaryFile()
        env = dict(os.environ, MOTO_ACCOUNT_ID=MOTO_ACCOUNT_ID, PYTHONPATH=_pythonpath())
        self._process = subprocess.Popen(
            [sys.executable, "-m", "devstack.store"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            cwd=str(_project_root()),
        )
        try:
            # The set-up, secrets included, goes through stdin: argv is visible to every local user.
            self._process.stdin.write(json.dumps(self._child_config(host, port)).encode("utf-8") + b"\n")
            self._process.stdin.flush()
            self._port = self._read_port()
        except OSError as error:  # the child died before it read its set-up
            message = f"the store double did not start: {self._child_errors()}"
            self.stop()
            raise StoreError(message) from error
        except BaseException:
            self.stop()
            raise
        self._admin = self.client(self.writer)
        self._iam = None
        self.startup_seconds = time.monotonic() - began
        return self

    def stop(self) -> None:
        """Stop the server; safe to call twice."""
        process, self._process = self._process, None
        self._admin = None
        self._iam = None
        if process is None:
            return
        with contextlib.suppress(OSError):
            process.stdin.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        if process.stdout:
            process.stdout.close()
        self._stderr.close()

    def __enter__(self) -> StoreDouble:
        return self.start() if self._process is None else self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    @property
    def endpoint(self) -> str:
        if self._port is None or self._process is None:
            raise StoreError("the store double is not running")
        return f"http://{self.host}:{self._port}"

    def _child_config(self, host: str, port: int) -> dict:
        """What the child sets up: one IAM user per account, holding both identities' keys."""
        users = [
            {
                "user": name,
                "keys": [[a.access_key, a.secret_key] for a in (self.accounts[name], self.hcp_accounts[name])],
                "policy": self._first_policy(name),
            }
            for name in READER_NAMES
        ]
        writer_keys = [[self.writer.access_key, self.writer.secret_key]]
        users.append({"user": ADMIN_USER, "keys": writer_keys, "policy": ADMIN_POLICY})
        return {"host": host, "port": port, "bucket": self.bucket, "users": users}

    def _first_policy(self, name: str) -> dict | None:
        if name == "outsider":
            return None
        if name == "project":
            return prefix_policy(self.bucket, project_prefixes(self.namespace))
        return reader_policy(self.bucket, self.namespace, [])

    def _read_port(self) -> int:
        """Wait for the child's first line, which says which port it listens on."""
        try:
            return int(self._read_reply(STARTUP_TIMEOUT_SECONDS)["port"])
        except (KeyError, TypeError, ValueError):
            raise StoreError(f"the store double did not start: {self._child_errors()}") from None

    def _command(self, command: dict, timeout: float) -> dict:
        """Ask the child to do something in its own memory (one JSON line each way)."""
        if self._process is None:
            raise StoreError("the store double is not running")
        with self._lock:
            self._process.stdin.write(json.dumps(command).encode("utf-8") + b"\n")
            self._process.stdin.flush()
            reply = self._read_reply(timeout)
        if not isinstance(reply, dict) or "error" in reply or not reply.get("ok"):
            raise StoreError(f"the store double could not {command['op']}: {reply or self._child_errors()}")
        return reply

    def _read_reply(self, timeout: float) -> dict | None:
        """One JSON line from the child's stdout, or None when nothing sensible came in time."""
        result: dict = {}

        def read_line() -> None:
            result["line"] = self._process.stdout.readline()

        reader = threading.Thread(target=read_line, daemon=True)
        reader.start()
        reader.join(timeout)
        try:
            return json.loads(result.get("line") or b"null")
        except ValueError:
            return None

    def _child_errors(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read()[-2000:].decode("utf-8", "replace") or "no output"

    # --- clients ---------------------------------------------------------------------------

    def client(self, account: Account):
        """A boto3 S3 client for ``account``, configured the way the results proxy talks to S3."""
        return _s3_client(self.endpoint, account.access_key, account.secret_key)

    def admin_client(self):
        """The writer's S3 client (full rights), for putting objects."""
        if self._admin is None:
            raise StoreError("the store double is not running")
        return self._admin

    def _iam_client(self):
        """The writer's IAM client, made once per start (making a boto3 client takes a good part of a second)."""
        if self._iam is None:
            self._iam = self._new_iam_client()
        return self._iam

    def _new_iam_client(self):
        import boto3
        from botocore.config import Config

        return boto3.session.Session().client(
            "iam",
            endpoint_url=self.endpoint,
            region_name=REGION,
            aws_access_key_id=self.writer.access_key,
            aws_secret_access_key=self.writer.secret_key,
            config=Config(connect_timeout=2, read_timeout=10, retries={"max_attempts": 2, "mode": "standard"}),
        )

    # --- objects ---------------------------------------------------------------------------

    def put(self, key: str, body: bytes | str, content_type: str | None = None) -> None:
        """Write one object as the writer."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        extra = {"ContentType": content_type} if content_type else {}
        self.admin_client().put_object(Bucket=self.bucket, Key=key, Body=data, **extra)

    def append(self, key: str, more: bytes | str) -> None:
        """Add to the end of an object (created when missing), the way a run log grows."""
        data = more.encode("utf-8") if isinstance(more, str) else more
        with self._lock:
            try:
                current = self.admin_client().get_object(Bucket=self.bucket, Key=key)
                before, content_type = current["Body"].read(), current.get("ContentType")
            except self.admin_client().exceptions.NoSuchKey:
                before, content_type = b"", "text/plain; charset=utf-8"
            self.put(key, before + data, content_type=content_type)

    def put_many(self, objects: list[tuple[str, str, str]]) -> None:
        """Write many small text objects, ``(key, body, content type)``, straight into the store's memory.

        For scenes at archive scale: one command to the child instead of one signed request per
        object (tens of thousands of puts would take minutes). Readers see them as any other object.
        """
        if objects:
            command = {"op": "put_many", "objects": [list(item) for item in objects]}
            self._command(command, timeout=60 + len(objects) / 500)

    def get(self, key: str) -> bytes:
        """Read one object as the writer."""
        return self.admin_client().get_object(Bucket=self.bucket, Key=key)["Body"].read()

    def delete(self, key: str) -> None:
        self.admin_client().delete_object(Bucket=self.bucket, Key=key)

    def put_large(self, key: str, size_bytes: int, via_api: bool = False, part_size: int = LARGE_PART_SIZE) -> float:
        """Write a ``size_bytes`` object; returns the seconds it took.

        Byte i of the object is ``i % 256`` (see ``large_object_bytes``), so a reader can check
        any slice without holding the whole object. By default the child writes the bytes
        straight into moto's storage (2-3 s per GiB, on disk; the ETag is synthetic, as for a
        multipart object). ``via_api=True`` uploads through S3 multipart instead, which is
        faithful but slow: about 20 s and 4 GB of server memory for 1 GiB with 64 MiB parts
        (moto wants parts of at least 5 MiB, except the last).
        """
        if size_bytes < 0:
            raise ValueError("size_bytes must not be negative")
        began = time.monotonic()
        if via_api:
            self._multipart_upload(key, size_bytes, part_size)
        else:
            self._command({"op": "put_large", "key": key, "size": size_bytes}, timeout=120 + size_bytes / 2**24)
        return time.monotonic() - began

    def _multipart_upload(self, key: str, size_bytes: int, part_size: int) -> None:
        admin = self.admin_client()
        if size_bytes <= part_size:
            admin.put_object(Bucket=self.bucket, Key=key, Body=large_object_bytes(0, size_bytes))
            return
        upload = admin.create_multipart_upload(Bucket=self.bucket, Key=key, ContentType="application/octet-stream")
        parts = []
        try:
            for number, (offset, length) in enumerate(_part_ranges(size_bytes, part_size), start=1):
                answer = admin.upload_part(
                    Bucket=self.bucket,
                    Key=key,
                    UploadId=upload["UploadId"],
                    PartNumber=number,
                    Body=large_object_bytes(offset, length),
                )
                parts.append({"PartNumber": number, "ETag": answer["ETag"]})
            admin.complete_multipart_upload(
                Bucket=self.bucket, Key=key, UploadId=upload["UploadId"], MultipartUpload={"Parts": parts}
            )
        except Exception:
            admin.abort_multipart_upload(Bucket=self.bucket, Key=key, UploadId=upload["UploadId"])
            raise

    # --- speed -----------------------------------------------------------------------------

    def slow(self, seconds: float) -> None:
        """From the next request on, answer every request only after ``seconds`` (0: at once again)."""
        if not 0 <= seconds <= 600:
            raise ValueError("a store delay is from 0 to 600 seconds")
        self._command({"op": "slow", "seconds": float(seconds)}, timeout=10)
        self.delay_seconds = float(seconds)

    @contextlib.contextmanager
    def slowed(self, seconds: float) -> Iterator[StoreDouble]:
        """The store answering every request after ``seconds`` inside the block, at once again after it."""
        self.slow(seconds)
        try:
            yield self
        finally:
            self.slow(0)

    # --- permissions -----------------------------------------------------------------------

    def deny_limited(self, *prefixes: str) -> None:
        """Forbid the limited account (both identities) every key that starts with one of ``prefixes``.

        Each is a full key prefix including the namespace, e.g. ``htr-batch/swe-lines-v2/C0074520/``
        or an exact key such as a run log's. One policy write for all of them (each write takes IAM
        most of a second).
        """
        for prefix in prefixes:
            if not prefix or "*" in prefix or "?" in prefix:
                raise ValueError("a denied prefix must be a non-empty key prefix without wildcards")
        with self._lock:
            self.denied_prefixes.extend(p for p in dict.fromkeys(prefixes) if p not in self.denied_prefixes)
            policy = reader_policy(self.bucket, self.namespace, self.denied_prefixes)
            self._iam_client().put_user_policy(
                UserName="limited", PolicyName=READER_POLICY_NAME, PolicyDocument=json.dumps(policy)
            )


    def allow_only(self, name: str, prefixes: list[str]) -> None:
        """Give a reader account (both identities) the right to read under ``prefixes`` only; an empty
        list takes every right away, as an operator removing the account's policy does."""
        iam = self._iam_client()
        if prefixes:
            self.set_policy(name, prefix_policy(self.bucket, prefixes))
        else:
            try:
                iam.delete_user_policy(UserName=name, PolicyName=READER_POLICY_NAME)
            except iam.exceptions.NoSuchEntityException:
                pass

    def set_policy(self, name: str, policy: dict) -> None:
        """Give a reader account (both identities) this IAM policy instead of its own."""
        self._iam_client().put_user_policy(
            UserName=name, PolicyName=READER_POLICY_NAME, PolicyDocument=json.dumps(policy)
        )

    def restore(self, name: str) -> None:
        """Give a reader account its first rights back."""
        policy = self._first_policy(name) if name != "limited" else reader_policy(
            self.bucket, self.namespace, self.denied_prefixes
        )
        if policy is None:
            self.allow_only(name, [])
            return
        self._iam_client().put_user_policy(
            UserName=name, PolicyName=READER_POLICY_NAME, PolicyDocument=json.dumps(policy)
        )


def _part_ranges(size: int, part_size: int) -> Iterator[tuple[int, int]]:
    for offset in range(0, size, part_size):
        yield offset, min(part_size, size - offset)


def _s3_client(endpoint: str, access_key: str, secret_key: str):
    import boto3
    from botocore.config import Config

    config = Config(
        signature_version="s3v4",
        s3={"addressing_style": "path"},
        region_name=REGION,
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
        connect_timeout=2,
        read_timeout=30,
        retries={"max_attempts": 2, "mode": "standard"},
    )
    return boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=access_key,
        aws_secret_access_key=secret_key,
        config=config,
    )


def _project_root() -> Path:
    return Path(__file__).resolve().parent.parent


def _pythonpath() -> str:
    existing = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join(p for p in (str(_project_root()), existing) if p)


# --- the child process -----------------------------------------------------------------------


def _serve(config: dict) -> None:
    """Child entry point: set up accounts and the bucket in moto's memory, then serve HTTP."""
    import logging

    from moto import settings as moto_settings

    moto_settings.INITIAL_NO_AUTH_ACTION_COUNT = 0  # check every request, from the first
    logging.getLogger("werkzeug").setLevel(logging.ERROR)

    from moto.iam.models import iam_backends
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
    from moto.s3.models import s3_backends
    from werkzeug.serving import make_server

    iam = iam_backends[MOTO_ACCOUNT_ID]["aws"]
    for user in config["users"]:
        iam.create_user(REGION, user["user"])
        for access_key, secret_key in user["keys"]:
            _add_chosen_access_key(iam, user["user"], access_key, secret_key)
        if user["policy"]:
            iam.put_user_policy(user["user"], READER_POLICY_NAME, json.dumps(user["policy"]))
    s3_backends[MOTO_ACCOUNT_ID]["aws"].create_bucket(config["bucket"], REGION)

    app = _Delayed(DomainDispatcherApplication(create_backend_app))
    server = make_server(config["host"], config["port"], app, threaded=True, request_handler=MotoRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _reply({"port": server.server_address[1]})
    _obey_parent(s3_backends[MOTO_ACCOUNT_ID]["aws"], config["bucket"], app)


class _Delayed:
    """The server's WSGI application, answering each request only after ``seconds`` (set at run time)."""

    def __init__(self, app):
        self.app = app
        self.seconds = 0.0

    def __call__(self, environ, start_response):
        if self.seconds > 0:
            time.sleep(self.seconds)
        return self.app(environ, start_response)


def _add_chosen_access_key(iam, user_name: str, access_key: str, secret_key: str) -> None:
    """Give a user an access key with the id and secret we choose (IAM's API only makes random ones)."""
    key = iam.create_access_key(user_name)
    del iam.access_keys[key.access_key_id]
    key.access_key_id = access_key
    key.secret_access_key = secret_key
    iam.access_keys[access_key] = key


def _reply(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _obey_parent(s3, bucket: str, app: _Delayed) -> None:
    """Run the parent's commands from stdin; leave when stdin closes (stop() or the parent died)."""
    for line in sys.stdin:
        try:
            command = json.loads(line)
            if command.get("op") == "put_large":
                _write_large_object(s3, bucket, command["key"], int(command["size"]))
                _reply({"ok": True})
            elif command.get("op") == "put_many":
                for key, body, content_type in command["objects"]:
                    stored = s3.put_object(bucket, key, body.encode("utf-8"), disable_notification=True)
                    stored.set_metadata({"Content-Type": content_type})
                _reply({"ok": True})
            elif command.get("op") == "slow":
                app.seconds = max(0.0, float(command["seconds"]))
                _reply({"ok": True})
            else:
                _reply({"error": f"unknown command {command.get('op')!r}"})
        except Exception as error:  # noqa: BLE001 - the parent gets the reason instead of a dead child
            _reply({"error": f"{type(error).__name__}: {error}"})
    os._exit(0)


def _write_large_object(s3, bucket: str, key: str, size: int) -> None:
    """Create an object of ``size`` pattern bytes by writing moto's storage file directly."""
    chunk_size = 16 * 1024 * 1024  # a multiple of 256, so every full chunk has the same bytes
    chunk = large_object_bytes(0, chunk_size)
    stored = s3.put_object(bucket, key, b"", disable_notification=True)
    with stored.lock:
        buffer = stored._value_buffer
        buffer.seek(0)
        buffer.truncate()
        for _offset, length in _part_ranges(size, chunk_size):
            buffer.write(chunk if length == chunk_size else chunk[:length])
        stored.contentsize = size
        parts = max(1, -(-size // LARGE_PART_SIZE))
        stored._etag = hashlib.md5(f"{bucket}/{key}:{size}".encode()).hexdigest() + f"-{parts}"  # noqa: S324
    stored.set_metadata({"Content-Type": "application/octet-stream"})


if __name__ == "__main__":
    _serve(json.loads(sys.stdin.readline()))

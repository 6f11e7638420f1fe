"""A Django cache backend over one SQLite file: shared by every worker process of a pod, atomically.

Used for the failed-login counts when no Redis is configured (``HTRFLOW_REDIS_URL``). Django's
own file and database caches read a value and write it back in two steps, so two workers
counting the same failure at once lose one of the counts. Here every change runs inside
``BEGIN IMMEDIATE``: SQLite takes the file's write lock before the value is read, so an
increment in one process waits for one in another and none is lost.

``LOCATION`` is a directory (``HTRFLOW_STATE_DIR``); the file ``cache.sqlite3`` is made in it.
It must be on a filesystem the pod's processes share and may write: the pod's ``/tmp`` (an
``emptyDir`` under a read-only root filesystem, which gunicorn needs there anyway) is the default.
Values are pickled, as in Django's file and database caches; the file is private to the app's user.
Expired rows are ignored when read and deleted at most once a minute per process.
"""

import os
import pickle
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache

FILE_NAME = "cache.sqlite3"
# Seconds a process waits for another's write lock before giving up (an error, never a hang).
LOCK_WAIT_SECONDS = 5.0
CULL_EVERY_SECONDS = 60.0

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, value BLOB NOT NULL, expires REAL)",
    "CREATE INDEX IF NOT EXISTS cache_expires ON cache (expires)",
)


class PodCache(BaseCache):
    def __init__(self, location, params):
        super().__init__(params)
        self._directory = Path(location)
        self._lock = threading.Lock()
        self._connection = None
        self._pid = None
        self._culled_at = 0.0

    # --- the connection ----------------------------------------------------------------------

    def _connect(self):
        """This process's connection, opened on first use (and again after a fork)."""
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        self._directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        connection = sqlite3.connect(
            self._directory / FILE_NAME, timeout=LOCK_WAIT_SECONDS, isolation_level=None, check_same_thread=False
        )
        # Two processes opening a new file at once: switching it to WAL may answer "locked" at once
        # rather than waiting, so the setup is tried again within the same wait.
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
                for statement in _SCHEMA:
                    connection.execute(statement)
                break
            except sqlite3.OperationalError:
                if time.monotonic() >= deadline:
                    connection.close()
                    raise
                time.sleep(0.05)
        self._connection, self._pid = connection, os.getpid()
        return connection

    @contextmanager
    def _writing(self):
        """A transaction holding the file's write lock from its first read (``BEGIN IMMEDIATE``)."""
        with self._lock:
            connection = self._connect()
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
            self._cull(connection)

    def _cull(self, connection):
        now = time.time()
        if now - self._culled_at >= CULL_EVERY_SECONDS:
            self._culled_at = now
            connection.execute("DELETE FROM cache WHERE expires IS NOT NULL AND expires <= ?", (now,))

    @staticmethod
    def _live_row(connection, key):
        row = connection.execute("SELECT value, expires FROM cache WHERE key = ?", (key,)).fetchone()
        if row is None or (row[1] is not None and row[1] <= time.time()):
            return None
        return row

    # --- Django's cache API ------------------------------------------------------------------

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        key = self.make_and_validate_key(key, version=version)
        with self._writing() as connection:
            if self._live_row(connection, key) is not None:
                return False
            self._store(connection, key, value, timeout)
            return True

    def get(self, key, default=None, version=None):
        key = self.make_and_validate_key(key, version=version)
        with self._lock:
            row = self._live_row(self._connect(), key)
        return default if row is None else pickle.loads(row[0])  # noqa: S301 - our own file

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        key = self.make_and_validate_key(key, version=version)
        with self._writing() as connection:
            self._store(connection, key, value, timeout)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        key = self.make_and_validate_key(key, version=version)
        with self._writing() as connection:
            if self._live_row(connection, key) is None:
                return False
            connection.execute(
                "UPDATE cache SET expires = ? WHERE key = ?", (self.get_backend_timeout(timeout), key)
            )
            return True

    def delete(self, key, version=None):
        key = self.make_and_validate_key(key, version=version)
        with self._writing() as connection:
            return connection.execute("DELETE FROM cache WHERE key = ?", (key,)).rowcount > 0

    def has_key(self, key, version=None):
        key = self.make_and_validate_key(key, version=version)
        with self._lock:
            return self._live_row(self._connect(), key) is not None

    def incr(self, key, delta=1, version=None):
        """Add ``delta`` in one step across processes; ValueError when the key is missing or expired."""
        key = self.make_and_validate_key(key, version=version)
        with self._writing() as connection:
            row = self._live_row(connection, key)
            if row is None:
                raise ValueError(f"Key '{key}' not found.")
            value = pickle.loads(row[0]) + delta  # noqa: S301 - our own file
            connection.execute("UPDATE cache SET value = ? WHERE key = ?", (pickle.dumps(value), key))
            return value

    def clear(self):
        with self._writing() as connection:
            connection.execute("DELETE FROM cache")

    def close(self, **kwargs):
        """Kept open for the process's life: opening costs more than a login's few statements."""

    def _store(self, connection, key, value, timeout):
        connection.execute(
            "INSERT OR REPLACE INTO cache (key, value, expires) VALUES (?, ?, ?)",
            (key, pickle.dumps(value, pickle.HIGHEST_PROTOCOL), self.get_backend_timeout(timeout)),
        )

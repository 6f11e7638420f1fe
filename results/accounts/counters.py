"""Counters that hold whole numbers and nothing else, shared by every process of the site.

The failed-login limits (``results.accounts.ratelimit``) count here, and the feed tokens keep their numbers
and remembered rights here (``results.accounts.feeds``). Each counter is a key, a whole number and an expiry;
there are two places to keep them:

- **Redis**, when ``HTRFLOW_REDIS_URL`` is set: every replica shares it. redis-py is used
  directly: an increment and its expiry are one small Lua script, so they happen together.
- **One SQLite file** in ``HTRFLOW_STATE_DIR`` otherwise, shared by the gunicorn workers of one
  pod. Its table is STRICT (the value column takes integers only) and every change runs in
  ``BEGIN IMMEDIATE``: the file's write lock is taken before the value is read, so increments in
  two processes wait for each other and none is lost.

Nothing read back is ever unpickled or evaluated. Anyone who could write to Redis or to the file
could plant a value; a value that is not a whole number is *corrupt*: one warning is logged and
the key starts again from nothing. (Django's caches unpickle what they read, so a planted pickle
ran code in the web process; that is why the counts no longer live in a cache.)

The state folder is created private (mode 0700) and refused when another user owns it or may
write to it (``state_folder_problem``); ``htrbrowser/settings.py`` checks it at start-up too.
"""

import logging
import os
import re
import sqlite3
import stat
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import redis
from django.conf import settings

logger = logging.getLogger(__name__)

FILE_NAME = "counters.sqlite3"
REDIS_PREFIX = "htrbrowser:"
# Seconds a process waits for another's write lock before giving up (an error, never a hang).
LOCK_WAIT_SECONDS = 5.0
CULL_EVERY_SECONDS = 60.0
# No count comes near this; a larger number is as corrupt as text, and +1 can never overflow it.
MAX_COUNT = 2**62


class UnsafeStateFolder(OSError):
    """The state folder belongs to another user or others may write to it; ``str()`` says so."""


def counters():
    """The counters this process should use, per the current settings."""
    if settings.HTRFLOW_REDIS_URL:
        where = ("redis", settings.HTRFLOW_REDIS_URL, float(settings.HTRFLOW_REDIS_TIMEOUT))
    else:
        where = ("file", str(settings.HTRFLOW_STATE_DIR))
    with _opened_lock:
        if where not in _opened:
            _opened[where] = RedisCounters(*where[1:]) if where[0] == "redis" else FileCounters(*where[1:])
        return _opened[where]


_opened = {}
_opened_lock = threading.Lock()


def _warn_corrupt(key, where):
    logger.warning("The counter %s in %s held something that is not a whole number; it was reset.", key, where)


# --- Redis -------------------------------------------------------------------------------------

# KEYS[1]: the counter. ARGV[1]: what to add (+1, or -1 to give one back). ARGV[2]: the window in ms.
# Returns {count, milliseconds left, 1 when a value that was no integer was reset}.
# A give-back never creates a counter; a count that falls to 0 is deleted.
_ADD_SCRIPT = """
local key, delta, window = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
if delta < 0 and redis.call('EXISTS', key) == 0 then return {0, 0, 0} end
local corrupt = 0
local count = redis.pcall('INCRBY', key, delta)
if type(count) ~= 'number' then
  corrupt = 1
  redis.call('DEL', key)
  if delta < 0 then return {0, 0, 1} end
  count = redis.call('INCRBY', key, delta)
end
if count <= 0 then
  redis.call('DEL', key)
  return {count, 0, corrupt}
end
if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, window) end
return {count, redis.call('PTTL', key), corrupt}
"""
_WHOLE_NUMBER = re.compile(rb"-?[0-9]{1,18}")


class RedisCounters:
    def __init__(self, url, timeout):
        self._client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self._add = self._client.register_script(_ADD_SCRIPT)

    def add(self, key, delta, window):
        """Add ``delta`` (+1, or -1 to give one back); ``(count, seconds left in its window)``."""
        count, left_ms, corrupt = self._add(keys=[REDIS_PREFIX + key], args=[delta, int(window * 1000)])
        if corrupt:
            _warn_corrupt(key, "Redis")
        return count, left_ms / 1000

    def get(self, key):
        """The number under ``key``, or None when there is none (or it was corrupt)."""
        try:
            raw = self._client.get(REDIS_PREFIX + key)
            if raw is None or _WHOLE_NUMBER.fullmatch(raw):
                return None if raw is None else int(raw)
        except redis.ResponseError:  # not even a string (a list, a hash...)
            pass
        _warn_corrupt(key, "Redis")
        self._client.delete(REDIS_PREFIX + key)
        return None

    def put(self, key, value, seconds):
        self._client.set(REDIS_PREFIX + key, int(value), px=int(seconds * 1000))

    def delete(self, key):
        self._client.delete(REDIS_PREFIX + key)

    def clear(self):
        """Delete every counter (only this site's keys, not the whole database)."""
        for found in self._client.scan_iter(match=REDIS_PREFIX + "*", count=1000):
            self._client.delete(found)


# --- one SQLite file per pod ---------------------------------------------------------------------

# STRICT: SQLite itself refuses anything but an integer in ``value`` (reads check again all the same).
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, value INTEGER NOT NULL, expires REAL NOT NULL) STRICT",
    "CREATE INDEX IF NOT EXISTS counters_expires ON counters (expires)",
)


class FileCounters:
    """Counters in ``<folder>/counters.sqlite3``; one connection per process, opened on first use."""

    def __init__(self, folder):
        self._folder = Path(folder)
        self._lock = threading.Lock()
        self._connection = None
        self._pid = None
        self._culled_at = 0.0

    def add(self, key, delta, window):
        """Add ``delta`` (+1, or -1 to give one back); ``(count, seconds left in its window)``."""
        with self._writing() as connection:
            now = time.time()
            found = self._live(connection, key, now)
            if found is None:
                if delta < 0:
                    return 0, 0.0
                count, expires = delta, now + window
            else:
                count, expires = found[0] + delta, found[1]
            if count <= 0:
                connection.execute("DELETE FROM counters WHERE key = ?", (key,))
                return count, 0.0
            connection.execute(
                "INSERT OR REPLACE INTO counters (key, value, expires) VALUES (?, ?, ?)", (key, count, expires)
            )
            return count, expires - now

    def get(self, key):
        """The number under ``key``, or None when there is none (or it was corrupt)."""
        with self._writing() as connection:
            found = self._live(connection, key, time.time())
            return None if found is None else found[0]

    def put(self, key, value, seconds):
        with self._writing() as connection:
            connection.execute(
                "INSERT OR REPLACE INTO counters (key, value, expires) VALUES (?, ?, ?)",
                (key, int(value), time.time() + seconds),
            )

    def delete(self, key):
        with self._writing() as connection:
            connection.execute("DELETE FROM counters WHERE key = ?", (key,))

    def clear(self):
        with self._writing() as connection:
            connection.execute("DELETE FROM counters")

    def _live(self, connection, key, now):
        """``(value, expires)`` of a counter still in its window; a corrupt row is deleted (and None)."""
        row = connection.execute("SELECT value, expires FROM counters WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        value, expires = row
        if type(value) is not int or not -MAX_COUNT < value < MAX_COUNT or type(expires) not in (int, float):
            _warn_corrupt(key, self._folder / FILE_NAME)
            connection.execute("DELETE FROM counters WHERE key = ?", (key,))
            return None
        return None if expires <= now else (value, expires)

    @contextmanager
    def _writing(self):
        """A transaction holding the file's write lock from its first read (``BEGIN IMMEDIATE``)."""
        with self._lock:
            connection = self._connect()
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
                connection.execute("COMMIT")
            except BaseException:
                # A failed COMMIT (a full disk) leaves the transaction open: without this rollback every
                # later BEGIN of this process's connection would fail and its logins pause for good.
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise
            try:
                self._cull(connection)
            except sqlite3.Error as error:  # the count is written; old rows wait for the next cull
                logger.warning("Old login counts could not be removed from %s: %s", self._folder, error)

    def _connect(self):
        """This process's connection, opened on first use (and again after a fork)."""
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        self._folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        problem = state_folder_problem(self._folder)
        if problem:
            raise UnsafeStateFolder(problem)
        connection = sqlite3.connect(
            self._folder / FILE_NAME, timeout=LOCK_WAIT_SECONDS, isolation_level=None, check_same_thread=False
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

    def _cull(self, connection):
        now = time.time()
        if now - self._culled_at >= CULL_EVERY_SECONDS:
            self._culled_at = now
            connection.execute("DELETE FROM counters WHERE expires <= ?", (now,))


# --- the state folder ----------------------------------------------------------------------------


def state_folder_problem(folder):
    """One sentence when ``folder`` exists but is not private to this user, else None.

    Whoever owns the folder, or may write to it, could replace the counts kept there (and, before
    they were plain numbers, could run code in the site). A missing folder is no problem: it is
    created with mode 0700 when first used.
    """
    try:
        link, info = os.lstat(folder), os.stat(folder)
    except OSError:
        return None  # missing, or not reachable: using it says why
    me = os.geteuid()
    owner = info.st_uid if info.st_uid != me else link.st_uid
    if owner != me:
        return (
            f"The folder {folder} (HTRFLOW_STATE_DIR) belongs to another user (uid {owner}), who could change "
            f"the failed-login counts kept there: remove it, or set HTRFLOW_STATE_DIR to a folder this user "
            f"(uid {me}) owns or may create."
        )
    if stat.S_IMODE(info.st_mode) & 0o022:
        return (
            f"The folder {folder} (HTRFLOW_STATE_DIR) may be written by other users "
            f"(mode {stat.S_IMODE(info.st_mode):04o}), who could change the failed-login counts kept there: "
            f"run `chmod 700 {folder}`, or set HTRFLOW_STATE_DIR to a private folder."
        )
    return None

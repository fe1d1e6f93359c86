"""One load at a time: a second waits for the first, or says one is running.

Two loads at once deadlocked on PostgreSQL (one crashed with a raw traceback,
the other reported 69 valid files as failed): each chunk locks the boards it
writes, and two loads take them in different orders. The lock is held for the
whole load, across its transactions: a PostgreSQL session-level advisory lock
on the load's own connection, and on SQLite an exclusive lock on a file
beside the database (its write lock lasts one transaction, a load many).
"""

import contextlib
import fcntl
import hashlib
import os
import tempfile
from pathlib import Path

from django.db import connection

# Any number, the same in every process: the advisory lock's name.
LOCK_KEY = 0x50574C4F4144  # "PWLOAD"


class LoadRunning(Exception):
    """Another load holds the lock, and this one was asked not to wait."""

    def __str__(self):
        return "another load is running; run again when it has finished (or without --no-wait)"


@contextlib.contextmanager
def one_load_at_a_time(wait=True, said=None):
    """Hold the load lock for the block; wait for it, or raise LoadRunning.

    `said(message)` is told once when this load has to wait.
    """
    if connection.vendor == "postgresql":
        with _advisory_lock(wait, said):
            yield
    else:
        with _file_lock(wait, said):
            yield


@contextlib.contextmanager
def _advisory_lock(wait, said):
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY])
        (taken,) = cursor.fetchone()
        if not taken:
            if not wait:
                raise LoadRunning()
            if said:
                said("another load is running: waiting for it to finish")
            cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK_KEY])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])


def lock_path():
    """The file whose lock stands for the SQLite database's load lock."""
    name = str(connection.settings_dict["NAME"])
    if connection.is_in_memory_db() or not name:
        # An in-memory database is its process's own: two test runs on one machine
        # named the same file, and one's load waited for the other's.
        digest = hashlib.sha256(f"{name}:{os.getpid()}".encode()).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / f"sotasite-{digest}.load-lock"
    return Path(f"{name}.load-lock")


@contextlib.contextmanager
def _file_lock(wait, said):
    with open(lock_path(), "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                raise LoadRunning() from None
            if said:
                said("another load is running: waiting for it to finish")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

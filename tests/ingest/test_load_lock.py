"""Two loads at once queue on both databases: no deadlock, no traceback, no good file failed."""

import fcntl
import subprocess
import sys
import time

import psycopg
import pytest

from leaderboards.ingest.lock import LOCK_KEY
from tests.helpers import ROOT, child_env, manage, write_board_files

pytestmark = pytest.mark.slow


def _load(env, *args):
    return subprocess.Popen(
        [sys.executable, "manage.py", "load_seeds", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _hold_the_lock(database_url):
    """Take the load lock from outside, as a running load holds it; returns its release."""
    if database_url.startswith("postgres"):
        connection = psycopg.connect(database_url, autocommit=True)
        connection.execute("SELECT pg_advisory_lock(%s)", [LOCK_KEY])
        return connection.close
    handle = open(database_url.removeprefix("sqlite:///") + ".load-lock", "a+")  # noqa: SIM115
    fcntl.flock(handle, fcntl.LOCK_EX)
    return handle.close


@pytest.fixture
def site(child_database_url, tmp_path, seed_page):
    env = child_env(child_database_url)
    assert manage("migrate", "--noinput", env=env).returncode == 0
    folder = tmp_path / "pages"
    write_board_files(folder, seed_page, 40, rows=30)
    return child_database_url, env, folder


def test_a_load_asked_not_to_wait_says_another_is_running(site):
    url, env, folder = site
    release = _hold_the_lock(url)
    try:
        result = manage("load_seeds", str(folder), "--no-wait", env=env)
    finally:
        release()
    assert result.returncode != 0
    assert "another load is running" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_second_load_waits_for_the_first_then_loads(site):
    url, env, folder = site
    release = _hold_the_lock(url)
    waiting = _load(env, str(folder))
    time.sleep(3)
    assert waiting.poll() is None, "it loaded while the lock was held"
    release()
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert "waiting for it to finish" in err
    assert "40 files: 40 created" in out


def test_two_loads_at_once_both_finish_and_fail_nothing(site, tmp_path, seed_page):
    url, env, folder = site
    other = tmp_path / "other"
    write_board_files(other, seed_page, 40, rows=30)
    for path in other.iterdir():
        path.write_text(path.read_text().replace("/sota/board-", "/sota/other-board-"))
    loads = [_load(env, str(folder)), _load(env, str(other))]
    results = [(load.wait(timeout=180), *load.communicate()) for load in loads]
    for code, out, err in results:
        assert code == 0, err
        assert "Traceback" not in err
        assert "40 created" in out and "0 failed" in out


def test_an_in_memory_database_locks_for_its_own_process_only(db, monkeypatch):
    # The test suite's SQLite database lives in its process's memory: another test run
    # on the same machine has its own, and its loads must not wait for this one's.
    from django.db import connection

    from leaderboards.ingest import lock

    if connection.vendor != "sqlite" or not connection.is_in_memory_db():
        pytest.skip("the test database is a server's or a file's, shared by name")
    here = lock.lock_path()
    monkeypatch.setattr(lock.os, "getpid", lambda: lock.os.getppid())
    assert lock.lock_path() != here

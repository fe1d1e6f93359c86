"""gunicorn.conf.py's workers: kept while they serve, replaced when a render has swollen them.

Each start costs the site a second of imports and a worker's page cache, so
ordinary traffic must not restart workers; memory a huge board's render took
must still be given back.
"""

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import ROOT, child_env

GUNICORN = Path(sys.executable).parent / "gunicorn"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def worker_pids(master):
    return Path(f"/proc/{master.pid}/task/{master.pid}/children").read_text().split()


@pytest.fixture
def serve(child_database_url):
    """Start gunicorn with gunicorn.conf.py and one worker; yield (master, get)."""
    env = child_env(child_database_url)
    migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v0"]
    subprocess.run(migrate, cwd=ROOT, env=env, check=True, timeout=120)
    started = []

    def start(**extra_env):
        port = free_port()
        command = [str(GUNICORN), "sotasite.wsgi", "--config", "gunicorn.conf.py"]
        command += ["--bind", f"127.0.0.1:{port}", "--workers", "1", "--log-level", "warning"]
        master = subprocess.Popen(command, cwd=ROOT, env={**env, **extra_env})
        started.append(master)

        def get(path="/robots.txt"):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as answer:
                return answer.status

        deadline = time.monotonic() + 30
        while True:
            try:
                assert get() == 200
                break
            except OSError:
                started_in_time = time.monotonic() < deadline and master.poll() is None
                assert started_in_time, "gunicorn did not start"
                time.sleep(0.2)
        return master, get

    yield start
    for master in started:
        master.terminate()
        master.wait(timeout=30)


def test_a_worker_serves_past_a_thousand_requests_without_a_restart(serve):
    master, get = serve()
    before = worker_pids(master)
    # More than the thousand after which each worker used to be replaced.
    statuses = {get() for _ in range(1200)}
    assert statuses == {200}
    assert worker_pids(master) == before


def test_a_worker_grown_past_the_cap_is_replaced_and_the_site_keeps_answering(serve):
    # Every worker is past a cap of 1 MB after its first request.
    master, get = serve(SOTASITE_MAX_WORKER_MB="1")
    first = worker_pids(master)
    assert get() == 200
    deadline = time.monotonic() + 30
    while worker_pids(master) in ([], first):
        assert time.monotonic() < deadline, "the worker was not replaced"
        time.sleep(0.1)
    replaced = worker_pids(master)
    assert len(replaced) == 1 and replaced != first
    # Answered by the new worker, which the cap replaces in its turn.
    assert get() == 200

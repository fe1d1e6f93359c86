"""A daemonised gunicorn keeps its log: errors, Django's included, and requests, in files.

--daemon points stderr and stdout at /dev/null; gunicorn.conf.py then logs to
SOTASITE_LOG_DIR instead (issue #32: with --daemon, the log showed nothing).
"""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import ROOT, child_env

GUNICORN = Path(sys.executable).parent / "gunicorn"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(port, path, host=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if host:
        request.add_header("Host", host)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.fixture
def daemon(child_database_url, tmp_path):
    """Start gunicorn with --daemon as `make run` would; yield (port, log folder)."""
    env = {**child_env(child_database_url), "SOTASITE_LOG_DIR": str(tmp_path / "logs")}
    migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v0"]
    subprocess.run(migrate, cwd=ROOT, env=env, check=True, timeout=120)
    port, pidfile = free_port(), tmp_path / "gunicorn.pid"
    command = [str(GUNICORN), "sotasite.wsgi", "--config", "gunicorn.conf.py", "--workers", "1"]
    command += ["--bind", f"127.0.0.1:{port}", "--access-logfile", "-"]
    command += ["--daemon", "--pid", str(pidfile)]
    subprocess.run(command, cwd=ROOT, env=env, check=True, timeout=60)
    deadline = time.monotonic() + 30
    while True:
        try:
            assert get(port, "/robots.txt") == 200
            break
        except OSError:
            assert time.monotonic() < deadline, "the daemonised gunicorn did not answer"
            time.sleep(0.2)
    yield port, tmp_path / "logs"
    os.kill(int(pidfile.read_text()), signal.SIGTERM)


def read_until(path, text, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text():
            return path.read_text()
        time.sleep(0.1)
    return path.read_text() if path.exists() else ""


def test_a_daemonised_server_logs_django_errors_and_requests_to_files(daemon):
    port, logs = daemon
    # A Host the site does not serve: Django refuses it and logs it as an error.
    assert get(port, "/", host="not-this-site.example") == 400
    errors = read_until(logs / "error.log", "Invalid HTTP_HOST header")
    assert "ERROR django.security.DisallowedHost" in errors
    assert "Listening at" in errors
    requests = read_until(logs / "access.log", '"GET / HTTP/1.1" 400')
    assert '"GET /robots.txt HTTP/1.1" 200' in requests

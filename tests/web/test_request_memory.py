"""A request's memory is bounded by what its page shows, not by what the board's file stored.

Issue #32: a 30 MB unknown field took one API results request to 1.5 GB, the
feed and a paper page to hundreds of megabytes, because every row read its
board whole. The loader now refuses a field that large (format/page.py), so
the test stores one straight into the database, as an older build would have,
and measures a live gunicorn worker's peak memory (VmHWM) across every page
that reads that board.
"""

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from leaderboards.models import Leaderboard
from tests.helpers import ROOT, SEED_SLUG, child_env, manage

GUNICORN = Path(sys.executable).parent / "gunicorn"
PAPER = "line-out-of-distribution-detection-by"
HUGE = 30_000_000
# Every page that reads the board, or rows of it with their board.
PAGES = [
    f"/sota/{SEED_SLUG}",
    f"/sota/{SEED_SLUG}?sort=model",
    f"/sota/{SEED_SLUG}.json",
    f"/sota/{SEED_SLUG}.csv",
    f"/api/v1/evaluations/{SEED_SLUG}/results/",
    f"/api/v1/evaluations/{SEED_SLUG}/",
    f"/api/v1/papers/{PAPER}/results/",
    "/feeds/newest.atom",
    "/",
    f"/paper/{PAPER}",
    f"/badge/{PAPER}/{SEED_SLUG}",
]

# Stored as an older build would have: past the size the loader accepts now.
STORE_HUGE = f"""
from leaderboards.models import Leaderboard, Row
board = Leaderboard.objects.get(slug={SEED_SLUG!r})
Leaderboard.objects.filter(pk=board.pk).update(extra={{"scraped_html": "x" * {HUGE}}})
Row.objects.filter(leaderboard=board, rank=2).update(extra={{"notes": "y" * {HUGE}}})
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def status_of(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            answer.read()
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def memory_mb(pid, field):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise LookupError(field)


@pytest.mark.slow
def test_a_30_mb_unknown_field_grows_no_page_s_worker_by_50_mb(child_database_url):
    env = child_env(child_database_url)
    for command in (["migrate", "--noinput", "-v0"], ["load_seeds"]):
        done = manage(*command, env=env)
        assert done.returncode == 0, done.stderr
    port = free_port()
    command = [str(GUNICORN), "sotasite.wsgi", "--config", "gunicorn.conf.py"]
    command += ["--bind", f"127.0.0.1:{port}", "--workers", "1", "--log-level", "warning"]
    # Every request renders (no page cache); no cap replaces the worker mid-test.
    server_env = {**env, "SOTASITE_PAGE_CACHE": "0", "SOTASITE_MAX_WORKER_MB": "100000"}
    master = subprocess.Popen(command, cwd=ROOT, env=server_env)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while status_of_or_none(base + "/robots.txt") != 200:
            assert time.monotonic() < deadline and master.poll() is None, "gunicorn did not start"
            time.sleep(0.2)
        (worker,) = Path(f"/proc/{master.pid}/task/{master.pid}/children").read_text().split()
        # Every page once before, so its code and templates are loaded when measured.
        assert {page: status_of(base + page) for page in PAGES} == dict.fromkeys(PAGES, 200)
        done = manage("shell", "-c", STORE_HUGE, env=env)
        assert done.returncode == 0, done.stderr
        start = memory_mb(worker, "VmHWM")
        statuses, peaks = {}, {}
        for page in PAGES:
            statuses[page] = status_of(base + page)
            peaks[page] = round(memory_mb(worker, "VmHWM") - start)
        grown = memory_mb(worker, "VmHWM") - start
    finally:
        master.terminate()
        master.wait(timeout=30)
    # The page file alone cannot be written without the block it would have to hold.
    export = f"/sota/{SEED_SLUG}.json"
    assert statuses == {**dict.fromkeys(PAGES, 200), export: 503}
    assert grown < 50, f"the worker's peak memory grew by {grown:.0f} MB: {peaks} (MB, cumulative)"


def status_of_or_none(url):
    try:
        return status_of(url)
    except OSError:
        return None


def test_the_export_names_the_block_too_large_to_read(seeded, client):
    Leaderboard.objects.filter(pk=seeded.pk).update(extra={"scraped_html": "x" * 4_000_001})
    response = client.get(f"/sota/{SEED_SLUG}.json")
    assert response.status_code == 503
    assert json.loads(response.content)["unshown"] == [
        {"block": "extra", "reason": "4,000,020 characters stored, over the 4,000,000 a page reads"}
    ]
    # The page itself never reads the board's unknown fields.
    assert client.get(f"/sota/{SEED_SLUG}").status_code == 200

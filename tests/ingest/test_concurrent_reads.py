"""Readers during a load see a leaderboard whole: as before the load or after it.

A writer process loads newer versions of one page, one after another, while
reader processes fetch the page's JSON in a loop. Every response must equal
the export of one version exactly; a read that mixed two versions (rows of
one, metrics or snapshot of another) would equal none of them.
"""

import json
import subprocess
import sys
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboards.web.views.reads import REPEATABLE_READ_ONLY
from tests.helpers import ROOT, child_env, scaled_page

VERSIONS = 12
READERS = 2  # processes, each with two threads
SLUG = "board-under-load"

READ = """
import json, sys, threading
from pathlib import Path
import django
django.setup()
from django.db import connection
from django.test import Client

url, stop, ready, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
seen, lock = {}, threading.Lock()

crashed = []

def read():
    client = Client()
    try:
        while not stop.exists():
            response = client.get(url)
            key = (response.status_code, response.content.decode())
            with lock:
                seen[key] = seen.get(key, 0) + 1
            ready.touch()
    except BaseException:
        crashed.append(True)
        raise
    finally:
        connection.close()

threads = [threading.Thread(target=read) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
out.write_text(json.dumps([[status, body, n] for (status, body), n in seen.items()]))
sys.exit(1 if crashed else 0)
"""

WRITE = """
import sys
import django
django.setup()
from leaderboards.ingest.loader import Loader
for path in sys.argv[1:]:
    report = Loader().load([path])
    assert report.updated == 1 and not report.failed, (path, report)
"""


def version(seed_page, number):
    """Version `number` of the page: its rows, values and snapshot all differ from the last."""
    page = scaled_page(seed_page, 20 + 15 * (number % 2))
    page["url"] = f"/sota/{SLUG}"
    page["syntology"]["read_at"] = f"2026-10-01T09:{number:02d}:00+00:00"
    for row in page["rows"]:
        row["model"] = f"{row['model']} v{number}"
    return page


def manage(database_url, *args):
    subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=child_env(database_url),
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip


def wait_for(paths, timeout=60):
    deadline = time.monotonic() + timeout
    while not all(path.exists() for path in paths):
        assert time.monotonic() < deadline, "readers never read the page"
        time.sleep(0.05)


def test_readers_during_loads_see_each_version_whole(child_database_url, tmp_path, seed_page):
    pages = [version(seed_page, number) for number in range(VERSIONS + 1)]
    files = []
    for number, page in enumerate(pages):
        files.append(tmp_path / f"v{number:02d}.json")
        files[-1].write_text(json.dumps(page))
    manage(child_database_url, "migrate", "--noinput")
    manage(child_database_url, "load_seeds", str(files[0]))

    env = {**child_env(child_database_url), "SOTASITE_ALLOWED_HOSTS": "testserver"}
    stop = tmp_path / "stop"
    readers = []
    for index in range(READERS):
        ready, out = tmp_path / f"ready-{index}", tmp_path / f"reads-{index}.json"
        process = subprocess.Popen(
            [sys.executable, "-c", READ, f"/sota/{SLUG}.json", stop, ready, out],
            cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        readers.append((process, ready, out))
    try:
        wait_for([ready for _, ready, _ in readers])
        writer = subprocess.run(
            [sys.executable, "-c", WRITE, *map(str, files[1:])], cwd=ROOT, env=env,
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    finally:
        stop.touch()
        errors = [process.communicate(timeout=60)[1] for process, _, _ in readers]
    assert writer.returncode == 0, writer.stderr
    assert all(process.returncode == 0 for process, _, _ in readers), errors

    seen = [read for _, _, out in readers for read in json.loads(out.read_text())]
    assert {status for status, _, _ in seen} == {200}
    matched = set()
    for _, body, _ in seen:
        document = json.loads(body)
        assert document in pages, "a read mixed two versions of the page"
        matched.add(pages.index(document))
    # The readers really did read while the loads went on.
    assert len(matched) >= 3, matched


@pytest.mark.django_db(transaction=True)
def test_the_page_opens_a_snapshot_that_does_not_lock_writers_out(seeded, client):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(seeded.get_absolute_url()).status_code == 200
    opening = [query["sql"] for query in queries.captured_queries[:2]]
    if connection.vendor == "postgresql":
        assert opening == ["BEGIN", REPEATABLE_READ_ONLY]
    else:
        # Deferred, not the IMMEDIATE of writes: a reader must not hold the write lock.
        assert opening[0] == "BEGIN"

"""A load killed halfway leaves every page as before or fully updated, and resumes."""

import json
import signal
import subprocess
import sys

from tests.helpers import ROOT, child_env, scaled_page

BOARDS = 24
ROWS = 3  # few: the cost is per board, and whole-or-nothing is per board too
CHUNK = 6  # four chunks: the kill lands inside one after the first commits

# The load, in a child process, with chunks small enough to keep the test
# short. Once a board of the second chunk is written, inside that chunk's open
# transaction, it says so on stderr and waits there to be killed: a load is
# too quick to hit that moment by timing.
LOAD = f"""
import sys, time
import django
django.setup()
from leaderboards.ingest import loader, writer
writer.CHUNK = {CHUNK}
written = 0
def then_wait(boards):
    global written
    written += boards
    if written > {CHUNK}:
        print("inside the second chunk", file=sys.stderr, flush=True)
        time.sleep(60)
written_rows = writer.Writer._rows_written
def hooked(self, items):
    written_rows(self, items)
    then_wait(len(items))
writer.Writer._rows_written = hooked
loader.Loader().load([sys.argv[1]])
"""

# Run in a child process against the same database: which version's file each
# stored page exports as, exactly (its index among the folders), or None if none.
CHECK = """
import json, sys
from pathlib import Path
import django
django.setup()
from leaderboards.web.export import page_document
from leaderboards.web.page_data import PageData
from leaderboards.models import Leaderboard
folders = [Path(arg) for arg in sys.argv[1:]]
matches = {}
for board in Leaderboard.objects.with_areas_and_metrics():
    document = page_document(PageData(board))
    matches[board.slug] = next(
        (index for index, folder in enumerate(folders)
         if json.loads((folder / f"{board.slug}.json").read_text()) == document),
        None,
    )
print(json.dumps(matches))
"""


def run(database_url, *args):
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=child_env(database_url),
        text=True, capture_output=True, timeout=120,
    )  # fmt: skip
    return result.returncode, result.stdout, result.stderr


def check(database_url, *folders):
    result = subprocess.run(
        [sys.executable, "-c", CHECK, *map(str, folders)], cwd=ROOT, env=child_env(database_url),
        text=True, capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    return json.loads(result.stdout)


def write_boards(folder, seed_page, read_at, rows):
    folder.mkdir()
    for index in range(BOARDS):
        page = scaled_page(seed_page, rows)
        page["url"] = f"/sota/board-{index:04d}"
        page["syntology"]["read_at"] = read_at
        (folder / f"board-{index:04d}.json").write_text(json.dumps(page))


def kill_after_first_chunk(database_url, folder):
    process = subprocess.Popen(
        [sys.executable, "-c", LOAD, str(folder)], cwd=ROOT, env=child_env(database_url),
        text=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    with process.stderr:
        line = process.stderr.readline()
        assert "inside the second chunk" in line, line
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


def test_a_killed_load_leaves_whole_pages_and_a_rerun_finishes(
    child_database_url, tmp_path, seed_page
):
    assert run(child_database_url, "migrate", "--noinput")[0] == 0
    first = tmp_path / "first"
    write_boards(first, seed_page, "2026-09-25T09:33:49+00:00", ROWS)

    kill_after_first_chunk(child_database_url, first)
    stored = check(child_database_url, first)
    assert CHUNK <= len(stored) < BOARDS
    assert set(stored.values()) == {0}

    code, out, err = run(child_database_url, "load_seeds", str(first))
    assert code == 0, err
    created = BOARDS - len(stored)
    assert f"{BOARDS} files: {created} created, 0 updated, {len(stored)} unchanged" in out

    # A newer version of every page, killed halfway: each page is old or new, never mixed.
    newer = tmp_path / "newer"
    write_boards(newer, seed_page, "2026-10-25T09:33:49+00:00", ROWS + 2)
    kill_after_first_chunk(child_database_url, newer)
    versions = list(check(child_database_url, first, newer).values())
    assert len(versions) == BOARDS
    assert None not in versions
    assert versions.count(1) >= CHUNK
    assert versions.count(0), "the load finished before the kill"
    code, out, err = run(child_database_url, "load_seeds", str(newer))
    assert code == 0, err
    assert list(check(child_database_url, newer).values()) == [0] * BOARDS

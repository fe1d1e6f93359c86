"""A large load reads and checks its files in a second process.

What a load stores and reports must not depend on where its files were
read; a reader that dies must stop the load with a word, not hang it; and a
load killed must not leave its reader behind.
"""

import functools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from leaderboards.format.page import MAX_DEPTH
from leaderboards.ingest import loader, writer
from leaderboards.ingest.loader import Loader
from leaderboards.models import Leaderboard, SearchEntry
from leaderboards.web.export import page_document
from leaderboards.web.page_data import PageData
from tests.helpers import ROOT, child_env, scaled_page, write_board_files

# Loads read in a second process, started and killed: the full run's.
pytestmark = pytest.mark.slow

BOARDS = 6
BAD_FILES = 7


def write_folder(folder, seed_page):
    """BOARDS good pages, one with a stated figure that is wrong and one nested near
    the limit (which must cross between the processes whole), and BAD_FILES bad files."""
    write_board_files(folder, seed_page, BOARDS)
    wrong = json.loads((folder / "board-0002.json").read_text())
    wrong["counts"]["rows"] += 1
    (folder / "board-0002.json").write_text(json.dumps(wrong))
    deep = json.loads((folder / "board-0005.json").read_text())
    deep["notes"] = functools.reduce(lambda inner, _: {"n": inner}, range(MAX_DEPTH - 5), 1)
    (folder / "board-0005.json").write_text(json.dumps(deep))
    os.mkfifo(folder / "fifo.json")
    text = json.dumps(scaled_page(seed_page, 3))
    (folder / "nan.json").write_text(text.replace('"rows": 3', '"rows": NaN', 1))
    (folder / "twice.json").write_text(text.replace('{"url": ', '{"url": "/sota/x", "url": ', 1))
    (folder / "broken.json").write_text('{"url": ')
    (folder / "latin-1.json").write_bytes("caf\xe9".encode("latin-1"))
    (folder / "nothing.json").symlink_to(folder / "gone.json")
    page = scaled_page(seed_page, 3)
    page["rows"][0]["metrics"] = {"FPR95": {"nested": True}}
    (folder / "odd-value.json").write_text(json.dumps(page))


def outcome(report):
    return (
        sorted(report.failed),
        sorted(report.warnings),
        sorted(report.differences),
        (report.files, report.created, report.updated, report.unchanged),
    )


def test_a_load_read_in_a_second_process_stores_and_reports_as_one_read_here(
    db, tmp_path, seed_page, monkeypatch
):
    folder = tmp_path / "pages"
    write_folder(folder, seed_page)
    # The same files read in this process: a dry run reports what a load would.
    expected = outcome(Loader(dry_run=True).load([folder]))
    assert len(expected[0]) == BAD_FILES and expected[2]

    read_here = []

    prepared_here = []

    def read_here_too(path, read=loader._read_file):
        read_here.append(path.name)
        return read(path)

    def prepare_here_too(page, prepare=loader.prepare):
        prepared_here.append(page["url"])
        return prepare(page)

    with monkeypatch.context() as patched:
        patched.setattr(loader, "READ_AHEAD_FILES", 1)
        patched.setattr(loader, "CHUNK", 4)
        patched.setattr(writer, "CHUNK", 4)
        patched.setattr(loader, "_read_file", read_here_too)
        patched.setattr(loader, "prepare", prepare_here_too)
        report = Loader().load([folder])

    assert outcome(report) == expected
    # The first chunk is read here while the reader starts; the rest there.
    first = loader.page_files([folder])[:4]
    assert read_here == [path.name for path in first]
    # And the rest arrive prepared for the writer: it worked out only the pages it read.
    assert prepared_here
    assert set(prepared_here) <= {f"/sota/{path.stem}" for path in first}
    stored = {board.slug: board for board in Leaderboard.objects.with_areas_and_metrics()}
    assert sorted(stored) == [f"board-{index:04d}" for index in range(BOARDS)]
    # Board 2's wrong figure is reported (above) and exported as computed.
    for slug, board in stored.items():
        if slug != "board-0002":
            document = json.loads((folder / f"{slug}.json").read_text())
            assert page_document(PageData(board)) == document
    # The end-of-load work ran on what the reader read.
    assert SearchEntry.objects.filter(slug="board-0005").exists()


def _reader_that_dies_at_board_4(paths):
    # Runs in the reader (imported there by name): dies as a killed process does.
    if any(Path(path).name == "board-0004.json" for path in paths):
        os._exit(1)
    return loader._read_files(paths)


def test_a_reader_that_dies_stops_the_load_saying_so_with_the_chunks_before_written(
    load, tmp_path, seed_page, monkeypatch
):
    write_board_files(tmp_path / "pages", seed_page, BOARDS)
    monkeypatch.setattr(loader, "READ_AHEAD_FILES", 1)
    monkeypatch.setattr(loader, "CHUNK", 2)
    monkeypatch.setattr(writer, "CHUNK", 2)
    monkeypatch.setattr(loader, "_read_files", _reader_that_dies_at_board_4)

    ok, _, err = load(tmp_path / "pages")
    assert not ok
    assert "reading page files stopped before" in err and "board-0004.json" in err
    assert "Traceback" not in err

    assert sorted(Leaderboard.objects.values_list("slug", flat=True)) == [
        "board-0000",
        "board-0001",
        "board-0002",
        "board-0003",
    ]
    assert SearchEntry.objects.filter(slug="board-0003").exists()


# A dry run: the load's own process reads its first chunk and checks it against
# the (migrated) database, then waits for the reader.
LOAD = """
import sys
import django
django.setup()
from django.core.management import call_command
from leaderboards.ingest import loader, writer
from tests.helpers import reader_that_waits
call_command("migrate", verbosity=0)
loader.READ_AHEAD_FILES = 1
loader.CHUNK = writer.CHUNK = 2
loader._read_files = reader_that_waits
loader.Loader(dry_run=True).load([sys.argv[1]])
"""


def children(pid):
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()]


def running(pid):
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def test_a_killed_load_leaves_no_reader_behind(tmp_path, seed_page):
    folder = tmp_path / "pages"
    write_folder(folder, seed_page)
    load = subprocess.Popen(
        [sys.executable, "-c", LOAD, str(folder)],
        cwd=ROOT,
        env=child_env(f"sqlite:///{tmp_path / 'child.sqlite3'}"),
        stderr=subprocess.PIPE,
        text=True,
    )
    left = []
    try:
        assert load.stderr.readline() == "reading\n"
        left = children(load.pid)
        assert left, "the load started no reader"
        load.send_signal(signal.SIGKILL)
        load.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(map(running, left)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in left if running(pid)]
    finally:
        load.kill()
        load.stderr.close()
        for pid in left:
            if running(pid):
                os.kill(pid, signal.SIGKILL)

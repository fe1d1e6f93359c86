"""A load that stops at its end, or on a full disk, is completed by running it again."""

import json
import signal
import subprocess
import sys

import pytest
from django.db import DatabaseError, connection

from leaderboards.ingest import tables, writer
from leaderboards.ingest.loader import Loader
from leaderboards.models import (
    Dataset,
    Leaderboard,
    MetricValue,
    Paper,
    Row,
    SearchEntry,
    Task,
    UpkeepPending,
)
from leaderboards.upkeep.cache import versions
from tests.helpers import ROOT, child_env, scaled_page, upkeep_state, write_board_files

BOARDS = 12
# Below this many rows a table is read whole cheaply whatever the planner knows.
SMALL_TABLE = 1000
CHUNK = 5


CHECK = """
import json
import django
django.setup()
from tests.helpers import upkeep_state
print(json.dumps(upkeep_state()))
"""

# The load in a child process; at the named end step it says so and waits to be killed.
KILLED_AT = f"""
import sys, time
import django
django.setup()
from leaderboards.ingest import loader, writer
writer.CHUNK = {CHUNK}
step = sys.argv[2]
def wait(*args, **kwargs):
    print("in the end work", file=sys.stderr, flush=True)
    time.sleep(60)
if step == "index":
    writer.refresh_search = wait
else:
    writer.bump_catalogue_version = wait
loader.Loader().load([sys.argv[1]])
"""


def write_boards(folder, seed_page):
    folder.mkdir()
    for index in range(BOARDS):
        page = scaled_page(seed_page, 3)
        page["url"] = f"/sota/board-{index:04d}"
        page["task"] = {"name": f"Task {index % 4}", "url": f"/task/task-{index % 4}", "note": None}
        (folder / f"board-{index:04d}.json").write_text(json.dumps(page))


def child(database_url, *args):
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=child_env(database_url),
        text=True, capture_output=True, timeout=120,
    )  # fmt: skip


def child_state(database_url):
    result = child(database_url, "-c", CHECK)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("step", ["index", "version"])
def test_a_load_killed_in_its_end_work_is_completed_by_the_same_command(
    child_database_url, tmp_path, seed_page, step
):
    assert child(child_database_url, "manage.py", "migrate", "--noinput").returncode == 0
    before = child_state(child_database_url)["version"]
    folder = tmp_path / "pages"
    write_boards(folder, seed_page)
    process = subprocess.Popen(
        [sys.executable, "-c", KILLED_AT, str(folder), step], cwd=ROOT,
        env=child_env(child_database_url), text=True, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    with process.stderr:
        line = process.stderr.readline()
        assert "in the end work" in line, line + process.stderr.read()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    killed = child_state(child_database_url)
    # What the kill left: every page, but an index or a data version behind them.
    assert not (killed["right"] and killed["version"] > before)
    assert killed["pending"]

    result = child(child_database_url, "manage.py", "load_seeds", str(folder))
    assert result.returncode == 0, result.stderr
    assert f"{BOARDS} files: 0 created, 0 updated, {BOARDS} unchanged" in result.stdout
    assert "this run completed it" in result.stdout
    after = child_state(child_database_url)
    assert after["right"]
    assert after["search_entries"] > killed["search_entries"] or step == "version"
    assert after["version"] > before
    assert after["pending"] == 0

    # Once complete, a re-run has nothing left to do and says nothing of it.
    result = child(child_database_url, "manage.py", "load_seeds", str(folder))
    assert "completed" not in result.stdout
    assert child_state(child_database_url)["version"] == after["version"]


@pytest.mark.parametrize("step", ["refresh_touched", "refresh_search", "bump_catalogue_version"])
def test_a_failing_end_step_is_completed_by_the_next_run(
    db, tmp_path, seed_page, monkeypatch, step
):
    folder = tmp_path / "pages"
    write_boards(folder, seed_page)
    before = versions().catalogue

    def fail(*args, **kwargs):
        raise DatabaseError("simulated failure")

    with monkeypatch.context() as patched:
        patched.setattr(writer, step, fail)
        with pytest.raises(DatabaseError):
            Loader().load([folder])
    assert Leaderboard.objects.count() == BOARDS
    assert UpkeepPending.objects.exists()

    report = Loader().load([folder])
    assert (report.unchanged, report.completed_earlier) == (BOARDS, True)
    state = upkeep_state()
    assert state["right"]
    assert state["version"] > before
    assert state["pending"] == 0


def test_an_unchanged_load_with_nothing_pending_does_no_end_work(db, tmp_path, seed_page):
    folder = tmp_path / "pages"
    write_boards(folder, seed_page)
    Loader().load([folder])
    version = versions().catalogue
    report = Loader().load([folder])
    assert (report.unchanged, report.completed_earlier) == (BOARDS, False)
    assert versions().catalogue == version


# A full disk.

DISK_FULL = f"""
import sys
import django
django.setup()
from django.core.management import execute_from_command_line
from django.db import connection
from leaderboards.ingest import writer
writer.CHUNK = {CHUNK}
written = writer.Writer._write_chunk
def then_fill(self, sources):
    written(self, sources)
    # After the first chunk the database may not grow by a page more.
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA page_count")
        cursor.execute(f"PRAGMA max_page_count = {{cursor.fetchone()[0]}}")
writer.Writer._write_chunk = then_fill
execute_from_command_line(["manage.py", "load_seeds", sys.argv[1]])
"""

COUNT = """
import json
import django
django.setup()
from leaderboards.models import Leaderboard, MetricValue, Row, UpkeepPending
print(json.dumps([
    sorted(Leaderboard.objects.values_list("slug", flat=True)),
    Row.objects.count(),
    UpkeepPending.objects.count(),
]))
"""


def test_a_full_disk_on_sqlite_stops_the_load_and_says_so(
    child_database_url, tmp_path, seed_page, settings
):
    if "sqlite" not in settings.DATABASES["default"]["ENGINE"]:
        pytest.skip("max_page_count is SQLite's; PostgreSQL's case is classified below")
    assert child(child_database_url, "manage.py", "migrate", "--noinput").returncode == 0
    folder = tmp_path / "pages"
    write_boards(folder, seed_page)

    result = child(child_database_url, "-c", DISK_FULL, str(folder))
    assert result.returncode == 1
    second = folder / f"board-{CHUNK:04d}.json"
    assert (
        f"the disk is full: the database ({tmp_path / 'child.sqlite3'}) could not grow "
        f"while writing {second} (and {CHUNK - 1} more of its chunk)"
    ) in result.stderr
    assert "run the same command again" in result.stderr
    assert "Traceback" not in result.stderr
    assert "TransactionManagementError" not in result.stderr
    # The first chunk is whole, the second not there at all, and the later ones not tried.
    slugs, rows, pending = json.loads(child(child_database_url, "-c", COUNT).stdout)
    assert slugs == [f"board-{index:04d}" for index in range(CHUNK)]
    assert rows == CHUNK * 3
    assert pending == 1

    result = child(child_database_url, "manage.py", "load_seeds", str(folder))
    assert result.returncode == 0, result.stderr
    assert f"{BOARDS - CHUNK} created, 0 updated, {CHUNK} unchanged" in result.stdout
    after = child_state(child_database_url)
    assert after["right"]
    assert after["pending"] == 0


def _wrapped(cause):
    """A driver error as Django raises it: its own class, the driver's as the cause."""
    try:
        try:
            raise cause
        except Exception as error:
            raise DatabaseError(str(error)) from error
    except DatabaseError as wrapped:
        return wrapped


def test_postgresql_disk_full_errors_are_recognised():
    import psycopg

    assert writer.is_disk_full(_wrapped(psycopg.errors.DiskFull("could not extend file")))
    assert writer.is_disk_full(
        _wrapped(
            psycopg.errors.IoError(
                'could not write to file "base/pgsql_tmp/pgsql_tmp1.0": No space left on device'
            )
        )
    )
    assert not writer.is_disk_full(_wrapped(psycopg.errors.UniqueViolation("duplicate key")))
    assert not writer.is_disk_full(DatabaseError("simulated failure"))


def test_sqlite_disk_full_errors_are_recognised():
    import sqlite3

    full = sqlite3.OperationalError("database or disk is full")
    assert writer.is_disk_full(_wrapped(full))
    assert not writer.is_disk_full(_wrapped(sqlite3.OperationalError("database is locked")))


def test_a_full_disk_in_a_chunk_rolls_it_back_and_stops_the_load(
    db, tmp_path, seed_page, monkeypatch
):
    import psycopg

    folder = tmp_path / "pages"
    write_boards(folder, seed_page)
    real = tables.insert_rows
    calls = []

    def full_on_second_chunk(items, papers):
        calls.append(len(items))
        if len(calls) == 2:
            raise _wrapped(psycopg.errors.DiskFull("could not extend file"))
        real(items, papers)

    monkeypatch.setattr(writer, "CHUNK", CHUNK)
    monkeypatch.setattr(tables, "insert_rows", full_on_second_chunk)
    report = Loader().load([folder])
    assert report.stopped.startswith("the disk is full")
    assert f"board-{CHUNK:04d}.json (and {CHUNK - 1} more of its chunk)" in report.stopped
    # Not retried page by page: a full disk is no one page's fault.
    assert len(calls) == 2
    assert Leaderboard.objects.count() == CHUNK
    assert Row.objects.count() == CHUNK * 3
    assert report.created == CHUNK


def test_a_chunk_that_fails_after_its_pages_were_written_is_not_counted(
    db, tmp_path, seed_page, monkeypatch
):
    """Issue #32: a full disk at a chunk's last statement (on SQLite, often its commit)
    once left the summary counting the chunk's pages as created."""
    import sqlite3

    folder = tmp_path / "pages"
    write_boards(folder, seed_page)
    real = writer.analyze_grown_tables
    calls = []

    def full_after_second_chunk():
        calls.append(1)
        if len(calls) == 2:
            raise _wrapped(sqlite3.OperationalError("database or disk is full"))
        real()

    monkeypatch.setattr(writer, "CHUNK", CHUNK)
    monkeypatch.setattr(writer, "analyze_grown_tables", full_after_second_chunk)
    report = Loader().load([folder])
    assert report.stopped.startswith("the disk is full")
    assert Leaderboard.objects.count() == CHUNK
    assert (report.created, report.updated) == (CHUNK, 0)


# The planner's statistics.


def planned_rows(model):
    """How many rows the query planner believes a table holds."""
    table = model._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
            return int(cursor.fetchone()[0])
        cursor.execute("SELECT stat FROM sqlite_stat1 WHERE tbl = %s LIMIT 1", [table])
        return int(cursor.fetchone()[0].split()[0])


def test_a_load_leaves_the_planner_knowing_the_new_table_sizes(db, tmp_path, seed_page):
    folder = tmp_path / "pages"
    write_boards(folder, seed_page)
    if connection.vendor != "sqlite":
        # This shared test database keeps the statistics of earlier tests' rolled
        # back rows; PostgreSQL's end of a load is checked on a fresh database below.
        pytest.skip("SQLite's; PostgreSQL's is tested on a fresh database below")
    Loader().load([folder])
    for model in (Leaderboard, Row, MetricValue):
        assert planned_rows(model) == model.objects.count() > 0


def test_while_a_load_runs_the_planner_knows_each_table_within_twice_its_size(
    db, tmp_path, seed_page, monkeypatch
):
    """Planned by what it knew of a site holding only the seed page, the
    end of a 15,000-board load on SQLite took 318 s in one statement instead of 1 s."""
    if connection.vendor != "sqlite":
        # PostgreSQL's rule (a table's file doubling) is checked in a fresh
        # database below: in this shared test database the files hold the dead
        # rows of earlier tests, which new rows fill without the file growing.
        pytest.skip("SQLite's rule; PostgreSQL's is tested on a fresh database below")
    Loader().load([ROOT / "seeds"])
    seeded = Row.objects.count()
    folder = tmp_path / "pages"
    folder.mkdir()
    for index in range(60):
        page = scaled_page(seed_page, 40)
        page["url"] = f"/sota/board-{index:04d}"
        (folder / f"board-{index:04d}.json").write_text(json.dumps(page))
    seen = []
    analyze = writer.analyze_grown_tables

    def after_each_chunk():
        grown = analyze()
        seen.append((planned_rows(Row), Row.objects.count()))
        return grown

    monkeypatch.setattr(writer, "CHUNK", 10)
    monkeypatch.setattr(writer, "analyze_grown_tables", after_each_chunk)
    Loader().load([folder])
    # Each chunk's end, then the end of the load before its figures and index.
    assert len(seen) == 7
    assert all(rows <= 2 * max(planned, SMALL_TABLE) for planned, rows in seen), seen
    assert seen[-1][1] == seeded + 60 * 40


# Checked from another connection after the loading process has exited, as a
# later request would find them: not inside the test's own transaction.
ANALYZED = """
SELECT relname, last_analyze IS NOT NULL, n_mod_since_analyze, n_live_tup
FROM pg_stat_user_tables WHERE relname = ANY(%s)
"""


VACUUMED = """
SELECT last_vacuum IS NOT NULL, n_dead_tup FROM pg_stat_user_tables WHERE relname = %s
"""
# Pages of a table the visibility map does not mark all-visible: an index-only
# scan reads the table for each of their rows.
NOT_ALL_VISIBLE = """
SELECT relname, relpages - relallvisible FROM pg_class WHERE relname = ANY(%s)
"""


def test_a_load_on_postgresql_leaves_nothing_for_autovacuum_to_analyze(
    child_database_url, tmp_path, seed_page
):
    if not child_database_url.startswith("postgres"):
        pytest.skip("pg_stat_user_tables is PostgreSQL's; SQLite's sizes are checked above")
    import psycopg

    assert child(child_database_url, "manage.py", "migrate", "--noinput").returncode == 0
    folder = tmp_path / "pages"
    write_boards(folder, seed_page)
    result = child(child_database_url, "manage.py", "load_seeds", str(folder))
    assert result.returncode == 0, result.stderr

    # A second load grows the site past autovacuum's thresholds and rewrites the
    # search entries whole: their old rows are vacuumed away, not left for every
    # search to read past.
    more = tmp_path / "more"
    more.mkdir()
    for index in range(MORE_BOARDS):
        page = scaled_page(seed_page, 3)
        page["url"] = f"/sota/one-more-board-{index}"
        (more / f"one-more-board-{index}.json").write_text(json.dumps(page))
    result = child(child_database_url, "manage.py", "load_seeds", str(more))
    assert result.returncode == 0, result.stderr

    tables = [model._meta.db_table for model in (Leaderboard, Row, MetricValue)]
    url = child_database_url.replace("postgres://", "postgresql://")
    with psycopg.connect(url) as db:
        found = {name: rest for name, *rest in db.execute(ANALYZED, [tables])}
        vacuumed = db.execute(VACUUMED, [SearchEntry._meta.db_table]).fetchone()
        listed = [model._meta.db_table for model in (Leaderboard, Task, Dataset, Paper)]
        not_all_visible = dict(db.execute(NOT_ALL_VISIBLE, [listed]).fetchall())
    assert vacuumed == (True, 0)
    # The lists' index-only scans read no table the load grew right after it, as
    # they would once autovacuum (where it runs) came by.
    assert not_all_visible["leaderboards_leaderboard"] == 0
    assert found == {
        "leaderboards_leaderboard": [True, 0, BOARDS + MORE_BOARDS],
        "leaderboards_row": [True, 0, (BOARDS + MORE_BOARDS) * 3],
        "leaderboards_metricvalue": [True, 0, found["leaderboards_metricvalue"][2]],
    }
    assert found["leaderboards_metricvalue"][2] > 0

    # One board's newer file changes too few rows to plan otherwise: nothing is
    # analyzed or vacuumed again.
    with psycopg.connect(url) as db:
        before = db.execute(LAST_MAINTAINED).fetchall()
    page = json.loads((more / "one-more-board-0.json").read_text())
    if page["syntology"] is not None:
        page["syntology"]["read_at"] = "2099-01-01T00:00:00+00:00"
    else:
        page["source"]["snapshot"] = "2099-01-01"
    page["rows"][0]["metrics"] = dict.fromkeys(page["rows"][0]["metrics"], "12.5")
    (more / "one-more-board-0.json").write_text(json.dumps(page))
    result = child(child_database_url, "manage.py", "load_seeds", str(more))
    assert f"0 created, 1 updated, {MORE_BOARDS - 1} unchanged" in result.stdout, result.stderr
    with psycopg.connect(url) as db:
        assert db.execute(LAST_MAINTAINED).fetchall() == before


# More boards than autovacuum's 50 rows, and than 10% of the site.
MORE_BOARDS = 60
LAST_MAINTAINED = """
SELECT relname, last_analyze, last_vacuum FROM pg_stat_user_tables
WHERE relname LIKE 'leaderboards%' ORDER BY relname
"""


# A load in chunks of LOADED_CHUNK onto a site that already holds (and has analyzed)
# the seed page: the planner last read the tables when they were a page each.
LOADED_BOARDS = 2000
LOADED_CHUNK = 100
CHUNKED_LOAD = f"""
import sys
import django
django.setup()
from leaderboards.ingest import loader, writer
writer.CHUNK = {LOADED_CHUNK}
report = loader.Loader().load([sys.argv[1]])
assert not report.failed, report.failed
"""
READ_WHOLE = "SELECT seq_tup_read, n_live_tup FROM pg_stat_user_tables WHERE relname = %s"


def test_a_load_onto_a_small_site_checks_its_foreign_keys_by_index(
    child_database_url, tmp_path, seed_page
):
    """PostgreSQL plans a commit's foreign-key checks once per connection: planned on
    tables of a page each, every metric value's check read the whole metrics table
    (a load of 15,000 boards onto the seed page ran for minutes instead of 71 s)."""
    if not child_database_url.startswith("postgres"):
        pytest.skip("SQLite checks a foreign key by its primary key whatever it knows")
    import psycopg

    assert child(child_database_url, "manage.py", "migrate", "--noinput").returncode == 0
    result = child(child_database_url, "manage.py", "load_seeds", str(ROOT / "seeds"))
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "pages"
    write_board_files(folder, seed_page, LOADED_BOARDS, rows=2)
    result = child(child_database_url, "-c", CHUNKED_LOAD, str(folder))
    assert result.returncode == 0, result.stderr
    with psycopg.connect(child_database_url.replace("postgres://", "postgresql://")) as db:
        read, metrics = db.execute(READ_WHOLE, ["leaderboards_metric"]).fetchone()
    assert metrics > LOADED_BOARDS
    # Whole-table reads of the metrics about fifty times over in all (a few
    # loader queries per chunk), not once for each of its values: 4,000 times
    # over without the analyses, growing with the square of the load.
    assert read < 100 * metrics, (read, metrics)


def test_a_table_numbered_sparsely_is_not_taken_for_grown(db, tmp_path, seed_page):
    """The search entries are numbered in spans by kind: their largest id is far
    past their count. Taken for their size, they were analyzed after every load
    (1.8 s of a one-board load at PwC size)."""
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's rule: PostgreSQL counts rows written itself")
    folder = tmp_path / "pages"
    write_boards(folder, seed_page)
    Loader().load([folder])
    assert SearchEntry.objects.order_by("-pk").values_list("pk", flat=True)[0] > 1000
    assert writer.analyze_grown_tables() == []

"""bench.archive and bench.sitemaps on a small generated archive: they measure what they say."""

import re
import sqlite3
import subprocess
import sys

import pytest
from django.db import connection  # noqa: F401 (the skip condition reads it)

from tests.helpers import ROOT

# SQLite files of their own, whatever database the suite runs on: run once.
pytestmark = [pytest.mark.slow, pytest.mark.skipif("connection.vendor != 'sqlite'")]


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """A small archive's five files, imported into SQLite by bench.archive with --raw."""
    folder = tmp_path_factory.mktemp("archive")
    made = run("tools.synthetic_archive", "--out", str(folder), "--papers", "300", "--gzip")
    assert made.returncode == 0, made.stderr
    db, raw = folder / "site.sqlite3", folder / "raw.sqlite3"
    result = run("bench.archive", str(folder), "--db", str(db), "--raw", str(raw))
    # A small archive is mostly Django's start-up: the ratio may miss, the run may not fail.
    assert result.returncode in (0, 1), result.stderr
    return db, raw, result.stdout


def rows(db):
    with sqlite3.connect(db) as database:
        tables = [
            name
            for (name,) in database.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name LIKE 'leaderboards_%' AND sql LIKE 'CREATE TABLE \"%'"
            )
        ]
        return {table: database.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
                for table in tables}  # fmt: skip


def test_the_floor_inserts_every_row_the_import_stored(imported):
    db, raw, stdout = imported
    assert re.search(r"papers: [\d,]+ created", stdout)
    assert re.search(r"peak RSS of all processes \d+ MB", stdout)
    stored, copied = rows(db), rows(raw)
    assert stored["leaderboards_paper"] > 300
    # Every table the site fills holds the same rows in both (the areas fixture in each).
    assert {t: n for t, n in copied.items() if n} == {t: n for t, n in stored.items() if n}
    # The tables it timed, each with the rows the import stored, and their sum said.
    said = int(re.search(r"the same ([\d,]+) rows by executemany", stdout)[1].replace(",", ""))
    timed = {
        t: int(n.replace(",", "")) for t, n in re.findall(r"^  (\w+): ([\d,]+)$", stdout, re.M)
    }
    assert timed and all(stored[table] == n for table, n in timed.items())
    assert said == sum(timed.values())
    # All but those a fresh database already holds (the areas fixture, the site's state).
    assert set(stored) - set(timed) <= {t for t, n in stored.items() if n <= 16}


def test_the_sitemaps_name_every_page_of_the_imported_archive(imported):
    db, _, _ = imported
    result = run("bench.sitemaps", "--db", str(db), "--repeat", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "every page named" in result.stdout

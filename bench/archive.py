"""The whole archive's five files imported in one command, at Papers with Code's size.

    .venv/bin/python -m tools.synthetic_archive --out /tmp/full --papers 576000 --gzip
    .venv/bin/python -m bench.archive /tmp/full --db /tmp/archive.sqlite3
    .venv/bin/python -m bench.archive /tmp/full --database-url postgres://postgres@127.0.0.1:5432/archive

Makes the database empty and migrates it, loads the areas fixture, then runs
`manage.py import_pwc` on the folder's files as an operator would (one
process, Django's start-up included), reading each half second the
high-water memory of it and of every process it starts (the reader of the
papers and links files), added up. With --again, imports the same files a second time (the re-import
that finds nothing changed). Prints the wall time, the CPU seconds, the peak
memory of all processes together and the machine's load average before and
after; exits non-zero when a limit of issue #29 is missed.

With --raw, the floor the loader is held to (under 3x): the same rows by
plain inserts. Every row the import stored in the site's tables is read back
from the loaded database, then, timed, inserted into a fresh database of the
same schema (migrated, the areas fixture loaded) with nothing but the driver's
`executemany` (sqlite3 or psycopg), table by table in the order their foreign
keys need, CHUNK rows a statement and a transaction; SQLite's two full-text
tables are then rebuilt from those rows (PostgreSQL's indexes are kept by the
inserts themselves). To that the time plain `json` takes to read the five
files is added: the floor does no checking, joining, deduplication or derived
figures, which are the loader's work.
"""

import argparse
import contextlib
import gzip
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench.common import (
    ROOT,
    database_url,
    is_postgresql,
    migrated_database,
    peak_with_children_mb,
)

LIMIT_S = 600
RSS_LIMIT_MB = 1536
RATIO_LIMIT = 3.0


def timed_import(files, env):
    """(wall s, CPU s, peak MB, last stdout line) of one import_pwc."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "manage.py", "import_pwc", *map(str, files)]
    command.append("--snapshot=2025-07-28")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    peak = [0.0]

    def sample():
        while process.poll() is None:
            peak[0] = max(peak[0], peak_with_children_mb(process.pid))
            time.sleep(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, _ = process.communicate()
    sampler.join()
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if process.returncode != 0:
        sys.exit(f"import_pwc failed (exit {process.returncode}):\n{stdout[-4000:]}")
    return elapsed, cpu, peak[0], stdout


def _dependency_order(models):
    """The models, each after those its foreign keys name."""
    ordered, placed = [], set()
    pending = list(models)
    while pending:
        for model in pending:
            needs = {
                field.related_model
                for field in model._meta.concrete_fields
                if field.is_relation and field.related_model is not model
            }
            if needs & set(pending) <= {model}:
                ordered.append(model)
                placed.add(model)
        pending = [model for model in pending if model not in placed]
    return ordered


def _connect(db):
    if is_postgresql(db):
        import psycopg

        return psycopg.connect(database_url(db).replace("postgres://", "postgresql://", 1))
    import sqlite3

    connection = sqlite3.connect(db)
    # As the site opens it (settings.py).
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    return connection


def raw_inserts(loaded, fresh):
    """(insert seconds, rows, tables) of the site's rows in `loaded` put into `fresh` by
    executemany; the rows are read before the clock starts, a table at a time."""
    os.environ["DATABASE_URL"] = database_url(loaded)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sotasite.settings")
    import django

    django.setup()
    from django.apps import apps

    from leaderboards.ingest import CHUNK
    from leaderboards.search.index import ABSTRACT_FTS_TABLE, FTS_TABLE

    models = [
        model
        for model in apps.get_app_config("leaderboards").get_models(include_auto_created=True)
        if not model._meta.proxy and model._meta.managed
    ]
    postgres = is_postgresql(loaded)
    mark = "%s" if postgres else "?"
    seconds = rows_in_all = 0
    tables = []
    with contextlib.closing(_connect(loaded)) as source, contextlib.closing(_connect(fresh)) as to:
        for model in _dependency_order(models):
            table = model._meta.db_table
            columns = [field.column for field in model._meta.concrete_fields]
            quoted = ", ".join(f'"{column}"' for column in columns)
            if to.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]:
                continue  # a fixture's rows, in both
            rows = source.execute(f'SELECT {quoted} FROM "{table}" ORDER BY 1').fetchall()
            if not rows:
                continue
            insert = f'INSERT INTO "{table}" ({quoted}) VALUES ({", ".join([mark] * len(columns))})'
            started = time.perf_counter()
            for start in range(0, len(rows), CHUNK):
                to.cursor().executemany(insert, rows[start : start + CHUNK])
                to.commit()
            seconds += time.perf_counter() - started
            rows_in_all += len(rows)
            tables.append((table, len(rows)))
        if not postgres:
            started = time.perf_counter()
            for fts in (FTS_TABLE, ABSTRACT_FTS_TABLE):
                to.execute(f"INSERT INTO {fts}({fts}) VALUES('rebuild')")
            to.commit()
            seconds += time.perf_counter() - started
    return seconds, rows_in_all, tables


def parse_seconds(files):
    """How long plain `json` takes to read the gzipped files, one at a time."""
    started = time.perf_counter()
    for path in files:
        with gzip.open(path, "rb") as stream:
            document = json.load(stream)
        del document
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the generator's five .json.gz files")
    parser.add_argument("--db", type=Path, help="a SQLite file (made empty)")
    parser.add_argument("--database-url", help="a PostgreSQL database (dropped and made again)")
    parser.add_argument("--again", action="store_true", help="then import the same files again")
    parser.add_argument(
        "--raw", help="a database to make empty and insert the same rows into (the floor)"
    )
    parser.add_argument(
        "--loaded-in",
        type=float,
        help="the database is loaded already, by an import of this many seconds: only --raw",
    )
    options = parser.parse_args()
    db = options.database_url or options.db
    if db is None:
        parser.error("--db or --database-url")
    files = sorted(options.folder.glob("*.json.gz"))
    if len(files) != 5:
        parser.error(f"{options.folder} holds {len(files)} .json.gz files, not the archive's five")
    if options.loaded_in is not None:
        if not options.raw:
            parser.error("--loaded-in is for --raw on a database loaded before")
        runs = [("an import timed before", options.loaded_in, 0, 0, "", os.getloadavg())]
    else:
        env = migrated_database(db)
        runs = [("first import", *timed_import(files, env), os.getloadavg())]
    if options.again:
        runs.append(("again, the same files", *timed_import(files, env), os.getloadavg()))
    missed = False
    for name, wall, cpu, peak, stdout, load in runs[options.loaded_in is not None :]:
        print(f"== {name}")
        print(stdout.strip())
        verdict = "pass" if wall < LIMIT_S and peak < RSS_LIMIT_MB else "MISS"
        missed |= verdict == "MISS"
        print(
            f"wall {wall:.0f} s, CPU {cpu:.0f} s, peak RSS of all processes {peak:.0f} MB, "
            f"load average after {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} "
            f"on {os.cpu_count()} cores: {verdict} (limits {LIMIT_S} s, {RSS_LIMIT_MB} MB)"
        )
    if options.raw:
        migrated_database(options.raw)
        inserts, rows, tables = raw_inserts(db, options.raw)
        parse = parse_seconds(files)
        floor = inserts + parse
        ratio = runs[0][1] / floor
        print(f"== the same {rows:,} rows by executemany into {len(tables)} tables")
        for table, count in tables:
            print(f"  {table}: {count:,}")
        verdict = "pass" if ratio < RATIO_LIMIT else "MISS"
        missed |= verdict == "MISS"
        print(
            f"inserts {inserts:.0f} s + json {parse:.0f} s = {floor:.0f} s; "
            f"the loader {runs[0][1]:.0f} s is {ratio:.1f}x: {verdict} (limit {RATIO_LIMIT}x)"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

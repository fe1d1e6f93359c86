"""Loader against the limit: `load_seeds` time over plain sqlite3 `executemany` of the same rows.

    .venv/bin/python -m bench.raw_insert [--boards 15000] [--runs 3] [--scale 10] [--max-minutes M]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sotasite_bench \
        .venv/bin/python -m bench.raw_insert

With DATABASE_URL naming a PostgreSQL database, both sides run there (that
database and one named after it with `_raw`, each dropped and made again), the
raw side with psycopg's `executemany`.

Generates the page set, loads it with `manage.py load_seeds` into a fresh,
migrated SQLite database (its peak memory read from the kernel), then inserts
the same rows into another fresh database of the same schema with nothing but
the sqlite3 module: each file read and parsed, ids given in Python, one
`executemany` per table per chunk of files and one transaction a chunk, as the
loader chunks. The raw side does no checking, no derived figures, no editors'
state and no re-load logic: it is the floor, and loader / raw is the price of
all that (aim: under 3x). The two sides run --runs times in turns and the best
of each is the figure: on this shared machine one run of either can be a
fifth slower than the next for nothing it did. Every run is in the report.
The loader's peak memory includes the second process a large load reads
its files with.

`--scale 10` loads ten times the boards (150,000: the issue's 10x set) to check
that the loader's peak memory stays under 1 GB; `--max-minutes` stops a load
that would run too long and reports its peak memory so far and how far it got.
Writes bench/results/raw_insert.md (or raw_insert_x10.md).
"""

import argparse
import datetime
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from itertools import batched
from pathlib import Path

from bench import common
from leaderboards.format.values import parse_metric_value
from leaderboards.ingest import CHUNK

RATIO_LIMIT = 3.0
RSS_LIMIT_MB = 1024
PROGRESS = re.compile(r"(\d+)/(\d+) files")


def run_loader(pages, db_path, max_seconds):
    """Time `load_seeds` on the folder; return (seconds, peak MB, files done, total, finished)."""
    env = common.migrated_database(db_path)
    progress = {"done": 0, "total": 0}
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "load_seeds", str(pages)],
        cwd=common.ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )

    def read_progress():
        for line in process.stderr:
            match = PROGRESS.search(line)
            if match:
                progress["done"], progress["total"] = map(int, match.groups())

    reader = threading.Thread(target=read_progress, daemon=True)
    reader.start()
    peak = 0.0
    finished = True
    last_report = started
    # wait4 rather than poll(): it gives the child's own peak memory, which
    # sampling can miss between two looks.
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, common.peak_with_children_mb(process.pid))
        now = time.perf_counter()
        if now - last_report > 60:
            common.log(f"loader: {progress['done']}/{progress['total']} files, peak {peak:.0f} MB")
            last_report = now
        if finished and max_seconds and now - started > max_seconds:
            finished = False
            peak = max(peak, common.peak_with_children_mb(process.pid))
            process.terminate()
        time.sleep(0.5)
    process.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - started
    reader.join(timeout=5)
    peak = max(peak, usage.ru_maxrss / 1024)
    if finished and process.returncode != 0:
        sys.exit(f"load_seeds failed (exit {process.returncode})")
    return elapsed, peak, progress["done"], progress["total"], finished


class _PostgreSQL:
    """The few calls RawInserter makes, on a psycopg connection in autocommit."""

    def __init__(self, url):
        import psycopg

        self.db = psycopg.connect(url.replace("postgres://", "postgresql://", 1), autocommit=True)

    def execute(self, sql, params=()):
        if sql in ("BEGIN IMMEDIATE", "COMMIT"):
            sql = sql.split()[0]
        return self.db.execute(sql.replace("?", "%s"), params)

    def executemany(self, sql, rows):
        # The schema's booleans, which SQLite takes as 0.
        sql = sql.replace("?", "%s")
        if "leaderboards_paper " in sql:
            sql = sql.replace("0, 0)", "false, false)")
        sql = sql.replace("NULL, 0)", "NULL, false)").replace("%s, 0, ''", "%s, false, ''")
        with self.db.cursor() as cursor:
            cursor.executemany(sql, rows)


class RawInserter:
    """The same rows into the same tables with the sqlite3 module (or psycopg) alone."""

    def __init__(self, db_path):
        if common.is_postgresql(db_path):
            self.db = _PostgreSQL(str(db_path))
        else:
            self.db = sqlite3.connect(db_path, isolation_level=None)
            # As the site's settings open SQLite.
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
        self.areas = dict(self.db.execute("select name, id from leaderboards_area"))
        self.tasks, self.datasets, self.papers = {}, {}, {}
        self.ids = {
            table: self.db.execute(
                f"select coalesce(max(id), 0) from leaderboards_{table}"  # noqa: S608
            ).fetchone()[0]
            for table in ("leaderboard", "metric", "row", "metricvalue", "syntologysnapshot")
        }
        self.now = datetime.datetime.now(datetime.UTC).isoformat(" ")

    def next_id(self, table):
        self.ids[table] += 1
        return self.ids[table]

    def load(self, files):
        for chunk in batched(files, CHUNK):
            self._chunk(chunk)

    def _chunk(self, files):
        tables = {name: [] for name in INSERTS}
        for path in files:
            data = path.read_bytes()
            self._page(json.loads(data), hashlib.sha256(data).hexdigest(), tables)
        self.db.execute("BEGIN IMMEDIATE")
        for name, rows in tables.items():
            if rows:
                self.db.executemany(INSERTS[name], rows)
        self.db.execute("COMMIT")

    def _named(self, cache, slug, table, row):
        if slug not in cache:
            cache[slug] = len(cache) + 1
            table.append((cache[slug], slug, *row))
        return cache[slug]

    def _page(self, page, sha, tables):
        task = self._named(
            self.tasks,
            page["task"]["url"].removeprefix("/task/"),
            tables["task"],
            (page["task"]["name"], page["task"]["note"], page["description"] or ""),
        )
        dataset = self._named(
            self.datasets,
            page["dataset"]["url"].removeprefix("/dataset/"),
            tables["dataset"],
            (page["dataset"]["name"],),
        )
        board = self.next_id("leaderboard")
        rows = page["rows"]
        tables["leaderboard"].append(
            (
                board,
                page["url"].removeprefix("/sota/"),
                page["category_note"],
                page["description"],
                page["description_from"],
                json.dumps(page["source"]),
                page["metric_direction"]["note"],
                sha,
                page["syntology"]["read_at"],
                len(rows),
                max((row["paper_date"] for row in rows if row["paper_date"]), default=None),
                self.now,
                self.areas.get(page["category"]),
                dataset,
                task,
            )
        )
        for position, name in enumerate(page["categories"]):
            if name in self.areas:
                tables["area"].append((position, self.areas[name], board))
        metrics = {}
        for position, name in enumerate(page["metrics"]):
            metrics[name] = self.next_id("metric")
            direction = page["metric_direction"]["by_metric"].get(name)
            tables["metric"].append((metrics[name], name, position, direction, board))
        snapshot = self.next_id("syntologysnapshot")
        tables["snapshot"].append(
            (
                snapshot,
                page["syntology"]["read_at"],
                page["syntology"]["read_at"],
                page["syntology"]["claim"],
                json.dumps(page["since_archive"]),
                sha,
                self.now,
                board,
            )
        )
        for row in rows:
            paper = None
            if row["paper"]:
                paper = self._named(
                    self.papers,
                    row["paper"].removeprefix("/paper/"),
                    tables["paper"],
                    (row["paper_title"] or "", row["paper_url"] or "", row["paper_date"]),
                )
            row_id = self.next_id("row")
            tables["row"].append(
                (
                    row_id,
                    row["rank_in_archive_order"],
                    row["model"],
                    row["uses_additional_data"],
                    row["paper_title"],
                    row["paper_url"],
                    row["paper_date"],
                    row["code"],
                    row["n_code_links"],
                    # Unique per board, as the column wants; the decisions' key
                    # is editors' state, which the raw side does not keep.
                    str(row_id),
                    board,
                    paper,
                )
            )
            for position, (name, raw) in enumerate(row["metrics"].items()):
                tables["metricvalue"].append(
                    (raw, parse_metric_value(raw), position, metrics[name], row_id)
                )
            counters = row["syntology"]
            if counters is not None:
                tables["verification"].append(
                    (
                        row["rank_in_archive_order"],
                        row["model"],
                        counters["n_ran"],
                        counters["n_unverified"],
                        counters["n_pointer_only_licence"],
                        row_id,
                        snapshot,
                    )
                )


INSERTS = {
    "task": "insert into leaderboards_task (id, slug, name, note, description, synonyms, "
    "source_link, leaderboard_count, row_count, tree_leaderboard_count) "
    "values (?, ?, ?, ?, ?, '', '', 0, 0, 0)",
    "dataset": "insert into leaderboards_dataset (id, slug, name, full_name, description, url, "
    "leaderboard_count, row_count) values (?, ?, ?, '', '', '', 0, 0)",
    "paper": "insert into leaderboards_paper (id, slug, title, url, date, arxiv_id, has_code, "
    "verified) values (?, ?, ?, ?, ?, '', 0, 0)",
    "leaderboard": "insert into leaderboards_leaderboard (id, slug, category_note, description, "
    "description_from, source, direction_note, extra, source_sha256, read_at, row_count, "
    "newest_paper_date, verified_row_count, since_archive_entry_count, updated_at, category_id, "
    "dataset_id, task_id, top_model, top_metric, top_value, top_is_best, version, "
    "editorial_change_count) "
    "values (?, ?, ?, ?, ?, ?, ?, '{}', ?, ?, ?, ?, 0, 0, ?, ?, ?, ?, '', '', NULL, false, 1, 0)",
    "area": "insert into leaderboards_leaderboardarea (position, area_id, leaderboard_id) "
    "values (?, ?, ?)",
    "metric": "insert into leaderboards_metric (id, name, position, source_direction, "
    "leaderboard_id) values (?, ?, ?, ?, ?)",
    "snapshot": "insert into leaderboards_syntologysnapshot (id, read_at, read_at_text, claim, "
    "since_archive, extra, source_sha256, created_at, leaderboard_id) "
    "values (?, ?, ?, ?, ?, '{}', ?, ?, ?)",
    "row": "insert into leaderboards_row (id, rank, model, uses_additional_data, paper_title, "
    "paper_url, paper_date, code, n_code_links, extra, key, withheld, withheld_reason, "
    "leaderboard_id, paper_id) values (?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', ?, 0, '', ?, ?)",
    "metricvalue": "insert into leaderboards_metricvalue (raw, number, position, metric_id, "
    "row_id) values (?, ?, ?, ?, ?)",
    "verification": "insert into leaderboards_rowverification (rank, model, n_ran, n_unverified, "
    "n_pointer_only_licence, row_id, snapshot_id) values (?, ?, ?, ?, ?, ?, ?)",
}


def count(db_path, table):
    return common.query_one(db_path, f"select count(*) from leaderboards_{table}")  # noqa: S608


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=15000, help="pages at scale 1 (15000)")
    parser.add_argument("--scale", type=int, default=1, help="times --boards (10: the 10x set)")
    parser.add_argument("--seed", default="1")
    parser.add_argument(
        "--max-minutes", type=float, default=0, help="stop the loader after this long (0: never)"
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="runs of each side, taken in turns; best of each"
    )
    parser.add_argument("--output", type=Path)
    options = parser.parse_args()
    boards = options.boards * options.scale
    output = options.output or common.RESULTS / (
        "raw_insert.md" if options.scale == 1 else f"raw_insert_x{options.scale}.md"
    )

    with tempfile.TemporaryDirectory(dir=common.OUT if common.OUT.exists() else None) as tmp:
        tmp = Path(tmp)
        pages = tmp / "pages"
        common.log(f"generating {boards:,} pages")
        generate_s, _ = common.manage(
            common.GENERATE, "--out", str(pages), "--boards", str(boards), "--seed", options.seed,
            env=dict(os.environ),
        )  # fmt: skip
        files = sorted(pages.iterdir())

        url = os.environ.get("DATABASE_URL", "")
        postgresql = common.is_postgresql(url)
        loader_db = url if postgresql else tmp / "loader.sqlite3"
        raw_db = url + "_raw" if postgresql else tmp / "raw.sqlite3"
        loads, raws, peak_mb, rows = [], [], 0.0, None
        # Each side's best of the runs, taken in turns: on a shared machine one
        # run of either can be a fifth slower for nothing it did.
        for run in range(1, options.runs + 1):
            common.log(f"run {run}: loading with load_seeds")
            load_s, peak, done, total, finished = run_loader(
                pages, loader_db, options.max_minutes * 60
            )
            loads.append(load_s)
            peak_mb = max(peak_mb, peak)
            common.log(f"loader: {load_s:.1f} s, peak {peak:.0f} MB, {done}/{total} files")
            if not finished:
                # A stopped load is the report: how far it got, and its memory.
                loads, raws, rows = [load_s], [], None
                break
            rows = count(loader_db, "row")
            common.log(f"run {run}: inserting the same rows with plain executemany")
            common.migrated_database(raw_db)
            started = time.perf_counter()
            RawInserter(raw_db).load(files)
            raws.append(time.perf_counter() - started)
            raw_rows = count(raw_db, "row")
            if raw_rows != rows:
                sys.exit(f"raw insert wrote {raw_rows} rows, the loader {rows}")
            common.log(f"raw: {raws[-1]:.1f} s")

    report = _report(options, boards, generate_s, loads, peak_mb, done, total, rows, raws)
    print(report)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(report + "\n", encoding="utf-8")
    return 0 if "| MISS |" not in report else 1


def _report(options, boards, generate_s, loads, peak_mb, done, total, rows, raws):
    load_s, raw_s = min(loads), min(raws, default=None)
    command = "python -m bench.raw_insert " + " ".join(sys.argv[1:])
    lines = [
        "# Loader against plain executemany",
        "",
        f"`{command.strip()}` at {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end.",
        "",
        "| measure | value |",
        "|---|---:|",
        f"| boards | {boards:,} |",
        f"| rows | {rows:,} |" if rows is not None else f"| files loaded | {done:,} of {total:,} |",
        f"| generate s | {generate_s:.1f} |",
        f"| load_seeds s | {load_s:.1f} |",
        f"| load_seeds peak RSS MB (with its reader) | {peak_mb:.0f} |",
    ]
    if raw_s is not None:
        driver = (
            "psycopg" if common.is_postgresql(os.environ.get("DATABASE_URL", "")) else "sqlite3"
        )
        lines.append(f"| {driver} executemany s | {raw_s:.1f} |")
    if len(loads) > 1:
        runs = ", ".join(f"{load:.1f} / {raw:.1f}" for load, raw in zip(loads, raws, strict=True))
        lines.append(f"| runs, loader / raw s (best of each taken) | {runs} |")
    lines += ["", "| result | target | figure |", "|---|---|---|"]
    if raw_s is not None:
        ratio = load_s / raw_s
        ok = "PASS" if ratio < RATIO_LIMIT else "MISS"
        lines.append(
            f"| {ok} | loader under {RATIO_LIMIT:.0f}x raw | {load_s:.1f} / {raw_s:.1f} s = "
            f"{ratio:.1f}x |"
        )
    else:
        lines.append(
            f"| MISS | load finished | stopped after {options.max_minutes:g} min at "
            f"{done:,}/{total:,} files ({done / max(total, 1):.0%}) |"
        )
    ok = "PASS" if peak_mb < RSS_LIMIT_MB else "MISS"
    lines.append(
        f"| {ok} | loader peak RSS under {RSS_LIMIT_MB} MB | {peak_mb:.0f} MB"
        + ("" if raw_s is not None else " (so far)")
        + " |"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

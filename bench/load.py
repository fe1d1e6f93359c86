"""Load benchmark at Papers with Code size.

    .venv/bin/python -m bench.load [--boards 15000] [--seed 1]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sotasite_bench .venv/bin/python -m bench.load

Generates the synthetic page set into a temporary folder, migrates a fresh
database (SQLite in another temporary folder, or the PostgreSQL database
DATABASE_URL names, dropped and made again), then times `manage.py load_seeds` on the set and
again on the same files (the re-load that finds nothing changed). Each step
runs as its own process, as an operator would run it, so the times include
Django's start-up. Exits non-zero when a step fails or a limit is missed.
"""

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from bench.common import GENERATE, database_env, fresh_database, is_postgresql, manage_timed
from leaderboards.format.rules import paper_identity

ROOT = Path(__file__).resolve().parent.parent

LOAD_LIMIT_S = 60
RELOAD_LIMIT_S = 30


def count_files(folder):
    """Rows and distinct papers, read back from the files themselves."""
    rows = 0
    papers = set()
    for path in folder.iterdir():
        page = json.loads(path.read_text(encoding="utf-8"))
        rows += len(page["rows"])
        papers.update(paper_identity(row) for row in page["rows"])
    return rows, len(papers)


def summary_line(stdout):
    """The loader's closing line ("N files: ... created, ..."), if it wrote one."""
    lines = stdout.strip().splitlines()
    return lines[-1] if lines else "(no output)"


def table(measures):
    lines = [f"{'measure':<12}{'value':>10}{'limit':>8}  result"]
    for name, value, limit in measures:
        shown = f"{value:,}" if isinstance(value, int) else f"{value:.1f}"
        if limit is None:
            lines.append(f"{name:<12}{shown:>10}")
        else:
            verdict = "pass" if value <= limit else "FAIL"
            lines.append(f"{name:<12}{shown:>10}{limit:>8}  {verdict}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=15000)
    parser.add_argument("--seed", default="1")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory() as pages_dir, tempfile.TemporaryDirectory() as db_dir:
        pages = Path(pages_dir) / "pages"
        database = os.environ.get("DATABASE_URL", "")
        if not is_postgresql(database):
            database = Path(db_dir) / "db.sqlite3"
        fresh_database(database)
        env = database_env(database)
        boards = str(options.boards)
        generate_s, _, _ = manage_timed(
            GENERATE, "--out", str(pages), "--boards", boards, "--seed", options.seed,
            env=env,
        )  # fmt: skip
        rows, papers = count_files(pages)
        manage_timed("migrate", "--noinput", "--verbosity", "0", env=env)
        # As `make run` does before its first load.
        manage_timed("loaddata", "fixtures/areas.json", "--verbosity", "0", env=env)
        load_s, load_cpu, load_out = manage_timed("load_seeds", str(pages), env=env)
        reload_s, reload_cpu, reload_out = manage_timed("load_seeds", str(pages), env=env)

    print(f"database: {'PostgreSQL' if is_postgresql(env['DATABASE_URL']) else 'SQLite'}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"load:    {summary_line(load_out)}")
    print(f"re-load: {summary_line(reload_out)}")
    print()
    print(
        table(
            [
                ("boards", options.boards, None),
                ("rows", rows, None),
                ("papers", papers, None),
                ("generate s", generate_s, None),
                ("load s", load_s, LOAD_LIMIT_S),
                ("load cpu s", load_cpu, None),
                ("re-load s", reload_s, RELOAD_LIMIT_S),
                ("re-load cpu", reload_cpu, None),
            ]
        )
    )
    return 0 if load_s <= LOAD_LIMIT_S and reload_s <= RELOAD_LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())

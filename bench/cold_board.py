"""A board's page asked cold, in-process: the CPU a worker spends on it, every cache empty.

    .venv/bin/python -m bench.cold_board [--db bench/out/cold_board.sqlite3] [--runs 300]

`bench.serve --cold` measures the same page under gunicorn and wrk, among other
kinds, at the archive's size; this asks one prepared board's page again and
again in one process, through the WSGI handler as gunicorn calls it, with the
page cache and the process's kept rows and orders emptied before each request,
so each is a crawler's first visit since the load. The database (SQLite unless
--db is a PostgreSQL URL) holds seeds/ and the 2,000-row board, loaded and
prepared as a load does; it is made when missing. Prints, for the seed board
and the 2,000-row one, the median and mean CPU ms a page, and the CPU
`prepare_boards` spends preparing the board again.
"""

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import common

PREPARE_ROUNDS = 5


def measure(slugs, runs):
    """In the child process: CPU ms of each board's preparing and of each cold request,
    by slug, as JSON on stdout."""
    import django

    django.setup()
    from django.core.cache import caches
    from django.core.handlers.wsgi import WSGIHandler

    from leaderboards.models import Leaderboard
    from leaderboards.web.page_cache import PAGE_CACHE
    from leaderboards.web.prepared import orders_kept, rows_kept
    from leaderboards.web.views.preparing import prepare_boards

    prepared = {}
    for slug in slugs:
        times = []
        for _ in range(PREPARE_ROUNDS):
            # As a load that changed the board leaves it.
            Leaderboard.objects.filter(slug=slug).update(prepared_key="")
            started = time.process_time()
            prepare_boards([slug])
            times.append((time.process_time() - started) * 1000)
        prepared[slug] = statistics.median(times)

    handler = WSGIHandler()

    def ask(path):
        environ = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SCRIPT_NAME": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "80",
            "HTTP_HOST": "127.0.0.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(),
            "wsgi.errors": sys.stderr,
        }
        statuses = []
        response = handler(environ, lambda status, headers: statuses.append(status))
        body = b"".join(response)
        response.close()
        if not statuses[0].startswith("200"):
            raise SystemExit(f"{path}: {statuses[0]}")
        return body

    found = {}
    for slug in slugs:
        path = f"/sota/{slug}"
        ask(path)  # the process's own first request (templates, URLs) apart
        times = []
        for _ in range(runs):
            caches[PAGE_CACHE].clear()
            rows_kept.clear()
            orders_kept.clear()
            started = time.process_time()
            ask(path)
            times.append((time.process_time() - started) * 1000)
        found[slug] = times
    print(json.dumps({"prepared": prepared, "cold": found}))


def build(db):
    env = common.migrated_database(db)
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / f"{common.BIG_SLUG}.json"
        big.write_text(json.dumps(common.big_page(2000), ensure_ascii=False), encoding="utf-8")
        common.manage("load_seeds", "--verbosity", "0", env=env)
        common.manage("load_seeds", "--verbosity", "0", tmp, env=env)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=str(common.OUT / "cold_board.sqlite3"))
    parser.add_argument("--runs", type=int, default=300)
    options = parser.parse_args()
    if common.is_postgresql(options.db) or not Path(options.db).exists():
        common.OUT.mkdir(exist_ok=True)
        build(options.db)
    env = {**common.production_env(options.db), "SOTASITE_PAGE_CACHE": "1"}
    env.pop("SOTASITE_PAGE_CACHE_DIR", None)
    env.pop("REDIS_URL", None)
    slugs = [common.seed_page()["url"].removeprefix("/sota/"), common.BIG_SLUG]
    code = f"from bench.cold_board import measure; measure({slugs!r}, {options.runs})"
    child = subprocess.run(
        [sys.executable, "-c", code],
        cwd=common.ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "sotasite.settings"},
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"load average {os.getloadavg()[0]:.1f}, {options.runs} cold requests a board")
    for slug, times in found["cold"].items():
        print(
            f"{slug}: cold page median {statistics.median(times):.2f} ms CPU, "
            f"mean {statistics.fmean(times):.2f} ms; preparing it "
            f"{found['prepared'][slug]:.1f} ms CPU (median of {PREPARE_ROUNDS})"
        )


if __name__ == "__main__":
    main()

"""Each view of the 100,000-row board, in-process: time, queries and memory, cold and warm.

    .venv/bin/python -m bench.large_board [--db bench/out/soak_heavy.sqlite3]

The soak's database (bench.soak --pressure builds it). Its boards are prepared
first, as a load or a deploy does (`prepare_boards`); then each view is asked
for twice with a query string of its own, so no page cache answers it: the
first in a process that has kept nothing of the board (a worker started after
the load), the second after it. Reports the median of three such processes'
figures: wall time, queries, and the peak of memory traced during the request.
Writes bench/results/large_board.md.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from bench import common

VIEWS = [
    "",
    "?sort=date",
    "?sort=model&order=desc",
    "?page=40",
    "?chart=FPR95&page=3",
    "?model=a&sort=date",
    "?has_code=true&page=3",
    "?chart=AUROC",
    "?date_from=yesterday",
]
API = f"/api/v1/evaluations/{common.HUGE_SLUG}/results/?page=100"
ROUNDS = 3


def measure():
    """In the child process: each view cold then warm, as JSON on stdout."""
    import tracemalloc

    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client, found = Client(), []
    # The process's own first request (templates, URLs) apart from the board's.
    client.get(common.seed_page()["url"], HTTP_HOST="127.0.0.1")
    paths = [f"/sota/{common.HUGE_SLUG}{view}" for view in VIEWS] + [API]
    for visit in ("cold", "warm"):
        for path in paths:
            url = path + ("&" if "?" in path else "?") + f"bench={visit}"
            tracemalloc.start()
            started = time.perf_counter()
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url, HTTP_HOST="127.0.0.1")
            elapsed = (time.perf_counter() - started) * 1000
            peak = tracemalloc.get_traced_memory()[1] / 1e6
            tracemalloc.stop()
            found.append([visit, path, response.status_code, elapsed, len(queries), peak])
    print(json.dumps(found))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=common.Path, default=common.OUT / "soak_heavy.sqlite3")
    parser.add_argument("--output", type=common.Path, default=common.RESULTS / "large_board.md")
    options = parser.parse_args()
    if not options.db.exists():
        sys.exit(f"{options.db} is missing: `python -m bench.soak --pressure` builds it")
    env = {**common.database_env(options.db), "SOTASITE_PAGE_CACHE": "1"}
    common.manage("prepare_boards", "--verbosity", "0", env=env)
    runs = []
    for _ in range(ROUNDS):
        child = subprocess.run(
            [sys.executable, "-c", "from bench.large_board import measure; measure()"],
            env={**os.environ, **env, "DJANGO_SETTINGS_MODULE": "sotasite.settings"},
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(child.stdout.strip().splitlines()[-1]))
    lines = [
        "# The 100,000-row board's views, in-process (issue #32 item 6)",
        "",
        f"`python -m bench.large_board` at {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        f" on {options.db.name}, its boards prepared (`prepare_boards`); load average "
        f"{os.getloadavg()[0]:.1f}. Each view asked with a query string of its own: cold, in a "
        "process that has kept nothing of the board, then warm. Medians of "
        f"{ROUNDS} processes; memory is the peak traced during the request (tracemalloc, "
        "which also slows it).",
        "",
        "| view | status | cold ms | cold queries | cold peak MB | warm ms | warm queries | "
        "warm peak MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for index in range(len(runs[0]) // 2):
        cold = [run[index] for run in runs]
        warm = [run[index + len(runs[0]) // 2] for run in runs]

        def median(rows, column):
            return statistics.median(row[column] for row in rows)

        lines.append(
            f"| `{cold[0][1].replace(common.HUGE_SLUG, '<huge>')}` | {cold[0][2]} | "
            f"{median(cold, 3):,.0f} | {median(cold, 4):.0f} | {median(cold, 5):.1f} | "
            f"{median(warm, 3):,.0f} | {median(warm, 4):.0f} | {median(warm, 5):.1f} |"
        )
    report = "\n".join(lines)
    print(report)
    options.output.write_text(report + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""The public record (/changes/, its feed, ?board=) at Papers with Code size.

    .venv/bin/python -m bench.record [--boards 15000] [--changes 5000] [--repeat 9]

Migrates a fresh SQLite database and writes --boards leaderboards (each of
its own task and dataset) and --changes editorial changes spread over a
tenth of them, by the record's own writer; then asks the record's first and
last page, a board's record and the feed through Django's test client in
this process, counting queries and taking the median of --repeat timings
(page cache off): the CPU time this process spent (SQLite runs in it),
the wall time, and the SQL's share. The record reads no rows, so boards without rows are as
big as it needs; the leaderboard pages' own costs are bench/page.py's.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LIMIT_MS = 50


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=15000)
    parser.add_argument("--changes", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=9)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["DATABASE_URL"] = f"sqlite:///{Path(folder) / 'record.sqlite3'}"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sotasite.settings")
        os.environ["SOTASITE_PAGE_CACHE"] = "0"
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        build(options.boards, options.changes)
        return measure(options.repeat)


def build(boards, changes):
    from leaderboards import record
    from leaderboards.models import ChangeKind, Dataset, EditorialChange, Leaderboard, Task

    tasks = Task.objects.bulk_create(
        Task(slug=f"task-{n}", name=f"Task {n}") for n in range(boards)
    )
    datasets = Dataset.objects.bulk_create(
        Dataset(slug=f"dataset-{n}", name=f"Dataset {n}") for n in range(boards)
    )
    Leaderboard.objects.bulk_create(
        Leaderboard(slug=f"board-{n}", task=task, dataset=dataset)
        for n, (task, dataset) in enumerate(zip(tasks, datasets, strict=True))
    )
    ids = list(Leaderboard.objects.order_by("pk").values_list("pk", flat=True))[::10]
    record._write(
        EditorialChange(
            leaderboard_id=ids[n % len(ids)],
            kind=ChangeKind.DIRECTION,
            subject=f"Metric {n}",
            old_value="unknown",
            new_value="higher",
            reason="bench",
        )
        for n in range(changes)
    )


def measure(repeat):
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from leaderboards.models import EditorialChange

    oldest = EditorialChange.objects.order_by("pk").values_list("pk", flat=True)[60]
    board = EditorialChange.objects.select_related("leaderboard").first().leaderboard.slug
    pages = {
        "/changes/": "first page",
        f"/changes/?before={oldest}": "last page",
        f"/changes/?board={board}": "one board",
        "/changes/feed.atom": "feed",
    }
    client = Client(SERVER_NAME="localhost")
    failed = False
    for url, what in pages.items():
        times, cpu, sql = [], [], []
        for _ in range(repeat):
            with CaptureQueriesContext(connection) as queries:
                start, start_cpu = time.perf_counter(), time.process_time()
                response = client.get(url)
                times.append((time.perf_counter() - start) * 1000)
                cpu.append((time.process_time() - start_cpu) * 1000)
            sql.append(sum(float(query["time"]) for query in queries.captured_queries) * 1000)
            assert response.status_code == 200, url
        median = statistics.median(cpu)
        failed |= median > LIMIT_MS
        print(
            f"{what:10} {url:40} {len(queries):2} queries  CPU {median:6.1f} ms"
            f"  wall {statistics.median(times):6.1f} ms  SQL {statistics.median(sql):6.1f} ms"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

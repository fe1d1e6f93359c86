"""The directions queue at Papers with Code size.

    .venv/bin/python -m bench.directions [--boards 15000] [--seed 1] [--repeat 5]
    .venv/bin/python -m bench.directions --db /path/to/loaded.sqlite3   # a copy is used

On the 15,000-board set that bench/lists.py builds (or a copy of --db,
migrated), signed in as an editor through Django's test client: the queue's
first and last page (median of --repeat, with their query counts), then two
names decided for every board at once by decisions.decide_name, what the
confirmation's POST runs (lock, record, log, update, the boards' figures, the
versions): the name on the most boards, and the most used name some board
lists first (whose boards' best results are worked out again). Each is timed
once, wall and this process's CPU time (SQLite runs in it, so the CPU time is
the server's own work however busy the machine), with its statement count.
Exits non-zero when a bulk decision takes more than LIMIT_S of CPU time or
its statements are not the fixed number.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.common import manage
from bench.lists import build

ROOT = Path(__file__).resolve().parent.parent

LIMIT_S = 5
# What tests/admin/test_admin_queue.py pins (13, and 7 for a name no board lists
# first, whose boards' best results stay as they are), there inside the
# test's transaction, so a savepoint and its release; here BEGIN and COMMIT
# in their place and the two version bumps that follow the commit.
STATEMENTS = {True: 15, False: 9}  # by: some board lists the name first


def measure(db, repeat):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}"}
    manage("migrate", "--noinput", "--verbosity", "0", env=env)
    os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sotasite.settings")
    os.environ["SOTASITE_PAGE_CACHE"] = "0"
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.contrib.contenttypes.models import ContentType
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment
    from django.urls import reverse

    from leaderboards import decisions
    from leaderboards.admin.directions import queue
    from leaderboards.models import Metric

    setup_test_environment()
    editor, _ = User.objects.get_or_create(username="bench-editor", defaults={"is_staff": True})
    editor.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(editor)

    def page(url):
        client.get(url)  # warm
        timings, cpu = [], []
        for _ in range(repeat):
            # Django keeps the last 9,000 queries: a full log miscounts.
            reset_queries()
            with CaptureQueriesContext(connection) as queries:
                started, started_cpu = time.perf_counter(), time.process_time()
                response = client.get(url)
                timings.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - started_cpu) * 1000)
            assert response.status_code == 200, response.status_code
        return statistics.median(timings), statistics.median(cpu), len(queries), response

    results = []
    url = reverse("admin:leaderboards_metric_directions")
    first_ms, first_cpu, first_queries, response = page(url)
    last = response.context["page_obj"].paginator.num_pages
    names = response.context["page_obj"].paginator.count
    first = f"queue page 1 of {last} ({names:,} names)"
    results.append((first, first_ms, first_cpu, first_queries))
    results.append((f"queue page {last}", *page(f"{url}?page={last}")[:3]))

    # The name on the most boards, and the most used name that some board
    # lists first (its boards' best results are worked out again).
    names = [entry["name"] for entry in queue()]
    listed_first = set(
        Metric.objects.filter(name__in=names, position=0).values_list("name", flat=True)
    )
    chosen = [names[0], next(name for name in names if name in listed_first)]
    ContentType.objects.get_for_model(Metric)  # cached once a server process has used it
    bulk = []
    for name in dict.fromkeys(chosen):
        reset_queries()
        with CaptureQueriesContext(connection) as queries:
            started, started_cpu = time.perf_counter(), time.process_time()
            outcome = decisions.decide_name(name, "higher", editor, reason="bench")
            seconds, cpu = time.perf_counter() - started, time.process_time() - started_cpu
        expected = STATEMENTS[name in listed_first]
        what = f"decide {name!r} on {outcome.boards:,} boards ({outcome.rows:,} rows)"
        results.append((what, seconds * 1000, cpu * 1000, len(queries)))
        bulk.append((what, cpu, len(queries), expected))
    return results, bulk


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=15000)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", type=Path, help="an already loaded SQLite database (copied)")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "db.sqlite3"
        if options.db:
            shutil.copyfile(options.db, db)
        else:
            build(db, options.boards, options.seed)
        results, bulk = measure(db, options.repeat)

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    width = max(len(what) for what, *_ in results)
    print(f"{'what':<{width}}  wall ms  CPU ms  queries")
    for what, ms, cpu, queries in results:
        print(f"{what:<{width}}  {ms:7.1f}  {cpu:6.1f}  {queries:7}")
    ok = True
    for what, seconds, statements, expected in bulk:
        passed = seconds <= LIMIT_S and statements == expected
        ok &= passed
        print(f"{what}: {seconds:.2f} s CPU (limit {LIMIT_S} s), {statements} statements "
              f"(fixed: {expected}): {'pass' if passed else 'FAIL'}")  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

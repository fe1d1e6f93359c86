"""The directions queue at Papers with Code size.

    .venv/bin/python bench/directions.py [--boards 15000] [--seed 1] [--repeat 5]
    .venv/bin/python bench/directions.py --db /path/to/loaded.sqlite3   # a copy is used

On the 15,000-board set that bench/lists.py builds (or a copy of --db,
migrated), signed in as an editor through Django's test client: the queue's
first and last page (median of --repeat, with their query counts), then the
name on the most boards decided for every board at once (decisions.decide_name
inside the view's transaction: lock, record, log, update, the boards'
figures), timed once with its statement count. Exits non-zero when the bulk
decision takes more than LIMIT_S or its statements are not the fixed number.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common import manage  # noqa: E402
from lists import build  # noqa: E402

LIMIT_S = 5
STATEMENTS = 13  # tests/test_admin_queue.py pins the same


def measure(db, repeat):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}"}
    manage("migrate", "--noinput", "--verbosity", "0", env=env)
    os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sotasite.settings")
    os.environ["SOTASITE_PAGE_CACHE"] = "0"
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment
    from django.urls import reverse

    from leaderboards import decisions
    from leaderboards.admin.directions import queue

    setup_test_environment()
    editor, _ = User.objects.get_or_create(username="bench-editor", defaults={"is_staff": True})
    editor.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(editor)

    def page(url):
        client.get(url)  # warm
        timings = []
        for _ in range(repeat):
            with CaptureQueriesContext(connection) as queries:
                started = time.perf_counter()
                response = client.get(url)
                timings.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.status_code
        return statistics.median(timings), len(queries), response

    results = []
    url = reverse("admin:leaderboards_metric_directions")
    first_ms, first_queries, response = page(url)
    last = response.context["page_obj"].paginator.num_pages
    names = response.context["page_obj"].paginator.count
    results.append((f"queue page 1 of {last} ({names:,} names)", first_ms, first_queries))
    last_ms, last_queries, _ = page(f"{url}?page={last}")
    results.append((f"queue page {last}", last_ms, last_queries))

    top = queue().first()
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        outcome = decisions.decide_name(top["name"], "higher", editor, reason="bench")
        seconds = time.perf_counter() - started
    what = f"decide {top['name']!r} on {outcome.boards:,} boards ({outcome.rows:,} rows)"
    results.append((what, seconds * 1000, len(queries)))
    return results, seconds, len(queries)


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
        results, seconds, statements = measure(db, options.repeat)

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    width = max(len(what) for what, _, _ in results)
    print(f"{'what':<{width}}  median ms  queries")
    for what, ms, queries in results:
        print(f"{what:<{width}}  {ms:9.1f}  {queries:7}")
    ok = seconds <= LIMIT_S and statements == STATEMENTS
    print(f"bulk decision: {seconds:.2f} s (limit {LIMIT_S} s), {statements} statements "
          f"(fixed: {STATEMENTS}): {'pass' if ok else 'FAIL'}")  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

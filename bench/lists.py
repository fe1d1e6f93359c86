"""List and search benchmark at Papers with Code size.

    .venv/bin/python bench/lists.py [--boards 15000] [--seed 1] [--repeat 9]
    .venv/bin/python bench/lists.py --db /path/to/loaded.sqlite3   # reuse a loaded set

Generates the synthetic page set with `python -m tools.synthetic_pages` into a
temporary folder, migrates a fresh SQLite database and loads the set with
`load_seeds` (each as its own process), then asks every list page for its
first and its last page, and the search for a few queries, through Django's
test client in this process: the median of --repeat timings is the server
time, templates included, with the CPU time this process spent (SQLite runs
in it, so this is the server's own work, whatever else loads the machine) and
the wall time of the SQL beside it. Exits non-zero when a median misses the
limit.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common import GENERATE, manage  # noqa: E402

LIMIT_MS = 50
LISTS = [
    "/sota/",
    "/sota/?sort=rows",
    "/sota/?sort=newest",
    "/sota/?area=computer-vision",
    "/sota/?task=detection&min_rows=5",
    "/task/",
    "/task/?sort=leaderboards",
    "/dataset/",
    "/dataset/?sort=results",
    "/paper/",
    "/paper/?sort=title",
    "/paper/?has_code=true&year=2023",
]
PAGES = ["/", "/area/computer-vision"]
SEARCHES = ["out-of-distribution", "imagenet", "image classification", "resnet", "bert"]


def build(db, boards, seed):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}"}
    with tempfile.TemporaryDirectory() as pages_dir:
        pages = Path(pages_dir) / "pages"
        manage(GENERATE, "--out", str(pages), "--boards", str(boards), "--seed", seed,
               env=env)  # fmt: skip
        manage("migrate", "--noinput", "--verbosity", "0", env=env)
        manage("loaddata", "fixtures/areas.json", "--verbosity", "0", env=env)
        manage("load_seeds", str(pages), "--verbosity", "0", env=env)


def measured(options, measure):
    """measure(db, repeat) on --db, or on a fresh database of --boards pages built for it."""
    if options.db:
        return measure(options.db, options.repeat)
    with tempfile.TemporaryDirectory() as db_dir:
        db = Path(db_dir) / "db.sqlite3"
        build(db, options.boards, options.seed)
        return measure(db, options.repeat)


def measure(db, repeat):
    os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sotasite.settings")
    # The render is what is measured here; bench/serve.py measures cached pages.
    os.environ["SOTASITE_PAGE_CACHE"] = "0"
    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    setup_test_environment()  # keeps the response's context, for the last page number
    client = Client()

    def median_ms(url):
        response = client.get(url)  # warm: connection, templates
        if response.status_code != 200:
            sys.exit(f"{url} answered {response.status_code}")
        timings, cpu, sql = [], [], []
        for _ in range(repeat):
            with CaptureQueriesContext(connection) as queries:
                started, started_cpu = time.perf_counter(), time.process_time()
                client.get(url)
                timings.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - started_cpu) * 1000)
            sql.append(sum(float(query["time"]) for query in queries.captured_queries) * 1000)
        medians = statistics.median(timings), statistics.median(cpu), statistics.median(sql)
        return medians, response

    results = []
    for url in PAGES:
        results.append((url, median_ms(url)[0]))
    for url in LISTS:
        first, response = median_ms(url)
        results.append((url, first))
        last = response.context["page_obj"].paginator.num_pages
        glue = "&" if "?" in url else "?"
        results.append((f"{url}{glue}page={last}", median_ms(f"{url}{glue}page={last}")[0]))
    for query in SEARCHES:
        url = f"/search?q={query.replace(' ', '+')}"
        results.append((url, median_ms(url)[0]))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=15000)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--db", type=Path, help="an already loaded SQLite database")
    options = parser.parse_args()

    results = measured(options, measure)

    width = max(len(url) for url, _ in results)
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores")
    print(f"{'page':<{width}}  median ms  CPU ms  SQL ms  limit  result")
    for url, (ms, cpu, sql) in results:
        verdict = "pass" if ms <= LIMIT_MS else "FAIL"
        print(f"{url:<{width}}  {ms:9.1f}  {cpu:6.1f}  {sql:6.1f}  {LIMIT_MS:5}  {verdict}")
    return 0 if all(ms <= LIMIT_MS for _, (ms, _, _) in results) else 1


if __name__ == "__main__":
    sys.exit(main())

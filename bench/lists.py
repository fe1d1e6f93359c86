"""List and search benchmark at Papers with Code size.

    .venv/bin/python -m bench.lists [--boards 15000] [--seed 1] [--repeat 9]
    .venv/bin/python -m bench.lists --db /path/to/loaded.sqlite3   # reuse a loaded set
    .venv/bin/python -m bench.lists --database-url postgres://.../loaded   # a loaded PostgreSQL

Generates the synthetic page set with `python -m tools.synthetic_pages` into a
temporary folder, migrates a fresh SQLite database and loads the set with
`load_seeds` (each as its own process), then asks every list page for its
first and its last page, and the search for a few queries, through Django's
test client in this process: the median of --repeat timings is the server
time, templates included, with the CPU time the server spent (this process's,
where SQLite runs, plus on PostgreSQL that of the database's process serving
the connection, read from /proc: the server's own work, whatever else loads
the machine), the wall time of the SQL and the number of queries beside it.
Exits non-zero when a median misses the limit.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.common import GENERATE, manage

ROOT = Path(__file__).resolve().parent.parent

LIMIT_MS = 50
# Each filter a visitor can set, on the biggest values the generated archive has
# (the largest area, a task and a metric most boards share): the counts are
# largest there.
LISTS = [
    "/sota/",
    "/sota/?sort=rows",
    "/sota/?sort=newest",
    "/sota/?area=computer-vision",
    "/sota/?area=natural-language-processing&sort=rows",
    "/sota/?area=music",
    "/sota/?task=detection&min_rows=5",
    "/sota/?task=object-detection",
    "/sota/?dataset=imagenet",
    "/sota/?metric=accuracy",
    "/sota/?verified=true",
    "/sota/?since_archive=false&sort=newest",
    "/sota/?min_rows=10",
    # How fresh a board is (issue #30): each filter and sort, alone and together.
    "/sota/?sort=oldest_best",
    "/sota/?sort=checked",
    "/sota/?best_older_than=3",
    "/sota/?best_older_than=5&sort=oldest_best",
    "/sota/?checked_within=30",
    "/sota/?checked_within=365&sort=checked",
    "/sota/?area=computer-vision&best_older_than=2&sort=oldest_best",
    "/task/",
    "/task/?sort=leaderboards",
    "/task/?area=computer-vision",
    "/task/?q=detection",
    "/dataset/",
    "/dataset/?sort=results",
    "/dataset/?q=bench",
    "/paper/",
    "/paper/?sort=title",
    "/paper/?has_code=true&year=2023",
    "/paper/?verified=true",
    "/paper/?q=learning",
]
# /dumps/ reads the current dump set's manifest, no database (issue #30).
PAGES = ["/", "/area/", "/area/computer-vision", "/area/music", "/dumps/"]
SEARCHES = ["out-of-distribution", "imagenet", "image classification", "resnet", "bert"]
# The search page over the archive's titles and abstracts: words most of them
# hold, phrases of a few, a word a handful hold and one none does.
ARCHIVE_SEARCHES = [
    "models",
    "learning",
    "graph neural networks",
    "video object segmentation",
    "schrödinger",
    "calibrated regime",
    "zebrafish",
]


def _most_and_fewest(counted):
    """The values of a (value, count) query with the most and the fewest items (at least one)."""
    counted = [(count, value) for value, count in counted if count]
    if not counted:
        return []
    return list(dict.fromkeys([max(counted)[1], min(counted)[1]]))


def archive_lists():
    """The lists of the archive's papers, methods, datasets and authors, each filter
    on the value with the most items and on the one with the fewest: a filter
    read in the list's order stops early on the first and walks every item on
    the second. Empty when the loaded set has no archive (generated boards only)."""
    from django.db.models import Count

    from leaderboards.models import (
        Author,
        Conference,
        Dataset,
        Method,
        MethodArea,
        MethodCategory,
        Paper,
        PaperRepository,
    )

    if not Paper.objects.exclude(abstract="").exists():
        return []

    def by(through, field):
        rows = through.objects.values_list(f"{field}__slug").annotate(n=Count("pk")).order_by()
        return _most_and_fewest(rows)

    years = (
        Paper.objects.filter(date__isnull=False)
        .values_list("date__year")
        .annotate(n=Count("pk"))
        .order_by()
    )
    frameworks = (
        PaperRepository.objects.exclude(framework="")
        .values_list("framework")
        .annotate(n=Count("pk"))
        .order_by()
    )
    conferences = Conference.objects.annotate(n=Count("proceedings__papers"))
    conferences = conferences.values_list("slug", "n")
    urls = [f"/paper/?task={slug}" for slug in by(Paper.tasks.through, "task")]
    urls += [f"/paper/?method={slug}" for slug in by(Method.papers.through, "method")]
    urls += [f"/paper/?conference={slug}" for slug in _most_and_fewest(conferences)]
    urls += [f"/paper/?year={year}" for year in _most_and_fewest(years)]
    urls += [f"/paper/?framework={name}" for name in _most_and_fewest(frameworks)]
    urls += ["/paper/?official_code=true", "/paper/?official_code=false", "/paper/?sort=oldest"]
    urls += ["/paper/?q=zebrafish"]
    areas = MethodArea.objects.annotate(n=Count("categories__methods")).values_list("slug", "n")
    urls += [f"/methods/area/{slug}" for slug in _most_and_fewest(areas)]
    categories = MethodCategory.objects.annotate(n=Count("methods")).values_list("slug", "n")
    urls += [f"/methods/category/{slug}" for slug in _most_and_fewest(categories)]
    for name, through, field in [
        ("modality", Dataset.modalities.through, "datasetmodality"),
        ("task", Dataset.tasks.through, "task"),
        ("language", Dataset.languages.through, "datasetlanguage"),
    ]:
        urls += [f"/dataset/?{name}={slug}" for slug in by(through, field)]
    authors = Author.objects.order_by("-paper_count", "name").values_list("slug", flat=True)
    urls += [f"/author/{slug}" for slug in authors[:1]]
    urls += [f"/conference/{slug}" for slug in _most_and_fewest(conferences)[:1]]
    return urls


def model_pages():
    """The pages of the model with the most results (issue #30): its own, and its compare
    with the three models sharing most boards with it, the compare's largest."""
    from django.db.models import Count

    from leaderboards.models import Row

    shown = Row.objects.shown().exclude(model_slug="")
    counted = shown.values_list("model_slug").annotate(n=Count("pk")).order_by("-n", "model_slug")
    top = counted.first()
    if top is None:
        return []
    boards = shown.filter(model_slug=top[0]).values("leaderboard_id")
    sharing = (
        shown.filter(leaderboard_id__in=boards)
        .exclude(model_slug=top[0])
        .values_list("model_slug")
        .annotate(n=Count("leaderboard_id", distinct=True))
        .order_by("-n", "model_slug")
    )
    urls = [f"/model/{top[0]}"]
    others = [slug for slug, _ in sharing[:3]]
    if others:
        urls.append("/model/compare?" + "&".join(f"m={slug}" for slug in [top[0], *others]))
    return urls


def history_pages():
    """A board's history, its JSON and feed (the board with the most recorded loads, else the
    largest), and the site's feed of loads (issue #30)."""
    from django.db.models import Count

    from leaderboards.models import BoardChange, Leaderboard

    busiest = (
        BoardChange.objects.values("leaderboard__slug")
        .annotate(n=Count("pk"))
        .order_by("-n")
        .values_list("leaderboard__slug", flat=True)
        .first()
    ) or Leaderboard.objects.order_by("-row_count").values_list("slug", flat=True).first()
    if busiest is None:
        return ["/changes/loads.atom"]
    base = f"/sota/{busiest}/history"
    return [base, f"{base}.json", f"{base}.atom", "/changes/loads.atom"]


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


def database_cpu_ns(connection):
    """CPU time of the PostgreSQL process serving `connection`, in ns (0 on SQLite)."""
    if connection.vendor != "postgresql":
        return 0
    pid = connection.connection.info.backend_pid
    with open(f"/proc/{pid}/schedstat") as stat:
        return int(stat.read().split()[0])


def measure(db, repeat):
    os.environ["DATABASE_URL"] = db if "://" in str(db) else f"sqlite:///{db}"
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
                started_db = database_cpu_ns(connection)
                started, started_cpu = time.perf_counter(), time.process_time()
                client.get(url)
                timings.append((time.perf_counter() - started) * 1000)
                used = (time.process_time() - started_cpu) * 1000
                cpu.append(used + (database_cpu_ns(connection) - started_db) / 1e6)
            sql.append(sum(float(query["time"]) for query in queries.captured_queries) * 1000)
        medians = statistics.median(timings), statistics.median(cpu), statistics.median(sql)
        return (*medians, len(queries.captured_queries)), response

    results = []
    for url in PAGES + ["/methods/"] + history_pages():
        results.append((url, median_ms(url)[0]))
    archive = archive_lists()
    for url in LISTS + archive + model_pages():
        first, response = median_ms(url)
        results.append((url, first))
        last = response.context["page_obj"].paginator.num_pages
        glue = "&" if "?" in url else "?"
        results.append((f"{url}{glue}page={last}", median_ms(f"{url}{glue}page={last}")[0]))
    for query in SEARCHES + (ARCHIVE_SEARCHES if archive else []):
        url = f"/search?q={query.replace(' ', '+')}"
        results.append((url, median_ms(url)[0]))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=15000)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--db", type=Path, help="an already loaded SQLite database")
    parser.add_argument("--database-url", help="an already loaded database, e.g. PostgreSQL")
    options = parser.parse_args()
    if options.database_url:
        results = measure(options.database_url, options.repeat)
    else:
        results = measured(options, measure)

    width = max(len(url) for url, _ in results)
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores")
    print(f"{'page':<{width}}  median ms  CPU ms  SQL ms  queries  limit  result")
    for url, (ms, cpu, sql, queries) in results:
        verdict = "pass" if ms <= LIMIT_MS else "FAIL"
        figures = f"{ms:9.1f}  {cpu:6.1f}  {sql:6.1f}  {queries:7}"
        print(f"{url:<{width}}  {figures}  {LIMIT_MS:5}  {verdict}")
    return 0 if all(ms <= LIMIT_MS for _, (ms, *_) in results) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Search suggestions at Papers with Code size: each prefix as a visitor types it.

    .venv/bin/python -m bench.suggest --db /path/to/loaded.sqlite3   # e.g. one bench/lists.py built
    .venv/bin/python -m bench.suggest [--boards 15000] [--seed 1] [--repeat 15]
    .venv/bin/python -m bench.suggest --database-url postgres://.../loaded   # a loaded PostgreSQL

Asks /search/suggest for every prefix of a few queries, letter by letter, every
one- and two-letter query (with --three-letters every three-letter prefix a word
of the archive begins), a few of one-letter words and every prefix of --names
names drawn from the loaded archive (as a visitor types one), through Django's test
client in this process with the page cache off (every answer is computed, as
for a query nobody asked before), and prints the median and 95th percentile of
each, wall and CPU. The CPU time is the server's own work whatever else loads
the machine: this process's (SQLite runs in it) plus, on PostgreSQL, that of
the database's process serving the connection (read from /proc, so the database
must run on this machine). Exits non-zero when any median or 95th percentile,
wall or CPU, misses the limit.
"""

import argparse
import gc
import os
import random
import statistics
import string
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

from bench.lists import database_cpu_ns, measured

LIMIT_MS = 20
TYPED = ["out-of-distribution", "imagenet", "image classification", "resnet", "bert", "detection"]
# Words of a letter each match densely together: "o d" finds some 6,000 names.
INITIALS = ["o d", "i c", "s s", "a b", "d e", "m l"]
# Names are typed this far: past it a name's words narrow the matches to a few.
MAX_TYPED = 40


def prefixes(text):
    return [text[:n] for n in range(1, len(text) + 1)]


def asked():
    """Each query typed letter by letter, then every letter and pair of letters,
    then a few queries of one-letter words."""
    typed = [prefix for text in TYPED for prefix in prefixes(text)]
    letters = string.ascii_lowercase
    short = [*letters, *(a + b for a in letters for b in letters), *INITIALS]
    return typed + [query for query in short if query not in typed]


def names_typed(count, seed="1"):
    """Every prefix of `count` names of the loaded archive, drawn at random (the
    same ones for the same data), each up to MAX_TYPED letters."""
    from leaderboards.models import SearchEntry

    everyone = list(SearchEntry.objects.order_by("pk").values_list("name", flat=True))
    drawn = random.Random(seed).sample(everyone, min(count, len(everyone)))
    return [name[:n] for name in drawn for n in range(1, min(len(name), MAX_TYPED) + 1)
            if not name[n - 1].isspace()]  # fmt: skip


def three_letters():
    """Every three-letter prefix a word of the loaded archive begins, in order: the
    search box lists each one's first names (SearchPrefix); one that begins no
    word finds nothing."""
    from django.db.models.functions import Length

    from leaderboards.models import SearchPrefix

    listed = (
        SearchPrefix.objects.annotate(letters=Length("prefix"))
        .filter(letters=3)
        .exclude(prefix__contains=" ")
        .order_by("prefix")
        .values_list("prefix", flat=True)
        .distinct()
    )
    return list(listed)


def p95(values):
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def measure(db, repeat, names=0, three=False):
    os.environ["DATABASE_URL"] = db if "://" in str(db) else f"sqlite:///{db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sotasite.settings")
    os.environ["SOTASITE_PAGE_CACHE"] = "0"
    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.urls import reverse

    setup_test_environment()  # the test client's host is allowed
    # As gunicorn.conf.py does in each worker: what is loaded stays out of the
    # collector, whose full passes would otherwise land in a few answers' time.
    gc.freeze()
    client = Client()
    url = reverse("leaderboards:search_suggest")
    results = []
    queries = asked()
    if three:
        queries += [query for query in three_letters() if query not in queries]
    queries += [query for query in dict.fromkeys(names_typed(names)) if query not in queries]
    for prefix in queries:
        path = f"{url}?{urlencode({'q': prefix})}"
        response = client.get(path)  # warm: connection, statement cache
        assert response.status_code == 200, path
        timings, cpu = [], []
        for _ in range(repeat):
            started_db = database_cpu_ns(connection)
            started, started_cpu = time.perf_counter(), time.process_time()
            client.get(path)
            timings.append((time.perf_counter() - started) * 1000)
            used = time.process_time() - started_cpu
            cpu.append(used * 1000 + (database_cpu_ns(connection) - started_db) / 1e6)
        shown = len(response.json()["suggestions"])
        figures = statistics.median(timings), p95(timings), statistics.median(cpu), p95(cpu)
        results.append((prefix, *figures, shown))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=15000)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--names", type=int, default=400, help="names of the archive typed")
    parser.add_argument(
        "--three-letters",
        action="store_true",
        help="every three-letter prefix of the archive's words too (thousands: lower --repeat)",
    )
    parser.add_argument("--db", type=Path, help="an already loaded SQLite database")
    parser.add_argument("--database-url", help="an already loaded database, e.g. PostgreSQL")
    options = parser.parse_args()
    if options.database_url:
        results = measure(
            options.database_url, options.repeat, options.names, options.three_letters
        )
    else:
        results = measured(
            options, lambda db, repeat: measure(db, repeat, options.names, options.three_letters)
        )

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    width = max(len(repr(result[0])) for result in results)
    print(f"{'typed':<{width}}  median ms  p95 ms  CPU ms  CPU p95  shown  result")
    for prefix, ms, ms95, cpu, cpu95, shown in results:
        verdict = "pass" if max(ms, ms95, cpu, cpu95) <= LIMIT_MS else "FAIL"
        figures = f"{ms:9.1f}  {ms95:6.1f}  {cpu:6.1f}  {cpu95:7.1f}"
        print(f"{prefix!r:<{width}}  {figures}  {shown:5}  {verdict}")
    for label, column in (("median", 1), ("p95", 2), ("CPU median", 3), ("CPU p95", 4)):
        worst = max(results, key=lambda result: result[column])
        misses = sum(result[column] > LIMIT_MS for result in results)
        print(
            f"worst {label}: {worst[column]:.1f} ms ({worst[0]!r}); "
            f"{misses} of {len(results)} over {LIMIT_MS} ms"
        )
    return 0 if all(max(result[1:5]) <= LIMIT_MS for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())

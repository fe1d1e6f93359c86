"""Search suggestions at Papers with Code size: each prefix as a visitor types it.

    .venv/bin/python bench/suggest.py --db /path/to/loaded.sqlite3   # e.g. one bench/lists.py built
    .venv/bin/python bench/suggest.py [--boards 15000] [--seed 1] [--repeat 15]

Asks /search/suggest for every prefix of a few queries, letter by letter, through
Django's test client in this process with the page cache off (every answer is
computed, as for a query nobody asked before), and prints the median time of
each, wall and CPU: SQLite runs in this process, so the CPU time is the
server's own work whatever else loads the machine, and is what is judged.
Exits non-zero when any CPU median misses the limit.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lists import measured  # noqa: E402

LIMIT_MS = 20
TYPED = ["out-of-distribution", "imagenet", "image classification", "resnet", "bert", "detection"]


def prefixes(text):
    return [text[:n] for n in range(1, len(text) + 1)]


def measure(db, repeat):
    os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sotasite.settings")
    os.environ["SOTASITE_PAGE_CACHE"] = "0"
    import django

    django.setup()
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.urls import reverse

    setup_test_environment()  # the test client's host is allowed
    client = Client()
    url = reverse("leaderboards:search_suggest")
    results = []
    for text in TYPED:
        for prefix in prefixes(text):
            path = f"{url}?{urlencode({'q': prefix})}"
            response = client.get(path)  # warm: connection, statement cache
            assert response.status_code == 200, path
            timings, cpu = [], []
            for _ in range(repeat):
                started, started_cpu = time.perf_counter(), time.process_time()
                client.get(path)
                timings.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - started_cpu) * 1000)
            shown = len(response.json()["suggestions"])
            results.append((prefix, statistics.median(timings), statistics.median(cpu), shown))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=15000)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--db", type=Path, help="an already loaded SQLite database")
    options = parser.parse_args()
    results = measured(options, measure)

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'typed':<22}  median ms  CPU ms  shown  result")
    for prefix, ms, cpu, shown in results:
        verdict = "pass" if cpu <= LIMIT_MS else "FAIL"
        print(f"{prefix!r:<22}  {ms:9.1f}  {cpu:6.1f}  {shown:5}  {verdict}")
    longer = [r for r in results if len(r[0]) > 1]
    for label, chosen in (("any", results), ("2+ characters", longer)):
        print(
            f"worst medians, {label}: {max(r[1] for r in chosen):.1f} ms, "
            f"CPU {max(r[2] for r in chosen):.1f} ms (limit {LIMIT_MS} ms)"
        )
    return 0 if all(cpu <= LIMIT_MS for _, _, cpu, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())

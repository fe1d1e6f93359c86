"""Every sitemap file of a loaded site: its addresses and the time to serve it uncached.

    .venv/bin/python -m bench.sitemaps --db /path/to/loaded.sqlite3 [--repeat 5]
    .venv/bin/python -m bench.sitemaps --database-url postgres://.../loaded

Asks /sitemap.xml, then every file it names, through Django's test client in
this process with the page cache off (each answer is computed, as for a
crawler's first visit), --repeat times each, and prints each file's address
count and its median wall time; the files together must name every public
page (the kinds' shown rows and the lists), none more than 50,000 addresses
(the protocol's limit), each served in under 200 ms (issue #29). Exits
non-zero when one misses.
"""

import argparse
import os
import re
import statistics
import sys
import time

URLS_LIMIT = 50_000
LIMIT_MS = 200


def measure(db, repeat):
    os.environ["DATABASE_URL"] = db if "://" in str(db) else f"sqlite:///{db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sotasite.settings")
    os.environ["SOTASITE_PAGE_CACHE"] = "0"
    import django

    django.setup()
    from django.test import Client
    from django.test.utils import setup_test_environment

    from leaderboards.web.sitemaps import KINDS

    setup_test_environment()
    client = Client()

    def timed(path):
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            response = client.get(path)
            times.append((time.perf_counter() - started) * 1000)
            if response.status_code != 200:
                sys.exit(f"{path} answered {response.status_code}")
        return statistics.median(times), response.content.decode()

    client.get("/sitemap-lists.xml")  # the process's first request: imports, templates
    index_ms, index = timed("/sitemap.xml")
    files = [loc.removeprefix("http://testserver") for loc in re.findall("<loc>([^<]+)", index)]
    results = [("/sitemap.xml", len(files), index_ms)]
    named = 0
    for path in files:
        ms, body = timed(path.replace("&amp;", "&"))
        count = body.count("<url>")
        named += count
        results.append((path, count, ms))
    expected = sum(kind.model.objects.filter(kind.shown).count() for kind in KINDS.values())
    return results, named, expected


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="a loaded SQLite database")
    parser.add_argument("--database-url", help="a loaded database, e.g. PostgreSQL")
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    db = options.database_url or options.db
    if db is None:
        parser.error("--db or --database-url")
    results, named, expected = measure(db, options.repeat)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    width = max(len(path) for path, _, _ in results)
    missed = False
    for path, count, ms in results:
        ok = ms < LIMIT_MS and count <= URLS_LIMIT
        missed |= not ok
        print(f"{path:<{width}}  {count:7,}  {ms:7.1f} ms  {'pass' if ok else 'MISS'}")
    slowest = max(ms for _, _, ms in results)
    lists = results[1][1] if len(results) > 1 else 0
    covered = named - lists >= expected
    missed |= not covered
    print(
        f"{len(results) - 1} files, {named:,} addresses ({lists} lists and {expected:,} pages "
        f"of the kinds): {'every page named' if covered else 'PAGES MISSING'}; "
        f"slowest {slowest:.1f} ms"
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

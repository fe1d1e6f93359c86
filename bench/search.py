"""The search page over a loaded archive's titles and abstracts, at two connections.

    .venv/bin/python -m bench.search --db /path/to/loaded.sqlite3 [--seconds 10]
    .venv/bin/python -m bench.search --database-url postgres://.../loaded

Starts gunicorn as `make run` does (gunicorn.conf.py, production settings, two
workers) on the loaded database and has wrk ask /search for each query in
turn, at two connections for --seconds each, every request with a query
string of its own so that no page cache answers it: each figure is the
uncached search. Prints each query's median and 95th percentile and the
server's CPU per request, and exits non-zero when a 95th percentile misses the
limit.
"""

import argparse
import os
import sys
from pathlib import Path
from urllib.parse import urlencode

from bench.common import free_port, gunicorn, production_env, wrk
from bench.lists import ARCHIVE_SEARCHES

LIMIT_MS = 50
CONNECTIONS = 2


def measure(db, seconds, queries=ARCHIVE_SEARCHES):
    env = production_env(db)
    env.pop("REDIS_URL", None)
    port = free_port()
    results = []
    with gunicorn(env, port) as process:
        base = f"http://127.0.0.1:{port}"
        for query in queries:
            path = f"/search?{urlencode({'q': query})}"
            # Warm: each worker's connection and templates.
            wrk(base, [path], CONNECTIONS, 1, bust=True)
            result = wrk(base, [path], CONNECTIONS, seconds, bust=True, server_pids=[process.pid])
            results.append((query, result))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--db", type=Path, help="a loaded SQLite database")
    parser.add_argument("--database-url", help="a loaded database, e.g. PostgreSQL")
    options = parser.parse_args()
    db = options.database_url or options.db
    if db is None:
        parser.error("--db or --database-url: the search is measured on a loaded archive")
    results = measure(db, options.seconds)

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    width = max(len(query) for query, _ in results)
    print(f"{'query':<{width}}  requests  median ms  p95 ms  p99 ms  CPU ms  errors  result")
    for query, result in results:
        verdict = "pass" if result.p95 <= LIMIT_MS and not result.errors else "FAIL"
        print(
            f"{query:<{width}}  {result.requests:8}  {result.p50:9.1f}  {result.p95:6.1f}  "
            f"{result.p99:6.1f}  {result.cpu_ms or 0:6.1f}  {result.errors:6}  {verdict}"
        )
    return 0 if all(r.p95 <= LIMIT_MS and not r.errors for _, r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

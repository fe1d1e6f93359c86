"""The whole archive's five files imported in one command, at Papers with Code's size.

    .venv/bin/python -m tools.synthetic_archive --out /tmp/full --papers 576000 --gzip
    .venv/bin/python -m bench.archive /tmp/full --db /tmp/archive.sqlite3
    .venv/bin/python -m bench.archive /tmp/full --database-url postgres://postgres@127.0.0.1:5432/archive

Makes the database empty and migrates it, loads the areas fixture, then runs
`manage.py import_pwc` on the folder's files as an operator would (one
process, Django's start-up included), sampling the resident memory of it and
of every process it starts (the reader of the papers and links files) each
half second. With --again, imports the same files a second time (the re-import
that finds nothing changed). Prints the wall time, the CPU seconds, the peak
memory of all processes together and the machine's load average before and
after; exits non-zero when a limit of issue #29 is missed.
"""

import argparse
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench.common import ROOT, database_env, fresh_database, manage

LIMIT_S = 600
RSS_LIMIT_MB = 1536


def tree_rss_mb(pid):
    """The resident memory of `pid` and its children (one level: the loader's reader), MB."""
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(child) for child in children.read_text().split()]
    total = 0
    for each in pids:
        try:
            for line in Path(f"/proc/{each}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            continue
    return total / 1024


def timed_import(files, env):
    """(wall s, CPU s, peak MB, last stdout line) of one import_pwc."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "manage.py", "import_pwc", *map(str, files)]
    command.append("--snapshot=2025-07-28")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    peak = [0.0]

    def sample():
        while process.poll() is None:
            peak[0] = max(peak[0], tree_rss_mb(process.pid))
            time.sleep(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, _ = process.communicate()
    sampler.join()
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if process.returncode != 0:
        sys.exit(f"import_pwc failed (exit {process.returncode}):\n{stdout[-4000:]}")
    return elapsed, cpu, peak[0], stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the generator's five .json.gz files")
    parser.add_argument("--db", type=Path, help="a SQLite file (made empty)")
    parser.add_argument("--database-url", help="a PostgreSQL database (dropped and made again)")
    parser.add_argument("--again", action="store_true", help="then import the same files again")
    options = parser.parse_args()
    db = options.database_url or options.db
    if db is None:
        parser.error("--db or --database-url")
    files = sorted(options.folder.glob("*.json.gz"))
    if len(files) != 5:
        parser.error(f"{options.folder} holds {len(files)} .json.gz files, not the archive's five")
    fresh_database(db)
    env = database_env(db)
    manage("migrate", "--no-input", env=env)
    manage("loaddata", "fixtures/areas.json", env=env)

    runs = [("first import", *timed_import(files, env), os.getloadavg())]
    if options.again:
        runs.append(("again, the same files", *timed_import(files, env), os.getloadavg()))
    missed = False
    for name, wall, cpu, peak, stdout, load in runs:
        print(f"== {name}")
        print(stdout.strip())
        verdict = "pass" if wall < LIMIT_S and peak < RSS_LIMIT_MB else "MISS"
        missed |= verdict == "MISS"
        print(
            f"wall {wall:.0f} s, CPU {cpu:.0f} s, peak RSS of all processes {peak:.0f} MB, "
            f"load average after {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} "
            f"on {os.cpu_count()} cores: {verdict} (limits {LIMIT_S} s, {RSS_LIMIT_MB} MB)"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Soak: 60 seconds at 50 connections across a mix of pages, with worker memory watched.

    .venv/bin/python -m bench.soak [--db bench/out/serve.sqlite3] [--seconds 60]

Serves the database bench/serve.py built (or builds one with --boards when there
is none) with gunicorn under production settings, 2 sync workers, and drives it
with one wrk run whose Lua script rotates through the benchmark's pages and a
sample of leaderboard, task, dataset and paper pages from the database. A
10-second warm-up at the same load comes first; worker memory is read after it
and at the end of the run, and every 5 seconds between. Passes when no request
fails and worker memory is stable: a worker may grow while it first renders a
large page, so stable means no worker's memory in the second half of the run
rises more than 10% above its peak in the first half. Writes bench/results/soak.md.
"""

import argparse
import random
import sqlite3
import sys
import threading
import time
from pathlib import Path

from bench import common

SAMPLE = 60  # leaderboards drawn from the database, with their task, dataset and papers
PLATEAU_SHARE = 0.10


def sampled_paths(db_path, seed=1):
    """Pages of a random sample of boards, so the mix is not a handful of URLs."""
    with sqlite3.connect(db_path) as db:
        boards = db.execute(
            "select b.slug, t.slug, d.slug from leaderboards_leaderboard b "
            "join leaderboards_task t on t.id = b.task_id "
            "join leaderboards_dataset d on d.id = b.dataset_id order by b.id"
        ).fetchall()
        papers = [
            slug
            for (slug,) in db.execute(
                "select slug from leaderboards_paper order by id limit 20000"
            ).fetchall()
        ]
    rng = random.Random(seed)
    paths = []
    for board, task, dataset in rng.sample(boards, min(SAMPLE, len(boards))):
        paths += [f"/sota/{board}", f"/task/{task}", f"/dataset/{dataset}"]
    paths += [f"/paper/{slug}" for slug in rng.sample(papers, min(SAMPLE, len(papers)))]
    return paths


def watch(master_pid, samples, stop):
    while not stop.wait(5):
        samples.append(
            (time.monotonic(), [common.rss_mb(pid) for pid in common.worker_pids(master_pid)])
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=common.OUT / "serve.sqlite3")
    parser.add_argument("--boards", type=int, default=15000, help="when building (15000)")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--output", type=Path, default=common.RESULTS / "soak.md")
    options = parser.parse_args()

    if not options.db.exists():
        options.db.parent.mkdir(parents=True, exist_ok=True)
        common.build_site(options.db, options.boards)
    env = common.production_env(options.db)
    common.manage("collectstatic", "--noinput", "--verbosity", "0", env=env)
    port = common.free_port()
    base = f"http://127.0.0.1:{port}"

    with common.gunicorn(env, port) as master:
        pages = common.resolve_pages(lambda path: common.fetch(base + path)[:2])
        listed, not_built = [], []
        for page in pages:
            if not page.missing and common.fetch(base + page.path)[0] == 404:
                page.missing = "404 (not built)"
            if page.missing:
                not_built.append(page.name)
            else:
                listed.append(page.path)
        paths = listed + sampled_paths(options.db)
        bad = [path for path in paths if common.fetch(base + path)[0] != 200]
        if bad:
            sys.exit(f"pages that do not answer 200 before the soak: {bad[:10]}")
        random.Random(2).shuffle(paths)
        common.log(f"warm-up: 10 s at {options.connections} connections over {len(paths)} pages")
        common.wrk(base, paths, options.connections, 10)
        workers = common.worker_pids(master.pid)
        start = [common.rss_mb(pid) for pid in workers]
        samples, stop = [], threading.Event()
        watcher = threading.Thread(target=watch, args=(master.pid, samples, stop), daemon=True)
        watcher.start()
        common.log(f"soak: {options.seconds} s at {options.connections} connections")
        result = common.wrk(base, paths, options.connections, options.seconds)
        stop.set()
        watcher.join()
        end_workers = common.worker_pids(master.pid)
        end = [common.rss_mb(pid) for pid in end_workers]

    half = len(samples) // 2
    first = [max(rss) for rss in zip(*(rss for _, rss in samples[:half]), strict=False)]
    second = [max(rss) for rss in zip(*(rss for _, rss in samples[half:]), strict=False)]
    stable = (
        workers == end_workers
        and bool(first)
        and all(b <= a * (1 + PLATEAU_SHARE) for a, b in zip(first, second, strict=False))
    )
    trend = " | ".join(
        ", ".join(f"{mb:.0f}" for mb in rss) for _, rss in samples[:: max(1, len(samples) // 6)]
    )
    verdicts = [
        (
            result.errors == 0,
            "zero errors",
            f"{result.errors} ({result.error_detail})" if result.errors else "0",
        ),
        (
            stable,
            f"worker memory stable (second half of the run within {PLATEAU_SHARE:.0%} of "
            "the first half's peak)",
            "start -> end "
            + "; ".join(f"{a:.0f} -> {b:.0f} MB" for a, b in zip(start, end, strict=False))
            + ", peak first half -> second half "
            + "; ".join(f"{a:.0f} -> {b:.0f} MB" for a, b in zip(first, second, strict=False))
            + ("" if workers == end_workers else " (workers were replaced)"),
        ),
    ]
    command = "python -m bench.soak " + " ".join(sys.argv[1:])
    missing = f" Not built on this branch, so not in the mix: {', '.join(not_built)}."
    lines = [
        "# Soak",
        "",
        f"`{command.strip()}` at {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"database {options.db.name}: {_count(options.db)} leaderboards. gunicorn, production "
        f"settings, 2 sync workers; wrk on the same machine, 2 threads, 10 s timeout, "
        f"{options.connections} connections for {options.seconds} s after a 10 s warm-up, "
        f"rotating through {len(paths)} pages (the benchmark's pages and a sample of "
        "leaderboard, task, dataset and paper pages)." + (missing if not_built else ""),
        "",
        "| requests | req/s | p50 ms | p95 ms | p99 ms | errors |",
        "|---:|---:|---:|---:|---:|---:|",
        f"| {result.requests:,} | {result.rps:,.0f} | {result.p50:.1f} | {result.p95:.1f} | "
        f"{result.p99:.1f} | {result.errors} |",
        "",
        "| result | target | figure |",
        "|---|---|---|",
        *(f"| {'PASS' if ok else 'MISS'} | {aim} | {figure} |" for ok, aim, figure in verdicts),
        "",
        f"Worker RSS every 5 s (MB, per worker): {trend}.",
    ]
    report = "\n".join(lines)
    print(report)
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(report + "\n", encoding="utf-8")
    return 0 if all(ok for ok, _, _ in verdicts) else 1


def _count(db_path):
    with sqlite3.connect(db_path) as db:
        return f"{db.execute('select count(*) from leaderboards_leaderboard').fetchone()[0]:,}"


if __name__ == "__main__":
    sys.exit(main())

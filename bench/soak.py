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

    .venv/bin/python -m bench.soak --pressure [--db bench/out/soak_heavy.sqlite3]

Three runs under pressure instead, on a database with a board of --huge-rows rows
(built when missing), written to bench/results/soak_pressure.md (issue #32):
heavy views (16 clients asking cache-defeated views of the huge board while the
cached seed page is measured, workers' replacements counted), Redis stopped
(the shared page cache goes away under load) and fake cookies (every request
with a made-up session cookie). --unlimited runs the heavy views again with the
render limits lifted, for comparison.
"""

import argparse
import json
import random
import signal
import sqlite3
import subprocess
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
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--boards", type=int, default=15000, help="when building (15000)")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--pressure", action="store_true", help="the three runs under pressure")
    parser.add_argument("--huge-rows", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=16, help="heavy-view clients (16)")
    parser.add_argument("--unlimited", action="store_true", help="also run without render limits")
    options = parser.parse_args()
    if options.pressure:
        return pressure(options)
    options.db = options.db or common.OUT / "serve.sqlite3"
    options.output = options.output or common.RESULTS / "soak.md"

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


# -- under pressure (issue #32) --------------------------------------------------

SEED_PATH = common.seed_page()["url"]
# Uncached whatever the query string adds (bust): sorts and pages, a filter, another
# metric's chart, its page file (31 MB) and its .csv. Each read and sorted every row once.
HEAVY_VIEWS = [
    "?sort=date",
    "?sort=model&order=desc",
    "?page=40",
    "?chart=FPR95&page=3",
    "?model=a&sort=date",
    "?chart=AUROC",
    ".json?file=1",
    ".csv?file=1",
]
TARGET_P99_MS = 100


class Replacements:
    """The workers a gunicorn master starts after its first ones, sampled 5 times a second."""

    def __init__(self, master_pid):
        self.master_pid = master_pid
        self.first = set(common.worker_pids(master_pid))
        self.seen = set(self.first)
        self.peak_rss = 0.0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self):
        while not self.stop.wait(0.2):
            try:
                pids = common.worker_pids(self.master_pid)
                self.peak_rss = max([self.peak_rss, *(common.rss_mb(pid) for pid in pids)])
            except OSError:
                continue
            self.seen.update(pids)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()

    @property
    def count(self):
        return len(self.seen - self.first)


def heavy_run(base, master_pid, seconds, clients):
    """The cached seed page at 2 connections while `clients` ask cache-defeated heavy views."""
    huge = f"/sota/{common.HUGE_SLUG}"
    paths = [huge + view for view in HEAVY_VIEWS]
    paths.append(f"/api/v1/evaluations/{common.HUGE_SLUG}/results/?page=100")
    found = {}

    def heavy():
        found["heavy"] = common.wrk(base, paths, clients, seconds + 4, bust=True, timeout="60s")

    with Replacements(master_pid) as replaced:
        thread = threading.Thread(target=heavy)
        thread.start()
        time.sleep(2)  # every heavy client's first request is in a worker
        cheap = common.wrk(base, [SEED_PATH], 2, seconds)
        thread.join()
    return cheap, found["heavy"], replaced


def load_lean_huge_board(db, rows):
    """The huge board with its rows' titles, links and code left out, so that 100,000 of them
    fit the loader's 32 MiB file limit; its figures derived again."""
    from leaderboards.format import derive

    page = common.big_page(rows, slug=common.HUGE_SLUG)
    for row in page["rows"]:
        row.update(paper_title=None, paper_url=None, code=None, n_code_links=0)
        row["model"] = row["model"].split(" ")[0] + row["model"].rsplit("#", 1)[1]
    page["counts"] = derive.page_counts(page["rows"])
    page["syntology"].update(derive.syntology_figures(page["rows"]))
    folder = common.OUT / "soak_huge"
    folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(page, ensure_ascii=False, separators=(",", ":"))
    (folder / f"{common.HUGE_SLUG}.json").write_text(text, encoding="utf-8")
    common.log(f"loading the {rows:,}-row board")
    common.manage("load_seeds", "--verbosity", "0", str(folder), env=common.database_env(db))


def _redis(port):
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    command += ["--appendonly", "no"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    return process


def pressure(options):
    db = options.db or common.OUT / "soak_heavy.sqlite3"
    if not db.exists():
        db.parent.mkdir(parents=True, exist_ok=True)
        common.build_site(db, 200)
        load_lean_huge_board(db, options.huge_rows)
    env = common.production_env(db)
    common.manage("collectstatic", "--noinput", "--verbosity", "0", env=env)
    # As at a deploy (docs/deployment.md): the huge board's page for this release.
    common.manage("migrate", "--verbosity", "0", env=env)
    common.manage("prepare_boards", "--verbosity", "0", env=env)
    seconds = options.seconds
    lines = [
        "# Soak under pressure (issue #32)",
        "",
        f"`python -m bench.soak {' '.join(sys.argv[1:])}` at "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; database {db.name}: "
        f"{_count(db)} leaderboards, one of {options.huge_rows:,} rows. gunicorn as `make run` "
        "starts it (gunicorn.conf.py: 2 gthread workers of 8 threads), production settings, "
        "per-process page cache unless said; wrk on the same 2-core machine.",
        "",
    ]
    verdicts = []
    runs = [("render limits (defaults)", {})]
    if options.unlimited:
        unlimited = {"SOTASITE_RENDERS_PER_PROCESS": "16", "SOTASITE_RENDERS_PER_MACHINE": "32"}
        runs.append(("render limits lifted", unlimited))
    lines += [
        f"## Heavy views: {options.clients} clients, {seconds} s",
        "",
        f"{options.clients} connections ask, in turn, {', '.join(HEAVY_VIEWS)} of the huge board "
        "and the API's page 100 of its results, each with a query string of its own (no cache "
        "answers); meanwhile 2 connections ask the cached seed page.",
        "",
        "| run | seed page req/s | p50 ms | p99 ms | errors | heavy answered 2xx | heavy "
        "refused (non-2xx) | heavy p50 ms | heavy p99 ms | workers replaced | peak worker MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, extra in runs:
        port = common.free_port()
        base = f"http://127.0.0.1:{port}"
        with common.gunicorn({**env, **extra}, port) as master:
            for path in (SEED_PATH, f"/sota/{common.HUGE_SLUG}"):
                common.fetch(base + path, timeout=600)
            common.log(f"heavy views, {name}: {seconds} s")
            cheap, heavy, replaced = heavy_run(base, master.pid, seconds, options.clients)
        answered = heavy.requests - heavy.errors
        lines.append(
            f"| {name} | {cheap.rps:,.0f} | {cheap.p50:.1f} | {cheap.p99:.1f} | {cheap.errors} | "
            f"{answered:,} | {heavy.errors:,} | {heavy.p50:,.0f} | {heavy.p99:,.0f} | "
            f"{replaced.count} | {replaced.peak_rss:.0f} |"
        )
        if not extra:
            per_minute = replaced.count * 60 / (seconds + 4) / 2
            verdicts += [
                (cheap.p99 < TARGET_P99_MS, f"seed page p99 under {TARGET_P99_MS} ms",
                 f"{cheap.p99:.1f} ms"),
                (cheap.errors == 0, "seed page: no error", str(cheap.errors)),
                (per_minute <= 1, "no worker replaced more than once a minute",
                 f"{replaced.count} replacements of 2 workers in {seconds + 4} s"),
            ]  # fmt: skip
    lines += ["", *_redis_lines(env, seconds, verdicts), "", *_cookie_lines(env, seconds, verdicts)]
    lines += [
        "",
        "| result | target | figure |",
        "|---|---|---|",
        *(f"| {'PASS' if ok else 'MISS'} | {aim} | {figure} |" for ok, aim, figure in verdicts),
    ]
    report = "\n".join(lines)
    print(report)
    output = options.output or common.RESULTS / "soak_pressure.md"
    output.write_text(report + "\n", encoding="utf-8")
    return 0 if all(ok for ok, _, _ in verdicts) else 1


def _mix(base):
    pages = common.resolve_pages(lambda path: common.fetch(base + path)[:2])
    return [page.path for page in pages if page.path and not page.missing]


def _row(name, result):
    return (
        f"| {name} | {result.requests:,} | {result.rps:,.0f} | {result.p50:.1f} | "
        f"{result.p99:.1f} | {result.errors} |"
    )


HEADER = ["| run | requests | req/s | p50 ms | p99 ms | errors |", "|---|---:|---:|---:|---:|---:|"]


def _redis_lines(env, seconds, verdicts):
    """The mix with Redis as the page cache, then with the Redis server stopped mid-soak."""
    redis_port, port = common.free_port(), common.free_port()
    redis = _redis(redis_port)
    base = f"http://127.0.0.1:{port}"
    try:
        with common.gunicorn({**env, "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0"}, port):
            paths = _mix(base)
            common.log(f"Redis up, then stopped: {seconds} s each")
            up = common.wrk(base, paths, 16, seconds)
            redis.send_signal(signal.SIGTERM)
            redis.wait(timeout=30)
            down = common.wrk(base, paths, 16, seconds)
    finally:
        if redis.poll() is None:
            redis.kill()
            redis.wait()
    verdicts.append((down.errors == 0, "Redis stopped: no error", str(down.errors)))
    return [
        f"## Redis stopped: 16 connections over {len(paths)} pages, {seconds} s each",
        "",
        "REDIS_URL names a Redis server of the run's own; it is stopped (SIGTERM) between the "
        "two runs, the site left running.",
        "",
        *HEADER,
        _row("Redis serving the page cache", up),
        _row("Redis stopped", down),
    ]


def _cookie_lines(env, seconds, verdicts):
    """The mix without a cookie, then with a made-up session cookie on every request."""
    port = common.free_port()
    base = f"http://127.0.0.1:{port}"
    with common.gunicorn(env, port):
        paths = _mix(base)
        common.fetch(base + f"/sota/{common.HUGE_SLUG}", timeout=600)
        common.log(f"fake cookies: {seconds} s with and without")
        plain = common.wrk(base, paths, 16, seconds)
        cookie = "Cookie: sessionid=" + "f" * 32
        faked = common.wrk(base, paths, 16, seconds, headers=[cookie])
    verdicts.append(
        (faked.errors == 0 and faked.rps >= plain.rps / 2,
         "fake cookie: no error, at least half the requests a second of none",
         f"{faked.rps:,.0f} against {plain.rps:,.0f} req/s, {faked.errors} errors")
    )  # fmt: skip
    return [
        f"## Fake cookies: 16 connections over {len(paths)} pages, {seconds} s each",
        "",
        *HEADER,
        _row("no cookie", plain),
        _row("a made-up `sessionid` on every request", faked),
    ]


def _count(db_path):
    with sqlite3.connect(db_path) as db:
        return f"{db.execute('select count(*) from leaderboards_leaderboard').fetchone()[0]:,}"


if __name__ == "__main__":
    sys.exit(main())

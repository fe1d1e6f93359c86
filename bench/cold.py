"""Cold pages: what a crawler costs, each page asked once since the load, every cache empty.

    .venv/bin/python -m bench.serve --cold [--archive DIR] [--boards 10000] [--reuse]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sotasite_cold \
        .venv/bin/python -m bench.serve --cold

`bench.serve`'s uncached run sends a new query string to the same board, which
the board's prepared parts answer: it measures a warm board. A crawler opens
pages no one opened since the last load. Here every page kind is asked at
paths no request of the run asked before: the board page, a board sorted by
date (the date column's link), a paper, a method, an author and a dataset. The
database holds the archive's papers, authors, methods and datasets
(`import_pwc` on the five files, made by `tools.synthetic_archive` unless
--archive names them) and --boards generated boards. Before the pages, the page
cache is emptied (Redis flushed with --redis, else each worker's own memory, by
starting gunicorn afresh); gunicorn runs as `bench.serve` runs it
(gunicorn.conf.py, production settings, 2 workers). wrk runs with one thread,
so one Lua counter hands each request the next path of the kind's list: no
path is asked twice, and a run that runs out of paths stops there (its
requests per second are then timed by the script, to its last request). Each
kind at 8 connections and at 2, against the seed page's HTML served as a static
file by the same gunicorn in the same run. Worker memory is sampled all along.
"""

import argparse
import functools
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench import common

STATIC_FILE = common.ROOT / "staticfiles" / "bench" / "leaderboard.html"
STATIC_PATH = "/static/bench/leaderboard.html"

# Issue #29: shares of the static file's requests per second, at 8 connections.
P95_LIMIT_MS = 25
WORKER_MB_LIMIT = 300
CRAWL_PAGES = 10_000
CONNECTIONS = (8, 2)


@dataclass
class Kind:
    name: str
    share: float  # the target: at least this share of the static file's req/s (8 connections)
    paths: dict  # connections -> the paths that run asks, each once


def kinds(query, seed, per_run):
    """The page kinds, each with distinct paths for each run; no path in two runs.

    query(sql) gives the first column of the rows an SQL query reads.

    A board's page and its date-sorted view are taken from different boards,
    so neither finds the other's prepared parts. The seed board is left out:
    its page was fetched for the static file.
    """
    rng = random.Random(seed)
    seed_slug = common.seed_page()["url"].removeprefix("/sota/")

    def sample(sql, prefix, suffix=""):
        slugs = [slug for slug in query(sql) if slug != seed_slug]
        rng.shuffle(slugs)
        return [f"{prefix}{slug}{suffix}" for slug in slugs]

    boards = sample("select slug from leaderboards_leaderboard", "/sota/")
    half = len(boards) // 2
    lists = {
        "board page": (0.25, boards[:half]),
        # The date column's link on the board's page (a first click sorts newest first).
        "board sorted by date": (0.10, [path + "?sort=date" for path in boards[half:]]),
        "paper page": (
            0.20,
            sample("select slug from leaderboards_paper where not withheld", "/paper/"),
        ),
        "method page": (
            0.20,
            sample("select slug from leaderboards_method where not withheld", "/method/"),
        ),
        "author page": (0.20, sample("select slug from leaderboards_author", "/author/")),
        "dataset page": (0.20, sample("select slug from leaderboards_dataset", "/dataset/")),
    }
    found = []
    for name, (share, paths) in lists.items():
        # The 8-connection run gets three parts of four, at most per_run.
        many = min(per_run, len(paths) * 3 // 4)
        found.append(Kind(name, share, {8: paths[:many], 2: paths[many : many + per_run // 2]}))
    return found


def build(db, archive, boards, seed):
    """A fresh database: the archive imported, then seeds/ and `boards` generated boards."""
    common.fresh_database(db)
    env = common.database_env(db)
    timings = {}
    common.log("migrating")
    common.manage("migrate", "--noinput", "--verbosity", "0", env=env)
    common.manage("loaddata", "fixtures/areas.json", "--verbosity", "0", env=env)
    files = sorted(str(path) for path in Path(archive).glob("*.json.gz"))
    common.log(f"importing the archive: {', '.join(Path(name).name for name in files)}")
    timings["import archive"], _ = common.manage(
        "import_pwc", *files, "--snapshot=2025-07-28", "--verbosity", "0", env=env
    )
    common.manage("load_seeds", "--verbosity", "0", env=env)
    with tempfile.TemporaryDirectory() as tmp:
        common.log(f"generating and loading {boards} boards")
        common.manage(
            common.GENERATE, "--out", tmp, "--boards", str(boards), "--seed", seed, env=env
        )
        timings["load boards"], _ = common.manage("load_seeds", "--verbosity", "0", tmp, env=env)
    return timings


def make_archive(papers, seed):
    """The five archive files for `papers` papers under bench/out, made once."""
    folder = common.OUT / f"archive_{papers}"
    if len(list(folder.glob("*.json.gz"))) == 5:
        return folder
    common.log(f"generating an archive of {papers:,} papers in {folder}")
    subprocess.run(
        [sys.executable, "-m", "tools.synthetic_archive", "--out", str(folder)]
        + ["--papers", str(papers), "--seed", seed, "--gzip"],
        cwd=common.ROOT,
        check=True,
    )
    return folder


class MemoryWatch:
    """Samples every gunicorn worker's RSS a few times a second; the peak per worker."""

    def __init__(self, master_pid, every=0.2):
        self.master_pid = master_pid
        self.every = every
        self.peaks = {}  # pid -> MB
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        while not self._stop.is_set():
            try:
                pids = common.worker_pids(self.master_pid)
            except OSError:
                pids = []
            for pid in pids:
                try:
                    self.peaks[pid] = max(self.peaks.get(pid, 0.0), common.rss_mb(pid))
                except OSError:
                    continue
            self._stop.wait(self.every)


def flush_redis(url):
    import redis

    redis.Redis.from_url(url).flushdb()


def serve_env(db, redis_url):
    env = common.production_env(db)
    env.pop("SOTASITE_PAGE_CACHE_DIR", None)
    env.pop("REDIS_URL", None)
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def measure(options):
    """The cold runs: (kinds, static {conns: result}, {kind: {conns: result}}, RSS peaks
    by worker, the workers at the end)."""
    db = options.db
    env = serve_env(db, options.redis)
    common.manage("collectstatic", "--noinput", "--verbosity", "0", env=env)
    STATIC_FILE.parent.mkdir(parents=True, exist_ok=True)
    STATIC_FILE.unlink(missing_ok=True)
    found = kinds(functools.partial(common.query_all, db), options.seed, options.per_run)
    port = common.free_port()
    base = f"http://127.0.0.1:{port}"
    seed_url = common.seed_page()["url"]
    try:
        with common.gunicorn(env, port):
            status, html, _ = common.fetch(base + seed_url)
            if status != 200:
                sys.exit(f"the seed page answered {status}; nothing to measure")
            STATIC_FILE.write_text(html, encoding="utf-8")
            # One page of each kind that no run asks (each list's last), to see they answer.
            for kind in found:
                spare = kind.paths[2][-1] if kind.paths[2] else kind.paths[8][-1]
                status = common.fetch(base + spare)[0]
                if status != 200:
                    sys.exit(f"{kind.name} {spare} answered {status}")
                kind.paths[2] = kind.paths[2][:-1]
        if options.redis:
            flush_redis(options.redis)
        results = {}
        with common.gunicorn(env, port) as master, MemoryWatch(master.pid) as memory:
            pids = [master.pid]
            for _ in range(3):
                common.fetch(base + STATIC_PATH)
            static = {}
            for count in CONNECTIONS:
                common.log(f"wrk -t1 -c{count} static file")
                static[count] = cold_wrk(base, [STATIC_PATH], count, options.duration, pids, True)
            for kind in found:
                results[kind.name] = {}
                for count in CONNECTIONS:
                    common.log(f"wrk -t1 -c{count} {kind.name}, {len(kind.paths[count]):,} paths")
                    results[kind.name][count] = cold_wrk(
                        base, kind.paths[count], count, options.duration, pids
                    )
                    common.fetch(base + STATIC_PATH, timeout=600)
            workers = common.worker_pids(master.pid)
    finally:
        STATIC_FILE.unlink(missing_ok=True)
    return found, static, results, memory.peaks, workers


# One thread, so one counter hands out every path: each is asked once at most.
# Out of paths, the thread stops and the script's own clock says when. wrk's
# summary has no p95, so the figures come out as one JSON line.
COLD_SCRIPT = """
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clk_id, bench_timespec *tp);
]]
local clock = ffi.new("bench_timespec")
local function now()
  ffi.C.clock_gettime(1, clock)
  return tonumber(clock.tv_sec) + tonumber(clock.tv_nsec) / 1e9
end

local paths = {%(paths)s}
local repeat_allowed = %(repeat)s
local counter = 0
local seen = {}
repeats = 0
started = 0
stopped = 0
handed = 0
local thread_list = {}

function setup(thread)
  table.insert(thread_list, thread)
end

function request()
  if started == 0 then started = now() end
  counter = counter + 1
  if counter > #paths then
    if not repeat_allowed then
      if stopped == 0 then stopped = now() end
      wrk.thread:stop()
    end
    counter = 1
  end
  local path = paths[counter]
  if not repeat_allowed then
    if seen[path] then repeats = repeats + 1 end
    seen[path] = true
  end
  handed = handed + 1
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  local t = thread_list[1]
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests": %%d, "seconds": %%f, "p50": %%f, "p95": %%f, "p99": %%f, '
    .. '"errors": %%d, "status": %%d, "handed": %%d, "repeats": %%d, "started": %%f, '
    .. '"stopped": %%f}\\n',
    summary.requests, summary.duration / 1e6,
    latency:percentile(50) / 1e3, latency:percentile(95) / 1e3, latency:percentile(99) / 1e3,
    e.connect + e.read + e.write + e.timeout, e.status, t:get("handed"), t:get("repeats"),
    t:get("started"), t:get("stopped")))
end
"""


@dataclass
class ColdResult:
    requests: int  # answered
    paths: int  # distinct paths it had
    handed: int  # requests the script made (one more than asked when it ran out)
    repeats: int  # paths asked a second time: 0, or the run is void
    seconds: float
    p50: float
    p95: float
    p99: float
    errors: int
    cpu_ms: float | None

    @property
    def rps(self):
        return self.requests / self.seconds if self.seconds else 0.0


def cold_wrk(base, paths, connections, seconds, pids, repeat=False):
    script = COLD_SCRIPT % {
        "paths": ", ".join(json.dumps(path) for path in paths),
        "repeat": "true" if repeat else "false",
    }
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
        handle.write(script)
    cpu_before = common.cpu_seconds(pids)
    try:
        result = subprocess.run(
            ["wrk", "--latency", "--threads", "1", "--connections", str(connections)]
            + ["--duration", f"{seconds}s", "--timeout", "10s", "--script", handle.name]
            + [base + paths[0]],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        os.unlink(handle.name)
    cpu = common.cpu_seconds(pids) - cpu_before
    line = next((line for line in result.stdout.splitlines() if line.startswith("BENCH ")), None)
    if result.returncode != 0 or line is None:
        sys.exit(f"wrk failed (exit {result.returncode}):\n{result.stdout}\n{result.stderr}")
    data = json.loads(line.removeprefix("BENCH "))
    elapsed = data["seconds"]
    if data["stopped"]:
        # Out of paths before the run's end: timed to the last request handed out.
        elapsed = data["stopped"] - data["started"]
    return ColdResult(
        requests=data["requests"],
        paths=len(paths),
        handed=data["handed"],
        repeats=data["repeats"],
        seconds=elapsed,
        p50=data["p50"],
        p95=data["p95"],
        p99=data["p99"],
        errors=data["errors"] + data["status"],
        cpu_ms=cpu * 1000 / data["requests"] if data["requests"] else None,
    )


def verdicts(found, static, results, peaks, asked):
    rows = []
    shares = {kind.name: kind.share for kind in found}
    for name, by_count in results.items():
        share = shares[name]
        ratio = by_count[8].rps / static[8].rps if static[8].rps else 0.0
        rows.append(
            (
                "PASS" if ratio >= share else "MISS",
                f"{name} cold: at least {share:.0%} of the static file's req/s (8 connections)",
                f"{by_count[8].rps:,.0f} / {static[8].rps:,.0f} = {ratio:.1%}",
            )
        )
        p95 = by_count[2].p95
        rows.append(
            (
                "PASS" if p95 < P95_LIMIT_MS else "MISS",
                f"{name} cold: p95 under {P95_LIMIT_MS} ms at 2 connections",
                f"{p95:.1f} ms",
            )
        )
    repeated = [
        f"{name} ({count} conns) {result.repeats}"
        for name, by_count in results.items()
        for count, result in by_count.items()
        if result.repeats
    ]
    rows.append(
        (
            "MISS" if repeated else "PASS",
            "no path asked twice (requests <= distinct paths)",
            "; ".join(repeated) or "none repeated",
        )
    )
    errored = [
        f"{name} ({count} conns) {result.errors}"
        for name, by_count in results.items()
        for count, result in by_count.items()
        if result.errors
    ]
    rows.append(("MISS" if errored else "PASS", "no errors", "; ".join(errored) or "0 errors"))
    peak = max(peaks.values(), default=0.0)
    rows.append(
        (
            "PASS" if peak < WORKER_MB_LIMIT and asked >= CRAWL_PAGES else "MISS",
            f"every worker under {WORKER_MB_LIMIT} MB RSS through a cold crawl of "
            f"{CRAWL_PAGES:,} pages",
            f"peak {peak:.0f} MB over {asked:,} cold pages answered"
            + ("" if asked >= CRAWL_PAGES else " (too few pages)"),
        )
    )
    return rows


def report(options, timings, counts, found, static, results, peaks, workers, took):
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=common.ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    postgresql = common.is_postgresql(options.db)
    built = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in timings.items())
    lines = [
        "# Cold pages",
        "",
        f"`python -m bench.serve {' '.join(sys.argv[1:])}` at "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, "
        f"{os.cpu_count()} cores, load average before the run {options.load_before:.1f}.",
        "",
        f"{'PostgreSQL' if postgresql else 'SQLite'} database: "
        + ", ".join(f"{number:,} {name}" for name, number in counts.items())
        + (f"; built in: {built}." if built else " (reused)."),
        "gunicorn (gunicorn.conf.py, production settings, 2 workers of 8 threads), page cache "
        + (f"in Redis ({options.redis}, flushed first)" if options.redis else "in each worker")
        + ", empty at the start; wrk with one thread on the same machine, at most "
        f"{options.duration} s a run. Every path is asked once: *requests* answered, "
        "*paths* the run had; a run that used them all is timed to its last. */ static*: "
        "req/s over the static file's at the same connections. *CPU ms/req*: the server's.",
        "",
        "| page | conns | paths | requests | req/s | / static | p50 ms | p95 ms | p99 ms "
        "| errors | CPU ms/req |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for count in CONNECTIONS:
        lines.append(_line("static file (seed page's HTML)", count, static[count], static[count]))
    for name, by_count in results.items():
        for count in CONNECTIONS:
            lines.append(_line(name, count, by_count[count], static[count]))
    asked = sum(result.requests for by_count in results.values() for result in by_count.values())
    lines += [
        "",
        "| result | target | figure |",
        "|---|---|---|",
        *(
            f"| {ok} | {target} | {figure} |"
            for ok, target, figure in verdicts(found, static, results, peaks, asked)
        ),
        "",
        "Worker RSS peaks (MB, sampled every 0.2 s): "
        + ", ".join(f"{pid}: {mb:.0f}" for pid, mb in sorted(peaks.items()))
        + f"; {len(peaks) - len(workers)} replaced. Whole run {took / 60:.1f} min.",
    ]
    return "\n".join(lines)


def _line(name, count, result, static):
    share = f"{result.rps / static.rps:.1%}" if static.rps else ""
    cpu = "" if result.cpu_ms is None else f"{result.cpu_ms:.1f}"
    return (
        f"| {name} | {count} | {result.paths:,} | {result.requests:,} | {result.rps:,.0f} | "
        f"{share} | {result.p50:.1f} | {result.p95:.1f} | {result.p99:.1f} | {result.errors} "
        f"| {cpu} |"
    )


def counted(db):
    return {
        name: common.query_one(db, f"select count(*) from leaderboards_{table}")  # noqa: S608
        for name, table in (
            ("boards", "leaderboard"),
            ("rows", "row"),
            ("papers", "paper"),
            ("authors", "author"),
            ("methods", "method"),
            ("datasets", "dataset"),
        )
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="(how bench.serve sends this here)")
    environment = os.environ.get("DATABASE_URL", "")
    parser.add_argument(
        "--db",
        default=environment if common.is_postgresql(environment) else common.OUT / "cold.sqlite3",
        help="a SQLite path or a PostgreSQL URL (DATABASE_URL if PostgreSQL, "
        "else bench/out/cold.sqlite3)",
    )
    parser.add_argument("--reuse", action="store_true", help="the database --db holds; no build")
    parser.add_argument("--archive", help="a folder of the five archive files (else generated)")
    parser.add_argument("--papers", type=int, default=100_000, help="a generated archive's papers")
    parser.add_argument("--boards", type=int, default=10_000, help="generated boards (10000)")
    parser.add_argument("--seed", default="1")
    parser.add_argument("--duration", type=int, default=4, help="seconds a run at most (4)")
    parser.add_argument("--per-run", type=int, default=4000, help="paths a run has at most")
    parser.add_argument("--redis", help="the page cache in this Redis database, flushed first")
    parser.add_argument("--output", type=Path)
    options = parser.parse_args(argv)
    options.load_before = os.getloadavg()[0]
    postgresql = common.is_postgresql(options.db)
    if options.output is None:
        name = "serve_cold_postgresql.md" if postgresql else "serve_cold.md"
        options.output = common.RESULTS / name
    if not postgresql:
        options.db = Path(options.db)
        options.db.parent.mkdir(parents=True, exist_ok=True)
    started = time.time()
    timings = {}
    if not options.reuse:
        archive = options.archive or make_archive(options.papers, options.seed)
        timings = build(options.db, archive, options.boards, options.seed)
    found, static, results, peaks, workers = measure(options)
    text = report(
        options,
        timings,
        counted(options.db),
        found,
        static,
        results,
        peaks,
        workers,
        time.time() - started,
    )
    print(text)
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(text + "\n", encoding="utf-8")
    common.log(f"written to {options.output}")
    return 0 if "| MISS |" not in text else 1

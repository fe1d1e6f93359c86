"""What the serving benchmarks share: building the site's data, running gunicorn and wrk.

The page list lives here too, so the CI-sized smoke test (tests/bench/test_bench_smoke.py)
asks the same pages as `bench/serve.py` does, in-process and without timing anything.
"""

import contextlib
import copy
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from html import unescape
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"
# Git-ignored: built databases and generated pages a later script may reuse.
OUT = BENCH / "out"
SEED_FILE = ROOT / "seeds" / "000_fb04590d24745268.txt"
GUNICORN = Path(sys.executable).parent / "gunicorn"
DATASETTE_VENV = BENCH / ".venv-datasette"

# The 2,000-row board is the seed page with its rows repeated, each under its own
# paper, so that paper pages elsewhere in the benchmark keep their usual size.
BIG_SLUG = "out-of-distribution-detection-on-bench-large"
# A board far past any real one (serve.py --slow-rows): its uncached page is the
# slow request other visitors must not wait behind.
HUGE_SLUG = "out-of-distribution-detection-on-bench-huge"

# Words for the two searches: one that matches a large share of the generated
# archive, one that matches a single model of the seed page.
BROAD_QUERY = "detection"
NARROW_QUERY = "NegLabel"

# The list page's last-page link, whatever the pagination style: a `page=N`
# number (the highest wins) or a link marked as the last one.
PAGE_NUMBER = re.compile(r'href="([^"]*[?&](?:amp;)?page=(\d+)[^"]*)"')
LAST_LINK = re.compile(
    r'<a\b[^>]*href="([^"]+)"[^>]*>(?:(?!</a>).)*\blast\b', re.IGNORECASE | re.DOTALL
)
LAST_REL = re.compile(
    r'<a\b[^>]*rel="last"[^>]*href="([^"]+)"|<a\b[^>]*href="([^"]+)"[^>]*rel="last"'
)


def seed_page():
    return json.loads(SEED_FILE.read_text(encoding="utf-8"))


def big_page(rows, read_at="2026-06-01T00:00:00+00:00", slug=BIG_SLUG):
    """The seed page grown to `rows` rows on a board of its own, figures kept true.

    A later `read_at` makes a re-load replace the board (the smoke test grows it).
    """
    from leaderboards.format import derive

    page = seed_page()
    base = page["rows"]
    page["url"] = f"/sota/{slug}"
    name = slug.rsplit("-on-", 1)[1]
    page["dataset"] = {"name": name.replace("-", " ").title(), "url": f"/dataset/{name}"}
    page["rows"] = []
    for index in range(rows):
        row = copy.deepcopy(base[index % len(base)])
        row["rank_in_archive_order"] = index + 1
        row["model"] = f"{row['model']} #{index}"
        row["paper"] = f"/paper/{name}-paper-{index}"
        row["paper_url"] = f"https://arxiv.org/abs/2599.{index:05d}"
        row["paper_title"] = f"{row['paper_title']} (copy {index})"
        page["rows"].append(row)
    page["counts"] = derive.page_counts(page["rows"])
    notes = {
        name: page["syntology"][name].get("note")
        for name in ("samples_over_distinct_papers", "samples_row_weighted")
    }
    page["syntology"].update(derive.syntology_figures(page["rows"]))
    for name, note in notes.items():
        page["syntology"][name]["note"] = note
    page["syntology"]["read_at"] = read_at
    return page


@dataclass
class Page:
    name: str
    path: str | None  # None until found (the list's last page)
    note: str = ""
    missing: str = ""  # why it is not measured: "404 (not built)"


def site_pages():
    """The benchmark's pages, in the order the table shows them.

    The last page of /sota/ is found by reading page 1: see `find_last_page`.
    """
    seed = seed_page()
    paper = next(row["paper"] for row in seed["rows"] if row["paper"])
    return [
        Page("leaderboard (seed, 22 rows)", seed["url"]),
        Page("leaderboard (2,000 rows)", f"/sota/{BIG_SLUG}"),
        # A view the query string asks for: the table is built from the rows,
        # not taken from the board's prepared parts (leaderboards/web/prepared.py).
        Page("leaderboard (seed), sorted by date", f"{seed['url']}?sort=date"),
        Page("leaderboard (2,000 rows), sorted by date", f"/sota/{BIG_SLUG}?sort=date"),
        Page("/sota/ page 1", "/sota/"),
        Page("/sota/ last page", None),
        Page("task page", seed["task"]["url"]),
        Page("paper page", paper),
        Page("search, broad", f"/search?q={BROAD_QUERY}"),
        Page("search, narrow", f"/search?q={NARROW_QUERY}"),
    ]


def find_last_page(html):
    """The path of the list's last page from page 1's HTML, or None."""
    for pattern in (LAST_REL, LAST_LINK):
        match = pattern.search(html)
        if match:
            return _as_path(next(group for group in match.groups() if group))
    numbered = [(int(number), href) for href, number in PAGE_NUMBER.findall(html)]
    if numbered:
        return _as_path(max(numbered)[1])
    return None


def _as_path(href):
    href = unescape(href)
    if href.startswith("?"):
        return "/sota/" + href
    return href


def resolve_pages(fetch):
    """site_pages() with the last page found; fetch(path) -> (status, html)."""
    pages = site_pages()
    status, html = fetch("/sota/")
    for page in pages:
        if page.path is None:
            if status != 200:
                page.missing = f"{status} (not built)" if status == 404 else f"list {status}"
            else:
                page.path = find_last_page(html) or "/sota/"
                if page.path == "/sota/":
                    page.note = "one page only"
    return pages


# -- processes -----------------------------------------------------------------


def manage(*args, env, quiet=True):
    """Run one manage.py command; return (seconds, stdout) or stop the bench."""
    elapsed, _, stdout = manage_timed(*args, env=env, quiet=quiet)
    return elapsed, stdout


# The synthetic page generator is a tool beside the site, not a manage.py command.
GENERATE = "tools.synthetic_pages"


def manage_timed(*args, env, quiet=True):
    """manage(), with the CPU seconds (user + system) the command used as well.

    A first argument of GENERATE runs the page generator instead of manage.py.

    On a shared machine wall time measures the neighbours too; CPU time does not.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    program = ["-m"] if args[0] == GENERATE else ["manage.py"]
    result = subprocess.run(
        [sys.executable, *program, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if result.returncode != 0:
        sys.exit(f"{' '.join(args)} failed (exit {result.returncode}):\n{result.stderr[-4000:]}")
    if not quiet:
        print(result.stdout.strip().splitlines()[-1] if result.stdout.strip() else "")
    return elapsed, cpu, result.stdout


def database_url(db):
    """A PostgreSQL URL as it is, a path as the SQLite file's URL."""
    db = str(db)
    return db if db.startswith(("postgres://", "postgresql://")) else f"sqlite:///{db}"


def is_postgresql(db):
    return database_url(db).startswith("postgres")


def database_env(db):
    return {**os.environ, "DATABASE_URL": database_url(db)}


def fresh_database(db):
    """An empty database at `db`: the SQLite file removed, or the PostgreSQL database re-made."""
    if not is_postgresql(db):
        db = Path(db)
        for stale in db.parent.glob(db.name + "*"):
            stale.unlink()
        return
    import psycopg

    url = database_url(db).replace("postgres://", "postgresql://", 1)
    base, name = url.rsplit("/", 1)
    with psycopg.connect(base + "/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')


def query_one(db, sql, params=()):
    """The first column of the first row of one query, on either database (%s placeholders)."""
    if is_postgresql(db):
        import psycopg

        url = database_url(db).replace("postgres://", "postgresql://", 1)
        with psycopg.connect(url) as connection:
            return connection.execute(sql, params).fetchone()[0]
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as connection:
        return connection.execute(sql.replace("%s", "?"), params).fetchone()[0]


def query_all(db, sql, params=()):
    """The first column of every row of one query, on either database (%s placeholders)."""
    if is_postgresql(db):
        import psycopg

        url = database_url(db).replace("postgres://", "postgresql://", 1)
        with psycopg.connect(url) as connection:
            return [row[0] for row in connection.execute(sql, params).fetchall()]
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as connection:
        return [row[0] for row in connection.execute(sql.replace("%s", "?"), params).fetchall()]


def production_env(db_path):
    """Production settings as a deploy has them, on plain HTTP over loopback."""
    return {
        **database_env(db_path),
        "SOTASITE_PRODUCTION": "1",
        "SOTASITE_SECRET_KEY": "bench-only-" + os.urandom(24).hex(),
        "SOTASITE_ALLOWED_HOSTS": "127.0.0.1",
        # The bench speaks plain HTTP; a proxy would do TLS in front of gunicorn.
        "SOTASITE_SSL_REDIRECT": "0",
        "SOTASITE_DEBUG": "0",
    }


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def build_site(db_path, boards, seed="1", big_rows=2000, huge_rows=0):
    """A fresh database (a SQLite path or a PostgreSQL URL) with seeds/, `boards`
    generated pages and the big board.

    Returns the seconds each step took.
    """
    fresh_database(db_path)
    env = database_env(db_path)
    timings = {}
    with tempfile.TemporaryDirectory() as tmp:
        pages = Path(tmp) / "pages"
        log(f"generating {boards} pages")
        timings["generate"], _ = manage(
            GENERATE, "--out", str(pages), "--boards", str(boards), "--seed", seed, env=env
        )
        big = Path(tmp) / "big" / f"{BIG_SLUG}.json"
        big.parent.mkdir()
        big.write_text(json.dumps(big_page(big_rows), ensure_ascii=False), encoding="utf-8")
        if huge_rows:
            page = big_page(huge_rows, slug=HUGE_SLUG)
            huge = big.parent / f"{HUGE_SLUG}.json"
            huge.write_text(json.dumps(page, ensure_ascii=False), encoding="utf-8")
        log("migrating")
        manage("migrate", "--noinput", "--verbosity", "0", env=env)
        manage("loaddata", "fixtures/areas.json", "--verbosity", "0", env=env)
        log("loading seeds/ and the big board")
        timings["load seeds"], _ = manage("load_seeds", "--verbosity", "0", env=env)
        manage("load_seeds", "--verbosity", "0", str(big.parent), env=env)
        log(f"loading {boards} generated pages")
        timings["load generated"], out = manage(
            "load_seeds", "--verbosity", "0", str(pages), env=env
        )
        log(out.strip().splitlines()[-1] if out.strip() else "(no loader output)")
    return timings


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fetch(url, headers=None, timeout=120):
    """(status, body text, headers) of one GET; HTTP errors are answers, not exceptions."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace"), response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace"), error.headers


def wait_until_up(url, process, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"server exited (code {process.returncode}) before answering {url}")
        try:
            fetch(url, timeout=2)
            return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"no answer from {url} within {seconds} s")


@contextlib.contextmanager
def server(command, env, port, probe="/"):
    """Start a server process, wait until it answers, stop it on leaving."""
    with tempfile.TemporaryFile() as log_file:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT
        )
        try:
            wait_until_up(f"http://127.0.0.1:{port}{probe}", process)
            yield process
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.returncode not in (0, -signal.SIGTERM):
                log_file.seek(0)
                tail = log_file.read()[-2000:].decode("utf-8", "replace")
                print(f"server log (exit {process.returncode}):\n{tail}")


def gunicorn(env, port, workers=2, worker_class=None):
    """gunicorn as `make run` starts it (gunicorn.conf.py), on `port`.

    worker_class "sync" measures the one-request-per-process workers the site
    ran before, for comparison.
    """
    other = ["--worker-class", "sync", "--threads", "1"] if worker_class == "sync" else []
    return server(
        [
            str(GUNICORN),
            "sotasite.wsgi",
            "--config",
            str(ROOT / "gunicorn.conf.py"),
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            *other,
            "--log-level",
            "warning",
        ],
        env,
        port,
        probe="/static/bench-probe-that-is-not-there",
    )


def worker_pids(master_pid):
    """Gunicorn's workers: the master's child processes."""
    children = Path(f"/proc/{master_pid}/task/{master_pid}/children")
    return [int(pid) for pid in children.read_text().split()]


def cpu_seconds(pids):
    """User and system CPU the processes and their children have used so far.

    On a machine shared with other work, wall-clock latency tells how busy the
    machine was as much as how heavy the page is; CPU per request does not.
    A gunicorn master's workers are counted whether they still run or have
    been replaced (a replaced worker's CPU moves to its master's cutime and
    cstime when the master reaps it), so pass the master alone.
    """
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # utime, stime, cutime and cstime are fields 14 to 17 of stat(5); 2 precede ")".
        total += sum(int(field) for field in fields[11:15]) / ticks
        total += cpu_seconds([int(child) for child in children])
    return total


def rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mb(pid):
    """The process's high-water resident memory (VmHWM), in MB; 0 once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return int(match.group(1)) / 1024 if match else 0.0


def peak_with_children_mb(pid):
    """The high-water memory of the process and of each of its children, added up.

    A large load reads its files in a second process: the two together are
    what the machine must hold (an upper bound, as their peaks may not meet).
    """
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return peak_rss_mb(pid) + sum(peak_rss_mb(child) for child in children)


def migrated_database(db):
    """An empty database at `db` (fresh_database), migrated, the areas fixture loaded;
    returns the environment that names it."""
    fresh_database(db)
    env = database_env(db)
    manage("migrate", "--noinput", "--verbosity", "0", env=env)
    manage("loaddata", "fixtures/areas.json", "--verbosity", "0", env=env)
    return env


def ensure_datasette():
    """Datasette in its own venv under bench/, made on first use."""
    binary = DATASETTE_VENV / "bin" / "datasette"
    if not binary.exists():
        log("installing datasette into bench/.venv-datasette")
        subprocess.run(["python3", "-m", "venv", str(DATASETTE_VENV)], check=True)
        subprocess.run(
            [str(DATASETTE_VENV / "bin" / "pip"), "install", "--quiet", "datasette"], check=True
        )
    return binary


# -- wrk -----------------------------------------------------------------------

# wrk's own summary has no p95: this script prints the figures wanted as one
# JSON line. With `bust`, every request gets a query string of its own, so a
# page cache keyed on the URL never answers: the uncached cost of the page.
WRK_SCRIPT = """
local paths = {%(paths)s}
local bust = %(bust)s
local threads = 0
local counter = 0
local index = 0

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function request()
  index = index %% #paths + 1
  local path = paths[index]
  if bust then
    counter = counter + 1
    local sep = string.find(path, "?", 1, true) and "&" or "?"
    path = path .. sep .. "bench=" .. tid .. "-" .. counter
  end
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests": %%d, "seconds": %%f, "p50": %%f, "p95": %%f, "p99": %%f, '
    .. '"connect": %%d, "read": %%d, "write": %%d, "status": %%d, "timeout": %%d}\\n',
    summary.requests, summary.duration / 1e6,
    latency:percentile(50) / 1e3, latency:percentile(95) / 1e3, latency:percentile(99) / 1e3,
    e.connect, e.read, e.write, e.status, e.timeout))
end
"""


@dataclass
class WrkResult:
    requests: int
    seconds: float
    p50: float  # milliseconds
    p95: float
    p99: float
    errors: int
    error_detail: str
    cpu_ms: float | None = None  # server CPU per request, when measured

    @property
    def rps(self):
        return self.requests / self.seconds if self.seconds else 0.0


def wrk(
    base_url, paths, connections, seconds, bust=False, timeout="10s", server_pids=(), headers=()
):
    """Drive `paths` (rotated per request) with wrk; latencies in ms.

    Errors count failed connections, reads, writes, timeouts and any answer
    that is not 2xx or 3xx.
    """
    script = WRK_SCRIPT % {
        "paths": ", ".join(json.dumps(path) for path in paths),
        "bust": "true" if bust else "false",
    }
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
        handle.write(script)
    cpu_before = cpu_seconds(server_pids)
    try:
        result = subprocess.run(
            [
                "wrk",
                "--latency",
                "--threads",
                str(min(2, connections)),
                "--connections",
                str(connections),
                "--duration",
                f"{seconds}s",
                "--timeout",
                timeout,
                *(flag for header in headers for flag in ("--header", header)),
                "--script",
                handle.name,
                base_url + paths[0],
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        os.unlink(handle.name)
    cpu = cpu_seconds(server_pids) - cpu_before
    line = next((line for line in result.stdout.splitlines() if line.startswith("BENCH ")), None)
    if result.returncode != 0 or line is None:
        sys.exit(f"wrk failed (exit {result.returncode}):\n{result.stdout}\n{result.stderr}")
    data = json.loads(line.removeprefix("BENCH "))
    kinds = ("connect", "read", "write", "status", "timeout")
    errors = sum(data[kind] for kind in kinds)
    detail = ", ".join(f"{data[kind]} {kind}" for kind in kinds if data[kind])
    if not data["requests"]:
        # Nothing answered within the run: its latencies are not zero, they are unknown.
        errors = max(errors, 1)
        detail = detail or "no answer within the run"
        data.update(p50=float("inf"), p95=float("inf"), p99=float("inf"))
    return WrkResult(
        data["requests"],
        data["seconds"],
        data["p50"],
        data["p95"],
        data["p99"],
        errors,
        detail,
        cpu * 1000 / data["requests"] if server_pids and data["requests"] else None,
    )

"""Editors against re-loads: every acknowledged decision kept, no 5xx.

    .venv/bin/python -m bench.editors_vs_loads [--seconds 120] [--editors 4]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/NAME .venv/bin/python -m bench.editors_vs_loads

Builds a fresh database (an SQLite file under bench/out/, or, when DATABASE_URL
names a PostgreSQL server, a new database beside NAME, dropped at the end) with
one board, and serves it with gunicorn under production settings. Then, for
--seconds, editor threads, each signed in with a session of its own, withhold
and restore rows and set metrics' directions through the admin's list actions
over HTTP, from the list page they last saw, so often with ids a re-load has
replaced since; meanwhile a loader process re-loads the board in a loop, each
file a later `syntology.read_at`, its rows in a new order, every third file
without one row. Each editor owns its rows and metrics, so the last answer it
got for one is the decision that must stand. At the end the loader loads a
file with every row; each row and metric whose last action was acknowledged
(a success message and no warning) must show that decision, in the database
and in the board's JSON export, and no answer may be a 5xx.

Reports actions, acknowledged decisions, conflicts (the clear message for a
row the file of the moment does not have), actions that followed a row to its
new id, busy answers, lost decisions and 5xx. Writes
bench/results/editors_vs_loads_<database>.md; exits 1 on a loss or a 5xx.
tests/bench/test_editors_vs_loads.py runs the same for a few seconds.
"""

import argparse
import copy
import dataclasses
import datetime
import html
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from pathlib import Path

from bench import common

ROOT = Path(__file__).resolve().parent.parent
# This file again in a second process (the re-load loop, the dump), from ROOT.
SELF = ["-m", "bench.editors_vs_loads"]

SLUG = "editors-vs-loads"
PASSWORD = "a-long-bench-passphrase-7351"
FIRST_READ = datetime.datetime(2026, 6, 1, tzinfo=datetime.UTC)
DIRECTIONS = {"set_higher": "higher", "set_lower": "lower", "set_unknown": "unknown"}
DIRECTIONS["set_none"] = None
KEY_INPUT = re.compile(r'<input type="hidden" name="key-(\d+)" value="([^"]*)">')
MESSAGE = re.compile(r'<li class="(success|info|warning|error)">(.*?)</li>', re.DOTALL)
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


# -- the board and its versions ---------------------------------------------------


def board_page(version, rows=20, metrics=4, drop=True):
    """Version `version` of the board: rows shuffled, every third version one row short."""
    from leaderboards.format import derive

    seed = common.seed_page()
    page = copy.deepcopy(seed)
    page["url"] = f"/sota/{SLUG}"
    page["dataset"] = {"name": "Editors vs Loads", "url": "/dataset/editors-vs-loads"}
    names = [*seed["metrics"], *(f"Score {n}" for n in range(3, metrics + 1))][:metrics]
    page["metrics"] = names
    page["metric_direction"]["by_metric"] = dict.fromkeys(names)
    rng = random.Random(version)
    made = []
    for index in range(rows):
        row = copy.deepcopy(seed["rows"][index % len(seed["rows"])])
        row["model"] = f"{row['model']} #{index}"
        row["metrics"] = {name: str(index + position) for position, name in enumerate(names)}
        made.append(row)
    rng.shuffle(made)
    if drop and version % 3 == 0:
        made.pop(rng.randrange(len(made)))
    for rank, row in enumerate(made, start=1):
        row["rank_in_archive_order"] = rank
    page["rows"] = made
    page["counts"] = derive.page_counts(made)
    notes = {
        name: seed["syntology"][name].get("note")
        for name in ("samples_over_distinct_papers", "samples_row_weighted")
    }
    page["syntology"].update(derive.syntology_figures(made))
    for name, note in notes.items():
        page["syntology"][name]["note"] = note
    read_at = FIRST_READ + datetime.timedelta(seconds=version)
    page["syntology"]["read_at"] = read_at.isoformat()
    return page


def model_names(rows):
    return [row["model"] for row in sorted(board_page(0, rows)["rows"], key=lambda r: r["model"])]


def ready(stop):
    """The file the loader makes after its first re-load."""
    return stop.with_name(stop.name + ".ready")


def reload_loop(options):
    """The loader's side, in a process of its own: re-load until told to stop."""
    import django

    django.setup()
    from leaderboards.ingest.loader import Loader

    loads, failed, version = 0, [], 0
    stop = Path(options.stop)
    while not stop.exists():
        version += 1
        report = Loader().load_pages([(f"v{version}", board_page(version, options.rows))])
        loads += report.updated
        failed += report.failed
        # The race starts once loads are under way: on a busy machine starting
        # Django alone can take longer than a short run.
        ready(stop).touch()
        # A moment between loads, as between an operator's runs. Back to back
        # (--pause 0) SQLite hands its write lock to the next load more often
        # than to a waiting editor: in 30 s, 193 actions against about 285.
        time.sleep(options.pause)
    print(json.dumps({"loads": loads, "failed": failed, "version": version}))


def dump_state():
    """The board's rows, metrics and decisions as stored, for the final check."""
    import django

    django.setup()
    from leaderboards.models import DirectionDecision, Metric, Row, RowDecision, SearchEntry

    board = {"leaderboard__slug": SLUG}
    # A model's entry is found by its slug, that of the board's rows.
    models = Row.objects.filter(**board).values("model_slug")
    found = SearchEntry.objects.filter(kind="model", slug__in=models).values_list("name", flat=True)
    print(
        json.dumps(
            {
                "rows": dict(Row.objects.filter(**board).values_list("model", "withheld")),
                "metrics": dict(
                    Metric.objects.filter(**board).values_list("name", "editor_direction")
                ),
                "row_decisions": dict(
                    RowDecision.objects.filter(**board).values_list("model", "withheld")
                ),
                "direction_decisions": dict(
                    DirectionDecision.objects.filter(**board).values_list("metric", "direction")
                ),
                "searched": list(found),
            }
        )
    )


def lost_decisions(tally, state):
    """Acknowledged decisions the stored state does not show.

    A row the file of the moment lacks shows its decision in RowDecision only.
    """
    lost = []
    for name, want in tally.rows.items():
        stored = state["rows"].get(name, state["row_decisions"].get(name, False))
        if stored != want:
            lost.append(f"row {name!r}: decided {'withheld' if want else 'shown'}, stored {stored}")
    for name, want in tally.metrics.items():
        if state["metrics"].get(name) != want:
            lost.append(f"metric {name!r}: decided {want}, stored {state['metrics'].get(name)}")
    shown = sorted(name for name, withheld in state["rows"].items() if not withheld)
    if sorted(state["searched"]) != shown:
        lost.append("the search's model entries are not the shown rows, each once")
    # Whatever the acknowledgements, the pages' copy must equal the decisions.
    for name, shown in state["rows"].items():
        if shown != state["row_decisions"].get(name, False):
            lost.append(f"row {name!r}: withheld is {shown}, its decision says otherwise")
    for name, shown in state["metrics"].items():
        if shown != state["direction_decisions"].get(name):
            lost.append(f"metric {name!r}: direction {shown}, its decision says otherwise")
    return lost


# -- the editors ------------------------------------------------------------------


class Session:
    """One signed-in browser: its own cookies, no redirects followed."""

    class _NoRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    def __init__(self, base, secure):
        self.base = base
        # Production cookies are Secure; the proxy that would do TLS is simulated.
        self.origin = base.replace("http://", "https://") if secure else base
        self.secure = secure
        self.cookies = {}
        self.opener = urllib.request.build_opener(self._NoRedirects)

    def request(self, path, data=None):
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if self.secure:
            headers["X-Forwarded-Proto"] = "https"
        if data is not None:
            headers["Origin"] = self.origin
            headers["Referer"] = self.origin + path
        body = None if data is None else urllib.parse.urlencode(data, doseq=True).encode()
        request = urllib.request.Request(self.base + path, data=body, headers=headers)
        try:
            with self.opener.open(request, timeout=120) as response:
                status, text, answer = response.status, response.read(), response.headers
        except urllib.error.HTTPError as error:
            status, text, answer = error.code, error.read(), error.headers
        for cookie in answer.get_all("Set-Cookie") or []:
            name, _, value = cookie.split(";", 1)[0].partition("=")
            if value in ("", '""') or "Max-Age=0" in cookie:
                self.cookies.pop(name.strip(), None)
            else:
                self.cookies[name.strip()] = value
        return status, text.decode("utf-8", "replace"), answer

    def login(self, username):
        _, page, _ = self.request("/admin/login/?next=/admin/")
        token = CSRF.search(page).group(1)
        status, _, _ = self.request(
            "/admin/login/?next=/admin/",
            {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token},
        )
        if status != 302:
            raise RuntimeError(f"{username} could not sign in: {status}")


@dataclasses.dataclass
class Tally:
    actions: int = 0
    acknowledged: int = 0
    conflicts: int = 0
    followed: int = 0
    busy: int = 0
    server_errors: int = 0
    other: Counter = dataclasses.field(default_factory=Counter)
    errors_seen: list = dataclasses.field(default_factory=list)
    shown_after_withhold: list = dataclasses.field(default_factory=list)
    # The decision each row (by model) and metric (by name) must show: its last acknowledged one.
    rows: dict = dataclasses.field(default_factory=dict)
    metrics: dict = dataclasses.field(default_factory=dict)


class Editor(threading.Thread):
    def __init__(self, number, base, secure, rows, metrics, deadline):
        super().__init__(name=f"editor-{number}")
        self.session = Session(base, secure)
        self.username = f"editor-{number}"
        self.own = {"row": set(rows), "metric": set(metrics)}
        self.deadline = deadline
        self.rng = random.Random(number)
        self.tally = Tally()
        self.lists = {}
        self.crashed = None

    def run(self):
        try:
            while time.monotonic() < self.deadline:
                kind = "row" if self.rng.random() < 0.6 or not self.own["metric"] else "metric"
                self.act(kind)
        except Exception as error:  # noqa: BLE001 - reported by the run, which then fails
            self.crashed = f"{type(error).__name__}: {error}"

    def get(self, path):
        status, text, answer = self.session.request(path)
        self.note(status, text)
        return status, text, answer

    def note(self, status, text):
        if status >= 500:
            self.tally.server_errors += 1
            self.tally.errors_seen.append(text[:300])
        elif status not in (200, 302):
            self.tally.other[status] += 1

    def listing(self, kind):
        """The list page this editor last saw, fetched afresh now and then."""
        if kind not in self.lists or self.rng.random() < 0.3:
            status, text, _ = self.get(f"/admin/leaderboards/{kind}/")
            if status == 200:
                self.lists[kind] = text
        return self.lists.get(kind, "")

    def act(self, kind):
        page = self.listing(kind)
        choices = {}
        for pk, value in KEY_INPUT.findall(page):
            value = html.unescape(value)
            # Rows: "board key model"; metrics: "board name".
            name = value.split(" ", 2)[2] if kind == "row" else value.split(" ", 1)[1]
            if name in self.own[kind]:
                choices[name] = (pk, value)
        token = CSRF.search(page)
        if not choices or not token:
            time.sleep(0.05)
            self.lists.pop(kind, None)
            return
        name = self.rng.choice(sorted(choices))
        pk, value = choices[name]
        data = {"_selected_action": pk, f"key-{pk}": value, "index": "0"}
        data["csrfmiddlewaretoken"] = token.group(1)
        if kind == "row":
            decided = self.rng.random() < 0.5
            data["action"] = "withhold" if decided else "restore"
            if decided:
                data.update(reason=f"spam, says {self.username}", apply="1")
        else:
            data["action"] = self.rng.choice(sorted(DIRECTIONS))
            decided = DIRECTIONS[data["action"]]
        # A moment of reading before the click: a re-load may come in between.
        time.sleep(self.rng.random() * 0.1)
        self.tally.actions += 1
        status, text, answer = self.session.request(f"/admin/leaderboards/{kind}/", data)
        self.note(status, text)
        if status != 302:
            return
        status, text, _ = self.get(answer["Location"])
        if status == 200:
            self.lists[kind] = text
        told = {level: [html.unescape(m) for lv, m in MESSAGE.findall(text) if lv == level]
                for level in ("success", "info", "warning", "error")}  # fmt: skip
        if told["error"]:
            self.tally.busy += 1
        elif told["warning"]:
            self.tally.conflicts += 1
        elif told["success"]:
            self.tally.acknowledged += 1
            self.tally.followed += bool(told["info"])
            (self.tally.rows if kind == "row" else self.tally.metrics)[name] = decided
            if kind == "row" and decided:
                self.check_gone_from_the_page(name)

    def check_gone_from_the_page(self, model):
        """What a visitor sees right after: a row withheld and acknowledged is not shown."""
        status, text, _ = self.get(f"/sota/{SLUG}.json")
        if status == 200 and model in {row["model"] for row in json.loads(text)["rows"]}:
            self.tally.shown_after_withhold.append(model)


# -- one run ----------------------------------------------------------------------


@dataclasses.dataclass
class Result:
    database: str
    seconds: float
    editors: int
    loads: int
    load_failures: list
    tally: Tally
    lost: list
    export_ok: bool
    crashed: list

    @property
    def ok(self):
        return not (self.lost or self.tally.server_errors or self.crashed or self.load_failures)


def run(
    database_url, seconds, editors, rows=20, metrics=4, production=True, workdir=None, pause=0.05
):
    """Set up the board and the server on database_url (fresh), race editors and loads."""
    workdir = Path(workdir or tempfile.mkdtemp())
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "sotasite.settings",
    }
    env["SOTASITE_EDITOR_PASSWORD"] = PASSWORD
    if production:
        env.update(
            SOTASITE_PRODUCTION="1",
            SOTASITE_SECRET_KEY="bench-only-" + os.urandom(24).hex(),
            SOTASITE_ALLOWED_HOSTS="127.0.0.1",
            SOTASITE_SSL_REDIRECT="0",
        )
    common.manage("migrate", "--noinput", "--verbosity", "0", env=env)
    if production:
        common.manage("collectstatic", "--noinput", "--verbosity", "0", env=env)
    for number in range(editors):
        common.manage("createeditor", f"editor-{number}", "--no-input", env=env)
    first = workdir / "v0.json"
    first.write_text(json.dumps(board_page(0, rows, metrics, drop=False)), encoding="utf-8")
    common.manage("load_seeds", str(first), env=env)

    names = model_names(rows)
    metric_names = board_page(0, rows, metrics)["metrics"]
    port = common.free_port()
    base = f"http://127.0.0.1:{port}"
    stop = workdir / "stop"
    stop.unlink(missing_ok=True)
    ready(stop).unlink(missing_ok=True)
    with common.gunicorn(env, port, workers=editors + 1):
        deadline = time.monotonic() + 3600
        team = [
            Editor(
                number,
                base,
                production,
                names[number::editors],
                metric_names[number::editors],
                deadline,
            )
            for number in range(editors)
        ]
        for editor in team:
            editor.session.login(editor.username)
        loader = subprocess.Popen(
            [sys.executable, *SELF, "--reload-loop", "--stop", str(stop), "--rows", str(rows),
             "--pause", str(pause)],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        waited = time.monotonic()
        while not ready(stop).exists():
            if loader.poll() is not None or time.monotonic() - waited > 300:
                break  # reported below, with the loader's own words
            time.sleep(0.05)
        started = time.monotonic()
        for editor in team:
            editor.deadline = started + seconds
        for editor in team:
            editor.start()
        for editor in team:
            editor.join()
        stop.touch()
        out, err = loader.communicate(timeout=600)
        if loader.returncode != 0:
            raise RuntimeError(f"the loader stopped (exit {loader.returncode}):\n{err[-3000:]}")
        loaded = json.loads(out.strip().splitlines()[-1])
        # As the race left it, then after a newer file that has every row.
        during = dump(env)
        last = workdir / "last.json"
        page = board_page(loaded["version"] + 1, rows, metrics, drop=False)
        last.write_text(json.dumps(page), encoding="utf-8")
        common.manage("load_seeds", str(last), env=env)
        after = dump(env)
        _, export, _ = Session(base, production).request(f"/sota/{SLUG}.json")
    took = time.monotonic() - started

    tally = Tally()
    for editor in team:
        mine = editor.tally
        for field in ("actions", "acknowledged", "conflicts", "followed", "busy", "server_errors"):
            setattr(tally, field, getattr(tally, field) + getattr(mine, field))
        tally.other.update(mine.other)
        tally.errors_seen += mine.errors_seen
        tally.shown_after_withhold += mine.shown_after_withhold
        tally.rows.update(mine.rows)
        tally.metrics.update(mine.metrics)
    lost = [f"row {name!r} was on the page after its withholding was acknowledged"
            for name in tally.shown_after_withhold]  # fmt: skip
    lost += lost_decisions(tally, during)
    final = lost_decisions(tally, after)
    lost += [f"after the file with every row: {item}" for item in final]
    state = after
    document = json.loads(export)
    shown = {row["model"] for row in document["rows"]}
    withheld = {name for name, value in state["rows"].items() if value}
    export_ok = shown == set(state["rows"]) - withheld and document["source"][
        "rows_withheld_as_spam"
    ] == len(withheld)
    return Result(
        database=database_url.split(":", 1)[0],
        seconds=took,
        editors=editors,
        loads=loaded["loads"],
        load_failures=loaded["failed"],
        tally=tally,
        lost=lost,
        export_ok=export_ok,
        crashed=[editor.crashed for editor in team if editor.crashed],
    )


def dump(env):
    answer = subprocess.run(
        [sys.executable, *SELF, "--dump"], cwd=ROOT, env=env, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    return json.loads(answer.stdout.strip().splitlines()[-1])


def report(result, options):
    t = result.tally
    other = ", ".join(f"{count} x {status}" for status, count in t.other.items()) or "none"
    lines = [
        f"# Editors against re-loads ({result.database})",
        "",
        f"`python -m bench.editors_vs_loads --seconds {options.seconds} "
        f"--editors {options.editors}` "
        f"at {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}; gunicorn, production settings, "
        f"{result.editors + 1} sync workers; one board of {options.rows} rows and 4 metrics, "
        f"re-loaded with {options.pause} s between two loads.",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| wall time | {result.seconds:.0f} s |",
        f"| re-loads of the board | {result.loads} |",
        f"| editors' actions | {t.actions} |",
        f"| acknowledged (success message) | {t.acknowledged} |",
        f"| of which followed a replaced id to the row or metric with its key | {t.followed} |",
        f"| conflicts (clear message: the file of the moment lacks the row) | {t.conflicts} |",
        f"| busy (clear message, nothing changed) | {t.busy} |",
        f"| rows / metrics with an acknowledged decision | {len(t.rows)} / {len(t.metrics)} |",
        f"| lost decisions | {len(result.lost)} |",
        f"| 5xx answers | {t.server_errors} |",
        f"| other non-2xx/3xx answers | {other} |",
        f"| load failures | {len(result.load_failures)} |",
        f"| JSON export agrees with the stored flags | {'yes' if result.export_ok else 'no'} |",
    ]
    for item in result.lost[:20]:
        lines.append(f"\nLost: {item}")
    for item in t.errors_seen[:5]:
        lines.append(f"\n5xx: {item}")
    for item in result.crashed:
        lines.append(f"\nEditor stopped: {item}")
    return "\n".join(lines)


def fresh_postgres(url):
    """A new database on the server `url` names, and a function that drops it."""
    import psycopg

    parts = urllib.parse.urlsplit(url)
    name = f"{parts.path.lstrip('/') or 'sotasite'}_evl_{uuid.uuid4().hex[:8]}"
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')

    def drop():
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE "{name}" WITH (FORCE)')

    return parts._replace(path=f"/{name}").geturl(), drop


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--editors", type=int, default=4)
    parser.add_argument("--rows", type=int, default=20)
    parser.add_argument(
        "--pause", type=float, default=0.05, help="seconds between two re-loads (0.05)"
    )
    parser.add_argument("--reload-loop", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--dump", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--stop", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.reload_loop:
        return reload_loop(options)
    if options.dump:
        return dump_state()

    url = os.environ.get("DATABASE_URL", "")
    drop = None
    if url.startswith("postgres"):
        url, drop = fresh_postgres(url)
    else:
        common.OUT.mkdir(parents=True, exist_ok=True)
        path = common.OUT / "editors_vs_loads.sqlite3"
        for stale in path.parent.glob(path.name + "*"):
            stale.unlink()
        url = f"sqlite:///{path}"
    try:
        common.log(f"{options.editors} editors against re-loads for {options.seconds} s on {url}")
        result = run(url, options.seconds, options.editors, options.rows, pause=options.pause)
    finally:
        if drop:
            drop()
    text = report(result, options)
    print(text)
    vendor = "sqlite" if result.database.startswith("sqlite") else "postgresql"
    output = common.RESULTS / f"editors_vs_loads_{vendor}.md"
    output.write_text(text + "\n", encoding="utf-8")
    common.log(f"written to {output}")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Visitors' suggestions at scale: the editors' queue, a visitor's submission, and the board
page with the queue full.

    .venv/bin/python -m bench.suggestions [--boards 15000] [--suggestions 100000] [--repeat 9]
    DATABASE_URL=postgres://... .venv/bin/python -m bench.suggestions ...

Migrates a fresh database (a temporary SQLite file, or the PostgreSQL database
DATABASE_URL names, emptied), loads seeds/, writes --boards leaderboards
without rows (each of its own task and dataset) and asks the seed board's
page; then writes --suggestions junk suggestions spread over every board
(one address each, a tenth supported more than once), and asks, through
Django's test client in this process with the page cache off, the queue's
first and last page, its filters and search, one suggestion's page, a
visitor's form and 100 submissions from as many addresses, and the seed
board's page again: its queries must be the same as before. Prints the
median of --repeat timings with the queries of each; writes
bench/results/suggestions_<database>.md.
"""

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A visitor's form and submission, and the board: as fast as any public page.
LIMIT_MS = 100
# The editors' queue at 100,000 suggestions, far past any real week: usable.
QUEUE_LIMIT_MS = 250


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=15000)
    parser.add_argument("--suggestions", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=9)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ.setdefault("DATABASE_URL", f"sqlite:///{Path(folder) / 'suggestions.sqlite3'}")
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "sotasite.settings")
        os.environ["SOTASITE_PAGE_CACHE"] = "0"
        os.environ["SOTASITE_SUGGESTIONS_PER_HOUR"] = "1000000"
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        call_command("flush", interactive=False, verbosity=0)
        call_command("load_seeds", str(ROOT / "seeds"), verbosity=0)
        boards(options.boards)
        return measure(options)


def boards(count):
    from leaderboards.models import Dataset, Leaderboard, Task

    tasks = Task.objects.bulk_create(Task(slug=f"task-{n}", name=f"Task {n}") for n in range(count))
    datasets = Dataset.objects.bulk_create(
        Dataset(slug=f"dataset-{n}", name=f"Dataset {n}") for n in range(count)
    )
    Leaderboard.objects.bulk_create(
        Leaderboard(slug=f"bench-board-{n}", task=task, dataset=dataset)
        for n, (task, dataset) in enumerate(zip(tasks, datasets, strict=True))
    )


def junk(count):
    from leaderboards.models import Leaderboard, Suggestion, SuggestionVoice

    ids = list(Leaderboard.objects.values_list("pk", flat=True))
    for start in range(0, count, 10_000):
        made = Suggestion.objects.bulk_create(
            Suggestion(
                leaderboard_id=ids[n % len(ids)],
                kind="result" if n % 3 == 0 else "correction",
                model=f"Model {n}" if n % 3 == 0 else "",
                citation_url=f"https://spam.example/{n}" if n % 3 == 0 else "",
                what=f"BUY CHEAP WATCHES {n}",
                why="x" * 500,
                support=1 + (n % 10 == 0) * (n % 7),
                fingerprint=f"{n:064x}",
            )
            for n in range(start, min(start + 10_000, count))
        )
        SuggestionVoice.objects.bulk_create(
            SuggestionVoice(suggestion=suggestion, address=f"{suggestion.pk:064x}")
            for suggestion in made
        )


def timed(client, url, repeat, data=None, addresses=None):
    """(median ms, queries of the last, status) of `repeat` requests."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times = []
    for n in range(repeat):
        with CaptureQueriesContext(connection) as queries:
            start = time.perf_counter()
            if data is None:
                response = client.get(url)
            else:
                response = client.post(url, data, REMOTE_ADDR=addresses(n))
            times.append((time.perf_counter() - start) * 1000)
        assert response.status_code in (200, 302), (url, response.status_code)
    return statistics.median(times), len(queries), response.status_code


def measure(options):
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from leaderboards.models import Leaderboard, Suggestion

    seed = Leaderboard.objects.exclude(slug__startswith="bench-board-").get().slug
    board_url = reverse("leaderboards:leaderboard", args=[seed])
    public = Client(SERVER_NAME="localhost")
    before = timed(public, board_url, options.repeat)

    start = time.perf_counter()
    junk(options.suggestions)
    filled = time.perf_counter() - start
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    staff = User.objects.create_superuser("bench", password="x")
    editor = Client(SERVER_NAME="localhost")
    editor.force_login(staff)
    queue = reverse("admin:leaderboards_suggestion_changelist")
    last = -(-Suggestion.objects.count() // 50) - 1
    one = Suggestion.objects.order_by("pk").first().pk
    pages = {
        "queue, first page": queue,
        "queue, last page": f"{queue}?p={last}",
        "queue, waiting results": f"{queue}?kind__exact=result",
        "queue, one board": f"{queue}?leaderboard=bench-board-99",
        "queue, search": f"{queue}?q=watches+99",
        "one suggestion": reverse("admin:leaderboards_suggestion_change", args=[one]),
        "visitor's form": reverse("leaderboards:suggest_correction", args=[seed]),
    }
    lines, failed = [], False
    for what, url in pages.items():
        visitor = url.startswith("/suggest/")
        median, queries, _ = timed(public if visitor else editor, url, options.repeat)
        failed |= median > (LIMIT_MS if visitor else QUEUE_LIMIT_MS)
        lines.append((what, url, median, queries))
    post = reverse("leaderboards:suggest_correction", args=[seed])
    median, queries, _ = timed(
        public,
        post,
        100,
        data={"what": "The value is wrong.", "why": "Table 3.", "citation_url": ""},
        addresses=lambda n: f"198.51.{n // 256}.{n % 256}",
    )
    failed |= median > LIMIT_MS
    lines.append(("a submission", post, median, queries))
    after = timed(public, board_url, options.repeat)
    same = after[1] == before[1]
    failed |= not same
    lines.append(("board, empty queue", board_url, before[0], before[1]))
    lines.append(("board, full queue", board_url, after[0], after[1]))
    report(options, connection.vendor, lines, filled, same, failed)
    return 1 if failed else 0


def report(options, vendor, lines, filled, same, failed):
    table = [
        "| what | address | median ms | queries |",
        "|---|---|---:|---:|",
        *(f"| {what} | `{url}` | {ms:.1f} | {queries} |" for what, url, ms, queries in lines),
    ]
    for row in table[2:]:
        print(row)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    text = "\n".join(
        [
            f"# Visitors' suggestions at scale ({vendor})",
            "",
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, "
            f"{platform.machine()} with {os.cpu_count()} cores, load average "
            f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}. `python -m bench.suggestions "
            f"--boards {options.boards} --suggestions {options.suggestions}`: "
            f"{options.boards:,} boards and the seed, {options.suggestions:,} junk suggestions "
            f"written in {filled:.1f} s; page cache off; median of {options.repeat} "
            "(100 for the submission, each from its own address).",
            "",
            *table,
            "",
            f"Target: the queue's pages under {QUEUE_LIMIT_MS} ms, the visitor's form and "
            f"submission under {LIMIT_MS} ms, and the board's queries the same with the queue "
            f"full: {'met' if not failed else 'missed'} (board queries "
            f"{'the same' if same else 'differ'}).",
            "",
        ]
    )
    out = ROOT / "bench" / "results" / f"suggestions_{vendor}.md"
    out.write_text(text, encoding="utf-8")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())

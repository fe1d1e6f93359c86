import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboards.generator import generate_pages, write_pages


class Command(BaseCommand):
    help = (
        "Write synthetic leaderboard page files (SPEC 1 format), one DIR/<slug>.json "
        "per board, for load tests: --boards 15000 gives about 150,000 rows behind "
        "about 60,000 papers. The same --seed gives the same files."
    )

    def add_arguments(self, parser):
        parser.add_argument("--out", required=True, type=Path, help="folder to write into")
        parser.add_argument(
            "--boards", type=int, default=15000, help="how many pages (default 15000)"
        )
        parser.add_argument("--seed", default="1", help="random seed (default 1)")

    def handle(self, *args, out, boards, seed, **options):
        if boards < 0:
            raise CommandError("--boards must be zero or more")
        if out.exists() and not out.is_dir():
            raise CommandError(f"{out} exists and is not a folder")
        started = time.perf_counter()
        # An integer seed and its digits as text give different pages; the
        # digits the user typed are read as the number they mean.
        written = write_pages(generate_pages(boards, _seed(seed)), out)
        elapsed = time.perf_counter() - started
        self.stdout.write(
            self.style.SUCCESS(
                f"{written.pages} pages, {written.rows} rows, {written.papers} papers "
                f"written to {out} in {elapsed:.1f} s"
            )
        )


def _seed(text):
    try:
        return int(text)
    except ValueError:
        return text

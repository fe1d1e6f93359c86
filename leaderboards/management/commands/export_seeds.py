from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboards.models import Leaderboard
from leaderboards.web.export import page_document, page_json
from leaderboards.web.page_data import PageData, Unservable


class Command(BaseCommand):
    help = "Write every leaderboard as a page file (SPEC 1) into DIR, one <slug>.json each."

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path)

    def handle(self, *args, directory, **options):
        directory.mkdir(parents=True, exist_ok=True)
        written, failed = 0, 0
        for leaderboard in Leaderboard.objects.named().iterator(chunk_size=500):
            try:
                text = page_json(page_document(PageData(leaderboard)))
            except Unservable as error:
                # One board's stored value that JSON cannot carry costs that file only.
                self.stderr.write(f"{leaderboard.slug}: not written: {error}")
                failed += 1
                continue
            (directory / f"{leaderboard.slug}.json").write_text(text, encoding="utf-8")
            written += 1
        self.stdout.write(self.style.SUCCESS(f"wrote {written} page files to {directory}"))
        if failed:
            raise CommandError(f"{failed} page file(s) could not be written (see above)")

from pathlib import Path

from django.core.management.base import BaseCommand

from leaderboards.models import Leaderboard
from leaderboards.web.export import PageData, page_json


class Command(BaseCommand):
    help = "Write every leaderboard as a page file (SPEC 1) into DIR, one <slug>.json each."

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path)

    def handle(self, *args, directory, **options):
        directory.mkdir(parents=True, exist_ok=True)
        written = 0
        for leaderboard in Leaderboard.objects.for_page().iterator(chunk_size=500):
            document = PageData(leaderboard).document()
            target = directory / f"{leaderboard.slug}.json"
            target.write_text(page_json(document), encoding="utf-8")
            written += 1
        self.stdout.write(self.style.SUCCESS(f"wrote {written} page files to {directory}"))

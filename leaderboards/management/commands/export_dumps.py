from pathlib import Path

from django.core.management.base import BaseCommand

from leaderboards.management.dumps import write_dumps


class Command(BaseCommand):
    help = (
        "Write the site's data as a full dump set into DIR (default: SOTASITE_DUMPS_DIR): the "
        "Papers with Code archive's five files, gzipped, and every board's page file in "
        "pages.tar.gz, with manifest.json and README.txt. The new set replaces the one "
        "/dumps/ serves only once it is whole."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", nargs="?", type=Path)
        parser.add_argument(
            "--no-wait",
            action="store_true",
            help="if a load is running, say so and exit non-zero instead of waiting for it",
        )

    def handle(self, *args, directory, no_wait, **options):
        write_dumps(self, directory, wait=not no_wait)

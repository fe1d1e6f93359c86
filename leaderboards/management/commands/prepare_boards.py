from django.core.management.base import BaseCommand, CommandError

from leaderboards.management.report import prepare_large_boards


class Command(BaseCommand):
    help = (
        "Make and store the page parts and every sort's order of the boards too large for "
        "a web worker to keep, for their current versions, so no worker reads all their rows "
        "for a page that narrows nothing. load_seeds and import_pwc run it at their end; "
        "run it after editors change such a board, or a deploy that changes how pages render."
    )

    def add_arguments(self, parser):
        parser.add_argument("slugs", nargs="*", help="only these boards (default: every one)")

    def handle(self, *args, slugs, **options):
        outcome = prepare_large_boards(self, slugs or None)
        if outcome is None:
            raise CommandError("the boards could not be prepared")
        self.stdout.write(
            f"{len(outcome.made)} boards prepared, {len(outcome.unchanged)} already prepared "
            "for their current versions"
        )

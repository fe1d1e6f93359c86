from django.core.management.base import BaseCommand, CommandError

from leaderboards.management.report import prepare_boards


class Command(BaseCommand):
    help = (
        "Make and store each board's page parts, and every sort's order and the files of the "
        "boards too large for a web worker to keep, for their current versions, so a first "
        "visit after a load reads no rows. load_seeds and import_pwc run it at their end; "
        "run it after editors change boards, and after a deploy (a new release's pages "
        "are prepared anew)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slugs", nargs="*", help="only these boards (default: every one)")

    def handle(self, *args, slugs, **options):
        if prepare_boards(self, slugs or None) is None:
            raise CommandError("the boards could not be prepared")

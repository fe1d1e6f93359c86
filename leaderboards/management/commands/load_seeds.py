from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from leaderboards.ingest.loader import Loader
from leaderboards.ingest.lock import LoadRunning, one_load_at_a_time
from leaderboards.management.dumps import write_dumps as export_dumps
from leaderboards.management.report import prepare_boards, write_report


class Command(BaseCommand):
    # The system checks import every URL and the API's schemas (0.4 s of a one-board
    # load's 0.9 s start-up) and check nothing a load relies on; deploys run `check --deploy`.
    requires_system_checks = []
    help = (
        "Load leaderboard page files (SPEC 1) from files and folders; every file "
        "under a folder is read, whatever its extension. Default: the seeds folder."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*", help="files or folders of page files")
        parser.add_argument(
            "--dry-run", action="store_true", help="check the files and report, write nothing"
        )
        parser.add_argument(
            "--no-wait",
            action="store_true",
            help="if another load is running, say so and exit non-zero instead of waiting for it",
        )
        parser.add_argument(
            "--write-dumps",
            action="store_true",
            help="after a successful load, write the full dumps (export_dumps) that /dumps/ serves",
        )

    def handle(self, *args, paths, dry_run, no_wait, write_dumps, verbosity, **options):
        paths = paths or [settings.SEEDS_DIR]
        loader = Loader(dry_run=dry_run)
        try:
            with one_load_at_a_time(wait=not no_wait, said=self.stderr.write):
                report = loader.load(paths, progress=self._progress if verbosity else None)
        except LoadRunning as error:
            raise CommandError(str(error)) from None
        except OSError as error:
            # The files stopped being readable partway (their reader died): the
            # chunks written before are kept and finished.
            raise CommandError(str(error)) from error
        write_report(self, report)
        for path, field, stated, computed in report.differences:
            self.stdout.write(
                self.style.WARNING(f"{path}: {field} stated {stated!r}, computed {computed!r}")
            )
        verb = "would be" if dry_run else ""
        summary = (
            f"{report.files} files: {report.created} created, {report.updated} updated, "
            f"{report.unchanged} unchanged, {report.older} older than stored, "
            f"{len(report.failed)} failed"
        )
        if dry_run:
            summary += f" (dry run: nothing written; counts are what {verb} done)"
        self.stdout.write(summary)
        if report.stopped:
            raise CommandError(report.stopped)
        if not dry_run:
            prepare_boards(self)
        if report.failed:
            raise CommandError(f"{len(report.failed)} of {report.files} files failed to load")
        if write_dumps and not dry_run:
            export_dumps(self)

    def _progress(self, done, total):
        if total >= 1000:
            self.stderr.write(f"  {done}/{total} files", ending="\n")

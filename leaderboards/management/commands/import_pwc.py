from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboards.format.page import PageError
from leaderboards.format.rules import parse_date
from leaderboards.ingest.archive import Importer, archive_date, open_archive
from leaderboards.ingest.files import check_regular
from leaderboards.management.report import write_report


def _date(text):
    try:
        return parse_date(text)
    except ValueError:
        raise CommandError(f"--snapshot: expected a date YYYY-MM-DD, got {text!r}") from None


class Command(BaseCommand):
    help = (
        "Import the Papers with Code archive (evaluation-tables.json, or .json.gz): one "
        "leaderboard per (task, dataset) table, rows in archive order, values untouched. "
        "Re-running it on the same file changes nothing; editors' decisions are kept."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="evaluation-tables.json or evaluation-tables.json.gz")
        parser.add_argument(
            "--snapshot",
            type=_date,
            help=(
                "date the archive copy was taken (YYYY-MM-DD); default: the date a .gz "
                "header records, else unknown (the pages say so)"
            ),
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="read and check the archive, write nothing"
        )

    def handle(self, *args, file, snapshot, dry_run, verbosity, **options):
        try:
            # A FIFO would be waited on forever, a device read forever.
            check_regular(Path(file))
        except PageError as error:
            raise CommandError(f"{file}: {error.message}") from None
        said = "--snapshot"
        if snapshot is None:
            # The archive's own record, never the file's modification time: a
            # copy's mtime says when it was copied, and would invent a date.
            snapshot, said = archive_date(file), "the gzip header"
        self.stdout.write(
            f"snapshot date: {snapshot.isoformat()} ({said})"
            if snapshot
            else "snapshot date: unknown (no --snapshot, and the file records none); "
            "the pages say so"
        )
        try:
            with open_archive(file) as stream:
                report = Importer(snapshot, dry_run=dry_run).run(
                    stream, progress=self._progress if verbosity > 1 else None
                )
        except (ValueError, OSError, EOFError) as error:
            # ijson's parse errors are ValueErrors; a truncated gzip an EOFError.
            raise CommandError(f"{file}: not a readable archive: {error}") from None
        if not report.tasks:
            raise CommandError(f"{file}: not a readable archive: no tasks (expected a JSON list)")
        load = report.load
        write_report(self, load)
        self.stdout.write(
            f"{report.tasks} tasks, {report.datasets} datasets, {report.tables} leaderboards "
            f"({report.empty_tables} empty tables skipped), {report.rows} rows; "
            f"leaderboards: {load.created} created, {load.updated} updated, "
            f"{load.unchanged} unchanged, {load.older} older than stored, "
            f"{len(load.failed)} failed" + (" (dry run: nothing written)" if dry_run else "")
        )
        if load.stopped:
            raise CommandError(load.stopped)
        if load.failed:
            raise CommandError(f"{len(load.failed)} of {report.tables} leaderboards failed")

    def _progress(self, done):
        self.stderr.write(f"  {done} leaderboards")

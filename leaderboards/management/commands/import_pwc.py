import contextlib
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils.module_loading import import_string

from leaderboards.format.page import PageError
from leaderboards.format.rules import parse_date
from leaderboards.ingest.archive import ArchiveError, Importer, archive_date, open_archive
from leaderboards.ingest.files import check_regular
from leaderboards.ingest.lock import LoadRunning, one_load_at_a_time
from leaderboards.ingest.records import ImportReport, in_canonical_order
from leaderboards.ingest.writer import Writer
from leaderboards.management.dumps import write_dumps as export_dumps
from leaderboards.management.report import prepare_boards, write_report

# Each record file's importer: import_file(path, report) (see ingest/chunks.py).
IMPORTERS = {
    "papers-with-abstracts": "leaderboards.ingest.papers.import_file",
    "links-between-papers-and-code": "leaderboards.ingest.code_links.import_file",
    "methods": "leaderboards.ingest.methods.import_file",
    "datasets": "leaderboards.ingest.datasets.import_file",
}
# Refusals printed one by one; past this many, only counted.
SHOWN_REFUSALS = 1000


def _date(text):
    try:
        return parse_date(text)
    except ValueError:
        raise CommandError(f"--snapshot: expected a date YYYY-MM-DD, got {text!r}") from None


class Command(BaseCommand):
    # The system checks import every URL and the API's schemas (0.4 s of a one-board
    # load's 0.9 s start-up) and check nothing a load relies on; deploys run `check --deploy`.
    requires_system_checks = []
    help = (
        "Import any of the Papers with Code archive's five files (evaluation-tables, "
        "papers-with-abstracts, links-between-papers-and-code, methods, datasets; .json or "
        ".json.gz), in any order: they are imported in that order, so the joins between them "
        "come out the same. Re-running it on the same files changes nothing; editors' "
        "decisions are kept."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", help="the archive's files, recognised by name")
        parser.add_argument(
            "--snapshot",
            type=_date,
            help=(
                "date the archive copy was taken (YYYY-MM-DD), for evaluation-tables; default: "
                "the date a .gz header records, else unknown (the pages say so)"
            ),
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="read and check the files, write nothing"
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

    def handle(self, *args, files, snapshot, dry_run, no_wait, write_dumps, verbosity, **options):
        for file in files:
            try:
                # A FIFO would be waited on forever, a device read forever.
                check_regular(Path(file))
            except PageError as error:
                raise CommandError(f"{file}: {error.message}") from None
        try:
            ordered = in_canonical_order(files)
        except ValueError as error:
            raise CommandError(str(error)) from None
        failures = []
        try:
            with one_load_at_a_time(wait=not no_wait, said=self.stderr.write):
                for kind, file in ordered:
                    if kind == "evaluation-tables":
                        failures += self._boards(file, snapshot, dry_run, verbosity)
                records = [(kind, file) for kind, file in ordered if kind != "evaluation-tables"]
                if records:
                    failures += self._records(records, dry_run)
        except LoadRunning as error:
            raise CommandError(str(error)) from None
        if not dry_run:
            prepare_boards(self)
        if failures:
            raise CommandError("; ".join(failures))
        if write_dumps and not dry_run:
            export_dumps(self)

    # evaluation-tables: boards, through the page writer --------------------------------

    def _boards(self, file, snapshot, dry_run, verbosity):
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
        if snapshot and report.newest_row and report.newest_row[0] > snapshot.isoformat():
            newest, board = report.newest_row
            self.stderr.write(
                f"warning: the snapshot date {snapshot.isoformat()} ({said}) is older than the "
                f"newest row's date, {newest} on {board}: a snapshot is when the archive was "
                "taken, so no row can be newer. The pages say this date; check it."
            )
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
            return [f"{len(load.failed)} of {report.tables} leaderboards failed"]
        return []

    def _progress(self, done):
        self.stderr.write(f"  {done} leaderboards")

    # The other four: records, through ingest/chunks.py ---------------------------------

    def _records(self, files, dry_run):
        report = ImportReport()
        failures = []
        # A dry run writes everything, in one transaction rolled back at the end, so
        # its counts are what a real run would do, joins between the files included.
        with transaction.atomic() if dry_run else contextlib.nullcontext():
            for kind, file in files:
                try:
                    import_string(IMPORTERS[kind])(file, report)
                except (ArchiveError, OSError, EOFError) as error:
                    message = f"{file}: not a readable {kind} file: {error}"
                    self.stderr.write(self.style.ERROR(message))
                    failures.append(f"{Path(file).name} could not be read")
            if dry_run:
                transaction.set_rollback(True)
        if not dry_run:
            # Counts, search index, statistics and cache versions, once for all files;
            # a run killed before this is finished by the next (UpkeepPending).
            Writer().finish()
        for refused in report.refused[:SHOWN_REFUSALS]:
            self.stderr.write(self.style.WARNING(f"refused {refused}"))
        if len(report.refused) > SHOWN_REFUSALS:
            self.stderr.write(f"... and {len(report.refused) - SHOWN_REFUSALS:,} more refused")
        if report.replaced_characters:
            self.stdout.write(
                f"{report.replaced_characters:,} control characters or lone surrogates in "
                "the records' text replaced by U+FFFD"
            )
        for kind, counts in report.kinds.items():
            self.stdout.write(f"{kind}: {counts}")
        if dry_run:
            self.stdout.write("(dry run: nothing written; counts are what a run would do)")
        return failures

"""The one way pages reach the database, for the page-file loader and the archive importer.

A source (sources.py) is a page to read and check (a file, or a page dict a
program built) with the catalogue metadata its source knows beyond the page
format. Sources are taken a chunk at a time, one transaction a chunk: the
catalogue the chunk names is created or brought up to date (catalogue.py),
then every new or changed page is written with one insert per table for the
whole chunk (tables.py). A chunk
the database refuses is written again page by page, so only the bad page
fails. After the last chunk the end-of-load work (catalogue figures, the
search index, the data version) runs; a marker committed with each chunk and
cleared only after that work has committed makes the next run finish it if
this one could not.
"""

import contextlib
import itertools

from django.db import DatabaseError, connection, transaction

from leaderboards import decisions, search
from leaderboards.format.page import PageError
from leaderboards.ingest import CHUNK, tables
from leaderboards.ingest.catalogue import CatalogueWriter
from leaderboards.ingest.history import Recorder, stored_rows
from leaderboards.ingest.sources import (
    Catalogue,
    Entry,
    FileDifference,
    LoadReport,
    PageItem,
    Problem,
    Source,
)
from leaderboards.models import Leaderboard, Row, UpkeepPending
from leaderboards.search import refresh_search
from leaderboards.upkeep.cache import bump_catalogue_version, data_changed
from leaderboards.upkeep.figures import refresh_counts, refresh_leaderboards, refresh_touched
from leaderboards.upkeep.scope import Scope, owed
from leaderboards.upkeep.statistics import (
    analyze_grown_tables,
    refresh_changed_statistics,
    refresh_statistics,
)

# What a load is given and reports (sources.py), importable with the writer.
__all__ = [
    "CHUNK",
    "Catalogue",
    "DiskFull",
    "Entry",
    "LoadReport",
    "Source",
    "Writer",
    "is_disk_full",
]


class DiskFull(Exception):
    """The database could not grow: the load stops, the chunk being written is rolled back."""


def is_disk_full(error):
    """Whether a database error, or one it was raised from, says the disk is full.

    PostgreSQL: SQLSTATE 53100 (disk_full), or an I/O error whose text says
    "No space left on device". SQLite: SQLITE_FULL, "database or disk is full".
    """
    while error is not None:
        if getattr(error, "sqlstate", None) == "53100":
            return True
        if getattr(error, "sqlite_errorname", None) == "SQLITE_FULL":
            return True
        text = str(error)
        if "No space left on device" in text or "database or disk is full" in text:
            return True
        error = error.__cause__
    return False


def _disk_full_message(names, error):
    if len(names) <= 1:
        where = names[0] if names else "this chunk"
    else:
        where = f"{names[0]} (and {len(names) - 1} more of its chunk)"
    database = connection.settings_dict["NAME"]
    return (
        f"the disk is full: the database ({database}) could not grow while writing {where}; "
        f"the load stopped and nothing of this chunk was written ({error}). "
        "Free some space and run the same command again to finish."
    )


def _names(items):
    return [item.source.name for item in items]


# SQLite's page cache for a load's connection, in KiB (its default is 2 MB).
# A load writes into indexes across the whole file: with the default it read
# the same pages again and again from the operating system (at ten times the
# archive, 129 s of system time in a 12-minute load).
LOAD_CACHE_KIB = 256 * 1024
LOAD_CHECKPOINT_PAGES = 20000


@contextlib.contextmanager
def _load_sqlite_cache():
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        (before,) = cursor.fetchone()
        cursor.execute("PRAGMA wal_autocheckpoint")
        (checkpoint,) = cursor.fetchone()
        cursor.execute(f"PRAGMA cache_size = -{LOAD_CACHE_KIB}")
        cursor.execute(f"PRAGMA wal_autocheckpoint = {LOAD_CHECKPOINT_PAGES}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA cache_size = {int(before)}")
            cursor.execute(f"PRAGMA wal_autocheckpoint = {int(checkpoint)}")


class Writer:
    def __init__(self, dry_run=False):
        self.report = LoadReport()
        self.dry_run = dry_run
        # slug -> (source name, read_at, sha256) of the pages this run has taken.
        self.taken = {}
        # What this load changes in boards' data, kept with each chunk (ingest/history.py).
        self.history = Recorder()
        self._changes = []

    def write(self, sources, progress=None):
        """Write sources a chunk at a time, then the end-of-load work.

        progress(done) is called after each chunk with the sources done so far.
        """
        self.report.completed_earlier = not self.dry_run and UpkeepPending.objects.exists()
        with _load_sqlite_cache():
            return self._write_all(sources, progress)

    def _write_all(self, sources, progress):
        done = 0
        try:
            try:
                for chunk in itertools.batched(sources, CHUNK):
                    self._write_chunk(chunk)
                    done += len(chunk)
                    if progress:
                        progress(done)
            except (ValueError, OSError, EOFError):
                # The sources broke off (an archive cut short): the chunks written
                # are finished all the same, since re-running would break off again.
                self.finish()
                raise
            self.finish()
        except DiskFull as error:
            self.report.stopped = str(error)
        return self.report

    # End of the load -------------------------------------------------------------

    def finish(self):
        """The end-of-load work, if any committed chunk (of this run or an earlier one) awaits it.

        Each step is whole by itself or idempotent; the markers go only after
        all have committed, so a failure or a kill anywhere here leaves them for
        the next run.
        """
        if self.dry_run:
            return
        markers = list(UpkeepPending.objects.order_by("pk").values_list("pk", "scope"))
        if not markers:
            return
        last = markers[-1][0]
        scope = owed(stored for _, stored in markers)
        try:
            # The figures and the index read tables the load grew; a last
            # chunk can leave them past what the planner last read.
            analyze_grown_tables()
            if scope is None:
                refresh_counts()
                search.refresh_index()
                # The planner's statistics follow the new table sizes on both databases.
                refresh_statistics()
            else:
                # Only what the load's chunks wrote, each to what a whole refresh gives.
                refresh_touched(scope)
                refresh_search(scope)
                refresh_changed_statistics()
            # Bulk writes send no signals: retire the lists here (each board's
            # own pages went with its rows).
            bump_catalogue_version()
        except DatabaseError as error:
            if is_disk_full(error):
                database = connection.settings_dict["NAME"]
                raise DiskFull(
                    f"the disk is full: the database ({database}) could not grow while "
                    f"updating figures and the search index after the pages ({error}). "
                    "Every page written is kept; free some space and run the same "
                    "command again to finish."
                ) from error
            raise
        UpkeepPending.objects.filter(pk__lte=last).delete()

    # A chunk -----------------------------------------------------------------------

    def _read_chunk(self, sources):
        """The chunk's pages read and checked, and its sources of catalogue metadata only."""
        checked = []
        catalogue_only = []
        for source in sources:
            if source.read is None:
                catalogue_only.append(source)
            elif (item := self._read(source)) is not None:
                checked.append(item)
        return checked, catalogue_only

    def _read(self, source):
        try:
            read = source.read()
        except PageError as error:
            self.report.failed.append(Problem(source.name, str(error)))
            return None
        self.report.warnings += [Problem(source.name, w) for w in read.warnings]
        self.report.differences += [
            FileDifference(source.name, *difference) for difference in read.prepared.differences
        ]
        return PageItem(source, read.page, read.sha256, read.prepared, None)

    def _write_chunk(self, sources):
        checked, catalogue_only = self._read_chunk(sources)
        if not checked and not catalogue_only:
            return
        # A chunk's pages are counted as each batch is written, but stored only
        # when the chunk commits: a chunk that fails after (a full disk at its
        # last statement or its commit) takes its counts back with its pages.
        counted = (self.report.created, self.report.updated)
        self.history.begin_chunk()
        try:
            with transaction.atomic():
                stored = _locked_boards(checked)
                self._write_newer(checked, catalogue_only, stored)
                if not self.dry_run:
                    self.history.end_chunk()
        except DatabaseError as error:
            self.report.created, self.report.updated = counted
            self.history.chunk_failed()
            # Anything else the chunk wrote (its marker) found the disk full.
            if is_disk_full(error):
                raise DiskFull(_disk_full_message(_names(checked), error)) from error
            raise
        except DiskFull:
            self.report.created, self.report.updated = counted
            self.history.chunk_failed()
            raise

    def _write_newer(self, checked, catalogue_only, stored):
        """Write the pages newer than those stored, and the catalogue-only sources."""
        batch: dict[str, PageItem] = {}
        for item in checked:
            if item.slug in batch:
                # The same page twice in one chunk: the first must be stored
                # before the second is compared with it.
                self._write_batch(list(batch.values()), [], stored)
                batch = {}
            item.current = stored.get(item.slug)
            if self._to_write(item):
                batch[item.slug] = item
        if not self.dry_run:
            self._warn_other_archive(batch.values())
            self._write_batch(list(batch.values()), catalogue_only, stored)
            # Before the commit, whose foreign-key checks plan by these statistics.
            analyze_grown_tables()

    def _warn_other_archive(self, items):
        """Warn, naming both, where a page replaces a stored one another archive gave.

        A generated board once replaced the real one of the same slug, said
        only as "1 updated". Applied all the same: a newer version is newer.
        """
        replacing = {item.current.pk: item for item in items if item.current is not None}
        if not replacing:
            return
        stored = Leaderboard.objects.filter(pk__in=replacing).values_list("pk", "source")
        for pk, source in stored:
            item = replacing[pk]
            before = (source or {}).get("archive")
            after = item.page["source"].get("archive")
            if before != after:
                self.report.warnings.append(
                    Problem(
                        item.source.name,
                        f"source.archive: {item.page['url']} was loaded from {before!r}; "
                        f"this page, from {after!r}, replaces it",
                    )
                )

    def _to_write(self, item):
        """Whether a checked page is new or newer than the stored one; counts it if not.

        Versions are ordered by `version_moment`. A page whose moment is unknown
        never replaces one whose moment is known; between two unknown ones, the
        later load wins, since nothing says which is newer.
        """
        if self._taken_already(item):
            return False
        self.taken[item.slug] = (item.source.name, item.read_at, item.sha)
        if item.current is not None and not self._newer_than_stored(item):
            return False
        if self.dry_run:
            self._count([item])
            return False
        return True

    def _taken_already(self, item):
        """Whether another file of this run gave this page at the same moment; fails it if so."""
        other = self.taken.get(item.slug)
        if not other or other[1] != item.read_at or other[2] == item.sha:
            return False
        # Two different files claim the same page at the same moment;
        # neither is more recent, so the first taken stands.
        field, stated = _moment_field(item.page)
        self.report.failed.append(
            Problem(
                item.source.name,
                f"{field}: {stated} is the {field.split('.')[1]} of {item.page['url']} already "
                f"loaded from {other[0]} in this run, with different content; "
                f"a new version of a page needs a later {field}",
            )
        )
        return True

    def _newer_than_stored(self, item):
        """Whether a page is a newer version of its stored board; counts or fails it if not."""
        name, current = item.source.name, item.current
        field, stated = _moment_field(item.page)
        if current.source_sha256 == item.sha:
            self.report.unchanged += 1
            return False
        if item.read_at is not None and item.read_at == current.read_at:
            # Same moment, other content: not a newer version, and not the one
            # stored. Refused in every run, not only the one that stored it.
            self.report.failed.append(
                Problem(
                    name,
                    f"{field}: {stated} is the {field.split('.')[1]} of the stored "
                    f"{item.page['url']}, but the content differs; a new version of a page "
                    f"needs a later {field}",
                )
            )
            return False
        if current.read_at is not None and (item.read_at is None or item.read_at < current.read_at):
            self.report.older += 1
            self.report.warnings.append(
                Problem(
                    name,
                    f"{field} {stated} is older than "
                    f"the stored {current.read_at.isoformat()}; not applied",
                )
            )
            return False
        return True

    def _write_batch(self, items, catalogue_only, stored):
        """Write pages in one savepoint; if that fails, each alone so only the bad one fails."""
        if not items and not catalogue_only:
            return
        said = len(self.report.warnings)
        if items:
            # Outside the savepoint: the pages written alone after it failed need it too.
            self.history.load()
        try:
            with transaction.atomic():
                written = [self._write(items, catalogue_only)]
        except DatabaseError as error:
            if is_disk_full(error):
                names = _names(items) + [source.name for source in catalogue_only]
                raise DiskFull(_disk_full_message(names, error)) from error
            # What the rolled-back attempt said is said again, or not, page by page.
            del self.report.warnings[said:]
            written = [self._write_alone([item], [], item.source.name) for item in items]
            written += [self._write_alone([], [source], source.name) for source in catalogue_only]
        else:
            self._count(items)
            self.history.kept(self._changes)
        written = [scope for scope in written if scope is not None]
        if written:
            scope = Scope()
            for each in written:
                scope.add(each)
            # Committed with the pages: the end-of-load work is owed until it is done.
            UpkeepPending.objects.bulk_create([UpkeepPending(scope=scope.as_json())])
        stored.update((item.slug, item.board) for item in items if item.board is not None)

    def _write_alone(self, items, catalogue_only, name):
        said = len(self.report.warnings)
        try:
            with transaction.atomic():
                written = self._write(items, catalogue_only)
        except DatabaseError as error:
            if is_disk_full(error):
                raise DiskFull(_disk_full_message([name], error)) from error
            del self.report.warnings[said:]
            self.report.failed.append(Problem(name, f"(database): {error}"))
            for item in items:
                item.board = None
            return None
        self._count(items)
        self.history.kept(self._changes)
        return written

    def _count(self, items):
        for item in items:
            if item.current is None:
                self.report.created += 1
            else:
                self.report.updated += 1

    # Writing ---------------------------------------------------------------------

    def _write(self, items, catalogue_only):
        """Write the catalogue the sources name, then the pages, a table at a time.

        Returns the Scope of what was written, or None when nothing was.
        The BoardChanges it records wait in self._changes for its savepoint's end.
        """
        self._changes = []
        catalogue = self._write_catalogue(items, catalogue_only)
        scope = Scope(
            tasks={task.pk for task in catalogue.tasks.values()},
            datasets={dataset.pk for dataset in catalogue.datasets.values()},
            papers={paper.pk for paper in catalogue.papers.values()},
        )
        if not items:
            return scope if catalogue.changed else None
        new = [item for item in items if item.current is None]
        old = [item for item in items if item.current is not None]
        # What the rewritten boards named before: a paper they no longer cite may lose a flag.
        scope.add(_stored_scope([item.current.pk for item in old]))
        # What their rows say, read before they are replaced, to record what changes.
        before = stored_rows([item.current.pk for item in old])
        tables.create_boards(new, catalogue)
        tables.replace_boards(old, catalogue)
        tables.insert_areas(items, catalogue.areas)
        tables.insert_metrics(items)
        tables.insert_rows(items, catalogue.papers)
        tables.insert_values(items)
        tables.insert_verifications(items)
        self._changes = self.history.record(items, before)
        self._rows_written(items)
        refresh_leaderboards([item.board.pk for item in old])
        scope.boards.update(item.board.pk for item in items)
        scope.models.update(slug for item in items for slug in item.prepared.model_slugs)
        return scope

    def _write_catalogue(self, items, catalogue_only):
        catalogue = CatalogueWriter(self.report)
        for item in items:
            catalogue.add_page(item.source.name, item.page, item.prepared)
            catalogue.add(item.source.name, item.source.catalogue)
        for source in catalogue_only:
            catalogue.add(source.name, source.catalogue)
        catalogue.write()
        if catalogue.shared_changed:
            # A stored task, dataset or paper changed: any board's page may show it.
            data_changed()
        return catalogue

    def _rows_written(self, items):
        """The boards whose rows and metrics were just (re)written: apply editors' decisions.

        Decisions live where loads never write (leaderboards.decisions), by row
        key and metric name; only boards that have some are touched. A decision
        the newer page has no row or metric for stays stored, and is reported.
        """
        decided = {item.board.pk: item for item in items if getattr(item.board, "decided", False)}
        if decided:
            self.report.warnings += [
                Problem(decided[board].source.name, warning)
                for board, warning in decisions.apply_decisions(list(decided))
            ]


def _stored_scope(boards):
    """The tasks, datasets, papers and models these stored boards name now."""
    scope = Scope(boards=set(boards))
    if boards:
        for task, dataset in Leaderboard.objects.filter(pk__in=boards).values_list(
            "task_id", "dataset_id"
        ):
            scope.tasks.add(task)
            scope.datasets.add(dataset)
        # One read of the rows for both: a model is its name on its paper.
        for paper, model in (
            Row.objects.filter(leaderboard__in=boards)
            .order_by()
            .values_list("paper_id", "model_slug")
            .distinct()
        ):
            if paper is not None:
                scope.papers.add(paper)
            scope.models.add(model)
    return scope


def _locked_boards(checked):
    """The stored boards of the checked pages by slug, locked.

    Editors lock a board to record a decision on it: locked here, as read, no
    editor's commit falls between this read and the rewrite.
    """
    return {
        lb.slug: lb
        for lb in decisions.with_decided(
            Leaderboard.objects.filter(slug__in=[item.slug for item in checked])
            .locked()
            .only("id", "slug", "source_sha256", "read_at")
        )
    }


def _moment_field(page):
    """The field a page's version moment comes from, and what the page states there."""
    if page["syntology"] is not None:
        return "syntology.read_at", page["syntology"]["read_at"]
    return "source.snapshot", page["source"].get("snapshot") or "null"

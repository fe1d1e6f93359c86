"""The one way pages reach the database, for the page-file loader and the archive importer.

A source is a page to read and check (a file, or a page dict a program built)
with the catalogue metadata its source knows beyond the page format (the
archive's task parents, synonyms and links, dataset parents and links, arXiv
ids). Sources are taken a chunk at a time, one transaction a chunk: the
catalogue the chunk names is created or brought up to date, then every new or
changed page is written with one insert per table for the whole chunk. A chunk
the database refuses is written again page by page, so only the bad page
fails. After the last chunk the end-of-load work (catalogue figures, the
search index, the data version) runs; a marker committed with each chunk and
cleared only after that work has committed makes the next run finish it if
this one could not.
"""

import contextlib
import dataclasses
import itertools
from collections.abc import Callable

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from leaderboards import decisions, search
from leaderboards.format import derive
from leaderboards.format.page import PAGE_KEYS, PageError, slug_of
from leaderboards.format.rules import free_slug, slug_for
from leaderboards.ingest import CHUNK
from leaderboards.ingest.prepare import Prepared
from leaderboards.models import (
    Area,
    Dataset,
    Leaderboard,
    LeaderboardArea,
    Metric,
    MetricValue,
    Paper,
    Row,
    RowVerification,
    SyntologySnapshot,
    Task,
    UpkeepPending,
    page_version_now,
)
from leaderboards.upkeep.bulk import among, reserve_ids
from leaderboards.upkeep.bulk import insert as _insert
from leaderboards.upkeep.bulk import prepared as _prepared
from leaderboards.upkeep.cache import bump_catalogue_version, data_changed
from leaderboards.upkeep.figures import refresh_counts, refresh_leaderboards
from leaderboards.upkeep.statistics import analyze_grown_tables, refresh_statistics


@dataclasses.dataclass
class LoadReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    older: int = 0
    failed: list = dataclasses.field(default_factory=list)  # (file, message)
    warnings: list = dataclasses.field(default_factory=list)  # (file, message)
    differences: list = dataclasses.field(default_factory=list)  # (file, path, stated, computed)
    # An earlier load's end-of-load work was found unfinished, and this run did it.
    completed_earlier: bool = False
    # Why the load stopped before its last file (the disk is full), else None.
    stopped: str | None = None

    @property
    def files(self):
        return self.created + self.updated + self.unchanged + self.older + len(self.failed)


@dataclasses.dataclass
class Entry:
    """A task or dataset as one source states it.

    `fields` holds the other columns this source states (`parent` as a slug);
    a column it does not state keeps what is stored. `areas` (tasks only) are
    area names the task belongs to, added to those it has.
    """

    slug: str
    name: str
    fields: dict = dataclasses.field(default_factory=dict)
    areas: tuple = ()


@dataclasses.dataclass
class Catalogue:
    """What a source knows of the catalogue beyond its page, if anything."""

    tasks: list = dataclasses.field(default_factory=list)
    datasets: list = dataclasses.field(default_factory=list)
    paper_arxiv: dict = dataclasses.field(default_factory=dict)  # paper slug -> arXiv id


@dataclasses.dataclass
class Source:
    """One page to write: `read()` gives (page, sha256, warnings, prepared) or
    raises PageError; `prepared` is prepare.prepare(page), worked out where the
    page was read.

    A source with no `read` carries only catalogue metadata (a task of the
    archive with no table of its own).
    """

    name: str
    read: Callable | None
    catalogue: Catalogue = dataclasses.field(default_factory=Catalogue)


@dataclasses.dataclass
class _Page:
    source: Source
    page: dict
    sha: str
    prepared: Prepared
    current: Leaderboard | None
    # Set while written: the board, its metrics and rows as inserted.
    board: Leaderboard | None = None
    metric_ids: dict = dataclasses.field(default_factory=dict)  # name -> id
    row_ids: list = dataclasses.field(default_factory=list)  # in page["rows"] order

    @property
    def slug(self):
        return slug_of(self.page["url"])

    @property
    def read_at(self):
        return self.prepared.read_at


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
        last = UpkeepPending.objects.order_by("-pk").values_list("pk", flat=True).first()
        if last is None:
            return
        try:
            # The figures and the index read whole tables the load grew; a last
            # chunk can leave them past what the planner last read.
            analyze_grown_tables()
            refresh_counts()
            search.refresh_index()
            # The planner's statistics follow the new table sizes on both databases.
            refresh_statistics()
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

    def _read(self, source):
        try:
            page, sha, warnings, prepared = source.read()
        except PageError as error:
            self.report.failed.append((source.name, str(error)))
            return None
        self.report.warnings += [(source.name, w) for w in warnings]
        self.report.differences += [
            (source.name, *difference) for difference in prepared.differences
        ]
        return _Page(source, page, sha, prepared, None)

    def _write_chunk(self, sources):
        checked = []
        catalogue_only = []
        for source in sources:
            if source.read is None:
                catalogue_only.append(source)
            elif (item := self._read(source)) is not None:
                checked.append(item)
        if not checked and not catalogue_only:
            return
        try:
            with transaction.atomic():
                # Editors lock a board to record a decision on it: locked here, as
                # read, no editor's commit falls between this read and the rewrite.
                stored = {
                    lb.slug: lb
                    for lb in decisions.with_decided(
                        Leaderboard.objects.filter(slug__in=[item.slug for item in checked])
                        .locked()
                        .only("id", "slug", "source_sha256", "read_at")
                    )
                }
                batch = {}
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
                    self._write_batch(list(batch.values()), catalogue_only, stored)
                    # Before the commit, whose foreign-key checks plan by these statistics.
                    analyze_grown_tables()
        except DatabaseError as error:
            # Anything else the chunk wrote (its marker) found the disk full.
            if is_disk_full(error):
                raise DiskFull(_disk_full_message(_names(checked), error)) from error
            raise

    def _to_write(self, item):
        """Whether a checked page is new or newer than the stored one; counts it if not.

        Versions are ordered by `version_moment`. A page whose moment is unknown
        never replaces one whose moment is known; between two unknown ones, the
        later load wins, since nothing says which is newer.
        """
        name, page, current = item.source.name, item.page, item.current
        field, stated = _moment_field(page)
        other = self.taken.get(item.slug)
        if other and other[1] == item.read_at and other[2] != item.sha:
            # Two different files claim the same page at the same moment;
            # neither is more recent, so the first taken stands.
            self.report.failed.append(
                (
                    name,
                    f"{field}: {stated} is the {field.split('.')[1]} of {page['url']} already "
                    f"loaded from {other[0]} in this run, with different content; "
                    f"a new version of a page needs a later {field}",
                )
            )
            return False
        self.taken[item.slug] = (name, item.read_at, item.sha)
        if current is not None and current.source_sha256 == item.sha:
            self.report.unchanged += 1
            return False
        if current is not None and item.read_at is not None and item.read_at == current.read_at:
            # Same moment, other content: not a newer version, and not the one
            # stored. Refused in every run, not only the one that stored it.
            self.report.failed.append(
                (
                    name,
                    f"{field}: {stated} is the {field.split('.')[1]} of the stored "
                    f"{page['url']}, but the content differs; a new version of a page "
                    f"needs a later {field}",
                )
            )
            return False
        if (
            current is not None
            and current.read_at is not None
            and (item.read_at is None or item.read_at < current.read_at)
        ):
            self.report.older += 1
            self.report.warnings.append(
                (
                    name,
                    f"{field} {stated} is older than "
                    f"the stored {current.read_at.isoformat()}; not applied",
                )
            )
            return False
        if self.dry_run:
            if current is None:
                self.report.created += 1
            else:
                self.report.updated += 1
            return False
        return True

    def _write_batch(self, items, catalogue_only, stored):
        """Write pages in one savepoint; if that fails, each alone so only the bad one fails."""
        if not items and not catalogue_only:
            return
        said = len(self.report.warnings)
        try:
            with transaction.atomic():
                changed = self._write(items, catalogue_only)
        except DatabaseError as error:
            if is_disk_full(error):
                names = _names(items) + [source.name for source in catalogue_only]
                raise DiskFull(_disk_full_message(names, error)) from error
            # What the rolled-back attempt said is said again, or not, page by page.
            del self.report.warnings[said:]
            changed = False
            for item in items:
                changed |= self._write_alone([item], [], item.source.name)
            for source in catalogue_only:
                changed |= self._write_alone([], [source], source.name)
        else:
            self._count(items)
        if changed:
            # Committed with the pages: the end-of-load work is owed until it is done.
            UpkeepPending.objects.bulk_create([UpkeepPending()])
        stored.update((item.slug, item.board) for item in items if item.board is not None)

    def _write_alone(self, items, catalogue_only, name):
        said = len(self.report.warnings)
        try:
            with transaction.atomic():
                changed = self._write(items, catalogue_only)
        except DatabaseError as error:
            if is_disk_full(error):
                raise DiskFull(_disk_full_message([name], error)) from error
            del self.report.warnings[said:]
            self.report.failed.append((name, f"(database): {error}"))
            for item in items:
                item.board = None
            return False
        self._count(items)
        return changed

    def _count(self, items):
        for item in items:
            if item.current is None:
                self.report.created += 1
            else:
                self.report.updated += 1

    # Writing ---------------------------------------------------------------------

    def _write(self, items, catalogue_only):
        """Write the catalogue the sources name, then the pages, a table at a time.

        Returns whether anything was written.
        """
        catalogue = _CatalogueWriter(self.report)
        for item in items:
            catalogue.add_page(item.source.name, item.page, item.prepared)
            catalogue.add(item.source.name, item.source.catalogue)
        for source in catalogue_only:
            catalogue.add(source.name, source.catalogue)
        catalogue.write()
        if catalogue.shared_changed:
            # A stored task, dataset or paper changed: any board's page may show it.
            data_changed()
        if not items:
            return catalogue.changed
        now = timezone.now()
        new = [item for item in items if item.current is None]
        old = [item for item in items if item.current is not None]
        boards = _create(
            Leaderboard,
            [
                Leaderboard(
                    slug=item.slug, **_board_fields(item, catalogue), **item.prepared.figures
                )
                for item in new
            ],
        )
        for item, board in zip(new, boards, strict=True):
            item.board = board
        for item in old:
            item.board = Leaderboard(pk=item.current.pk, slug=item.slug)
            # A board this run wrote before (the same page twice) carries its flag on.
            item.board.decided = getattr(item.current, "decided", False)
            for name, value in _board_fields(item, catalogue).items():
                setattr(item.board, name, value)
            item.board.updated_at = now
        _update(Leaderboard, BOARD_FIELDS, [item.board for item in old])
        old_ids = [item.board.pk for item in old]
        if old_ids:
            Row.objects.filter(leaderboard__in=old_ids).delete()
            Metric.objects.filter(leaderboard__in=old_ids).delete()
            LeaderboardArea.objects.filter(leaderboard__in=old_ids).delete()
        _create(
            LeaderboardArea,
            [
                LeaderboardArea(
                    leaderboard_id=item.board.pk,
                    area_id=catalogue.areas[name].pk,
                    position=index,
                )
                for item in items
                for index, name in enumerate(item.page["categories"])
            ],
            ids=False,
        )
        _insert_metrics(items)
        _insert_rows(items, catalogue.papers)
        _insert(MetricValue, VALUE_FIELDS, [value for item in items for value in _values(item)])
        # A page no verification has read has no snapshot; an older one stays history.
        verified = [item for item in items if item.page["syntology"] is not None]
        snapshots = _create(
            SyntologySnapshot,
            [
                SyntologySnapshot(
                    leaderboard_id=item.board.pk,
                    read_at=item.read_at,
                    **_snapshot_fields(item.page, item.sha),
                )
                for item in verified
            ],
        )
        _insert(
            RowVerification,
            VERIFICATION_FIELDS,
            [
                verification
                for snapshot, item in zip(snapshots, verified, strict=True)
                for verification in _verifications(snapshot, item)
            ],
        )
        self._rows_written(items)
        refresh_leaderboards([item.board.pk for item in old])
        return True

    def _rows_written(self, items):
        """The boards whose rows and metrics were just (re)written: apply editors' decisions.

        Decisions live where loads never write (leaderboards.decisions), by row
        key and metric name; only boards that have some are touched. A decision
        the newer page has no row or metric for stays stored, and is reported.
        """
        decided = {item.board.pk: item for item in items if getattr(item.board, "decided", False)}
        if decided:
            self.report.warnings += [
                (decided[board].source.name, warning)
                for board, warning in decisions.apply_decisions(list(decided))
            ]


class _CatalogueWriter:
    """Areas, tasks, datasets and papers a batch of sources names, created or brought up to date.

    A name or title is written when its object is first created and never
    changed by a later source: tasks, datasets and papers are shared by many
    boards, and a new board's file must not rename them for all the others.
    A source that states another name gets a warning saying what was kept.
    Other details a source states (descriptions, parents, links) are written
    when they differ; editors' fields (`editor_*`) are never touched.
    """

    def __init__(self, report):
        self.report = report
        self.task_entries = {}  # slug -> [(source name, Entry)]
        self.dataset_entries = {}
        self.paper_entries = {}  # slug -> [(source name, {title, url, date})]
        self.paper_flags = {}  # slug -> {has_code, verified} as this batch's rows say
        self.paper_arxiv = {}
        self.area_names = []
        self.changed = False
        self.shared_changed = False

    def add_page(self, name, page, prepared):
        """What the page itself says of its task, dataset, areas and papers."""
        task = page["task"]
        fields = {"note": task["note"]}
        if page["description_from"] == "task":
            # A page may say its (null) description is the task's; the task's text is never null.
            fields["description"] = page["description"] or ""
        self.task_entries.setdefault(slug_of(task["url"]), []).append(
            (name, Entry(slug_of(task["url"]), task["name"], fields))
        )
        dataset = page["dataset"]
        self.dataset_entries.setdefault(slug_of(dataset["url"]), []).append(
            (name, Entry(slug_of(dataset["url"]), dataset["name"]))
        )
        self.area_names += page["categories"]
        if page["category"]:
            self.area_names.append(page["category"])
        for row, paper, date, code, ran in zip(
            page["rows"],
            prepared.papers,
            prepared.dates,
            prepared.has_code,
            prepared.ran,
            strict=True,
        ):
            if paper:
                flags = self.paper_flags.setdefault(paper, {"has_code": False, "verified": False})
                flags["has_code"] |= code
                flags["verified"] |= ran
                self.paper_entries.setdefault(paper, []).append(
                    (
                        name,
                        {
                            "title": row["paper_title"] or "",
                            "url": row["paper_url"] or "",
                            "date": date,
                        },
                    )
                )

    def add(self, name, catalogue):
        for entry in catalogue.tasks:
            self.task_entries.setdefault(entry.slug, []).append((name, entry))
            self.area_names += entry.areas
        for entry in catalogue.datasets:
            self.dataset_entries.setdefault(entry.slug, []).append((name, entry))
        self.paper_arxiv.update(catalogue.paper_arxiv)

    def write(self):
        self.areas = self._areas()
        self.tasks = self._objects(Task, "task", self.task_entries)
        self.datasets = self._objects(Dataset, "dataset", self.dataset_entries)
        self._task_areas()
        self.papers = self._papers()

    def _areas(self):
        """Areas by name; a name the fixtures lack is made, with a free slug."""
        names = list(dict.fromkeys(self.area_names))
        areas = {area.name: area for area in Area.objects.filter(name__in=names)}
        missing = [name for name in names if name not in areas]
        if missing:
            taken = set(Area.objects.values_list("slug", flat=True))
            made = []
            for name in missing:
                slug = free_slug(slug_for(name, "area"), taken)
                taken.add(slug)
                made.append(Area(slug=slug, name=name))
            areas.update((area.name, area) for area in Area.objects.bulk_create(made))
            self.changed = True
        return areas

    def _warn_name(self, name, kind, slug, field, kept, other):
        self.report.warnings.append(
            (
                name,
                f"{kind} {slug!r} keeps its {field} {kept!r}; this source's {other!r} is "
                f"not applied ({kind}s are shared by boards: the first source wins)",
            )
        )

    def _objects(self, model, kind, entries):
        """Tasks or datasets by slug: missing ones created (parents first), others updated."""
        parents = {
            entry.fields["parent"]
            for stated in entries.values()
            for _, entry in stated
            if entry.fields.get("parent")
        }
        objects = model.objects.in_bulk([*entries, *parents], field_name="slug")
        wanted = {}  # slug -> (name, fields) this batch says
        for slug, stated in entries.items():
            first = objects[slug].name if slug in objects else stated[0][1].name
            fields = {}
            for source, entry in stated:
                if entry.name != first:
                    self._warn_name(source, kind, slug, "name", first, entry.name)
                fields.update(entry.fields)
            wanted[slug] = (first, fields)
        missing = [slug for slug in wanted if slug not in objects]
        created = set(missing)
        while missing:
            # Those whose parent is stored by now go in this round.
            ready = [
                slug
                for slug in missing
                if (parent := wanted[slug][1].get("parent")) is None
                or parent in objects
                or parent not in wanted
            ] or missing  # parents in a loop: made without them rather than never
            made = [
                model(slug=slug, name=wanted[slug][0], **self._columns(wanted[slug][1], objects))
                for slug in ready
            ]
            _create(model, made)
            objects.update((obj.slug, obj) for obj in made)
            missing = [slug for slug in missing if slug not in objects]
            self.changed = True
        for slug, (_, fields) in wanted.items():
            if slug in created:
                continue
            obj = objects[slug]
            changed = {
                column: value
                for column, value in self._columns(fields, objects).items()
                if getattr(obj, column) != value
            }
            if changed:
                # One at a time: after a first load, only what a source changed.
                model.objects.filter(pk=obj.pk).update(**changed)
                for column, value in changed.items():
                    setattr(obj, column, value)
                self.changed = self.shared_changed = True
        return objects

    @staticmethod
    def _columns(fields, objects):
        columns = dict(fields)
        if "parent" in columns:
            parent = columns.pop("parent")
            columns["parent_id"] = objects[parent].pk if parent in objects else None
        return columns

    def _task_areas(self):
        """A task belongs to every area a source names for it (added, never removed)."""
        through = Task.areas.through
        wanted = {
            (self.tasks[slug].pk, self.areas[area].pk)
            for slug, stated in self.task_entries.items()
            for _, entry in stated
            for area in entry.areas
        }
        if not wanted:
            return
        have = set(
            through.objects.filter(task__in={task for task, _ in wanted}).values_list(
                "task_id", "area_id"
            )
        )
        if wanted - have:
            through.objects.bulk_create(
                [through(task_id=task, area_id=area) for task, area in wanted - have]
            )
            self.changed = True

    def _papers(self):
        """The Paper of every row that has a paper page; a stored paper keeps its details."""
        stored = Paper.objects.values_list("slug", "pk", "title", "url", "date", "arxiv_id")
        papers = {
            slug: _StoredPaper(pk, *fields)
            for slug, pk, *fields in among(stored, "slug", self.paper_entries)
        }
        new = []
        for slug, stated in self.paper_entries.items():
            paper = papers.get(slug)
            if paper is None:
                paper = papers[slug] = _StoredPaper(
                    0, arxiv_id=self.paper_arxiv.get(slug, ""), **stated[0][1]
                )
                new.append((slug, paper))
            warned = set()
            for source, fields in stated:
                for field, value in fields.items():
                    kept = getattr(paper, field)
                    if value != kept and (source, field) not in warned:
                        warned.add((source, field))
                        self._warn_name(source, "paper", slug, field, _text(kept), _text(value))
        for (_, paper), pk in zip(new, reserve_ids(Paper, len(new)), strict=True):
            paper.pk = pk
        # Flagged as their rows here say: the end of the load sets every
        # paper's flags from all its rows, and rewrites only those it changes.
        _insert(
            Paper,
            PAPER_FIELDS,
            [
                (paper.pk, slug, paper.title, paper.url, paper.date, paper.arxiv_id,
                 self.paper_flags[slug]["has_code"], self.paper_flags[slug]["verified"])
                for slug, paper in new
            ],
        )  # fmt: skip
        self.changed |= bool(new)
        # An arXiv id the archive gives for a paper a page file made first.
        for slug, found in self.paper_arxiv.items():
            paper = papers.get(slug)
            if paper is not None and not paper.arxiv_id:
                Paper.objects.filter(pk=paper.pk).update(arxiv_id=found)
                paper.arxiv_id = found
                self.changed = self.shared_changed = True
        return papers


PAPER_FIELDS = ("id", "slug", "title", "url", "date", "arxiv_id", "has_code", "verified")


@dataclasses.dataclass(slots=True)
class _StoredPaper:
    """What the writer reads of a stored paper, or writes of a new one: building
    a Paper for each of the hundreds of thousands a large load meets again cost
    more than its query, and for the new ones half a second at PwC size."""

    pk: int
    title: str
    url: str
    date: object
    arxiv_id: str


def _moment_field(page):
    """The field a page's version moment comes from, and what the page states there."""
    if page["syntology"] is not None:
        return "syntology.read_at", page["syntology"]["read_at"]
    return "source.snapshot", page["source"].get("snapshot") or "null"


def _text(value):
    """A stored value as a warning quotes it: a date as YYYY-MM-DD."""
    return value.isoformat() if hasattr(value, "isoformat") else value


def _board_fields(item, catalogue):
    page = item.page
    return {
        "task_id": catalogue.tasks[slug_of(page["task"]["url"])].pk,
        "dataset_id": catalogue.datasets[slug_of(page["dataset"]["url"])].pk,
        "category_id": catalogue.areas[page["category"]].pk if page["category"] else None,
        "category_note": page["category_note"],
        "description": page["description"],
        "description_from": page["description_from"],
        "source": page["source"],
        "direction_note": page["metric_direction"]["note"],
        "extra": {key: page[key] for key in page if key not in PAGE_KEYS},
        "source_sha256": item.sha,
        "read_at": item.read_at,
        # Raised with the rows, in their transaction: retires this board's cached pages.
        "version": page_version_now(),
    }


BOARD_FIELDS = (
    "task",
    "dataset",
    "category",
    "category_note",
    "description",
    "description_from",
    "source",
    "direction_note",
    "extra",
    "source_sha256",
    "read_at",
    "updated_at",
    "version",
)


VALUE_FIELDS = ("row", "metric", "raw", "number", "position")


METRIC_FIELDS = ("id", "leaderboard", "name", "position", "source_direction", "editor_direction")


def _insert_metrics(items):
    """Insert each page's metrics, in order, under ids reserved for them; no
    editor's direction (that is a decision, applied after the rows are written).

    Tuples, not Metric instances: building 50,000 of them was half a second of a load.
    """
    ids = iter(reserve_ids(Metric, sum(len(item.page["metrics"]) for item in items)))
    values = []
    for item in items:
        by_metric = item.page["metric_direction"]["by_metric"]
        item.metric_ids = {name: next(ids) for name in item.page["metrics"]}
        values += [
            (pk, item.board.pk, name, position, by_metric[name], None)
            for position, (name, pk) in enumerate(item.metric_ids.items())
        ]
    _insert(Metric, METRIC_FIELDS, values)


def _values(item):
    """A page's metric values as inserted, each row's in the order of its `metrics`."""
    metric_ids = item.metric_ids
    return [
        (pk, metric_ids[metric], raw, number, position)
        for pk, data, numbers in zip(
            item.row_ids, item.page["rows"], item.prepared.numbers, strict=True
        )
        for position, ((metric, raw), number) in enumerate(
            zip(data["metrics"].items(), numbers, strict=True)
        )
    ]


def _snapshot_fields(page, sha):
    block = page["syntology"]
    known = {"read_at", "claim", *derive.syntology_figures([]).keys()}
    return {
        "read_at_text": block["read_at"],
        "claim": block["claim"],
        "distinct_papers_note": (block.get("samples_over_distinct_papers") or {}).get("note"),
        "row_weighted_note": (block.get("samples_row_weighted") or {}).get("note"),
        "since_archive": page["since_archive"],
        "extra": {key: block[key] for key in block if key not in known},
        "source_sha256": sha,
    }


VERIFICATION_FIELDS = (
    "snapshot",
    "row",
    "rank",
    "model",
    "n_ran",
    "n_unverified",
    "n_pointer_only_licence",
)


def _verifications(snapshot, item):
    return [
        (
            snapshot.pk,
            pk,
            data["rank_in_archive_order"],
            data["model"],
            data["syntology"]["n_ran"],
            data["syntology"]["n_unverified"],
            data["syntology"]["n_pointer_only_licence"],
        )
        for pk, data in zip(item.row_ids, item.page["rows"], strict=True)
        if data["syntology"] is not None
    ]


ROW_FIELDS = (
    "leaderboard",
    "rank",
    "model",
    "uses_additional_data",
    "paper",
    "paper_title",
    "paper_url",
    "paper_date",
    "code",
    "n_code_links",
    "extra",
    "key",
    "withheld",
    "withheld_reason",
)


def _insert_rows(items, papers):
    """Insert the pages' rows (COPY or executemany) under ids reserved for them,
    each item's ids kept in its row_ids.

    Tuples, not Row instances: building 150,000 model instances for a full
    dump cost a fifth of the load, and nothing here needs what one gives.
    """
    ids = iter(reserve_ids(Row, sum(len(item.page["rows"]) for item in items)))
    values = []
    for item in items:
        board, prepared = item.board.pk, item.prepared
        item.row_ids = [next(ids) for _ in item.page["rows"]]
        values += [
            (pk, board, data["rank_in_archive_order"], data["model"],
             data["uses_additional_data"], papers[paper].pk if paper else None,
             data["paper_title"], data["paper_url"], date, data["code"],
             data["n_code_links"], extra, key, False, "")
            for pk, data, paper, date, extra, key in zip(
                item.row_ids, item.page["rows"], prepared.papers, prepared.dates,
                prepared.extras, prepared.keys, strict=True,
            )
        ]  # fmt: skip
    _insert(Row, ("id", *ROW_FIELDS), values)


def _create(model, objects, ids=True):
    """Insert model instances as _insert does, each field's default or auto_now
    applied as the ORM would, under ids reserved for them (none if not `ids`:
    nothing refers to a board's areas).

    Not bulk_create: it compiles every field of every object into its SQL, and
    for the boards, metrics and papers of 15,000 pages that was a quarter of a
    load's time.
    """
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    if ids:
        for obj, pk in zip(objects, reserve_ids(model, len(objects)), strict=True):
            obj.pk = pk
        fields.insert(0, model._meta.pk)
    _insert(
        model,
        [field.name for field in fields],
        [[field.pre_save(obj, True) for field in fields] for obj in objects],
    )
    for obj in objects:
        obj._state.adding = False
        obj._state.db = connection.alias
    return objects


def _update(model, names, objects):
    """UPDATE the named fields of model instances by primary key, with executemany.

    One plain statement per object sent together: bulk_update's CASE
    expression over a chunk took seconds on SQLite.
    """
    if not objects:
        return
    fields = [model._meta.get_field(name) for name in names]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    sql = f"UPDATE {quote(model._meta.db_table)} SET {assignments} WHERE id = %s"
    values = [[getattr(obj, field.attname) for field in fields] for obj in objects]
    prepared = [
        [*item, obj.pk] for item, obj in zip(_prepared(fields, values), objects, strict=True)
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, prepared)

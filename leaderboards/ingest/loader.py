"""Loading page files into the database.

Each file is read and checked whole before anything is written, then written
inside its own savepoint: a bad file changes nothing and the others go on.
Files are written in chunks, one transaction a chunk, so a load of thousands
of pages is not thousands of commits.
"""

import dataclasses
import datetime
import hashlib
import itertools
import json
from functools import partial
from pathlib import Path

from django.db import DatabaseError, connection, transaction
from django.db.models import DateField
from django.utils.text import slugify

from leaderboards import decisions
from leaderboards.decisions import key_digest, row_keys
from leaderboards.format import derive
from leaderboards.format.page import (
    PAGE_KEYS,
    ROW_KEYS,
    PageError,
    check_page,
    check_size,
    check_unicode,
    parse_timestamp,
    read_page,
    slug_of,
)
from leaderboards.format.values import parse_metric_value
from leaderboards.models import (
    Area,
    Dataset,
    Leaderboard,
    LeaderboardArea,
    Metric,
    MetricValue,
    OrderedJSONField,
    Paper,
    Row,
    RowVerification,
    SyntologySnapshot,
    Task,
)
from leaderboards.upkeep import search
from leaderboards.upkeep.cache import bump_data_version
from leaderboards.upkeep.figures import refresh_counts, refresh_leaderboard, refresh_leaderboards

CHUNK = 250


@dataclasses.dataclass
class LoadReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    older: int = 0
    failed: list = dataclasses.field(default_factory=list)  # (file, message)
    warnings: list = dataclasses.field(default_factory=list)  # (file, message)
    differences: list = dataclasses.field(default_factory=list)  # (file, path, stated, computed)

    @property
    def files(self):
        return self.created + self.updated + self.unchanged + self.older + len(self.failed)


def page_files(paths):
    """Every regular, non-hidden file under the given files and folders, sorted."""
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            found.extend(
                child
                for child in path.rglob("*")
                if child.is_file()
                and not any(part.startswith(".") for part in child.relative_to(path).parts)
            )
        else:
            found.append(path)
    return sorted(found)


class Catalog:
    """Areas, tasks and datasets by slug, fetched once for a whole load."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.areas = {area.name: area for area in Area.objects.all()}
        self.tasks = {task.slug: task for task in Task.objects.all()}
        self.datasets = {dataset.slug: dataset for dataset in Dataset.objects.all()}

    def area(self, name):
        area = self.areas.get(name)
        if area is None:
            # A file may name an area the fixtures do not have: make it.
            slug = slugify(name) or "area"
            base, n = slug, 1
            while Area.objects.filter(slug=slug).exists():
                n += 1
                slug = f"{base}-{n}"
            area = self.areas[name] = Area.objects.create(slug=slug, name=name)
        return area

    def task(self, block, description):
        slug = slug_of(block["url"])
        wanted = {"name": block["name"], "note": block["note"]}
        if description is not None:
            wanted["description"] = description
        return self._upsert(self.tasks, Task, slug, wanted)

    def dataset(self, block):
        return self._upsert(self.datasets, Dataset, slug_of(block["url"]), {"name": block["name"]})

    @staticmethod
    def _upsert(cache, model, slug, wanted):
        obj = cache.get(slug)
        if obj is None:
            obj = cache[slug] = model.objects.create(slug=slug, **wanted)
        elif any(getattr(obj, field) != value for field, value in wanted.items()):
            for field, value in wanted.items():
                setattr(obj, field, value)
            obj.save(update_fields=list(wanted))
        return obj


def _papers_for(rows):
    """The Paper of every row that has a paper page, created or refreshed in bulk."""
    wanted = {}
    for row in rows:
        if row["paper"]:
            wanted.setdefault(
                slug_of(row["paper"]),
                {
                    "title": row["paper_title"] or "",
                    "url": row["paper_url"] or "",
                    "date": _date(row["paper_date"]),
                },
            )
    papers = Paper.objects.in_bulk(list(wanted), field_name="slug")
    stale = []
    for slug, fields in wanted.items():
        paper = papers.get(slug)
        if paper is None:
            papers[slug] = Paper(slug=slug, **fields)
        elif any(getattr(paper, name) != value for name, value in fields.items()):
            for name, value in fields.items():
                setattr(paper, name, value)
            stale.append(paper)
    Paper.objects.bulk_create([p for p in papers.values() if p.pk is None])
    if stale:
        Paper.objects.bulk_update(stale, ["title", "url", "date"])
    return papers


def _read_file(path):
    try:
        # Refuse an oversized file before reading it into memory.
        check_size(path.stat().st_size)
        data = path.read_bytes()
    except OSError as error:
        raise PageError("(file)", f"cannot read: {error.strerror}") from None
    return read_page(data)


def _check_built(page):
    """Check a page dict as if read from a file; its hash is that of its JSON."""
    check_unicode(page)
    data = json.dumps(page, ensure_ascii=False, separators=(",", ":")).encode()
    return page, hashlib.sha256(data).hexdigest(), check_page(page)


def _date(text):
    return datetime.date.fromisoformat(text) if text else None


class Loader:
    def __init__(self, stdout=None, dry_run=False, prepare=None):
        self.report = LoadReport()
        # prepare(catalog, pages) -> {slug: Paper}: a caller's hook (the PwC
        # importer's) that creates what a chunk's new pages name, with details
        # the page format has no room for, before they are written.
        self.prepare = prepare
        self.dry_run = dry_run
        # slug -> (file, read_at, sha256) of the page files this run has taken.
        self.taken = {}
        self.stdout = stdout

    def load(self, paths, progress=None):
        """Load page files from files and folders; progress(done, total) after each chunk."""
        files = page_files(paths)
        sources = ((str(path), partial(_read_file, path)) for path in files)
        return self._load(sources, progress and (lambda done: progress(done, len(files))))

    def load_pages(self, pages, progress=None):
        """Load page dicts a program built, as (name, page) pairs, checked as files are.

        progress(done) is called after each chunk.
        """
        return self._load(((name, partial(_check_built, page)) for name, page in pages), progress)

    def _load(self, sources, progress):
        catalog = Catalog()
        done = 0
        for chunk in itertools.batched(sources, CHUNK):
            self._load_chunk(chunk, catalog)
            done += len(chunk)
            if progress:
                progress(done)
        if not self.dry_run and (self.report.created or self.report.updated):
            refresh_counts()
            search.refresh_index()
            # Bulk writes send no signals: retire the cached pages here.
            bump_data_version()
        return self.report

    def _load_chunk(self, sources, catalog):
        checked = []
        for name, read in sources:
            try:
                page, sha, warnings = read()
            except PageError as error:
                self.report.failed.append((name, str(error)))
                continue
            self.report.warnings += [(name, w) for w in warnings]
            self.report.differences += [
                (name, *difference) for difference in derive.differences(page)
            ]
            checked.append((name, page, sha))
        if not checked:
            return
        slugs = [slug_of(page["url"]) for _, page, _ in checked]
        # Pages not stored yet are written together, one insert per table for the
        # chunk rather than per page: most of a first load's time was spent
        # building statements.
        fresh = {}
        with transaction.atomic():
            # Editors lock a board to record a decision on it: locked here, as
            # read, no editor's commit falls between this read and the rewrite.
            stored = {
                lb.slug: lb
                for lb in decisions.with_decided(
                    Leaderboard.objects.filter(slug__in=slugs)
                    .locked()
                    .only("id", "slug", "source_sha256", "read_at")
                )
            }
            for name, page, sha in checked:
                slug = slug_of(page["url"])
                if slug in fresh:
                    # The same page twice in one chunk: the first must be stored
                    # before the second is compared with it.
                    self._create_all(fresh, catalog, stored)
                    fresh = {}
                read_at = parse_timestamp(page["syntology"]["read_at"], "syntology.read_at")
                current = stored.get(slug)
                other = self.taken.get(slug)
                if other and other[1] == read_at and other[2] != sha:
                    # Two different files claim the same page at the same moment;
                    # neither is more recent, so the first taken stands.
                    self.report.failed.append(
                        (
                            name,
                            f"url: {page['url']} at this read_at was already loaded "
                            f"from {other[0]} in this run, with different content",
                        )
                    )
                    continue
                self.taken[slug] = (name, read_at, sha)
                if current is not None and current.source_sha256 == sha:
                    self.report.unchanged += 1
                    continue
                if current is not None and current.read_at and read_at < current.read_at:
                    self.report.older += 1
                    self.report.warnings.append(
                        (
                            name,
                            f"syntology.read_at {page['syntology']['read_at']} is older than "
                            f"the stored {current.read_at.isoformat()}; not applied",
                        )
                    )
                    continue
                if self.dry_run:
                    if current is None:
                        self.report.created += 1
                    else:
                        self.report.updated += 1
                    continue
                if current is None:
                    fresh[slug] = (name, page, sha, read_at)
                else:
                    self._write_one((name, page, sha, read_at), current, catalog, stored)
            self._create_all(fresh, catalog, stored)

    def _create_all(self, fresh, catalog, stored):
        """Write new pages in one savepoint; if that fails, each alone so only the bad one fails."""
        if not fresh:
            return
        try:
            with transaction.atomic():
                boards = self._create(list(fresh.values()), catalog)
        except DatabaseError:
            catalog.reset()
            for item in fresh.values():
                self._write_one(item, None, catalog, stored)
            return
        stored.update((board.slug, board) for board in boards)
        self.report.created += len(boards)

    def _write_one(self, item, current, catalog, stored):
        name, page, sha, read_at = item
        try:
            with transaction.atomic():
                board = self._write(page, sha, read_at, current, catalog, name)
        except DatabaseError as error:
            # The savepoint is gone, and with it anything the catalog
            # cached from it; the file is reported and the load goes on.
            catalog.reset()
            self.report.failed.append((name, f"(database): {error}"))
            return
        stored[board.slug] = board
        if current is None:
            self.report.created += 1
        else:
            self.report.updated += 1

    def _create(self, batch, catalog):
        """Pages with no stored version, written a table at a time."""
        boards = [
            Leaderboard(
                slug=slug_of(page["url"]), **self._board_fields(page, sha, read_at, catalog)
            )
            for _, page, sha, read_at in batch
        ]
        Leaderboard.objects.bulk_create(boards)
        pages = [(board, item[1]) for board, item in zip(boards, batch, strict=True)]
        LeaderboardArea.objects.bulk_create(
            link for board, page in pages for link in self._area_links(board, page, catalog)
        )
        # A new page has no editorial decisions to apply.
        metrics = [self._metrics(board, page) for board, page in pages]
        Metric.objects.bulk_create(metric for board_metrics in metrics for metric in board_metrics)
        if self.prepare:
            papers = self.prepare(catalog, [page for _, page in pages])
        else:
            papers = _papers_for([row for _, page in pages for row in page["rows"]])
        rows = [self._rows(board, page, papers) for board, page in pages]
        _insert_rows([row for board_rows in rows for row in board_rows])
        _insert(
            MetricValue,
            VALUE_FIELDS,
            [
                value
                for (_, page), board_rows, board_metrics in zip(pages, rows, metrics, strict=True)
                for value in _values(board_rows, page, {m.name: m for m in board_metrics})
            ],
        )
        snapshots = [
            SyntologySnapshot(
                leaderboard=board, read_at=item[3], **_snapshot_fields(item[1], item[2])
            )
            for board, item in zip(boards, batch, strict=True)
        ]
        SyntologySnapshot.objects.bulk_create(snapshots)
        _insert(
            RowVerification,
            VERIFICATION_FIELDS,
            [
                verification
                for snapshot, (_, page), board_rows in zip(snapshots, pages, rows, strict=True)
                for verification in _verifications(snapshot, board_rows, page)
            ],
        )
        refresh_leaderboards([board.pk for board in boards])
        return boards

    def _board_fields(self, page, sha, read_at, catalog):
        description = page["description"] if page["description_from"] == "task" else None
        return {
            "task": catalog.task(page["task"], description),
            "dataset": catalog.dataset(page["dataset"]),
            "category": catalog.area(page["category"]) if page["category"] else None,
            "category_note": page["category_note"],
            "description": page["description"],
            "description_from": page["description_from"],
            "source": page["source"],
            "direction_note": page["metric_direction"]["note"],
            "extra": {key: page[key] for key in page if key not in PAGE_KEYS},
            "source_sha256": sha,
            "read_at": read_at,
        }

    @staticmethod
    def _area_links(leaderboard, page, catalog):
        return [
            LeaderboardArea(leaderboard=leaderboard, area=catalog.area(area_name), position=index)
            for index, area_name in enumerate(page["categories"])
        ]

    def _write(self, page, sha, read_at, current, catalog, name):
        fields = self._board_fields(page, sha, read_at, catalog)
        slug = slug_of(page["url"])
        if current is None:
            leaderboard = Leaderboard.objects.create(slug=slug, **fields)
        else:
            leaderboard = Leaderboard.objects.get(pk=current.pk)
            for field, value in fields.items():
                setattr(leaderboard, field, value)
            leaderboard.rows.all().delete()
            leaderboard.metrics.all().delete()
            leaderboard.area_links.all().delete()
        LeaderboardArea.objects.bulk_create(self._area_links(leaderboard, page, catalog))
        metrics = Metric.objects.bulk_create(self._metrics(leaderboard, page))
        papers = _papers_for(page["rows"])
        rows = Row.objects.bulk_create(self._rows(leaderboard, page, papers))
        # A board this run created (no `decided`) has no decisions yet.
        if getattr(current, "decided", False):
            # Editors' decisions, kept by key, onto the new rows and metrics.
            self.report.warnings += [
                (name, warning) for _, warning in decisions.apply_decisions([leaderboard.pk])
            ]
        _insert(MetricValue, VALUE_FIELDS, _values(rows, page, {m.name: m for m in metrics}))
        leaderboard.save()
        snapshot, created = SyntologySnapshot.objects.update_or_create(
            leaderboard=leaderboard, read_at=read_at, defaults=_snapshot_fields(page, sha)
        )
        if not created:
            snapshot.verifications.all().delete()
        _insert(RowVerification, VERIFICATION_FIELDS, _verifications(snapshot, rows, page))
        refresh_leaderboard(leaderboard)
        return leaderboard

    @staticmethod
    def _metrics(leaderboard, page):
        by_metric = page["metric_direction"]["by_metric"]
        return [
            Metric(
                leaderboard=leaderboard,
                name=metric,
                position=index,
                source_direction=by_metric[metric],
            )
            for index, metric in enumerate(page["metrics"])
        ]

    @staticmethod
    def _rows(leaderboard, page, papers):
        rows = []
        for key, data in zip(row_keys(page["rows"]), page["rows"], strict=True):
            rows.append(
                Row(
                    leaderboard=leaderboard,
                    rank=data["rank_in_archive_order"],
                    model=data["model"],
                    uses_additional_data=data["uses_additional_data"],
                    paper=papers[slug_of(data["paper"])] if data["paper"] else None,
                    paper_title=data["paper_title"],
                    paper_url=data["paper_url"],
                    paper_date=_date(data["paper_date"]),
                    code=data["code"],
                    n_code_links=data["n_code_links"],
                    extra={k: data[k] for k in data if k not in ROW_KEYS},
                    key=key_digest(key),
                )
            )
        return rows


VALUE_FIELDS = ("row", "metric", "raw", "number", "position")


def _values(rows, page, metrics):
    return [
        (row.pk, metrics[metric].pk, raw, parse_metric_value(raw), position)
        for row, data in zip(rows, page["rows"], strict=True)
        for position, (metric, raw) in enumerate(data["metrics"].items())
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


def _verifications(snapshot, rows, page):
    return [
        (
            snapshot.pk,
            row.pk,
            row.rank,
            row.model,
            data["syntology"]["n_ran"],
            data["syntology"]["n_unverified"],
            data["syntology"]["n_pointer_only_licence"],
        )
        for row, data in zip(rows, page["rows"], strict=True)
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


def _insert_rows(rows):
    """Insert Row instances by executemany and give them the ids they got.

    (leaderboard, rank) is unique, so one query reads the ids back.
    """
    attnames = [Row._meta.get_field(name).attname for name in ROW_FIELDS]
    _insert(Row, ROW_FIELDS, [[getattr(row, name) for name in attnames] for row in rows])
    ids = {
        (board, rank): pk
        for board, rank, pk in Row.objects.filter(
            leaderboard__in={row.leaderboard_id for row in rows}
        ).values_list("leaderboard", "rank", "pk")
    }
    for row in rows:
        row.pk = ids[(row.leaderboard_id, row.rank)]


def _insert(model, names, values):
    """Insert tuples of the named fields' values with executemany.

    Each value goes through its field's own preparation, as the ORM would do;
    building a model instance and compiling SQL for each of the 150,000 rows
    and their values of a full dump was most of a load's time.
    """
    fields = [model._meta.get_field(name) for name in names]
    # Only dates and JSON need the field's preparation; ints, floats, text and
    # None go to the driver as they are, and skipping the call for them is cheap.
    prepare = [
        (index, field)
        for index, field in enumerate(fields)
        if isinstance(field, OrderedJSONField | DateField)
    ]
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    holders = ", ".join(["%s"] * len(fields))
    table = connection.ops.quote_name(model._meta.db_table)
    sql = f"INSERT INTO {table} ({columns}) VALUES ({holders})"
    with connection.cursor() as cursor:
        for batch in itertools.batched(values, 5000):
            prepared = []
            for item in batch:
                item = list(item)
                for index, field in prepare:
                    item[index] = field.get_db_prep_save(item[index], connection)
                prepared.append(item)
            cursor.executemany(sql, prepared)

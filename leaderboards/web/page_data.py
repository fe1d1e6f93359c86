"""A leaderboard as its page reads it: the board, its shown rows and values, its newest snapshot.

PageData reads them once, in a fixed number of queries however many rows the
board has; the page, its chart and the exports (export.py) are all made from
it. A stored value the site cannot serve raises Unservable: the page leaves
out that block alone (PageData.guard), an export refuses the whole file.
"""

import copy
import logging
import math
from collections import Counter
from dataclasses import dataclass, field

from django.db import connections, router
from django.db.models import Case, F, TextField, Value, When
from django.db.models.functions import Cast, Concat, Length
from django.db.models.lookups import GreaterThan
from django.urls import reverse

from leaderboards.format import derive
from leaderboards.format.page import MAX_PAGE_BLOCK_CHARS
from leaderboards.format.rules import TAG_SEPARATOR, entry_key, has_code, n_samples
from leaderboards.format.values import parse_metric_value
from leaderboards.models import (
    Area,
    EditorAddition,
    LeaderboardArea,
    Metric,
    MetricValue,
    Paper,
    Row,
    RowVerification,
    SyntologySnapshot,
    UnreadableJSON,
)

logger = logging.getLogger(__name__)


class Unservable(Exception):
    """A stored value of the page that cannot be shown or written out.

    `problems` are (block, reason) pairs: which part of the page, and why.
    """

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("; ".join(f"{block}: {reason}" for block, reason in self.problems))


class TooLarge:
    """A stored block past the size a page may read, left unread: only its length is known."""

    __slots__ = ("reason",)

    def __init__(self, chars):
        self.reason = f"{chars:,} characters stored, over the {MAX_PAGE_BLOCK_CHARS:,} a page reads"


def readable(value):
    """The stored block, or Unservable when the database held JSON the site cannot serve."""
    if isinstance(value, UnreadableJSON | TooLarge):
        raise Unservable([("", value.reason)])
    return value


# A file's blocks are loaded within format.page's limits, but a database keeps
# what older builds stored. A block past the limit comes back from the query
# as TOO_LARGE and its length instead of its text, so no request holds more of
# it than a page could have. One expression names the column, so SQLite loads
# a value once to measure it (and frees it); PostgreSQL measures it in the server.
TOO_LARGE = "#too-large:"


def _within_limit_sql(column):
    """SQL for `column`'s text, or TOO_LARGE and its length past the limit; its parameters."""
    length = f"LENGTH({column})"
    sql = (
        f"CASE WHEN {length} > %s THEN CAST(%s AS TEXT) || CAST({length} AS TEXT) ELSE {column} END"
    )
    return sql, [MAX_PAGE_BLOCK_CHARS, TOO_LARGE]


def _within_limit(name):
    """_within_limit_sql() as an ORM expression."""
    length = Length(name)
    return Case(
        When(
            GreaterThan(length, MAX_PAGE_BLOCK_CHARS),
            then=Concat(Value(TOO_LARGE), Cast(length, TextField())),
        ),
        default=F(name),
        output_field=TextField(),
    )


def bounded(queryset, *names):
    """`queryset` reading each of the JSON columns `names` only when it is within the limit.

    stored_block() gives the block; the column itself is deferred.
    """
    return queryset.defer(*names).annotate(
        **{f"{name}_within": _within_limit(name) for name in names}
    )


def decode_within(field, text, connection=None):
    """A stored text as `field` decodes it, or TooLarge for what the limit kept back."""
    if text is not None and text.startswith(TOO_LARGE):
        return TooLarge(int(text.removeprefix(TOO_LARGE)))
    return field.from_db_value(text, None, connection)


def stored_block(instance, name):
    """The decoded JSON column `name` of `instance`, read as bounded() left it, or TooLarge."""
    if not hasattr(instance, f"{name}_within"):
        return getattr(instance, name)
    field = type(instance)._meta.get_field(name)
    return decode_within(field, getattr(instance, f"{name}_within"))


@dataclass(slots=True)
class Cell:
    """One metric value of a row: the archive's string and the number parsed from it."""

    metric_id: int
    raw: str | None
    number: float | None


@dataclass(slots=True)
class Verification:
    """A row's counters in the newest snapshot (see RowVerification)."""

    n_ran: int
    n_unverified: int
    n_pointer_only_licence: int

    @property
    def n_samples(self):
        return n_samples(self.n_ran, self.n_unverified)

    def as_block(self):
        return {
            "n_ran": self.n_ran,
            "n_unverified": self.n_unverified,
            "n_samples": self.n_samples,
            "n_pointer_only_licence": self.n_pointer_only_licence,
        }


@dataclass(slots=True)
class PaperRef:
    slug: str

    def get_absolute_url(self):
        return reverse("leaderboards:paper", args=[self.slug])


@dataclass(slots=True)
class PageRow:
    """A shown row as the page needs it; the fields are Row's, `cells` in file order."""

    pk: int
    rank: int
    model: str
    uses_additional_data: bool
    paper: PaperRef | None
    paper_title: str | None
    paper_url: str | None
    paper_date: object
    code: str | None
    n_code_links: int
    extra: dict
    values: list = field(default_factory=list)  # Cells in the row's own key order
    cells: list = field(default_factory=list)  # one Cell or None per metric, page order
    # The EditorAddition this row shows, for a result an editor added; its rank is None.
    added: object = None
    # Row.archive_says_code and Row.tags (format.rules: the source's word on code, its tags).
    archive_says_code: bool | None = None
    tags: tuple = ()
    # Row.model_slug: the model's page (/model/), "" for an editor's added result.
    model_slug: str = ""


class _Reader:
    """The page's row queries in plain SQL, each a fixed text.

    They run on every uncached request of a board, and the ORM's building of
    them, with its per-value conversions, cost more than the database's
    answering (as for the page cache's versions, upkeep/cache.py). Dates and
    flags come converted by the drivers themselves (Django registers SQLite's
    converters by column type); the rows' extra keys go through their field.
    """

    def __init__(self, model):
        self.connection = connections[router.db_for_read(model)]
        quote = self.connection.ops.quote_name
        self.rows_table = quote(Row._meta.db_table)
        self.papers_table = quote(Paper._meta.db_table)
        self.values_table = quote(MetricValue._meta.db_table)
        self.verifications_table = quote(RowVerification._meta.db_table)
        self.extra_field = Row._meta.get_field("extra")

    def _fetch(self, sql, params):
        with self.connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def _instances(self, model, tail, params):
        """`model` objects from `SELECT <its columns, as t.*> <tail>`.

        Only for models whose fields need no conversion from what the
        drivers give (text and numbers): from_db() applies none.
        """
        fields = model._meta.concrete_fields
        columns = ", ".join(f"t.{self.connection.ops.quote_name(f.column)}" for f in fields)
        names = [field.attname for field in fields]
        alias = self.connection.alias
        return [
            model.from_db(alias, names, values)
            for values in self._fetch(f"SELECT {columns} {tail}", params)
        ]

    def metrics(self, leaderboard_id):
        """The board's metrics in the page's order."""
        table = self.connection.ops.quote_name(Metric._meta.db_table)
        return self._instances(
            Metric,
            f"FROM {table} t WHERE t.leaderboard_id = %s ORDER BY t.position",
            [leaderboard_id],
        )

    def areas(self, leaderboard_id):
        """The board's areas (`categories`) in the file's order."""
        quote = self.connection.ops.quote_name
        return self._instances(
            Area,
            f"FROM {quote(LeaderboardArea._meta.db_table)} l "
            f"JOIN {quote(Area._meta.db_table)} t ON t.id = l.area_id "
            "WHERE l.leaderboard_id = %s ORDER BY l.position",
            [leaderboard_id],
        )

    def rows(self, leaderboard_id, extras, ids=None):
        """Every row of the board in rank order, shown or not; with `ids`, those rows only.

        PageRow's fields, then withheld, what the source said of code, its tags
        and its model's slug, then (with `extras`) the extra keys.
        """
        columns = (
            "r.id, r.rank, r.model, r.uses_additional_data, p.slug, r.paper_title, r.paper_url, "
            "r.paper_date, r.code, r.n_code_links, r.withheld, r.archive_says_code, r.tags, "
            "r.model_slug"
        )
        params = [leaderboard_id]
        if extras:
            extra_sql, params = _within_limit_sql("r.extra")
            columns += f", {extra_sql}"
            params = [*params, leaderboard_id]
        among, among_params = _among("r.id", ids)
        found = self._fetch(
            f"SELECT {columns} FROM {self.rows_table} r "
            f"LEFT JOIN {self.papers_table} p ON p.id = r.paper_id "
            f"WHERE r.leaderboard_id = %s{among} ORDER BY r.rank",
            [*params, *among_params],
        )
        if not extras:
            return found
        field, connection = self.extra_field, self.connection
        return [(*values[:14], decode_within(field, values[14], connection)) for values in found]

    def values(self, leaderboard_id, ids=None):
        """(row id, metric id, raw, number) of the shown rows (of `ids`), in file order."""
        among, among_params = _among("r.id", ids)
        return self._fetch(
            f"SELECT v.row_id, v.metric_id, v.raw, v.number FROM {self.values_table} v "
            f"JOIN {self.rows_table} r ON r.id = v.row_id "
            f"WHERE r.leaderboard_id = %s AND r.withheld = %s{among} "
            "ORDER BY v.row_id, v.position",
            [leaderboard_id, False, *among_params],
        )

    def verifications(self, snapshot_id, ids=None):
        among, among_params = _among("row_id", ids)
        return self._fetch(
            "SELECT row_id, n_ran, n_unverified, n_pointer_only_licence "
            f"FROM {self.verifications_table} "
            f"WHERE snapshot_id = %s AND row_id IS NOT NULL{among}",
            [snapshot_id, *among_params],
        )


def _among(column, ids):
    """(SQL, parameters) narrowing a WHERE clause to `ids`, or nothing when `ids` is None."""
    if ids is None:
        return "", []
    if not ids:
        return " AND 1 = 0", []
    return f" AND {column} IN ({', '.join(['%s'] * len(ids))})", list(ids)


class PageData:
    """A leaderboard with its shown rows, values and newest snapshot, fetched once.

    The page view and the exports share this: a fixed number of queries,
    however many rows the leaderboard has. Rows and values are read as tuples,
    not model instances: a 2,000-row board has some 10,000 of them, and building
    that many instances costs more than rendering the whole page.

    `row_extras=False` leaves out the rows' unknown keys, which only the export
    writes: decoding them is a tenth of the page's time on a big board. It
    also leaves out the snapshot's unknown keys; the board's are for the export
    to read (bounded() them, or leave them deferred).

    `only` (row ids, editor-added result ids) reads those alone: one page of a
    board whose order is known already (prepared.kept_order). The board-wide
    counts (withheld, tags, code per archive) are then of those rows alone.
    """

    def __init__(self, leaderboard, *, row_extras=True, only=None):
        self.leaderboard = leaderboard
        self.row_extras = row_extras
        # (block, reason) for each part of the page a stored value kept from being shown.
        self.unshown = []
        reader = _Reader(Row)
        self.metrics = reader.metrics(leaderboard.pk)
        self.areas = reader.areas(leaderboard.pk)
        self.rows = []
        by_pk = {}
        empty = [None] * len(self.metrics)
        self.withheld = 0
        row_ids, addition_ids = only if only is not None else (None, None)
        for values in reader.rows(leaderboard.pk, row_extras, row_ids):
            pk, rank, model, extra_data, slug, title, url, day, code, links, withheld = values[:11]
            if withheld:
                self.withheld += 1
                continue
            paper = PaperRef(slug) if slug is not None else None
            extra = values[14] if row_extras else {}
            row = PageRow(pk, rank, model, extra_data, paper, title, url, day, code, links, extra)
            # Raw SQL: SQLite gives a boolean column as 0 or 1.
            row.archive_says_code = None if values[11] is None else bool(values[11])
            row.tags = tuple(values[12].split(TAG_SEPARATOR)) if values[12] else ()
            row.model_slug = values[13]
            row.cells = empty.copy()
            self.rows.append(row)
            by_pk[pk] = row
        column = {metric.pk: index for index, metric in enumerate(self.metrics)}
        for row_id, metric_id, raw, number in reader.values(leaderboard.pk, row_ids):
            row = by_pk[row_id]
            if number is not None and not math.isfinite(number):
                # Stored before the parser refused infinities: no chart or sort can place it.
                number = None
            cell = Cell(metric_id, raw, number)
            row.values.append(cell)
            row.cells[column[metric_id]] = cell
        blocks = ("since_archive", "extra") if row_extras else ("since_archive",)
        snapshots = bounded(SyntologySnapshot.objects.all(), *blocks)
        if not row_extras:
            snapshots = snapshots.defer("extra")
        self.snapshot = snapshots.current(leaderboard)
        self.verification = {}
        if self.snapshot is not None:
            self.verification = {
                row_id: Verification(n_ran, n_unverified, n_pointer)
                for row_id, n_ran, n_unverified, n_pointer in reader.verifications(
                    self.snapshot.pk, row_ids
                )
            }
        self.additions = self._additions(addition_ids)
        # By id: the export names each row's values by them, thousands on a big board.
        self.metric_names = {metric.pk: metric.name for metric in self.metrics}

    def _additions(self, ids=None):
        """The board's shown editor-added results (of `ids`), oldest first, as rows after
        the archive's.

        Looked for only on boards with an editorial change: adding a result is one.
        """
        if not self.leaderboard.editorial_change_count or ids == ():
            return []
        column = {metric.name: index for index, metric in enumerate(self.metrics)}
        rows = []
        additions = EditorAddition.objects.filter(leaderboard=self.leaderboard, withheld=False)
        if ids is not None:
            additions = additions.filter(pk__in=ids)
        for addition in additions.select_related("added_by").order_by("added_at", "pk"):
            metrics = readable(addition.metrics)
            row = PageRow(
                pk=None,
                rank=None,
                model=addition.model,
                uses_additional_data=addition.uses_additional_data,
                paper=None,
                paper_title=addition.paper_title,
                paper_url=addition.paper_url,
                paper_date=addition.paper_date,
                code=addition.code or None,
                n_code_links=1 if addition.code else 0,
                extra={},
                added=addition,
            )
            row.cells = [None] * len(self.metrics)
            for name, raw in metrics.items():
                # A metric the board no longer has stays in the export, off the table.
                if name in column:
                    cell = Cell(None, raw, parse_metric_value(raw))
                    row.cells[column[name]] = cell
            rows.append(row)
        return rows

    def tag_counts(self):
        """(tag, shown rows holding it) of the board's tags, the most used first."""
        counts = Counter(tag for row in self.rows for tag in row.tags)
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    def code_per_archive(self):
        """Shown rows with no code URL whose source says their paper has code."""
        return sum(1 for row in self.rows if row.archive_says_code and not has_code(row.code))

    def added_table(self):
        """(row, cells, None) for each editor-added result, as `table()` gives the archive's."""
        for row in self.additions:
            yield row, row.cells, None

    def table(self):
        """(row, one value per metric in the page's order, verification) triples."""
        for row in self.rows:
            yield row, row.cells, self.verification.get(row.pk)

    def guard(self, block, build):
        """`build()`, or None when a stored value keeps the block from being shown.

        The page's guard: a value stored before the loader refused it, or
        written by hand, costs its own block (noted in `unshown` and logged),
        never the page. The errors caught are those that reading a block of the
        wrong shape raises; anything else is a bug and still fails loudly.
        """
        try:
            return build()
        except Unservable as error:
            reasons = [reason for _, reason in error.problems]
            detail = ""
        except RecursionError:
            reasons, detail = ["nested too deep to read"], ""
        except (LookupError, TypeError, ValueError, AttributeError) as error:
            # What a visitor reads; the log keeps the exception for whoever repairs it.
            reasons = ["not in the shape the page format describes"]
            detail = f" ({type(error).__name__}: {str(error)[:200]})"
        for reason in reasons:
            logger.error(
                "leaderboard %s: %s cannot be shown: %s%s",
                self.leaderboard.slug,
                block,
                reason,
                detail,
            )
            self.unshown.append((block, reason))
        return None

    def unshown_blocks(self):
        return {block for block, _ in self.unshown}

    def summary(self):
        """The page-level blocks of the page file (export.page_document()), for the page:
        same figures, no rows built.

        A block that cannot be shown is None, and named in `unshown`.
        """
        rows = [self._row_facts(row) for row in self.rows]
        return {
            "source": self.guard("source", self.source),
            "counts": derive.page_counts(rows),
            "since_archive": self.guard("since_archive", self.since_archive),
            "syntology": self.guard("syntology", lambda: self.syntology(rows, extras=False)),
        }

    def since_table(self, since):
        """The since-archive entries as (values in the block's column order, promoted),
        `promoted` saying an editor put the entry on the board (a shown added result)."""
        promoted = {row.added.promoted_from for row in self.additions} - {""}

        def build():
            columns = since.get("columns") or []
            return [
                ([entry.get(name) for name in columns], entry_key(entry) in promoted)
                for entry in since.get("entries") or []
            ]

        return self.guard("since_archive", build) if since else []

    def _row_facts(self, row):
        """What the derived figures read from a row (see derive.py)."""
        verification = self.verification.get(row.pk)
        return {
            "uses_additional_data": row.uses_additional_data,
            "paper_date": row.paper_date,
            # Any value that tells papers apart will do: these dicts are never written out.
            "paper": row.paper.slug if row.paper else None,
            "paper_url": row.paper_url,
            "paper_title": row.paper_title,
            "code": row.code,
            "syntology": verification.as_block() if verification else None,
        }

    def source(self):
        """The `source` block, its spam count taking in the rows editors have withheld."""
        source = dict(readable(stored_block(self.leaderboard, "source")))
        source["rows_withheld_as_spam"] = source["rows_withheld_as_spam"] + self.withheld
        return source

    def since_archive(self):
        """The newest snapshot's `since_archive` block, its Wilson bound recomputed."""
        if self.snapshot is None:
            return None
        stored = stored_block(self.snapshot, "since_archive")
        if stored is None:
            return None
        block = copy.deepcopy(readable(stored))
        measurement = block.get("measurement")
        if measurement is not None and "wilson95_lower" in measurement:
            measurement["wilson95_lower"] = derive.wilson_lower(
                measurement["judged_true"], measurement["judged"]
            )
        return block

    def syntology(self, rows, extras=True):
        """The `syntology` block; `extras=False` leaves out the keys only the export writes."""
        snapshot = self.snapshot
        if snapshot is None:
            # No verification has read the page: its file said `syntology: null`.
            return None
        figures = derive.syntology_figures(rows)
        for name, note in (
            ("samples_over_distinct_papers", snapshot.distinct_papers_note),
            ("samples_row_weighted", snapshot.row_weighted_note),
        ):
            if note is not None:
                figures[name]["note"] = note
        block = {"read_at": snapshot.read_at_text, "claim": snapshot.claim, **figures}
        if extras:
            block.update(readable(stored_block(snapshot, "extra")))
        return block

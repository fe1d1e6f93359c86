"""Writing a leaderboard back out in the page file format.

Derived figures are computed here from what the database holds, never copied
from what a file once stated; everything else comes back in the file's order.
"""

import copy
import csv
import logging
import math
import re
from dataclasses import dataclass, field

from django.db import connections, router
from django.urls import reverse

from leaderboards.format import derive
from leaderboards.format.rules import ROW_COUNTERS, compact_json, n_samples
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
    public_name,
)

logger = logging.getLogger(__name__)


class Unservable(Exception):
    """A stored value of the page that cannot be shown or written out.

    `problems` are (block, reason) pairs: which part of the page, and why.
    """

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("; ".join(f"{block}: {reason}" for block, reason in self.problems))


def _readable(value):
    """The stored block, or Unservable when the database held JSON the site cannot serve."""
    if isinstance(value, UnreadableJSON):
        raise Unservable([("", value.reason)])
    return value


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

    def rows(self, leaderboard_id, extras):
        """Every row of the board in rank order, shown or not.

        PageRow's fields, then withheld, then (with `extras`) the extra keys.
        """
        columns = (
            "r.id, r.rank, r.model, r.uses_additional_data, p.slug, r.paper_title, r.paper_url, "
            "r.paper_date, r.code, r.n_code_links, r.withheld"
        )
        if extras:
            columns += ", r.extra"
        found = self._fetch(
            f"SELECT {columns} FROM {self.rows_table} r "
            f"LEFT JOIN {self.papers_table} p ON p.id = r.paper_id "
            "WHERE r.leaderboard_id = %s ORDER BY r.rank",
            [leaderboard_id],
        )
        if not extras:
            return found
        decode = self.extra_field.from_db_value
        return [(*values[:11], decode(values[11], None, self.connection)) for values in found]

    def values(self, leaderboard_id):
        """(row id, metric id, raw, number) of the shown rows, each row's in file order."""
        return self._fetch(
            f"SELECT v.row_id, v.metric_id, v.raw, v.number FROM {self.values_table} v "
            f"JOIN {self.rows_table} r ON r.id = v.row_id "
            "WHERE r.leaderboard_id = %s AND r.withheld = %s ORDER BY v.row_id, v.position",
            [leaderboard_id, False],
        )

    def verifications(self, snapshot_id):
        return self._fetch(
            "SELECT row_id, n_ran, n_unverified, n_pointer_only_licence "
            f"FROM {self.verifications_table} "
            "WHERE snapshot_id = %s AND row_id IS NOT NULL",
            [snapshot_id],
        )


class PageData:
    """A leaderboard with its shown rows, values and newest snapshot, fetched once.

    The page view and the exports share this: a fixed number of queries,
    however many rows the leaderboard has. Rows and values are read as tuples,
    not model instances: a 2,000-row board has some 10,000 of them, and building
    that many instances costs more than rendering the whole page.

    `row_extras=False` leaves out the rows' unknown keys, which only the export
    writes: decoding them is a tenth of the page's time on a big board.
    """

    def __init__(self, leaderboard, *, row_extras=True):
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
        for values in reader.rows(leaderboard.pk, row_extras):
            pk, rank, model, extra_data, slug, title, url, day, code, links, withheld = values[:11]
            if withheld:
                self.withheld += 1
                continue
            paper = PaperRef(slug) if slug is not None else None
            extra = values[11] if row_extras else {}
            row = PageRow(pk, rank, model, extra_data, paper, title, url, day, code, links, extra)
            row.cells = empty.copy()
            self.rows.append(row)
            by_pk[pk] = row
        column = {metric.pk: index for index, metric in enumerate(self.metrics)}
        for row_id, metric_id, raw, number in reader.values(leaderboard.pk):
            row = by_pk[row_id]
            if number is not None and not math.isfinite(number):
                # Stored before the parser refused infinities: no chart or sort can place it.
                number = None
            cell = Cell(metric_id, raw, number)
            row.values.append(cell)
            row.cells[column[metric_id]] = cell
        self.snapshot = SyntologySnapshot.objects.current(leaderboard)
        self.verification = {}
        if self.snapshot is not None:
            self.verification = {
                row_id: Verification(n_ran, n_unverified, n_pointer)
                for row_id, n_ran, n_unverified, n_pointer in reader.verifications(self.snapshot.pk)
            }
        self.additions = self._additions()
        self._names = {metric.pk: metric.name for metric in self.metrics}

    def _additions(self):
        """The board's shown editor-added results, oldest first, as rows after the archive's.

        Looked for only on boards with an editorial change: adding a result is one.
        """
        if not self.leaderboard.editorial_change_count:
            return []
        column = {metric.name: index for index, metric in enumerate(self.metrics)}
        rows = []
        for addition in (
            EditorAddition.objects.filter(leaderboard=self.leaderboard, withheld=False)
            .select_related("added_by")
            .order_by("added_at", "pk")
        ):
            metrics = _readable(addition.metrics)
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
        """The page-level blocks of `document()`, for the page: same figures, no rows built.

        A block that cannot be shown is None, and named in `unshown`.
        """
        rows = [self._row_facts(row) for row in self.rows]
        return {
            "source": self.guard("source", self._source),
            "counts": derive.page_counts(rows),
            "since_archive": self.guard("since_archive", self._since_archive),
            "syntology": self.guard("syntology", lambda: self._syntology(rows, extras=False)),
        }

    def since_table(self, since):
        """The since-archive entries as lists in the block's column order."""

        def build():
            columns = since.get("columns") or []
            return [[entry.get(name) for name in columns] for entry in since.get("entries") or []]

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

    def _source(self):
        source = dict(_readable(self.leaderboard.source))
        source["rows_withheld_as_spam"] = source["rows_withheld_as_spam"] + self.withheld
        return source

    def row_document(self, row):
        verification = self.verification.get(row.pk)
        document = {
            "rank_in_archive_order": row.rank,
            "model": row.model,
            "metrics": {self._names[cell.metric_id]: cell.raw for cell in row.values},
            "uses_additional_data": row.uses_additional_data,
            "paper_date": row.paper_date.isoformat() if row.paper_date else None,
            "paper": f"/paper/{row.paper.slug}" if row.paper else None,
            "paper_url": row.paper_url,
            "paper_title": row.paper_title,
            "code": row.code,
            "n_code_links": row.n_code_links,
            "syntology": verification.as_block() if verification else None,
        }
        document.update(_readable(row.extra))
        return document

    def document(self):
        """The page as a page file: same keys, same order, figures recomputed.

        Raises Unservable, naming every block at fault, when a stored value
        cannot be written out: a page file with a hole would not be the page.
        """
        if not self.row_extras:
            raise ValueError("a page file needs the rows' extra keys: PageData(row_extras=True)")
        self.unshown = []
        page = self._document()
        if self.unshown:
            raise Unservable(self.unshown)
        return page

    def _document(self):
        board = self.leaderboard
        rows = [
            self.guard(f"rows[{index}]", lambda row=row: self.row_document(row))
            for index, row in enumerate(self.rows)
        ]
        if self.unshown:
            raise Unservable(self.unshown)
        page = {
            "url": board.path,
            "task": {
                "name": board.task.name,
                "url": f"/task/{board.task.slug}",
                "note": board.task.note,
            },
            "dataset": {"name": board.dataset.name, "url": f"/dataset/{board.dataset.slug}"},
            "category": board.category.name if board.category else None,
            "categories": [area.name for area in self.areas],
            "category_note": board.category_note,
            "description": board.description,
            "description_from": board.description_from,
            "source": self.guard("source", self._source),
            "metrics": [metric.name for metric in self.metrics],
            "metric_direction": {
                "note": board.direction_note,
                "by_metric": {m.name: m.exported_direction for m in self.metrics},
            },
            "counts": derive.page_counts(rows),
            "rows": rows,
            "since_archive": self.guard("since_archive", self._since_archive),
            "syntology": self.guard("syntology", lambda: self._syntology(rows)),
        }
        extra = self.guard("extra", lambda: _readable(board.extra))
        page.update(extra or {})
        if self.additions:
            # Only when there are some: a page no editor added to exports as its file.
            page["editor_additions"] = [addition_document(row.added) for row in self.additions]
        return page

    def _since_archive(self):
        if self.snapshot is None or self.snapshot.since_archive is None:
            return None
        block = copy.deepcopy(_readable(self.snapshot.since_archive))
        measurement = block.get("measurement")
        if measurement is not None and "wilson95_lower" in measurement:
            measurement["wilson95_lower"] = derive.wilson_lower(
                measurement["judged_true"], measurement["judged"]
            )
        return block

    def _syntology(self, rows, extras=True):
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
            block.update(_readable(snapshot.extra))
        return block


def addition_document(addition):
    """An editor-added result in the export's `editor_additions` (docs/format.md)."""
    return {
        "model": addition.model,
        "metrics": _readable(addition.metrics),
        "uses_additional_data": addition.uses_additional_data,
        "paper_date": addition.paper_date.isoformat() if addition.paper_date else None,
        "paper_url": addition.paper_url,
        "paper_title": addition.paper_title,
        "code": addition.code or None,
        "note": addition.note,
        "added_at": addition.added_at.isoformat(),
        "added_by": public_name(addition.added_by),
    }


def page_json(document):
    """Compact JSON as the page files come: no spaces, non-ASCII kept.

    Always valid JSON: a value that JSON cannot hold (NaN, an infinity) or
    that nests too deep to encode raises Unservable instead of being written.
    """
    try:
        return compact_json(document)
    except (ValueError, RecursionError) as error:
        raise Unservable([("page", str(error)[:200])]) from error


# What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A signed decimal number, nothing else: no spreadsheet evaluates it as more than
# the number it is, so "-0.52" keeps its sign for the scripts that read the CSV.
PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(value):
    """A value as a CSV cell that no spreadsheet runs as a formula.

    A cell starting with one of FORMULA_STARTS gets a single quote in front,
    as OWASP recommends, unless the whole cell is a plain number.
    """
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


class _SafeWriter:
    """csv.writer whose every cell goes through csv_cell()."""

    def __init__(self, out):
        # RFC 4180's line break: with it the writer quotes a cell holding a
        # carriage return too, which a bare "\n" left loose to split the line.
        self.writer = csv.writer(out, lineterminator="\r\n")

    def writerow(self, cells):
        self.writer.writerow([csv_cell(cell) for cell in cells])


def page_csv(data, out, rows=None):
    """One line per row of `rows` (every shown row, archive order, by default);
    metric columns hold the raw strings.

    A row that lacks a metric gets an empty cell, as on the page. Every cell,
    the header's metric names included, is neutralised by csv_cell().
    """
    writer = _SafeWriter(out)
    metrics = [metric.name for metric in data.metrics]
    writer.writerow(
        ["rank_in_archive_order", "model", *metrics, "uses_additional_data", "paper_date"]
        + ["paper_title", "paper_url", "paper", "code", "n_code_links", *ROW_COUNTERS]
    )
    for row in data.rows if rows is None else rows:
        document = data.row_document(row)
        values = document["metrics"]
        block = document["syntology"] or {}
        writer.writerow(
            [row.rank, row.model]
            + [values.get(name) or "" for name in metrics]
            + [
                "true" if row.uses_additional_data else "false",
                document["paper_date"] or "",
                row.paper_title or "",
                row.paper_url or "",
                document["paper"] or "",
                row.code or "",
                row.n_code_links,
            ]
            + [block.get(name, "") for name in ROW_COUNTERS]
        )

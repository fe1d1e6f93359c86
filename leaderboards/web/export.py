"""Writing a leaderboard back out in the page file format.

Derived figures are computed here from what the database holds, never copied
from what a file once stated; everything else comes back in the file's order.
"""

import csv
import re

from leaderboards.format import derive
from leaderboards.format.rules import ROW_COUNTERS, compact_json
from leaderboards.models import public_name
from leaderboards.web.page_data import Unservable, readable, stored_block


def page_document(data):
    """The page as a page file: same keys, same order, figures recomputed.

    Raises Unservable, naming every block at fault, when a stored value
    cannot be written out: a page file with a hole would not be the page.
    """
    if not data.row_extras:
        raise ValueError("a page file needs the rows' extra keys: PageData(row_extras=True)")
    data.unshown = []
    page = _document(data)
    if data.unshown:
        raise Unservable(data.unshown)
    return page


def _document(data):
    board = data.leaderboard
    rows = [
        data.guard(f"rows[{index}]", lambda row=row: row_document(data, row))
        for index, row in enumerate(data.rows)
    ]
    if data.unshown:
        raise Unservable(data.unshown)
    page = {
        "url": board.path,
        "task": {
            "name": board.task.name,
            "url": f"/task/{board.task.slug}",
            "note": board.task.note,
        },
        "dataset": {"name": board.dataset.name, "url": f"/dataset/{board.dataset.slug}"},
        "category": board.category.name if board.category else None,
        "categories": [area.name for area in data.areas],
        "category_note": board.category_note,
        "description": board.description,
        "description_from": board.description_from,
        "source": data.guard("source", data.source),
        "metrics": [metric.name for metric in data.metrics],
        "metric_direction": {
            "note": board.direction_note,
            "by_metric": {m.name: m.exported_direction for m in data.metrics},
        },
        "counts": derive.page_counts(rows),
        "rows": rows,
        "since_archive": data.guard("since_archive", data.since_archive),
        "syntology": data.guard("syntology", lambda: data.syntology(rows)),
    }
    extra = data.guard("extra", lambda: readable(stored_block(board, "extra")))
    page.update(extra or {})
    if data.additions:
        # Only when there are some: a page no editor added to exports as its file.
        page["editor_additions"] = [addition_document(row.added) for row in data.additions]
    return page


def row_document(data, row):
    """A shown row as the page file has it: its values under their metrics' names."""
    verification = data.verification.get(row.pk)
    document = {
        "rank_in_archive_order": row.rank,
        "model": row.model,
        "metrics": {data.metric_names[cell.metric_id]: cell.raw for cell in row.values},
        "uses_additional_data": row.uses_additional_data,
        "paper_date": row.paper_date.isoformat() if row.paper_date else None,
        "paper": f"/paper/{row.paper.slug}" if row.paper else None,
        "paper_url": row.paper_url,
        "paper_title": row.paper_title,
        "code": row.code,
        "n_code_links": row.n_code_links,
        "syntology": verification.as_block() if verification else None,
    }
    document.update(readable(row.extra))
    return document


def addition_document(addition):
    """An editor-added result in the export's `editor_additions` (docs/format.md)."""
    return {
        "model": addition.model,
        "metrics": readable(addition.metrics),
        "uses_additional_data": addition.uses_additional_data,
        "paper_date": addition.paper_date.isoformat() if addition.paper_date else None,
        **({"paper_month": addition.paper_month} if addition.paper_month else {}),
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
        document = row_document(data, row)
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

"""Writing a leaderboard back out in the page file format.

Derived figures are computed here from what the database holds, never copied
from what a file once stated; everything else comes back in the file's order.
"""

import copy
import csv
import json

from . import derive
from .models import Row, RowVerification


class PageData:
    """A leaderboard with its shown rows, values and newest snapshot, fetched once.

    The page view and the exports share this: a fixed number of queries,
    however many rows the leaderboard has.
    """

    def __init__(self, leaderboard):
        self.leaderboard = leaderboard
        self.metrics = list(leaderboard.metrics.all())
        self.areas = [link.area for link in leaderboard.area_links.all()]
        self.rows = list(Row.objects.filter(leaderboard=leaderboard).for_page())
        self.snapshot = leaderboard.snapshots.newest_first().first()
        self.verification = {}
        if self.snapshot is not None:
            self.verification = {
                v.row_id: v
                for v in RowVerification.objects.filter(snapshot=self.snapshot, row__isnull=False)
            }
        self.withheld = leaderboard.rows.filter(withheld=True).count()

    def table(self):
        """(row, one value per metric in the page's order, verification) triples."""
        for row in self.rows:
            by_metric = {value.metric_id: value for value in row.values.all()}
            cells = [by_metric.get(metric.pk) for metric in self.metrics]
            yield row, cells, self.verification.get(row.pk)

    def row_document(self, row):
        verification = self.verification.get(row.pk)
        document = {
            "rank_in_archive_order": row.rank,
            "model": row.model,
            "metrics": {value.metric.name: value.raw for value in row.values.all()},
            "uses_additional_data": row.uses_additional_data,
            "paper_date": row.paper_date.isoformat() if row.paper_date else None,
            "paper": f"/paper/{row.paper.slug}" if row.paper else None,
            "paper_url": row.paper_url,
            "paper_title": row.paper_title,
            "code": row.code,
            "n_code_links": row.n_code_links,
            "syntology": verification.as_block() if verification else None,
        }
        document.update(row.extra)
        return document

    def document(self):
        """The page as a page file: same keys, same order, figures recomputed."""
        board = self.leaderboard
        rows = [self.row_document(row) for row in self.rows]
        source = dict(board.source)
        source["rows_withheld_as_spam"] = source["rows_withheld_as_spam"] + self.withheld
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
            "source": source,
            "metrics": [metric.name for metric in self.metrics],
            "metric_direction": {
                "note": board.direction_note,
                "by_metric": {m.name: m.exported_direction for m in self.metrics},
            },
            "counts": derive.page_counts(rows),
            "rows": rows,
            "since_archive": self._since_archive(),
            "syntology": self._syntology(rows),
        }
        page.update(board.extra)
        return page

    def _since_archive(self):
        if self.snapshot is None or self.snapshot.since_archive is None:
            return None
        block = copy.deepcopy(self.snapshot.since_archive)
        measurement = block.get("measurement")
        if measurement is not None and "wilson95_lower" in measurement:
            measurement["wilson95_lower"] = derive.wilson_lower(
                measurement["judged_true"], measurement["judged"]
            )
        return block

    def _syntology(self, rows):
        snapshot = self.snapshot
        figures = derive.syntology_figures(rows)
        for name, note in (
            ("samples_over_distinct_papers", snapshot.distinct_papers_note),
            ("samples_row_weighted", snapshot.row_weighted_note),
        ):
            if note is not None:
                figures[name]["note"] = note
        block = {"read_at": snapshot.read_at_text, "claim": snapshot.claim, **figures}
        block.update(snapshot.extra)
        return block


def page_json(document):
    """Compact JSON as the page files come: no spaces, non-ASCII kept."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


CSV_COUNTERS = ("n_ran", "n_unverified", "n_samples", "n_pointer_only_licence")


def page_csv(data, out):
    """One line per shown row, archive order; metric columns hold the raw strings.

    A row that lacks a metric gets an empty cell, as on the page.
    """
    writer = csv.writer(out, lineterminator="\n")
    metrics = [metric.name for metric in data.metrics]
    writer.writerow(
        ["rank_in_archive_order", "model", *metrics, "uses_additional_data", "paper_date"]
        + ["paper_title", "paper_url", "paper", "code", "n_code_links", *CSV_COUNTERS]
    )
    for row in data.rows:
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
            + [block.get(name, "") for name in CSV_COUNTERS]
        )

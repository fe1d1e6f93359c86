"""What a model's page and the compare view read: a model's results across boards.

A model is what format.rules.model_slug names: a row's model name, normalised
for case and spacing, on its paper's identity. Its rows are found by
Row.model_slug (row_model_slug_idx), never by reading a board. Only the
archive's shown rows count: an editor's added result is not a Row and carries
no paper page to tell one model from another by, so it is left out (the pages
say so); withheld rows are shown nowhere.
"""

import dataclasses

from leaderboards.api.ranking import metric_ranks
from leaderboards.format.compare import compare
from leaderboards.models import MetricValue, Row

# At most this many models side by side (issue #30: two to four).
COMPARE_MIN, COMPARE_MAX = 2, 4


@dataclasses.dataclass(slots=True)
class Result:
    """A shown row of the model, with its values, each placed by its metric where it can be."""

    row: Row
    values: list = dataclasses.field(default_factory=list)  # ResultValues, in the file's order


@dataclasses.dataclass(frozen=True, slots=True)
class ResultValue:
    metric: object  # the Metric, its direction with it
    raw: str
    # The row's place by this metric among the board's shown results (editors' added
    # ones too, as the board ranks them): None where the direction is unknown or the
    # value has no number.
    place: int | None


def model_rows(slugs):
    """The shown rows of these models, with board and paper, by board then archive rank."""
    return (
        Row.objects.of_models(slugs)
        .select_related("paper")
        .defer("paper__abstract")
        .order_by("leaderboard__slug", "rank", "pk")
    )


def values_of(rows):
    """{row pk: [MetricValue with its metric]} of these rows, in the file's order; one query."""
    found = {}
    values = MetricValue.objects.filter(row__in=[row.pk for row in rows]).select_related("metric")
    for value in values.order_by("row_id", "position"):
        found.setdefault(value.row_id, []).append(value)
    return found


def results(rows):
    """Result of each row: its non-empty values, placed where their metric's direction is known."""
    values = values_of(rows)
    places = metric_ranks(rows)
    return [
        Result(
            row,
            [
                ResultValue(value.metric, value.raw, places.get((row.pk, value.metric_id)))
                for value in values.get(row.pk, ())
                if value.raw not in (None, "")
            ],
        )
        for row in rows
    ]


@dataclasses.dataclass(frozen=True, slots=True)
class ModelHead:
    """A model as the compare view heads a column with it: its first row (by board slug)."""

    slug: str
    row: Row
    board_count: int


@dataclasses.dataclass(frozen=True, slots=True)
class MetricLine:
    metric: object
    comparison: object  # format.compare.Comparison, a standing per model
    names: list  # the models' names, in their order

    @property
    def cells(self):
        """(model name, its Standing) for each model, for a table cell labelled by the name."""
        return list(zip(self.names, self.comparison.standings, strict=True))

    @property
    def ahead(self):
        """The names of the models ahead (several where they tie), none where undecided."""
        return [name for name, standing in self.cells if standing.ahead]


@dataclasses.dataclass(slots=True)
class SharedBoard:
    """A board two or more of the models stand on: each model's best-ranked row there."""

    board: object
    rows: list  # a Row or None per model, in the models' order
    lines: list = dataclasses.field(default_factory=list)  # MetricLines, in the board's order
    names: list = dataclasses.field(default_factory=list)  # the models' names, in their order

    @property
    def cells(self):
        """(model name, its Row or None) for each model."""
        return list(zip(self.names, self.rows, strict=True))

    @property
    def first_in_archive(self):
        """The name of the model the archive ranks highest here."""
        return min((row.rank, name) for name, row in self.cells if row is not None)[1]


def heads_and_shared(slugs, rows):
    """(a ModelHead per slug found, the SharedBoards), from the models' rows in model_rows() order.

    A board is shared when at least two of the models have a shown row on it;
    a model with several rows on one board stands there by its first in the
    archive's order.
    """
    firsts, boards, by_board = {}, {}, {}
    for row in rows:
        firsts.setdefault(row.model_slug, row)
        boards.setdefault(row.model_slug, set()).add(row.leaderboard_id)
        by_board.setdefault(row.leaderboard_id, {}).setdefault(row.model_slug, row)
    heads = [ModelHead(slug, firsts[slug], len(boards[slug])) for slug in slugs if slug in firsts]
    shared = [
        SharedBoard(next(iter(found.values())).leaderboard, [found.get(slug) for slug in slugs])
        for found in by_board.values()
        if len(found) >= COMPARE_MIN
    ]
    return heads, shared


def column_names(heads):
    """What heads each model's column: its name, numbered where two models share one
    (the same name on two papers is two models)."""
    names = [head.row.model for head in heads]
    return [
        f"{name} ({place})" if names.count(name) > 1 else name
        for place, name in enumerate(names, start=1)
    ]


def compare_boards(shared, heads):
    """Fill each SharedBoard's lines: every metric any of its rows gives a value for,
    compared by its direction (format.compare). One query for the boards given."""
    names = column_names(heads)
    values = values_of([row for board in shared for row in board.rows if row is not None])
    for board in shared:
        board.names = names
        raws, metrics = {}, {}
        for index, row in enumerate(board.rows):
            for value in values.get(row.pk, ()) if row is not None else ():
                if value.raw in (None, ""):
                    continue
                metrics[value.metric_id] = value.metric
                raws.setdefault(value.metric_id, [None] * len(board.rows))[index] = value.raw
        board.lines = [
            MetricLine(metric, compare(raws[metric.pk], metric.direction), names)
            for metric in sorted(metrics.values(), key=lambda metric: metric.position)
        ]
    return shared

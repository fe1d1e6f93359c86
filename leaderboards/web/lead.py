"""Who leads a board and since when: the answer its first screen gives.

With a direction for the first metric (an editor's, the file's, or the one the
archive's ranking settles), the leader is the best result by it
(format.figures.leader_index(), as the lists' top result), and it has led
since its paper's date. Without one no result is called best: the board names
the result the archive ranked first, at the archive's snapshot.
"""

import datetime
from dataclasses import dataclass

from django.utils import dateformat

from leaderboards.format.figures import OrderEvidence, leader_index

# Archives whose order is Papers with Code's own ranking, by a word of their name.
PWC_NAMES = ("papers with code", "paperswithcode", "pwc")


@dataclass(frozen=True, slots=True)
class Lead:
    row: object  # the PageRow that leads
    value: str | None  # its first-metric value as written
    metric: str | None
    best: bool  # True: best by a direction; False: the archive's first shown row
    direction: str | None
    set_by: str | None  # "editor", "file" or "archive order" (inferred)
    order: OrderEvidence | None  # how the values run down the archive's order
    ranked_by: str  # who ranked the rows: "Papers with Code", else the archive's name
    snapshot: str | None  # the archive's snapshot as a month, "July 2025"

    @property
    def first_ranked(self):
        """Whether the row is the archive's first: an editor may have withheld it."""
        return self.row.rank == 1


def lead_of(metric, items, source):
    """The Lead of a board: `metric` its first Metric (or None), `items` its shown
    TableRows in archive order then the results editors added (they compete for
    the lead), `source` its `source` block; None with no rows."""
    if not items:
        return None
    direction = metric.direction if metric is not None else None
    index = None
    if direction:
        index = leader_index(
            direction,
            [(_number(item), item.row.paper_date) for item in items],
        )
    best = index is not None
    item = items[index if best else 0]
    if not best and item.row.added is not None:
        # Only editors' results, and no direction: no one ranked anything first.
        return None
    cell = item.cells[0] if item.cells else None
    source = source if isinstance(source, dict) else {}
    return Lead(
        row=item.row,
        value=cell.raw if cell is not None else None,
        metric=metric.name if metric is not None else None,
        best=best,
        direction=direction if best else None,
        set_by=metric.direction_set_by if best else None,
        order=metric.order if metric is not None else None,
        ranked_by=_ranked_by(source.get("archive")),
        snapshot=_month(source.get("snapshot")),
    )


def _number(item):
    cell = item.cells[0] if item.cells else None
    return cell.number if cell is not None else None


def _ranked_by(archive):
    if not isinstance(archive, str) or not archive.strip():
        return "the archive"
    lowered = archive.casefold()
    if any(name in lowered for name in PWC_NAMES):
        return "Papers with Code"
    return archive.split(",")[0].strip()


def _month(snapshot):
    """ "July 2025" for a snapshot written as a date, else None (not guessed)."""
    if not isinstance(snapshot, str):
        return None
    try:
        day = datetime.date.fromisoformat(snapshot[:10])
    except ValueError:
        return None
    return dateformat.format(day, "F Y")

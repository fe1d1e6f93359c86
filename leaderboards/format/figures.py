"""A board's figures as lists show them (row counts, newest date, top result), from plain values.

Shared by the loader, which works out a new board's figures from its page
before the board exists, and by upkeep/figures.py, which reads them back from
the database for the boards a load or an editor changed: one computation, so
the two never disagree.
"""

import dataclasses
import datetime
import itertools

from leaderboards.format.page import KNOWN_DIRECTIONS

# The archive's order settles a direction when at least this share of its
# neighbouring results agree with it, over at least MIN_PAIRS of them (five
# results with a number). Every board of the real samples agrees whole (20 of
# 20, 945 of 945); a board ranked by another metric agrees by chance, about half.
AGREEMENT = 0.9
MIN_PAIRS = 4


@dataclasses.dataclass(frozen=True, slots=True)
class FirstMetric:
    """What top_result() reads of a board's first metric (a Metric serves as well)."""

    name: str
    direction: str | None
    # Set when `direction` is not stated but settled by the archive's order.
    inferred_direction: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class OrderEvidence:
    """How a metric's values run down the archive's order: the direction they lean
    to, how many neighbouring pairs agree with it (a tie agrees with both), of how many."""

    lean: str | None
    agree: int
    pairs: int

    @property
    def settled(self):
        """The direction the archive's ranking shows, or None when it does not settle one."""
        # A stored lean is read back as stored: only a known word is a direction.
        known = self.lean in KNOWN_DIRECTIONS
        if known and self.pairs >= MIN_PAIRS and self.agree >= AGREEMENT * self.pairs:
            return self.lean
        return None


def order_evidence(numbers):
    """OrderEvidence of a metric's parsed values in the archive's order (None: no number).

    PwC ranked a board by one metric and the archive keeps that order (SPEC 1.2):
    when the values fall down it, higher was better; when they rise, lower.
    """
    present = [number for number in numbers if number is not None]
    pairs = list(itertools.pairwise(present))
    falls = sum(1 for a, b in pairs if a > b)
    rises = sum(1 for a, b in pairs if a < b)
    ties = len(pairs) - falls - rises
    if falls == rises:
        return OrderEvidence(None, 0, len(pairs))
    lean, agree = ("higher", falls) if falls > rises else ("lower", rises)
    return OrderEvidence(lean, agree + ties, len(pairs))


def file_direction(source_direction):
    """A metric's direction when no editor has decided it: the file's word if it is one
    of the known ones, else None (an unrecognised word is kept, but is no direction)."""
    return source_direction if source_direction in KNOWN_DIRECTIONS else None


def new_board_figures(rows, first, since_archive, checked_at=None):
    """The figures refresh_leaderboards() would read back for a board the loader
    is about to make, from its page: every row shown (no editor has decided
    anything on a board that did not exist), and no snapshot but the page's.
    The board is inserted with them; reading them back and updating it was a
    twentieth of a large load.

    `rows` holds (rank, model, paper_date, ran, value) for each row, `value`
    being the row's (raw, number) for the first metric, None where it has none;
    `first` is that metric as a FirstMetric (or None); `since_archive` the
    snapshot's block, None without a snapshot, and `checked_at` its read time.
    """
    shown = sorted(rows, key=lambda row: row[0])
    return board_figures(
        len(shown),
        max((row[2] for row in shown if row[2] is not None), default=None),
        sum(1 for row in shown if row[3]),
        since_archive,
        checked_at,
        top_result(
            first,
            [(model, *(value or (None, None)), date) for _, model, date, _, value in shown],
        ),
    )


def board_figures(rows, newest, verified, since_archive, checked_at, best):
    """A board's figures as Leaderboard field values; `since_archive` is its newest
    snapshot's block and `checked_at` that snapshot's read time (both None
    without a snapshot)."""
    readable = since_archive if isinstance(since_archive, dict) else {}
    return {
        "row_count": rows,
        "newest_paper_date": newest,
        "verified_row_count": verified,
        "since_archive_entry_count": len(readable.get("entries") or []),
        "papers_waiting": papers_waiting(since_archive),
        "checked_at": checked_at,
        **best,
    }


def papers_waiting(since_archive):
    """How many of the site's papers newer than the archive were not yet extracted
    when the snapshot was read (`coverage.papers_not_yet_extracted`); None without
    a snapshot, or where the block holds no such count (a figure this site would
    have to guess is left out, not made 0)."""
    coverage = since_archive.get("coverage") if isinstance(since_archive, dict) else None
    waiting = coverage.get("papers_not_yet_extracted") if isinstance(coverage, dict) else None
    # bool is an int to Python, and a count it is not.
    if isinstance(waiting, int) and not isinstance(waiting, bool) and waiting >= 0:
        return waiting
    return None


def leader_index(direction, rows):
    """The index of the result that leads, in `rows` given in archive order as
    (number, paper date) pairs for one metric; None without a direction or a number.

    The best number; of equal ones, the earliest paper (it took the lead, the
    others only matched it), an undated one after every dated one; then the
    archive's order.
    """
    if direction not in KNOWN_DIRECTIONS:
        return None
    sign = -1 if direction == "higher" else 1
    numbered = [
        (sign * number, date is None, date or datetime.date.min, index)
        for index, (number, date) in enumerate(rows)
        if number is not None
    ]
    return min(numbered)[3] if numbered else None


def top_result(first, rows):
    """The result lists show for a board, as Leaderboard field values.

    `first` is the board's first metric (or None); `rows` its shown rows in
    archive order as (model, raw, number, paper date) for that metric. The
    leader by the first metric when that metric's direction is known
    (leader_index()); otherwise, or when no row has a number for it, the
    archive's first shown row, and `top_is_best` says so. `top_inferred` says
    the direction was the archive's ranking's, not stated. `top_paper_date` is
    the best result's paper date: none where no result is best.
    """
    if not rows:
        return {**_TOP_NONE, "top_metric": ""}
    direction = first.direction if first is not None else None
    best = leader_index(direction, [(number, date) for _, _, number, date in rows])
    if best is not None:
        model, raw, _, date = rows[best]
        return {
            "top_model": model,
            "top_metric": first.name,
            "top_value": raw,
            "top_is_best": True,
            "top_inferred": first.inferred_direction is not None,
            "top_paper_date": date,
        }
    model, raw, _, _ = rows[0]
    return {
        **_TOP_NONE,
        "top_model": model,
        "top_metric": first.name if first is not None else "",
        "top_value": raw,
    }


_TOP_NONE = {
    "top_model": "",
    "top_value": None,
    "top_is_best": False,
    "top_inferred": False,
    "top_paper_date": None,
}

"""A board's figures as lists show them (row counts, newest date, top result), from plain values.

Shared by the loader, which works out a new board's figures from its page
before the board exists, and by upkeep/figures.py, which reads them back from
the database for the boards a load or an editor changed: one computation, so
the two never disagree.
"""

import dataclasses

from leaderboards.format.page import KNOWN_DIRECTIONS


@dataclasses.dataclass(frozen=True, slots=True)
class FirstMetric:
    """What top_result() reads of a board's first metric (a Metric serves as well)."""

    name: str
    direction: str | None


def file_direction(source_direction):
    """A metric's direction when no editor has decided it: the file's word if it is one
    of the known ones, else None (an unrecognised word is kept, but is no direction)."""
    return source_direction if source_direction in KNOWN_DIRECTIONS else None


def new_board_figures(rows, first, since_archive):
    """The figures refresh_leaderboards() would read back for a board the loader
    is about to make, from its page: every row shown (no editor has decided
    anything on a board that did not exist), and no snapshot but the page's.
    The board is inserted with them; reading them back and updating it was a
    twentieth of a large load.

    `rows` holds (rank, model, paper_date, ran, value) for each row, `value`
    being the row's (raw, number) for the first metric, None where it has none;
    `first` is that metric as a FirstMetric (or None); `since_archive` the
    snapshot's block, None without a snapshot.
    """
    shown = sorted(rows, key=lambda row: row[0])
    readable = since_archive if isinstance(since_archive, dict) else {}
    return board_figures(
        len(shown),
        max((row[2] for row in shown if row[2] is not None), default=None),
        sum(1 for row in shown if row[3]),
        len(readable.get("entries") or []),
        top_result(first, [(model, *(value or (None, None))) for _, model, _, _, value in shown]),
    )


def board_figures(rows, newest, verified, since, best):
    """A board's figures as Leaderboard field values."""
    return {
        "row_count": rows,
        "newest_paper_date": newest,
        "verified_row_count": verified,
        "since_archive_entry_count": since,
        **best,
    }


def top_result(first, rows):
    """The result lists show for a board, as Leaderboard field values.

    `first` is the board's first metric (or None); `rows` its shown rows in
    archive order as (model, raw, number) for that metric. The best row by the
    first metric when that metric's direction is known (ties to the archive's
    order); otherwise, or when no row has a number for it, the archive's first
    shown row, and `top_is_best` says so.
    """
    if not rows:
        return {"top_model": "", "top_metric": "", "top_value": None, "top_is_best": False}
    direction = first.direction if first is not None else None
    numbered = [row for row in rows if row[2] is not None]
    if direction and numbered:
        sign = 1 if direction == "higher" else -1
        # max() keeps the first of equal rows: the archive's order breaks ties.
        model, raw, _ = max(numbered, key=lambda row: sign * row[2])
        return {"top_model": model, "top_metric": first.name, "top_value": raw, "top_is_best": True}
    model, raw, _ = rows[0]
    return {
        "top_model": model,
        "top_metric": first.name if first is not None else "",
        "top_value": raw,
        "top_is_best": False,
    }

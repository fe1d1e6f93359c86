"""How fresh a board is: four dates and a count, read from the figures every change keeps.

One reading for the board's page and the API, so the two never disagree. Each
figure is absolute (a date the data holds, never an age counted from today):
the board's page is cached by its data version, which today does not change.
"""

import dataclasses
import datetime


@dataclasses.dataclass(frozen=True, slots=True)
class Freshness:
    # The best result's paper date; None where no result is best or it is undated.
    best_result_date: datetime.date | None
    # The first metric it is best by; "" where no result is called best.
    best_by: str
    # Whether a result is called best at all (the first metric's direction is known).
    has_best: bool
    # The archive's `source.rows_end_at` as the file wrote it (a string), or None.
    rows_end_at: str | None
    # When Syntology last read the board (its current snapshot); None: code not checked.
    code_checked_at: datetime.datetime | None
    # The snapshot's papers_not_yet_extracted: newer papers on the whole site,
    # not this board's, not yet extracted when it was read; None without one.
    papers_waiting: int | None

    def as_data(self):
        """The API's object: dates as ISO strings, nothing worded."""
        return {
            "best_result_date": _iso(self.best_result_date),
            "best_result_metric": self.best_by or None,
            "direction_known": self.has_best,
            "rows_end_at": self.rows_end_at,
            "code_checked_at": _iso(self.code_checked_at),
            "papers_not_yet_extracted": self.papers_waiting,
            "papers_not_yet_extracted_as_of": _iso(self.code_checked_at)
            if self.papers_waiting is not None
            else None,
        }


def _iso(value):
    return value.isoformat() if value is not None else None


def freshness(board, source):
    """The Freshness of `board` (a Leaderboard, or anything with its figures), whose
    `source` block (the page file's, verbatim) says where its archive rows end."""
    ends = source.get("rows_end_at") if isinstance(source, dict) else None
    best = bool(board.top_is_best)
    return Freshness(
        best_result_date=board.top_paper_date if best else None,
        best_by=board.top_metric if best else "",
        has_best=best,
        rows_end_at=ends if isinstance(ends, str) and ends else None,
        code_checked_at=board.checked_at,
        # A count without the snapshot it came from says nothing.
        papers_waiting=board.papers_waiting if board.checked_at is not None else None,
    )

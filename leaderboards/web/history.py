"""A board's history as its page and its JSON show it: what each load changed, and
how the verification counters moved between two stored snapshots.

Loads record their own changes (ingest/history.py). Verification snapshots
were all kept from the start, with each row's rank, model and counters
copied, so the counters' changes are computed here from any two of them,
for loads before the record began too.
"""

from collections import Counter
from dataclasses import dataclass

from django.core.paginator import InvalidPage, Paginator
from django.http import Http404

from leaderboards.models import BoardChange, DataLoad, RowVerification, SyntologySnapshot

CHANGES_PER_PAGE = 20
# Each snapshot read brings its rows' counters: kept fewer a page.
SNAPSHOTS_PER_PAGE = 10
COUNTERS = ("n_ran", "n_unverified", "n_pointer_only_licence")


def counter_changes(older, newer):
    """The rows whose counters differ between two snapshots, in the newer one's rank order.

    Each side is a list of (rank, model, n_ran, n_unverified,
    n_pointer_only_licence) in rank order. A row is the same row by its model
    and its place among rows of that model (ranks move between reads); a row
    one side lacks has None there.
    """

    def by_model(rows):
        seen: Counter[str] = Counter()
        keyed = {}
        for rank, model, *counters in rows:
            seen[model] += 1
            keyed[(model, seen[model])] = (rank, model, dict(zip(COUNTERS, counters, strict=True)))
        return keyed

    before, after = by_model(older), by_model(newer)
    found = []
    for key in [*after, *(key for key in before if key not in after)]:
        old, new = before.get(key), after.get(key)
        if old is not None and new is not None and old[2] == new[2]:
            continue
        rank, model = (new or old)[:2]
        found.append(
            {
                "rank": rank if new is not None else None,
                "model": model,
                "old": old[2] if old is not None else None,
                "new": new[2] if new is not None else None,
            }
        )
    return found


@dataclass(slots=True)
class SnapshotStep:
    """One snapshot, compared with the one read before it (None for a board's first)."""

    read_at: object
    read_at_text: str
    previous_text: str | None
    verified_rows: int
    changes: list


def _page(queryset, number, per_page):
    """Page `number` of the queryset; one past the end is a 404."""
    paginator = Paginator(queryset, per_page)
    try:
        page = paginator.page(number)
    except InvalidPage as error:
        raise Http404(str(error)) from error
    return page


def data_changes(board, number):
    """The page `number` of the board's recorded changes, newest first."""
    return _page(BoardChange.objects.of_board(board), number, CHANGES_PER_PAGE)


def snapshot_steps(board, number):
    """(page, steps): the page `number` of the board's snapshots, newest first, each
    with what changed since the read before it.

    One query for the page's snapshots and the one just older, one for their rows.
    """
    snapshots = SyntologySnapshot.objects.filter(leaderboard=board).order_by("-read_at")
    page = _page(snapshots.values_list("pk", flat=True), number, SNAPSHOTS_PER_PAGE)
    start = page.start_index() - 1 if page.paginator.count else 0
    read = list(
        snapshots.values_list("pk", "read_at", "read_at_text")[
            start : start + SNAPSHOTS_PER_PAGE + 1
        ]
    )
    rows = {pk: [] for pk, _, _ in read}
    for snapshot, *row in (
        RowVerification.objects.filter(snapshot__in=rows)
        .order_by("snapshot_id", "rank")
        .values_list("snapshot_id", "rank", "model", *COUNTERS)
    ):
        rows[snapshot].append(row)
    steps = []
    for index, (pk, read_at, text) in enumerate(read[:SNAPSHOTS_PER_PAGE]):
        older = read[index + 1] if index + 1 < len(read) else None
        steps.append(
            SnapshotStep(
                read_at=read_at,
                read_at_text=text,
                previous_text=older[2] if older else None,
                verified_rows=len(rows[pk]),
                changes=counter_changes(rows[older[0]], rows[pk]) if older else [],
            )
        )
    return page, steps


def recorded_since():
    """When the site began recording value changes: its first recorded load, or None."""
    return DataLoad.objects.order_by("pk").values_list("started_at", flat=True).first()


def change_json(change):
    """A BoardChange as the history's JSON gives it."""
    return {
        "id": change.pk,
        "at": change.made_at.isoformat(),
        "board_added": change.created,
        "source_sha256_before": change.sha256_before or None,
        "source_sha256_after": change.sha256_after,
        "rows_added": change.rows_added,
        "rows_removed": change.rows_removed,
        "values_changed": change.values_changed,
        "added": change.changes.get("added", []),
        "removed": change.changes.get("removed", []),
        "changed": change.changes.get("changed", []),
    }


def step_json(step):
    return {
        "read_at": step.read_at_text,
        "previous_read_at": step.previous_text,
        "verified_rows": step.verified_rows,
        "counters_changed": step.changes,
    }

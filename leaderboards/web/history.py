"""A board's history as its page and its JSON show it: what each load changed, and
how the verification counters moved between two stored snapshots.

Loads record their own changes (ingest/history.py). Verification snapshots
were all kept from the start, with each row's rank, model and counters
copied, so the counters' changes are computed from any two of them, for
loads before the record began too: by the database, which returns only the
rows whose counters changed (the first COUNTERS_LISTED of each) and the counts.
"""

from dataclasses import dataclass

from django.core.paginator import InvalidPage, Paginator
from django.db import connection
from django.http import Http404

from leaderboards.models import BoardChange, DataLoad, RowVerification, SyntologySnapshot

CHANGES_PER_PAGE = 20
SNAPSHOTS_PER_PAGE = 10
COUNTERS = ("n_ran", "n_unverified", "n_pointer_only_licence")
# Rows listed of each snapshot's changes, as many as a load's record keeps of
# each of its lists: a re-verification of a 100,000-row board may change them
# all, and the count of them stays whole.
COUNTERS_LISTED = 200


@dataclass(slots=True)
class SnapshotStep:
    """One snapshot, compared with the one read before it (None for a board's first)."""

    read_at: object
    read_at_text: str
    previous_text: str | None
    verified_rows: int
    changes: list  # the first COUNTERS_LISTED of the rows whose counters changed
    changed_rows: int  # how many rows' counters changed


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

    One query for the page's snapshots and the one just older, one for their
    counters (counter_changes()).
    """
    snapshots = SyntologySnapshot.objects.filter(leaderboard=board).order_by("-read_at")
    page = _page(snapshots.values_list("pk", flat=True), number, SNAPSHOTS_PER_PAGE)
    start = page.start_index() - 1 if page.paginator.count else 0
    read = list(
        snapshots.values_list("pk", "read_at", "read_at_text")[
            start : start + SNAPSHOTS_PER_PAGE + 1
        ]
    )
    shown = read[:SNAPSHOTS_PER_PAGE]
    # Each shown snapshot with the one read before it; a board's first has none.
    pairs = [(newer[0], older[0]) for newer, older in zip(shown, read[1:], strict=False)]
    verified, changed = counter_changes([pk for pk, _, _ in shown], pairs)
    steps = []
    for index, (pk, read_at, text) in enumerate(shown):
        older = read[index + 1] if index + 1 < len(read) else None
        total, changes = changed.get(pk, (0, []))
        steps.append(
            SnapshotStep(
                read_at=read_at,
                read_at_text=text,
                previous_text=older[2] if older else None,
                verified_rows=verified.get(pk, 0),
                changes=changes,
                changed_rows=total,
            )
        )
    return page, steps


def counter_changes(snapshots, pairs, listed=COUNTERS_LISTED):
    """({snapshot: rows verified} of `snapshots`, {newer: (rows changed, [the first
    `listed`])} of `pairs`, each (newer snapshot, older snapshot)), in one query.

    A row is the same row in both snapshots by its model and its place among
    rows of that model (ranks move between reads); a row one side lacks has
    None there. A change is {"rank" (None for a row the newer lacks), "model",
    "old", "new"}, each side {counter: value} or None: the newer snapshot's rows
    in its rank order, then those only the older has, in its order. Compared
    and counted by the database, so what is read here is bounded by `listed`,
    whatever the board's rows.
    """
    if not snapshots:
        return {}, {}
    table = RowVerification._meta.db_table
    marks = ", ".join(["%s"] * len(snapshots))
    # Each snapshot's rows counted, as a row of its own: no place in a list.
    nothing = ", NULL" * (2 + 2 * len(COUNTERS))
    sql = (
        f"SELECT snapshot_id, NULL AS listed, COUNT(*) AS total{nothing} "
        f"FROM {table} WHERE snapshot_id IN ({marks}) GROUP BY snapshot_id"
    )
    params = list(snapshots)
    if pairs:
        changes, changes_params = _changes_sql(pairs)
        sql = f"{changes} UNION ALL {sql}"
        params = [*changes_params, listed, *params]
    verified, changed = {}, {}
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} ORDER BY 1, 2", params)
        for snapshot, place, total, rank, model, *counters in cursor.fetchall():
            if place is None:
                verified[snapshot] = total
                continue
            old, new = counters[: len(COUNTERS)], counters[len(COUNTERS) :]
            changed.setdefault(snapshot, (total, []))[1].append(
                {"rank": rank, "model": model, "old": _counters(old), "new": _counters(new)}
            )
    return verified, changed


def _counters(values):
    """A side of a change: {counter: value}, or None where the row was not verified
    (the counters are never null otherwise)."""
    return None if values[0] is None else dict(zip(COUNTERS, values, strict=True))


def _changes_sql(pairs):
    """SQL, and its parameters but the last (how many to list of each), giving the
    rows whose counters differ between each pair's snapshots as counter_changes()
    reads them: (newer, place in its list, how many changed, rank, model, the
    older counters, the newer)."""
    table = RowVerification._meta.db_table
    snapshots = sorted({pk for pair in pairs for pk in pair})
    marks = ", ".join(["%s"] * len(snapshots))
    old = ", ".join(f"b.{name} AS old_{name}" for name in COUNTERS)
    new = ", ".join(f"a.{name} AS new_{name}" for name in COUNTERS)
    gone = ", ".join(f"NULL AS new_{name}" for name in COUNTERS)
    differ = " OR ".join(f"a.{name} <> b.{name}" for name in COUNTERS)
    columns = ", ".join(
        [*(f"old_{name}" for name in COUNTERS), *(f"new_{name}" for name in COUNTERS)]
    )
    sql = (
        # A row's identity in its snapshot: its model, numbered among that model's rows.
        f"WITH v AS (SELECT snapshot_id, rank, model, {', '.join(COUNTERS)}, "
        "ROW_NUMBER() OVER (PARTITION BY snapshot_id, model ORDER BY rank) AS n "
        f"FROM {table} WHERE snapshot_id IN ({marks})), "
        f"pairs (newer, older) AS (VALUES {', '.join(['(%s, %s)'] * len(pairs))}), "
        # The newer snapshot's rows that are new or changed, then the older's gone.
        f"changed AS (SELECT p.newer, 0 AS side, a.rank AS place, a.rank, a.model, {old}, {new} "
        "FROM pairs p JOIN v a ON a.snapshot_id = p.newer "
        "LEFT JOIN v b ON b.snapshot_id = p.older AND b.model = a.model AND b.n = a.n "
        f"WHERE b.rank IS NULL OR {differ} "
        f"UNION ALL SELECT p.newer, 1, b.rank, NULL, b.model, {old}, {gone} "
        "FROM pairs p JOIN v b ON b.snapshot_id = p.older "
        "LEFT JOIN v a ON a.snapshot_id = p.newer AND a.model = b.model AND a.n = b.n "
        "WHERE a.rank IS NULL) "
        f"SELECT newer, listed, total, rank, model, {columns} FROM ("
        "SELECT c.*, COUNT(*) OVER (PARTITION BY newer) AS total, "
        "ROW_NUMBER() OVER (PARTITION BY newer ORDER BY side, place) AS listed "
        "FROM changed c) x WHERE listed <= %s"
    )
    return sql, [*snapshots, *(pk for pair in pairs for pk in pair)]


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
        "rows_changed": step.changed_rows,
        "counters_changed": step.changes,
    }

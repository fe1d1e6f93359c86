"""How a board's verification counters moved between two stored snapshots: the rule,
and each snapshot's comparison with the one read just before it, stored when it is.

A snapshot's comparison is computed once, by the load that stores it
(store_comparisons()), and kept on it: how many rows it verifies, how many
rows' counters changed since the board's snapshot read before it, the first
COUNTERS_LISTED of them, and which snapshot that was (compared_with). The
history page reads those; where one is missing (null changed_rows, or
compared_with not the snapshot now just older) it computes that one
(counter_changes()), so a deleted snapshot or a counter edited by hand never
shows a stale comparison.
"""

from django.db import connection
from django.db.models import OuterRef, Q, Subquery
from django.db.models.signals import post_delete, post_save

from leaderboards.models import RowVerification, SyntologySnapshot
from leaderboards.upkeep.bulk import update

COUNTERS = ("n_ran", "n_unverified", "n_pointer_only_licence")
# Rows listed of each snapshot's changes, as many as a load's record keeps of
# each of its lists: a re-verification of a 100,000-row board may change them
# all, and the count of them stays whole.
COUNTERS_LISTED = 200
# Snapshots compared in one query: their pairs' parameters stay well under
# SQLite's limit of variables.
BATCH = 500
STORED = ("compared_with", "verified_rows", "changed_rows", "changes")


def store_comparisons(snapshots):
    """Store on each of `snapshots` (pks) its comparison with its board's snapshot read
    just before it (none for a board's first): two queries and one UPDATE a batch."""
    snapshots = list(snapshots)
    for start in range(0, len(snapshots), BATCH):
        batch = snapshots[start : start + BATCH]
        older = dict(
            SyntologySnapshot.objects.filter(pk__in=batch)
            .annotate(older=Subquery(_just_older().values("pk")[:1]))
            .values_list("pk", "older")
        )
        pairs = [(pk, before) for pk, before in older.items() if before is not None]
        verified, changed = counter_changes(batch, pairs)
        update(
            SyntologySnapshot,
            STORED,
            [
                (pk, older[pk], verified.get(pk, 0), *changed.get(pk, (0, [])))
                for pk in batch
                if pk in older
            ],
        )


def _just_older():
    """The snapshots of the outer one's board read before it, the latest first."""
    return SyntologySnapshot.objects.filter(
        leaderboard=OuterRef("leaderboard"), read_at__lt=OuterRef("read_at")
    ).order_by("-read_at")


def forget_comparisons(snapshot):
    """A snapshot's counters were edited: its comparison, and the next one's with it,
    are computed again when next shown."""
    SyntologySnapshot.objects.filter(Q(pk=snapshot) | Q(compared_with=snapshot)).update(
        changed_rows=None
    )


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


def _verification_saved(sender, instance, **kwargs):
    forget_comparisons(instance.snapshot_id)


def _snapshot_deleted(sender, instance, **kwargs):
    # The snapshots compared with it had their comparisons cleared (on_delete of
    # compared_with): stored again now, against the one now just older, or every view
    # of the history would compare them again.
    store_comparisons(
        SyntologySnapshot.objects.filter(
            leaderboard_id=instance.leaderboard_id, changed_rows__isnull=True
        ).values_list("pk", flat=True)
    )


def connect_signals():
    # Loads insert verifications without signals; a save is a hand's edit of counters.
    post_save.connect(
        _verification_saved, sender=RowVerification, dispatch_uid="snapshot-comparisons"
    )
    post_delete.connect(
        _snapshot_deleted, sender=SyntologySnapshot, dispatch_uid="snapshot-deleted"
    )

"""Each verification snapshot keeps its comparison with the board's snapshot read just
before it (issue #30: the history page read every row's verification of its snapshots):
the fields, and the comparison of every snapshot already stored, by a frozen copy of
leaderboards.upkeep.snapshot_changes' rule as it was when this was written.
tests/models/test_migrations.py says where the two still agree."""

from django.db import migrations, models

import leaderboards.models.fields
import leaderboards.models.verification

BATCH = 200
COUNTERS = ("n_ran", "n_unverified", "n_pointer_only_licence")
COUNTERS_LISTED = 200
TABLE = "leaderboards_rowverification"


def counter_changes(connection, snapshots, pairs, listed=COUNTERS_LISTED):
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
    table = TABLE
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
    table = TABLE
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


def compare_snapshots(apps, schema_editor):
    """Each snapshot compared with its board's one read before it, BATCH at a time."""
    Snapshot = apps.get_model("leaderboards", "SyntologySnapshot")
    snapshots = Snapshot.objects.order_by("leaderboard", "read_at").values_list(
        "pk", "leaderboard"
    )
    batch, previous = [], (None, None)
    # Read whole first: SQLite does not isolate a read in progress from the updates.
    for pk, board in list(snapshots):
        batch.append((pk, previous[0] if previous[1] == board else None))
        previous = (pk, board)
        if len(batch) >= BATCH:
            _store(schema_editor.connection, Snapshot, batch)
            batch = []
    _store(schema_editor.connection, Snapshot, batch)


def _store(connection, Snapshot, batch):
    pairs = [(pk, older) for pk, older in batch if older is not None]
    verified, changed = counter_changes(connection, [pk for pk, _ in batch], pairs)
    compared = []
    for pk, older in batch:
        total, changes = changed.get(pk, (0, []))
        compared.append(
            Snapshot(
                pk=pk,
                compared_with_id=older,
                verified_rows=verified.get(pk, 0),
                changed_rows=total,
                changes=changes,
            )
        )
    Snapshot.objects.bulk_update(
        compared, ["compared_with", "verified_rows", "changed_rows", "changes"]
    )


class Migration(migrations.Migration):

    dependencies = [
        ('leaderboards', '0041_papers_tie_by_slug'),
    ]

    operations = [
        migrations.AddField(
            model_name='syntologysnapshot',
            name='changed_rows',
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='syntologysnapshot',
            name='changes',
            field=leaderboards.models.fields.OrderedJSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name='syntologysnapshot',
            name='compared_with',
            field=models.ForeignKey(blank=True, null=True, on_delete=leaderboards.models.verification.forget_comparison, related_name='+', to='leaderboards.syntologysnapshot'),
        ),
        migrations.AddField(
            model_name='syntologysnapshot',
            name='verified_rows',
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(compare_snapshots, migrations.RunPython.noop, elidable=True),
    ]

"""A board's history as its page and its JSON show it: what each load changed, and
how the verification counters moved between two stored snapshots.

Loads record their own changes (ingest/history.py). Each verification
snapshot carries its comparison with the one read before it, stored by the
load that stored it (upkeep/snapshot_changes.py), so a page reads at most
COUNTERS_LISTED changes a snapshot whatever the board's rows; one not stored,
or stored against a snapshot since deleted, is computed for that pair alone.
"""

from dataclasses import dataclass

from django.core.paginator import InvalidPage, Paginator
from django.http import Http404

from leaderboards.models import BoardChange, DataLoad, SyntologySnapshot
from leaderboards.upkeep.snapshot_changes import counter_changes

CHANGES_PER_PAGE = 20
SNAPSHOTS_PER_PAGE = 10
# Each snapshot as the page reads it: its own, and its stored comparison.
SNAPSHOT_FIELDS = (
    "pk",
    "read_at",
    "read_at_text",
    "compared_with",
    "verified_rows",
    "changed_rows",
    "changes",
)


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

    One query for the page's snapshots and the one just older, with their stored
    comparisons; one more only if some of those are missing (counter_changes()).
    """
    snapshots = SyntologySnapshot.objects.filter(leaderboard=board).order_by("-read_at")
    page = _page(snapshots.values_list("pk", flat=True), number, SNAPSHOTS_PER_PAGE)
    start = page.start_index() - 1 if page.paginator.count else 0
    read = list(snapshots.values(*SNAPSHOT_FIELDS)[start : start + SNAPSHOTS_PER_PAGE + 1])
    shown = read[:SNAPSHOTS_PER_PAGE]
    # Each shown snapshot with the one read before it; a board's first has none.
    olders = [*read[1:], None][: len(shown)]
    missing = [
        (snapshot["pk"], older and older["pk"])
        for snapshot, older in zip(shown, olders, strict=True)
        if not _stored(snapshot, older)
    ]
    verified, changed = counter_changes(
        [pk for pk, _ in missing], [pair for pair in missing if pair[1] is not None]
    )
    steps = []
    for snapshot, older in zip(shown, olders, strict=True):
        pk = snapshot["pk"]
        if _stored(snapshot, older):
            total, changes = snapshot["changed_rows"], snapshot["changes"]
            rows = snapshot["verified_rows"]
        else:
            (total, changes), rows = changed.get(pk, (0, [])), verified.get(pk, 0)
        steps.append(
            SnapshotStep(
                read_at=snapshot["read_at"],
                read_at_text=snapshot["read_at_text"],
                previous_text=older["read_at_text"] if older else None,
                verified_rows=rows,
                changes=changes,
                changed_rows=total,
            )
        )
    return page, steps


def _stored(snapshot, older):
    """Whether the snapshot's stored comparison is with the one now read before it."""
    return (
        snapshot["changed_rows"] is not None
        and snapshot["verified_rows"] is not None
        and snapshot["compared_with"] == (older["pk"] if older else None)
    )


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

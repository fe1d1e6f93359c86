"""The public record of editors' work, and the results editors add.

Every editorial change writes one EditorialChange in the transaction of the
change itself, with the board locked (decisions.lock_boards), so /changes/
lists exactly what was committed: rows withheld and restored, metric
directions, results added and removed. The board's
`editorial_change_count` is kept in the same transaction. Decisions on the
archive's catalogue (papers' code, spam methods and papers, descriptions:
leaderboards/curation.py) are entries with no board, naming their target by
slug (`catalogue_decided`).

Editor-added results (EditorAddition) live apart from the rows a load
replaces, so no re-load touches them.
"""

import contextvars
import uuid
from collections import Counter
from contextlib import contextmanager

from django.db import transaction
from django.db.models import Count, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from leaderboards.models import ChangeKind, EditorAddition, EditorialChange, Leaderboard
from leaderboards.upkeep.cache import data_changed
from leaderboards.upkeep.figures import refresh_leaderboards

SHOWN, WITHHELD, UNKNOWN = "shown", "withheld", "unknown"

# The visitor's suggestion the decision being made accepts (suggestions.accept),
# and the entries written for it.
_credited = contextvars.ContextVar("credited_suggestion", default=None)


@contextmanager
def crediting(suggestion):
    """Every entry written in the block credits `suggestion` (EditorialChange.suggestion);
    yields the list they are added to."""
    written = []
    token = _credited.set((suggestion, written))
    try:
        yield written
    finally:
        _credited.reset(token)


def rows_decided(rows, withheld, reason, user, now):
    """Archive rows withheld or restored. Call inside the decision's transaction.

    The entries name no model and no value: the record shows a withheld row
    by its reason only.
    """
    _write(
        EditorialChange(
            leaderboard_id=row.leaderboard_id,
            kind=ChangeKind.ROW_WITHHELD if withheld else ChangeKind.ROW_RESTORED,
            old_value=SHOWN if withheld else WITHHELD,
            new_value=WITHHELD if withheld else SHOWN,
            reason=reason,
            made_at=now,
            made_by=user,
        )
        for row in rows
    )


def directions_decided(changes, user, reason, now):
    """(metric, direction shown before, direction shown now) triples; inside the transaction."""
    _write(
        EditorialChange(
            leaderboard_id=metric.leaderboard_id,
            kind=ChangeKind.DIRECTION,
            subject=metric.name,
            old_value=before or UNKNOWN,
            new_value=after or UNKNOWN,
            reason=reason,
            made_at=now,
            made_by=user,
        )
        for metric, before, after in changes
    )


def catalogue_decided(entries, user, now):
    """(kind, target slug, subject, old, new, reason) tuples; inside the decision's transaction."""
    return EditorialChange.objects.bulk_create(
        [
            EditorialChange(
                kind=kind,
                target=target,
                subject=subject,
                old_value=old,
                new_value=new,
                reason=reason,
                made_at=now,
                made_by=user,
            )
            for kind, target, subject, old, new, reason in entries
        ]
    )


def new_batch():
    """A batch key: what the entries of one decision share (EditorialChange.batch)."""
    return uuid.uuid4().hex


def _write(entries):
    entries = list(entries)
    credited = _credited.get()
    if credited is not None:
        for entry in entries:
            entry.suggestion = credited[0]
        credited[1].extend(entries)
    if len(entries) > 1:
        # One decision on many rows or boards reads as one entry in the record.
        batch = new_batch()
        for entry in entries:
            entry.batch = batch
    entries = EditorialChange.objects.bulk_create(entries)
    recount(Counter(entry.leaderboard_id for entry in entries))
    return entries


def recount(boards):
    """Each board's count from its entries: one statement, however many boards."""
    if not boards:
        return
    counted = (
        EditorialChange.objects.filter(leaderboard=OuterRef("pk"))
        .order_by()
        .values("leaderboard")
        .annotate(n=Count("pk"))
        .values("n")
    )
    Leaderboard.objects.filter(pk__in=list(boards)).update(
        editorial_change_count=Coalesce(Subquery(counted, output_field=IntegerField()), 0)
    )


class AlreadyPromoted(Exception):
    """The since-archive entry was promoted already: `addition` is the result it became."""

    def __init__(self, addition):
        super().__init__(f"promoted already, as {addition.model!r}")
        self.addition = addition


def add_result(addition, user):
    """Put an editor's result on its board, with its entry in the record.

    A since-archive entry is promoted once: under the board's lock, a second
    promotion of it raises AlreadyPromoted (two editors clicking at once).
    """
    with transaction.atomic():
        _lock([addition.leaderboard_id])
        if addition.promoted_from:
            earlier = EditorAddition.objects.filter(
                leaderboard_id=addition.leaderboard_id, promoted_from=addition.promoted_from
            ).first()
            if earlier is not None:
                raise AlreadyPromoted(earlier)
        addition.added_at = timezone.now()
        addition.added_by = user
        addition.withheld, addition.withheld_reason = False, ""
        addition.save()
        _write(
            [
                EditorialChange(
                    leaderboard_id=addition.leaderboard_id,
                    kind=ChangeKind.ADDED,
                    subject=addition.model,
                    new_value=describe(addition),
                    reason=addition.note,
                    addition=addition,
                    made_at=addition.added_at,
                    made_by=user,
                )
            ]
        )
        # It competes: the board's best result (lists, badge) may be it now.
        refresh_leaderboards([addition.leaderboard_id])
        data_changed(boards=[addition.leaderboard_id])
    return addition


def describe(addition):
    """An added result's values as the record shows them: `AUROC 97.1, FPR95 12.3`."""
    return ", ".join(f"{name} {value}" for name, value in addition.metrics.items())


def withhold_additions(additions, reason, user):
    """Withhold added results as spam; returns those it changed."""
    if not reason:
        raise ValueError("a withheld result needs a reason")
    return _decide_additions(additions, True, reason, user)


def restore_additions(additions, user):
    return _decide_additions(additions, False, "", user)


def _decide_additions(additions, withheld, reason, user):
    with transaction.atomic():
        _lock({addition.leaderboard_id for addition in additions})
        # Read again under the lock: another editor may have acted meanwhile.
        changed = list(
            EditorAddition.objects.filter(pk__in=[addition.pk for addition in additions])
            .exclude(withheld=withheld)
            .order_by("pk")
        )
        if not changed:
            return []
        EditorAddition.objects.filter(pk__in=[addition.pk for addition in changed]).update(
            withheld=withheld, withheld_reason=reason
        )
        now = timezone.now()
        _write(
            EditorialChange(
                leaderboard_id=addition.leaderboard_id,
                kind=ChangeKind.ADDED_WITHHELD if withheld else ChangeKind.ADDED_RESTORED,
                subject=addition.model,
                old_value=SHOWN if withheld else WITHHELD,
                new_value=WITHHELD if withheld else SHOWN,
                reason=reason,
                addition=addition,
                made_at=now,
                made_by=user,
            )
            for addition in changed
        )
        boards = sorted({addition.leaderboard_id for addition in changed})
        refresh_leaderboards(boards)
        data_changed(boards=boards)
    return changed


def _lock(board_ids):
    # decisions.lock_boards, which imports this module: the same lock, in the same order.
    Leaderboard.objects.lock(board_ids)

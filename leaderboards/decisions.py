"""Editors' decisions about rows and metrics, kept where no load writes.

A load replaces a board's rows and metrics, and their ids with them. What an
editor decided is therefore stored by what a newer file keeps: a row's key
(model, paper, occurrence: `row_keys`) and a metric's name, in RowDecision and
DirectionDecision. Row.withheld / withheld_reason and Metric.editor_direction
are the copies the pages read, written only here: by an editor's action
together with its decision, and by the loader right after it rewrote a board
(`apply_decisions`). Both lock the board first, so an editor's commit can
neither fall between a load's read and its rewrite nor land on rows a load
has just replaced.
"""

import dataclasses
import operator
from functools import reduce

from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import OperationalError, connections, router, transaction
from django.db.models import (
    CharField,
    DateTimeField,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Value,
)
from django.db.models.constants import OnConflict
from django.db.models.functions import Cast, Substr
from django.utils import timezone

from leaderboards import record, search
from leaderboards.format.rules import stored_keys
from leaderboards.models import (
    ChangeKind,
    Direction,
    DirectionDecision,
    EditorialChange,
    Leaderboard,
    Metric,
    Row,
    RowDecision,
)
from leaderboards.upkeep.cache import data_changed
from leaderboards.upkeep.figures import refresh_counts, refresh_leaderboards

# PostgreSQL's deadlock, serialization failure and lock timeout: the work was
# rolled back whole and may be tried again.
RETRYABLE_SQLSTATES = {"40P01", "40001", "55P03"}
KNOWN = (Direction.HIGHER, Direction.LOWER)


def busy(error):
    """True for a write that waited too long for a lock, or lost a deadlock: nothing was changed."""
    if not isinstance(error, OperationalError):
        return False
    cause = error.__cause__
    if getattr(cause, "sqlstate", None) in RETRYABLE_SQLSTATES:
        return True
    return "database is locked" in str(error) or "database table is locked" in str(error)


def lock_boards(ids):
    """Lock these boards until the transaction ends (ordered by pk); their ids, as found."""
    return Leaderboard.objects.lock(ids)


# -- the loader's side ------------------------------------------------------------


def with_decided(boards):
    """Boards annotated `decided`: whether any decision stands on them.

    A re-load skips apply_decisions for the many boards no editor touched.
    """
    board = OuterRef("pk")
    return boards.annotate(
        decided=Exists(RowDecision.objects.filter(leaderboard=board))
        | Exists(DirectionDecision.objects.filter(leaderboard=board))
    )


def apply_decisions(board_ids):
    """Copy the boards' decisions onto their rows and metrics, just rewritten by a load.

    Call with the boards locked. A fixed number of statements however many
    boards and rows. Returns (board id, warning) for each standing decision no
    row or metric of the boards matches: it stays stored, and a later file
    that brings the row or metric back gets it again.
    """
    board_ids = list(board_ids)
    withheld = RowDecision.objects.filter(
        leaderboard=OuterRef("leaderboard"), key=OuterRef("key"), withheld=True
    )
    Row.objects.filter(leaderboard__in=board_ids).filter(Exists(withheld)).update(
        withheld=True, withheld_reason=Subquery(withheld.values("reason")[:1])
    )
    direction = DirectionDecision.objects.filter(
        leaderboard=OuterRef("leaderboard"), metric=OuterRef("name")
    )
    Metric.objects.filter(leaderboard__in=board_ids).filter(Exists(direction)).update(
        editor_direction=Subquery(direction.values("direction")[:1])
    )
    warnings = [
        (
            decision.leaderboard_id,
            f"row {decision.model!r} ({decision.paper or 'no paper'}), withheld by an editor "
            f"({decision.reason}), is not in the newer file; the decision is kept for a "
            "later file that has the row",
        )
        for decision in RowDecision.objects.filter(leaderboard__in=board_ids, withheld=True)
        .exclude(
            Exists(Row.objects.filter(leaderboard=OuterRef("leaderboard"), key=OuterRef("key")))
        )
        .order_by("leaderboard", "model", "occurrence")
    ]
    warnings += [
        (
            decision.leaderboard_id,
            f"metric {decision.metric!r}, given direction {decision.direction!r} by an "
            "editor, is not in the newer file; the decision is kept for a later file that "
            "has the metric",
        )
        for decision in DirectionDecision.objects.filter(leaderboard__in=board_ids)
        .exclude(
            Exists(
                Metric.objects.filter(leaderboard=OuterRef("leaderboard"), name=OuterRef("metric"))
            )
        )
        .order_by("leaderboard", "metric")
    ]
    return warnings


# -- the editors' side ------------------------------------------------------------


@dataclasses.dataclass
class Outcome:
    """What an editor's action did. Rows and metrics are the ones stored now."""

    changed: list = dataclasses.field(default_factory=list)
    unchanged: list = dataclasses.field(default_factory=list)  # already as decided
    # Asked for under an id a newer file replaced; the decision went to the
    # row or metric that has the same key now.
    followed: list = dataclasses.field(default_factory=list)
    # What no stored row or metric matches any more: nothing was changed for it.
    missing: list = dataclasses.field(default_factory=list)


class Gone(Exception):
    """The row or metric an editor's form was about is no longer on its board."""


def row_ref(leaderboard_id, key, model=""):
    """A row as an editor chose it: by board and key, whatever its id is now."""
    return Row(leaderboard_id=leaderboard_id, key=key, model=model)


def metric_ref(leaderboard_id, name):
    return Metric(leaderboard_id=leaderboard_id, name=name)


def current_rows(refs):
    """(rows stored now for these refs, refs no stored row matches); nothing locked."""
    refs = list(refs)
    stored = {
        (row.leaderboard_id, row.key): row
        for row in Row.objects.filter(
            leaderboard__in={ref.leaderboard_id for ref in refs},
            key__in={ref.key for ref in refs},
        ).with_boards()
    }
    found, missing = {}, []
    for ref in refs:
        row = stored.get((ref.leaderboard_id, ref.key))
        if row is None:
            missing.append(ref)
        else:
            found.setdefault(row.pk, row)
    return list(found.values()), missing


def withhold(rows, reason, user, *, log=True, new_reason=False):
    """Withhold rows as spam, by their keys; rows already withheld keep their reason.

    With new_reason, a withheld row whose reason differs takes this one (the
    row's own form).
    """
    if not reason:
        raise ValueError("a withheld row needs a reason")
    return _decide_rows(rows, user, True, reason, log, new_reason)


def restore(rows, user, *, log=True):
    return _decide_rows(rows, user, False, "", log, False)


def _decide_rows(refs, user, withheld, reason, log, new_reason):
    refs = list(refs)
    outcome = Outcome()
    with transaction.atomic():
        board_ids = lock_boards({ref.leaderboard_id for ref in refs})
        found, outcome.missing = current_rows(refs)
        asked = {ref.pk for ref in refs if ref.pk}
        outcome.followed = [row for row in found if row.pk not in asked]
        for row in found:
            same = row.withheld == withheld and (not new_reason or row.withheld_reason == reason)
            (outcome.unchanged if same else outcome.changed).append(row)
        if not outcome.changed:
            return outcome
        now = timezone.now()
        parts = _key_parts(board_ids)
        RowDecision.objects.bulk_create(
            [
                RowDecision(
                    leaderboard_id=row.leaderboard_id,
                    key=row.key,
                    model=parts[row.leaderboard_id, row.key][0],
                    paper=parts[row.leaderboard_id, row.key][1],
                    occurrence=parts[row.leaderboard_id, row.key][2],
                    withheld=withheld,
                    reason=reason,
                    decided_at=now,
                    decided_by=user,
                )
                for row in outcome.changed
            ],
            update_conflicts=True,
            unique_fields=["leaderboard", "key"],
            update_fields=["model", "paper", "occurrence", "withheld", "reason", "decided_at"]
            + ["decided_by"],
        )
        Row.objects.filter(pk__in=[row.pk for row in outcome.changed]).update(
            withheld=withheld, withheld_reason=reason
        )
        record.rows_decided(outcome.changed, withheld, reason, user, now)
        for row in outcome.changed:
            row.withheld, row.withheld_reason = withheld, reason
        if log:
            message = f"Withheld as spam: {reason}" if withheld else "Restored"
            LogEntry.objects.log_actions(user.pk, outcome.changed, CHANGE, message)
        _boards_changed({row.leaderboard for row in outcome.changed})
    # Catalogue-wide counts: derived from what is committed, so outside the
    # board's lock when the action is (a change form's transaction holds it).
    refresh_counts()
    return outcome


def _key_parts(board_ids):
    """(board, key digest) -> (model, paper identity, occurrence) of the boards' stored rows."""
    rows = Row.objects.filter(leaderboard__in=board_ids).order_by("leaderboard", "rank")
    by_board = {}
    for row in rows.values(
        "leaderboard", "key", "model", "paper__slug", "paper_url", "paper_title"
    ):
        by_board.setdefault(row["leaderboard"], []).append(row)
    return {
        (board, row["key"]): key
        for board, board_rows in by_board.items()
        for row, key in zip(board_rows, stored_keys(board_rows), strict=True)
    }


def set_direction(
    metrics, direction, user, *, log=True, message=None, reason="", undecided_only=False
):
    """Set (or, with None, clear) the editor's direction of metrics, by board and name.

    undecided_only leaves metrics an editor or the file already gave a
    direction, as they are when the lock is taken. reason is kept with the
    decision (the public record shows it); by default the log's message.
    """
    refs = list(metrics)
    with transaction.atomic():
        lock_boards({ref.leaderboard_id for ref in refs})
        outcome = _sort_metrics(refs, direction, undecided_only)
        if not outcome.changed:
            return outcome
        why = reason or message or ""
        # The record keeps stated directions: an inference from the archive's order is no decision.
        before = [metric.stated_direction for metric in outcome.changed]
        _save_directions(outcome.changed, direction, user, why)
        _copy_direction(outcome.changed, direction)
        record.directions_decided(
            [
                (metric, was, metric.direction)
                for metric, was in zip(outcome.changed, before, strict=True)
            ],
            user,
            why,
            timezone.now(),
        )
        if log:
            LogEntry.objects.log_actions(
                user.pk,
                outcome.changed,
                CHANGE,
                message or f"Direction set: {direction or 'cleared'}",
            )
        # The boards' best results follow their first metric's direction.
        _boards_changed({metric.leaderboard for metric in outcome.changed}, rows=False)
    return outcome


def _sort_metrics(refs, direction, undecided_only):
    """The stored metrics the refs name (by board and name), each once, as an Outcome
    of those the direction changes and those it leaves as they are."""
    outcome = Outcome()
    stored = {
        (metric.leaderboard_id, metric.name): metric
        for metric in Metric.objects.filter(
            leaderboard__in={ref.leaderboard_id for ref in refs},
            name__in={ref.name for ref in refs},
        ).select_related("leaderboard__task", "leaderboard__dataset")
    }
    asked = {ref.pk for ref in refs if ref.pk}
    seen = set()
    for ref in refs:
        metric = stored.get((ref.leaderboard_id, ref.name))
        if metric is None:
            outcome.missing.append(ref)
            continue
        if metric.pk in seen:
            continue
        seen.add(metric.pk)
        if metric.pk not in asked:
            outcome.followed.append(metric)
        decided = metric.editor_direction or metric.stated_direction
        if metric.editor_direction == direction or (undecided_only and decided):
            outcome.unchanged.append(metric)
        else:
            outcome.changed.append(metric)
    return outcome


def _save_directions(metrics, direction, user, reason):
    """The DirectionDecision of each metric: written, or deleted when the direction is None."""
    if direction is None:
        DirectionDecision.objects.filter(
            reduce(
                operator.or_,
                (Q(leaderboard=m.leaderboard_id, metric=m.name) for m in metrics),
            )
        ).delete()
        return
    now = timezone.now()
    DirectionDecision.objects.bulk_create(
        [
            DirectionDecision(
                leaderboard_id=metric.leaderboard_id,
                metric=metric.name,
                direction=direction,
                decided_at=now,
                decided_by=user,
                reason=reason,
            )
            for metric in metrics
        ],
        update_conflicts=True,
        unique_fields=["leaderboard", "metric"],
        update_fields=["direction", "decided_at", "decided_by", "reason"],
    )


def _copy_direction(metrics, direction):
    """Metric.editor_direction, the copy of the decision the pages read."""
    Metric.objects.filter(pk__in=[metric.pk for metric in metrics]).update(
        editor_direction=direction
    )
    for metric in metrics:
        metric.editor_direction = direction


def undecided_metrics():
    """Metrics with no direction: none from an editor, none the file states.

    Metric.editor_direction is the copy of a standing DirectionDecision (the
    loader copies them under the board's lock), so a metric without one has
    no decision settling it. A file's unrecognised word is no direction.
    """
    return Metric.objects.filter(editor_direction__isnull=True).exclude(source_direction__in=KNOWN)


@dataclasses.dataclass
class NameOutcome:
    """What deciding a metric name on every board did."""

    boards: int = 0
    rows: int = 0


def decide_name(name, direction, user, *, reason):
    """Give every board whose metric `name` has no direction yet this direction.

    For the directions queue: a fixed number of statements however many boards
    use the name (a metric name shared by thousands of boards is one click).
    The boards are locked first, in pk order as every editor's action and load
    does, and only metrics still undecided under the lock are written, so a
    load committed meanwhile neither loses the decision nor has its file's
    direction overwritten. Each metric gets a DirectionDecision (who, when,
    why) and a log entry, as a decision made board by board does.
    """
    if direction not in Direction.values:
        raise ValueError(f"not a direction: {direction!r}")
    with transaction.atomic():
        locked = list(
            Leaderboard.objects.filter(
                pk__in=undecided_metrics().filter(name=name).values("leaderboard")
            )
            .locked()
            .values_list("pk", "row_count")
        )
        if not locked:
            return NameOutcome()
        board_ids = [pk for pk, _ in locked]
        # Re-read under the lock: a load may have rewritten a board meanwhile.
        metrics = undecided_metrics().filter(name=name, leaderboard__in=board_ids)
        now = timezone.now()
        _insert_from(
            DirectionDecision,
            metrics.values(
                "leaderboard",
                metric_name=F("name"),
                decided_direction=Value(direction),
                decided_at=Value(now, DateTimeField()),
                decided_by=Value(user.pk, IntegerField()),
                decision_reason=Value(reason),
            ),
            ["leaderboard", "metric", "direction", "decided_at", "decided_by", "reason"],
            conflict=(
                ["leaderboard", "metric"],
                ["direction", "decided_at", "decided_by", "reason"],
            ),
        )
        _insert_from(
            LogEntry,
            metrics.values(
                log_time=Value(now, DateTimeField()),
                log_user=Value(user.pk, IntegerField()),
                log_type=Value(ContentType.objects.get_for_model(Metric).pk, IntegerField()),
                log_object=Cast("pk", CharField()),
                log_repr=Substr("name", 1, 200),
                log_flag=Value(CHANGE, IntegerField()),
                log_message=Value(reason),
            ),
            [
                "action_time",
                "user",
                "content_type",
                "object_id",
                "object_repr",
                "action_flag",
                "change_message",
            ],
        )
        # The public record: one entry per board, as a decision made board by board writes.
        _insert_from(
            EditorialChange,
            metrics.values(
                "leaderboard",
                change_kind=Value(ChangeKind.DIRECTION),
                change_subject=F("name"),
                change_old=Value(record.UNKNOWN),
                change_new=Value(direction),
                change_reason=Value(reason),
                change_at=Value(now, DateTimeField()),
                change_by=Value(user.pk, IntegerField()),
                # One decision: on many boards, one entry of the record's list.
                change_batch=Value(record.new_batch() if len(locked) > 1 else ""),
            ),
            [
                "leaderboard",
                "kind",
                "subject",
                "old_value",
                "new_value",
                "reason",
                "made_at",
                "made_by",
                "batch",
            ],
        )
        record.recount(board_ids)
        # The boards' best results follow their first metric's direction.
        earlier = Metric.objects.filter(
            leaderboard=OuterRef("leaderboard"), position__lt=OuterRef("position")
        )
        first = list(metrics.exclude(Exists(earlier)).values_list("leaderboard", flat=True))
        metrics.update(editor_direction=direction)
        if first:
            refresh_leaderboards(first)
        data_changed(boards=board_ids)
    return NameOutcome(boards=len(locked), rows=sum(rows for _, rows in locked))


def _insert_from(model, select, fields, conflict=None):
    """INSERT INTO model's table (fields) SELECT ...: one statement however many rows.

    select is a values() queryset giving the fields' values in order.
    conflict=(unique fields, fields to update) makes it an upsert.
    """
    connection = connections[router.db_for_write(model)]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(model._meta.get_field(name).column) for name in fields)
    sql, params = select.order_by().query.get_compiler(connection=connection).as_sql()
    statement = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) {sql}"
    if conflict:
        unique, updated = conflict
        statement += connection.ops.on_conflict_suffix_sql(
            [model._meta.get_field(name) for name in fields],
            OnConflict.UPDATE,
            [model._meta.get_field(name).column for name in updated],
            [model._meta.get_field(name).column for name in unique],
        )
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def _boards_changed(boards, rows=True):
    """Inside the lock: the boards' own figures and search entries, then their pages retired."""
    boards = sorted(boards, key=lambda board: board.pk)
    refresh_leaderboards([board.pk for board in boards])
    if rows:
        search.refresh_models(boards)
        search.refresh_board_rows(boards)
    data_changed(boards=[board.pk for board in boards])

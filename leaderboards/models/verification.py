"""Verification: Syntology's reads of a page, and each row's counters in one."""

from django.db import models

from leaderboards.format.rules import n_samples as samples
from leaderboards.models.boards import Leaderboard, Row
from leaderboards.models.fields import LEADING_INDEX, OrderedJSONField, readable_instant


class SnapshotQuerySet(models.QuerySet):
    def newest_first(self):
        return self.order_by("-read_at")

    def current(self, leaderboard):
        """The snapshot of the board's stored version, or None.

        A verified page's version moment is its snapshot's read_at. A later
        page no verification has read (docs/format.md) has none: the older
        snapshots stay as history, but none of them is the page's.
        """
        if leaderboard.read_at is None:
            return None
        return self.filter(leaderboard=leaderboard, read_at=leaderboard.read_at).first()


def forget_comparison(collector, field, sub_objs, using):
    """on_delete of compared_with: the snapshot a comparison was with is gone, so the
    comparison is no longer the page's; computed again when next shown.

    Given the snapshots read (not lazy, unlike SET_NULL's): both updates then go by
    their ids, not by a filter on compared_with that the first would empty.
    """
    collector.add_field_update(field, None, sub_objs)
    collector.add_field_update(field.model._meta.get_field("changed_rows"), None, sub_objs)


class SyntologySnapshot(models.Model):
    """One read of Syntology for a page: its claim, row counters and since-archive block."""

    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="snapshots", **LEADING_INDEX
    )
    read_at = models.DateTimeField()
    read_at_text = models.CharField(max_length=64)
    claim = models.TextField(null=True, blank=True)
    distinct_papers_note = models.TextField(null=True, blank=True)
    row_weighted_note = models.TextField(null=True, blank=True)
    since_archive = OrderedJSONField(null=True, blank=True)
    extra = OrderedJSONField(default=dict, blank=True)
    source_sha256 = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    # Its comparison with the board's snapshot read just before it, stored by the
    # load (upkeep/snapshot_changes.py): that snapshot (None for a board's first),
    # the rows verified, how many rows' counters changed (None: not computed),
    # the first of them as the history lists them.
    compared_with = models.ForeignKey(
        "self", null=True, blank=True, on_delete=forget_comparison, related_name="+"
    )
    verified_rows = models.PositiveIntegerField(null=True, blank=True)
    changed_rows = models.PositiveIntegerField(null=True, blank=True)
    changes = OrderedJSONField(default=list, blank=True)

    objects = SnapshotQuerySet.as_manager()

    class Meta:
        ordering = ["leaderboard", "-read_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["leaderboard", "read_at"], name="snapshot_read_at_unique"
            ),
            models.CheckConstraint(
                condition=readable_instant("read_at"), name="snapshot_read_at_readable"
            ),
        ]

    def __str__(self):
        return f"{self.leaderboard_id} @ {self.read_at_text}"


class RowVerification(models.Model):
    """A row's Syntology counters in one snapshot.

    Rank and model are copied so an old snapshot still reads after a newer
    file replaced the rows it described.
    """

    snapshot = models.ForeignKey(
        SyntologySnapshot, on_delete=models.CASCADE, related_name="verifications", **LEADING_INDEX
    )
    row = models.ForeignKey(
        Row, null=True, blank=True, on_delete=models.SET_NULL, related_name="verifications"
    )
    rank = models.PositiveIntegerField()
    model = models.TextField()
    n_ran = models.PositiveIntegerField()
    n_unverified = models.PositiveIntegerField()
    n_pointer_only_licence = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["snapshot", "rank"], name="verification_snapshot_rank_unique"
            ),
        ]

    def __str__(self):
        return f"{self.model}: {self.n_ran}/{self.n_samples}"

    @property
    def n_samples(self):
        return samples(self.n_ran, self.n_unverified)

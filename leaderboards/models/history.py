"""What each load changed in a board's data, recorded as the load writes it.

A re-load replaces a board's rows and values whole (ingest/tables.py), so what
the rows said before is gone once it commits: a change of value can only be
known at that moment. The writer compares the rows it is about to delete with
the page it writes and keeps the difference here, in the same transaction
(ingest/history.py). Loads before this record began left only what the
verification snapshots hold (models/verification.py), which the history page
compares for itself.
"""

from django.db import models
from django.db.models import Q
from django.urls import reverse

from leaderboards.models.boards import Leaderboard
from leaderboards.models.fields import LEADING_INDEX, OrderedJSONField


class DataLoad(models.Model):
    """One load that changed some board's data: what the site-wide feed lists.

    Made with the first chunk that changes something, its counts raised with
    each chunk's commit: a load that changes nothing leaves none.
    """

    started_at = models.DateTimeField()
    boards_added = models.PositiveIntegerField(default=0)
    boards_changed = models.PositiveIntegerField(default=0)
    rows_added = models.PositiveIntegerField(default=0)
    rows_removed = models.PositiveIntegerField(default=0)
    values_changed = models.PositiveIntegerField(default=0)
    # The first boards it added or changed, [slug, added] each (ingest/history.NAMED),
    # so the site's feed names them without reading the load's BoardChanges.
    boards = OrderedJSONField(default=list, blank=True)

    class Meta:
        ordering = ["-pk"]

    def __str__(self):
        return f"load of {self.started_at:%Y-%m-%d %H:%M:%S}"


class BoardChangeQuerySet(models.QuerySet):
    def of_board(self, board):
        """The board's recorded changes, newest first, on its index."""
        return self.filter(leaderboard=board).order_by("-pk")


class BoardChange(models.Model):
    """What one load changed in one board's rows: rows added and removed, values changed.

    `changes` holds the rows and values themselves as the files wrote them
    (ingest/history.py says its shape), up to a bound per kind; the counts are
    always whole. A board a load added (`created`) keeps its counts only: its
    rows are its page.
    """

    load = models.ForeignKey(DataLoad, on_delete=models.CASCADE, related_name="board_changes")
    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="data_changes", **LEADING_INDEX
    )
    made_at = models.DateTimeField()
    # The board's page version this load gave it (Leaderboard.version).
    version = models.BigIntegerField()
    sha256_before = models.CharField(max_length=64, blank=True, default="")
    sha256_after = models.CharField(max_length=64)
    created = models.BooleanField(default=False)
    rows_added = models.PositiveIntegerField(default=0)
    rows_removed = models.PositiveIntegerField(default=0)
    values_changed = models.PositiveIntegerField(default=0)
    changes = OrderedJSONField(default=dict, blank=True)

    objects = BoardChangeQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        indexes = [
            # A board's history, newest first, a page at a time.
            models.Index(fields=["leaderboard", "-id"], name="board_change_board_idx"),
        ]
        constraints = [
            # A board added has nothing before it to remove or change.
            models.CheckConstraint(
                condition=Q(created=False) | Q(rows_removed=0, values_changed=0),
                name="board_change_created_adds_only",
            ),
            # Recorded only when something changed.
            models.CheckConstraint(
                condition=Q(created=True)
                | Q(rows_added__gt=0)
                | Q(rows_removed__gt=0)
                | Q(values_changed__gt=0),
                name="board_change_changes_something",
            ),
        ]

    def __str__(self):
        return f"{self.leaderboard_id} @ {self.made_at:%Y-%m-%d %H:%M:%S}"

    def get_absolute_url(self):
        """Its entry on the board's history page.

        Read annotated with its `board_slug` (as the feed reads it), else its board is read too.
        """
        slug = getattr(self, "board_slug", None) or self.leaderboard.slug
        url = reverse("leaderboards:leaderboard_history", args=[slug])
        return f"{url}#load-{self.pk}"

"""What visitors suggest: corrections and newer results, kept apart until an editor decides.

Nothing a visitor writes is shown on a public page. An editor accepts a
suggestion by making the decision it asks for (a row withheld, a metric's
direction, a result added), whose entry in the public record credits it
(EditorialChange.suggestion), or rejects it with a reason.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from leaderboards.models.boards import Leaderboard
from leaderboards.models.fields import OrderedJSONField


class SuggestionKind(models.TextChoices):
    CORRECTION = "correction", "correction"
    RESULT = "result", "newer result"


class SuggestionState(models.TextChoices):
    PENDING = "pending", "waiting for an editor"
    ACCEPTED = "accepted", "accepted"
    REJECTED = "rejected", "rejected"


# The editors' queue: the most supported first, then the newest. Read along
# an index (suggestion_queue_idx for one state, suggestion_support_idx for all):
# sorting by an expression sorted every row, 11 s at 100,000 on SQLite.
QUEUE_ORDER = ("-support", "-created_at", "-id")


class SuggestionQuerySet(models.QuerySet):
    def for_queue(self):
        """The queue's order, with what names each suggestion's board.

        The boards are read apart (one more query, of one page's boards by
        key), not joined: SQLite, its statistics older than the queue, put the
        suggestions last in the join and took 11 s at 100,000.
        """
        boards = Leaderboard.objects.titled().without_blocks()
        return self.prefetch_related(models.Prefetch("leaderboard", queryset=boards)).order_by(
            *QUEUE_ORDER
        )

    def pending(self):
        return self.filter(state=SuggestionState.PENDING)


class Suggestion(models.Model):
    """One visitor's suggestion on a board, and how many addresses made the same one."""

    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="suggestions"
    )
    kind = models.CharField(max_length=12, choices=SuggestionKind)
    # The row a correction is about, by its key (a load replaces rows, the key
    # stays), and its model as the visitor saw it; empty for the whole board.
    row_key = models.CharField(max_length=64, blank=True, default="")
    row_model = models.TextField(blank=True, default="")
    # A newer result: the model, its values by metric name as typed, its paper.
    model = models.TextField(blank=True, default="")
    values = OrderedJSONField(default=dict, blank=True)
    paper_title = models.TextField(blank=True, default="")
    citation_url = models.TextField("citation URL", blank=True, default="")
    # What is wrong (or where the result is in its paper), and how the visitor knows.
    what = models.TextField(blank=True, default="")
    why = models.TextField(blank=True, default="")
    # A digest of the content: the same suggestion from another address adds support.
    fingerprint = models.CharField(max_length=64)
    support = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(default=timezone.now)
    state = models.CharField(
        max_length=10, choices=SuggestionState, default=SuggestionState.PENDING
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Why it was rejected (the editors' own; never public).
    decision_reason = models.TextField(blank=True, default="")

    objects = SuggestionQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        indexes = [
            models.Index(fields=["state", "-support", "-created_at"], name="suggestion_queue_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=SuggestionKind.values), name="suggestion_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(state__in=SuggestionState.values), name="suggestion_state_valid"
            ),
            # A waiting suggestion is one entry however many addresses make it.
            models.UniqueConstraint(
                fields=["leaderboard", "fingerprint"],
                condition=Q(state="pending"),
                name="suggestion_pending_once",
            ),
            models.CheckConstraint(
                condition=~Q(kind="result")
                | Q(citation_url__startswith="http://")
                | Q(citation_url__startswith="https://"),
                name="suggestion_result_cited",
            ),
            models.CheckConstraint(
                condition=Q(state="pending") | Q(decided_at__isnull=False),
                name="suggestion_decided_when",
            ),
        ]

    def __str__(self):
        if self.kind == SuggestionKind.RESULT:
            return f"Newer result: {self.model}"
        about = f" to {self.row_model}" if self.row_key else ""
        return f"Correction{about}: {self.what[:60]}"


class SuggestionVoice(models.Model):
    """One address's submission of a suggestion: for the rate limits, and so an
    address supports a suggestion once. The address is kept as a keyed digest,
    never as written."""

    suggestion = models.ForeignKey(Suggestion, on_delete=models.CASCADE, related_name="voices")
    address = models.CharField(max_length=64)
    made_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["address", "made_at"], name="suggestion_voice_address_idx"),
            models.Index(fields=["made_at"], name="suggestion_voice_time_idx"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["suggestion", "address"], name="suggestion_voice_once"),
        ]

    def __str__(self):
        return f"{self.address[:8]} on {self.suggestion_id}"

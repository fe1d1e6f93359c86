"""Editors' work: decisions kept by key, added results, and the public record of both."""

from django.conf import settings
from django.db import models
from django.db.models import Case, Count, Exists, OuterRef, Q, Subquery, Value, When
from django.urls import reverse
from django.utils import timezone

from leaderboards.models.boards import BOARD_BLOCKS, Direction, Leaderboard
from leaderboards.models.fields import OrderedJSONField
from leaderboards.models.suggestions import Suggestion


class RowDecision(models.Model):
    """An editor's word on a row, kept by the row's key where loads never write.

    A newer file replaces the board's rows; the decision stays and is copied
    to whichever row has its key, in this file or a later one.
    """

    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="row_decisions"
    )
    key = models.CharField(max_length=64)
    # The key's parts, to say which row is meant when no file has it.
    model = models.TextField()
    paper = models.TextField(blank=True, default="")
    occurrence = models.PositiveIntegerField(default=1)
    withheld = models.BooleanField()
    reason = models.TextField(blank=True, default="")
    decided_at = models.DateTimeField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["leaderboard", "model", "occurrence"]
        constraints = [
            models.UniqueConstraint(fields=["leaderboard", "key"], name="row_decision_key_unique"),
            models.CheckConstraint(
                condition=Q(withheld=False) | ~Q(reason=""),
                name="row_decision_withheld_has_reason",
                violation_error_message="Say why the row is withheld.",
            ),
            models.CheckConstraint(
                condition=Q(occurrence__gte=1), name="row_decision_occurrence_positive"
            ),
        ]

    def __str__(self):
        state = f"withheld: {self.reason}" if self.withheld else "shown"
        return f"{self.model} ({self.paper or 'no paper'}): {state}"


class DirectionDecision(models.Model):
    """An editor's direction for a board's metric, kept by the metric's name."""

    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="direction_decisions"
    )
    metric = models.CharField(max_length=300)
    direction = models.CharField(max_length=10, choices=Direction.choices)
    decided_at = models.DateTimeField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Why, in the editor's words or the queue's ("Accepted the suggestion:
    # ..."), for the public record of editors' work.
    reason = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["leaderboard", "metric"]
        constraints = [
            models.UniqueConstraint(
                fields=["leaderboard", "metric"], name="direction_decision_metric_unique"
            ),
            models.CheckConstraint(
                condition=Q(direction__in=Direction.values), name="direction_decision_valid"
            ),
        ]

    def __str__(self):
        return f"{self.metric}: {self.direction}"


class EditorAddition(models.Model):
    """A result an editor put on a board: a newer paper's, cited, kept where loads never write.

    Not a Row: a re-load replaces the board's rows, never these. Metric values
    are strings, as the archive writes them; the page lists them after the
    archive's rows, unranked, and the export carries them apart
    (`editor_additions`, docs/format.md). Removed as spam rows are: withheld
    with a reason, which the public record shows.
    """

    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="editor_additions"
    )
    model = models.TextField()
    # Metric name -> the value as written, in the page's metric order.
    metrics = OrderedJSONField(default=dict)
    uses_additional_data = models.BooleanField(default=False)
    paper_title = models.TextField()
    paper_url = models.TextField(
        "paper URL", help_text="The citation: an http(s) URL of the paper."
    )
    paper_date = models.DateField(null=True, blank=True)
    # The paper's month ("2025-10") where no day is known: a since-archive entry gives one.
    paper_month = models.CharField(
        max_length=7,
        blank=True,
        default="",
        help_text="YYYY-MM, when the paper's day is not known.",
    )
    code = models.TextField(blank=True, default="")
    note = models.TextField(help_text="Where the result comes from and why it belongs here.")
    # The since-archive entry it was promoted from (format.rules.entry_key), or "".
    promoted_from = models.CharField(max_length=64, blank=True, default="")
    added_at = models.DateTimeField(default=timezone.now)
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    withheld = models.BooleanField(default=False)
    withheld_reason = models.TextField(blank=True, default="")

    class Meta:
        verbose_name = "editor's result"
        verbose_name_plural = "editors' results"
        ordering = ["leaderboard", "added_at", "pk"]
        indexes = [
            models.Index(fields=["leaderboard", "added_at"], name="editor_addition_board_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(paper_url__startswith="http://") | Q(paper_url__startswith="https://"),
                name="editor_addition_cited",
                violation_error_message="Cite the paper with an http(s) URL.",
            ),
            models.CheckConstraint(condition=~Q(note=""), name="editor_addition_has_note"),
            # An entry is promoted once, withheld or not: a second try is told so.
            models.UniqueConstraint(
                fields=["leaderboard", "promoted_from"],
                condition=~Q(promoted_from=""),
                name="editor_addition_promoted_once",
            ),
            models.CheckConstraint(condition=~Q(model=""), name="editor_addition_has_model"),
            models.CheckConstraint(
                condition=Q(withheld=False) | ~Q(withheld_reason=""),
                name="editor_addition_withheld_has_reason",
                violation_error_message="Say why the result is withheld.",
            ),
        ]

    def __str__(self):
        return f"{self.model} (added by an editor)"


class ChangeKind(models.TextChoices):
    """What an entry of the public record is about."""

    ROW_WITHHELD = "row_withheld", "result withheld as spam"
    ROW_RESTORED = "row_restored", "result restored"
    DIRECTION = "direction", "metric direction"
    ADDED = "added", "result added"
    ADDED_WITHHELD = "added_withheld", "added result withheld as spam"
    ADDED_RESTORED = "added_restored", "added result restored"
    # The archive's catalogue: named by slug (and a repository by its URL).
    CODE = "code", "paper's code"
    METHOD_WITHHELD = "method_withheld", "method withheld as spam"
    METHOD_RESTORED = "method_restored", "method restored"
    PAPER_WITHHELD = "paper_withheld", "paper withheld"
    PAPER_RESTORED = "paper_restored", "paper restored"
    METHOD_DESCRIPTION = "method_description", "method description"
    DATASET_DESCRIPTION = "dataset_description", "dataset description"


# What a catalogue entry's target slug names, and the page it is at.
TARGET_PAGES = {
    ChangeKind.CODE: ("paper", "leaderboards:paper"),
    ChangeKind.PAPER_WITHHELD: ("paper", "leaderboards:paper"),
    ChangeKind.PAPER_RESTORED: ("paper", "leaderboards:paper"),
    ChangeKind.METHOD_WITHHELD: ("method", "leaderboards:method"),
    ChangeKind.METHOD_RESTORED: ("method", "leaderboards:method"),
    ChangeKind.METHOD_DESCRIPTION: ("method", "leaderboards:method"),
    ChangeKind.DATASET_DESCRIPTION: ("dataset", "leaderboards:dataset"),
}


class EditorialChangeQuerySet(models.QuerySet):
    def for_record(self):
        """Newest first, with everything an entry shows, in one query."""
        return (
            self.select_related("leaderboard__task", "leaderboard__dataset", "made_by", "addition")
            .defer(*(f"leaderboard__{name}" for name in BOARD_BLOCKS))
            .order_by("-pk")
        )

    def grouped(self):
        """One entry for each decision: a batch's first entry stands for the batch,
        with `batch_size` (its entries) and `batch_boards` (the boards they are on)."""
        batch = self.model._default_manager.filter(batch=OuterRef("batch"))
        return self.exclude(~Q(batch="") & Exists(batch.filter(pk__lt=OuterRef("pk")))).annotate(
            batch_size=Case(
                When(batch="", then=Value(1)),
                default=Subquery(_counted(batch, Count("pk"))),
            ),
            batch_boards=Case(
                When(batch="", then=Value(1)),
                default=Subquery(_counted(batch, Count("leaderboard", distinct=True))),
            ),
        )

    def of_kind(self, group):
        """Entries of one of KIND_GROUPS' groups."""
        return self.filter(KIND_GROUPS[group][1])


def _counted(entries, aggregate):
    return entries.order_by().values("batch").annotate(n=aggregate).values("n")


# The record's filters by kind (/changes/?kind=): name -> (label, kinds).
KIND_GROUPS = {
    "directions": ("Metric directions", Q(kind=ChangeKind.DIRECTION)),
    "withheld": (
        "Withheld and restored",
        Q(
            kind__in=[
                ChangeKind.ROW_WITHHELD,
                ChangeKind.ROW_RESTORED,
                ChangeKind.ADDED_WITHHELD,
                ChangeKind.ADDED_RESTORED,
                ChangeKind.METHOD_WITHHELD,
                ChangeKind.METHOD_RESTORED,
                ChangeKind.PAPER_WITHHELD,
                ChangeKind.PAPER_RESTORED,
            ]
        ),
    ),
    "added": ("Added results", Q(kind=ChangeKind.ADDED)),
    "catalogue": (
        "Code, method and dataset texts",
        Q(
            kind__in=[
                ChangeKind.CODE,
                ChangeKind.METHOD_DESCRIPTION,
                ChangeKind.DATASET_DESCRIPTION,
            ]
        ),
    ),
    "suggestions": ("Accepted suggestions", Q(suggestion__isnull=False)),
}


class EditorialChange(models.Model):
    """One entry of the public record of editors' work (/changes/).

    Written by leaderboards/record.py in the transaction of the change itself,
    never edited. An archive row's entries name no model and no value: a
    withheld row shows in the record by its reason, not its content. An entry
    about the catalogue (a paper's code, a method, a paper, a dataset) has no
    board: it names its target by slug, which outlasts every re-import.
    """

    leaderboard = models.ForeignKey(
        Leaderboard,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="editorial_changes",
    )
    kind = models.CharField(max_length=20, choices=ChangeKind)
    # The slug of the paper, method or dataset a catalogue entry is about.
    target = models.TextField(blank=True, default="", db_default="")
    # A metric's name, an added result's model, a code link's repository URL;
    # empty for an archive row.
    subject = models.TextField(blank=True, default="")
    old_value = models.TextField(blank=True, default="")
    new_value = models.TextField(blank=True, default="")
    reason = models.TextField(blank=True, default="")
    addition = models.ForeignKey(
        EditorAddition, null=True, blank=True, on_delete=models.SET_NULL, related_name="changes"
    )
    made_at = models.DateTimeField(default=timezone.now)
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Shared by the entries one decision wrote on several rows or boards (a
    # metric's direction on 345 boards): the record lists them as one entry,
    # with the boards behind a link (/changes/?batch=). Empty for a lone entry.
    batch = models.CharField(max_length=32, blank=True, default="", db_default="")
    # The visitor's suggestion the decision accepted: the record credits it.
    suggestion = models.ForeignKey(
        Suggestion, null=True, blank=True, on_delete=models.PROTECT, related_name="changes"
    )

    objects = EditorialChangeQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        indexes = [
            # A board's record, newest first, found by key (/changes/?board=).
            models.Index(fields=["leaderboard", "-id"], name="editorial_change_board_idx"),
            # A batch's entries, in order: the record's grouping asks for its first.
            models.Index(
                fields=["batch", "id"],
                condition=~Q(batch=""),
                name="editorial_change_batch_idx",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=ChangeKind.values), name="editorial_change_kind_valid"
            ),
            # On a board, or on a catalogue entry named by its slug: never neither.
            models.CheckConstraint(
                condition=Q(leaderboard__isnull=False, target="") & ~Q(kind__in=list(TARGET_PAGES))
                | Q(leaderboard__isnull=True, kind__in=list(TARGET_PAGES)) & ~Q(target=""),
                name="editorial_change_has_target",
            ),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} on {self.leaderboard_id or self.target}"

    @property
    def target_url(self):
        """The page of what the entry is about: its board's, or its paper's, method's, dataset's."""
        if self.leaderboard_id is not None:
            return self.leaderboard.get_absolute_url()
        return reverse(TARGET_PAGES[self.kind][1], args=[self.target])

    @property
    def target_label(self):
        if self.leaderboard_id is not None:
            return str(self.leaderboard)
        return f"{TARGET_PAGES[self.kind][0]} {self.target}"

    @property
    def hides_content(self):
        """Whether the entry may not show the result it is about.

        An archive row's entries never do (their rows are withheld or may be
        again); an added result's stop once it is withheld.
        """
        if self.kind in (ChangeKind.ROW_WITHHELD, ChangeKind.ROW_RESTORED):
            return True
        return self.addition is not None and self.addition.withheld

    @property
    def shown_new_value(self):
        if self.kind == ChangeKind.ADDED and self.hides_content:
            return ""
        return self.new_value

    @property
    def editor(self):
        return public_name(self.made_by)


def give_public_name(user, name):
    """Set (unsaved) the name the record gives `user`: spaces folded, the whole name in
    the first part, as get_full_name() joins both."""
    user.first_name, user.last_name = " ".join(name.split()), ""


def public_name(user):
    """How the site names an editor in public: the name they gave, never their login."""
    name = user.get_full_name().strip() if user is not None else ""
    return name or "an editor"

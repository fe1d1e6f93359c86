"""The boards: a leaderboard, its areas, metrics and rows, and each row's values."""

import time

from django.db import models
from django.db.models import F, Q
from django.urls import reverse

from leaderboards.format.figures import AGREEMENT, MIN_PAIRS, OrderEvidence, file_direction
from leaderboards.models.catalogue import Area, Dataset, Paper, Task
from leaderboards.models.fields import LEADING_INDEX, OrderedJSONField, readable_instant


class Direction(models.TextChoices):
    """Which way a metric's results improve."""

    HIGHER = "higher", "higher is better"
    LOWER = "lower", "lower is better"
    UNKNOWN = "unknown", "unknown"


def page_version_now():
    """A board's page version for a change made now: microseconds since the epoch.

    A time, not a count from zero, so a board made again after a flush or a
    delete never meets a page cached for its predecessor, and the version says
    when the board last changed (its pages' Last-Modified).
    """
    return time.time_ns() // 1000


# The result a list shows for a board; see Leaderboard.top_model.
TOP_RESULT = (
    "top_model",
    "top_metric",
    "top_value",
    "top_is_best",
    "top_inferred",
    "top_paper_date",
)

# A board's blocks kept as the file wrote them: read only where they are served.
BOARD_BLOCKS = ("source", "extra")


# Boards by their newest result, those with none last, ties by slug: spelled
# like Paper's NEWEST_FIRST, so one index serves it on both databases.
BOARDS_NEWEST_FIRST = (
    models.ExpressionWrapper(Q(newest_paper_date=None), output_field=models.BooleanField()).asc(),
    models.F("newest_paper_date").desc(),
    models.F("slug").asc(),
)

# Boards by how old their best result is, the oldest first; boards with no
# best result (no direction, or no dated best) last: they are unknown, not old.
BOARDS_OLDEST_BEST_FIRST = (
    models.ExpressionWrapper(Q(top_paper_date=None), output_field=models.BooleanField()).asc(),
    models.F("top_paper_date").asc(),
    models.F("slug").asc(),
)

# Boards by when their code was last checked (checked_at), the latest first;
# boards never checked last.
BOARDS_CHECKED_FIRST = (
    models.ExpressionWrapper(Q(checked_at=None), output_field=models.BooleanField()).asc(),
    models.F("checked_at").desc(),
    models.F("slug").asc(),
)


class LeaderboardQuerySet(models.QuerySet):
    def titled(self):
        """The board with the task and dataset its name is made of (str()), in one query."""
        return self.select_related("task", "dataset")

    def without_blocks(self):
        """The boards without their file's blocks (BOARD_BLOCKS), which only its own pages serve."""
        return self.defer(*BOARD_BLOCKS)

    def named(self):
        """The board with its task, dataset and main area, in one query.

        What the board's own pages read this way; its metrics, areas and rows
        they read in plain SQL (web/export.py, PageData).
        """
        return self.titled().select_related("category")

    def with_areas_and_metrics(self):
        """The named board with its areas and its metrics, each in the file's order.

        One query plus two prefetches, for code that walks a board's objects
        (the editors' form for an added result); the pages read these in SQL.
        """
        return self.named().prefetch_related(
            models.Prefetch(
                "area_links",
                queryset=LeaderboardArea.objects.select_related("area").order_by("position"),
            ),
            models.Prefetch("metrics", queryset=Metric.objects.order_by("position")),
        )

    def for_list(self):
        """What a list of boards shows (_leaderboard_table.html), in one query.

        Only those columns: the file's blocks a board carries (its source,
        unknown keys) are decoded and checked when read, which cost more than
        the rest of a list page's work.
        """
        return self.titled().only(
            "slug", "row_count", "newest_paper_date", *TOP_RESULT, "checked_at",
            "task__slug", "task__name", "dataset__slug", "dataset__name",
        )  # fmt: skip

    def locked(self):
        """These boards, locked until the transaction ends, always in the same order.

        Loads and editors lock the boards they change before reading them, so
        neither writes over what the other committed meanwhile; taking locks in
        one order (by pk) means two of them never wait on each other. SQLite
        has no row locks: there every write transaction is IMMEDIATE and runs
        alone (settings).
        """
        return self.select_for_update().order_by("pk")

    def lock(self, ids):
        """Lock the boards of these ids (locked()); the ids found, in lock order."""
        return list(self.filter(pk__in=set(ids)).locked().values_list("pk", flat=True))


class Leaderboard(models.Model):
    """One page file's board: a task on a dataset, with the figures lists show."""

    slug = models.SlugField(max_length=300, unique=True)
    task = models.ForeignKey(
        Task, on_delete=models.PROTECT, related_name="leaderboards", **LEADING_INDEX
    )
    dataset = models.ForeignKey(
        Dataset, on_delete=models.PROTECT, related_name="leaderboards", **LEADING_INDEX
    )
    category = models.ForeignKey(
        Area, null=True, on_delete=models.PROTECT, related_name="main_leaderboards"
    )
    category_note = models.TextField(null=True, blank=True)
    description = models.TextField(null=True, blank=True)
    description_from = models.CharField(max_length=100, null=True, blank=True)
    # The file's `source` block, verbatim; its spam count is the archive's,
    # to which the export adds the rows editors withheld.
    source = OrderedJSONField(default=dict)
    direction_note = models.TextField(null=True, blank=True)
    # Top-level keys this site does not know, exported as they came.
    extra = OrderedJSONField(default=dict, blank=True)
    source_sha256 = models.CharField(max_length=64, blank=True, default="")
    read_at = models.DateTimeField(null=True, blank=True)
    editor_description = models.TextField(null=True, blank=True)
    # Figures of the shown rows, kept by the loader for lists and filters.
    row_count = models.PositiveIntegerField(default=0)
    newest_paper_date = models.DateField(null=True, blank=True)
    verified_row_count = models.PositiveIntegerField(default=0)
    since_archive_entry_count = models.PositiveIntegerField(default=0)
    # The result lists show for this board, kept by stats.refresh_leaderboard():
    # the best by the first metric when its direction is known (top_is_best),
    # else the archive's first row. The value is the stored string.
    top_model = models.TextField(blank=True, default="")
    top_metric = models.CharField(max_length=300, blank=True, default="")
    top_value = models.TextField(null=True, blank=True)
    top_is_best = models.BooleanField(default=False)
    # The direction that made it the best is the archive's ranking's, not stated.
    top_inferred = models.BooleanField(default=False)
    # The paper date of that best result: null where no result is best (no
    # known direction) or the best has no date. How fresh the board is.
    top_paper_date = models.DateField(null=True, blank=True)
    # The newest snapshot's since_archive.coverage.papers_not_yet_extracted: the
    # site's newer papers (site-wide, not this board's) not yet extracted when
    # the snapshot was read; null without a snapshot or that figure.
    papers_waiting = models.PositiveIntegerField(null=True, blank=True)
    # When Syntology last read the board's code: its newest snapshot's read_at;
    # null with no snapshot (code not checked). Not read_at above, which is the
    # board's version moment and, without a snapshot, the archive copy's date.
    checked_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Its pages' cache version (leaderboards/upkeep/cache.py): raised after every
    # change to the board, so a change retires this board's cached pages only.
    version = models.BigIntegerField(default=page_version_now)
    # How many entries the public record (/changes/) holds for the board, kept
    # by leaderboards/record.py in the transaction of each change: the page
    # shows it without a count query, and skips looking for added results on
    # the many boards no editor has touched.
    editorial_change_count = models.PositiveIntegerField(default=0)
    # The key its page's parts were stored under at load time (web/prepared.py): read
    # with the board's versions, so a worker reads them only where they are the page's,
    # and no other board's first visit costs a look.
    prepared_key = models.CharField(max_length=255, blank=True, default="", db_default="")

    objects = LeaderboardQuerySet.as_manager()

    class Meta:
        ordering = ["slug"]
        indexes = [
            models.Index(fields=["task", "dataset"], name="leaderboard_task_dataset_idx"),
            models.Index(fields=["row_count"], name="leaderboard_row_count_idx"),
            models.Index(fields=["newest_paper_date"], name="leaderboard_newest_idx"),
            # The list filtered by task or dataset, in its order, with the
            # minimum rows checked in the index: a broad filter's thousands of
            # boards are sorted without reading one of them.
            models.Index(fields=["task", "slug", "row_count"], name="leaderboard_task_list_idx"),
            models.Index(
                fields=["dataset", "slug", "row_count"], name="leaderboard_dataset_list_idx"
            ),
            models.Index(fields=["-row_count", "slug"], name="leaderboard_by_rows_idx"),
            # The list's "newest result" order.
            models.Index(*BOARDS_NEWEST_FIRST, name="leaderboard_newest_first_idx"),
            # The list's filters by verified rows and newer results: counted
            # from these rather than from every board's row, JSON blocks and all.
            models.Index(fields=["verified_row_count"], name="leaderboard_verified_idx"),
            models.Index(fields=["since_archive_entry_count"], name="leaderboard_since_idx"),
            # The list's freshness sorts and filters ("best result older than",
            # "checked in the last"), each read in its order from its own index.
            models.Index(*BOARDS_OLDEST_BEST_FIRST, name="leaderboard_oldest_best_idx"),
            models.Index(*BOARDS_CHECKED_FIRST, name="leaderboard_checked_idx"),
            # Their filters alone, under any other sort: a range of each.
            models.Index(fields=["top_paper_date"], name="leaderboard_best_date_idx"),
            models.Index(fields=["checked_at"], name="leaderboard_checked_at_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=readable_instant("read_at"), name="leaderboard_read_at_readable"
            ),
        ]

    def __str__(self):
        return f"{self.task.name} on {self.dataset.name}"

    def get_absolute_url(self):
        return reverse("leaderboards:leaderboard", args=[self.slug])

    @property
    def path(self):
        return f"/sota/{self.slug}"

    @property
    def shown_description(self):
        """The editor's text; else, for a description taken from the task, the task's."""
        if self.editor_description is not None:
            return self.editor_description
        if self.description_from == "task" and self.task.editor_description is not None:
            return self.task.editor_description
        return self.description


class LeaderboardArea(models.Model):
    """One of a board's areas: an entry of the page's `categories`, in the file's order."""

    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="area_links", **LEADING_INDEX
    )
    area = models.ForeignKey(Area, on_delete=models.PROTECT, related_name="leaderboard_links")
    position = models.PositiveSmallIntegerField()

    class Meta:
        verbose_name = "category"
        verbose_name_plural = "categories"
        constraints = [
            models.UniqueConstraint(fields=["leaderboard", "area"], name="leaderboard_area_unique"),
            models.UniqueConstraint(
                fields=["leaderboard", "position"], name="leaderboard_area_position_unique"
            ),
        ]

    def __str__(self):
        # Read with its area (select_related) wherever a list of them is shown.
        return self.area.name


def order_settles(direction):
    """Q of the metrics whose archive order settles `direction` (OrderEvidence.settled)."""
    return Q(
        order_lean=direction,
        order_pairs__gte=MIN_PAIRS,
        order_agree__gte=F("order_pairs") * AGREEMENT,
    )


class Metric(models.Model):
    """One of a board's metrics, with the direction the file and an editor gave it."""

    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="metrics", **LEADING_INDEX
    )
    name = models.CharField(max_length=300)
    position = models.PositiveSmallIntegerField()
    # As the file wrote it: null, "higher", "lower", or a value this site does
    # not recognise, kept so the export gives it back.
    source_direction = models.CharField(max_length=100, null=True, blank=True)
    editor_direction = models.CharField(max_length=10, choices=Direction, null=True, blank=True)
    # How the first metric's values run down the archive's order (format.figures.
    # order_evidence()), kept by the loader and upkeep.figures with the board's
    # figures: the direction PwC's ranking shows, used where neither an editor
    # nor the file gives one. Never exported: the file's by_metric stays its own.
    order_lean = models.CharField(max_length=10, null=True, blank=True)
    order_agree = models.PositiveIntegerField(default=0)
    order_pairs = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["leaderboard", "position"]
        constraints = [
            models.UniqueConstraint(fields=["leaderboard", "name"], name="metric_name_unique"),
            models.UniqueConstraint(
                fields=["leaderboard", "position"], name="metric_position_unique"
            ),
            models.CheckConstraint(
                condition=Q(editor_direction__isnull=True)
                | Q(editor_direction__in=Direction.values),
                name="metric_editor_direction_valid",
            ),
        ]

    def __str__(self):
        return self.name

    @property
    def order(self):
        return OrderEvidence(self.order_lean, self.order_agree, self.order_pairs)

    @property
    def stated_direction(self):
        """ "higher", "lower" or None: the editor's word first, then the file's."""
        if self.editor_direction:
            return None if self.editor_direction == Direction.UNKNOWN else self.editor_direction
        return file_direction(self.source_direction)

    @property
    def inferred_direction(self):
        """The direction the archive's ranking settles, where no one states one.

        An editor's "unknown" is a statement too: it overrules the inference.
        """
        if self.editor_direction or file_direction(self.source_direction):
            return None
        return self.order.settled

    @property
    def direction(self):
        """ "higher", "lower" or None: stated (by an editor, then the file), else inferred."""
        return self.stated_direction or self.inferred_direction

    @property
    def direction_set_by(self):
        if self.editor_direction:
            return "editor"
        if self.inferred_direction:
            return "archive order"
        return "file" if self.source_direction is not None else None

    @property
    def exported_direction(self):
        """What `by_metric` says for this metric in the page file."""
        if self.editor_direction:
            return self.direction
        return self.source_direction


class RowQuerySet(models.QuerySet):
    def shown(self):
        """Rows not withheld by an editor: what every public page and the API count."""
        return self.filter(withheld=False)

    def with_boards(self):
        """Rows with their board and what names it (its task and dataset), in one query."""
        return self.select_related("leaderboard__task", "leaderboard__dataset")

    def without_blocks(self):
        """The rows without their unknown keys, nor their boards' blocks (BOARD_BLOCKS).

        Only a board's page file writes them; a list of results that read them
        decoded a board's blocks once for every row it showed of that board.
        """
        return self.defer("extra", *(f"leaderboard__{name}" for name in BOARD_BLOCKS))

    def of_models(self, slugs):
        """The shown rows of these models (Row.model_slug), with their boards, in one query."""
        return self.shown().filter(model_slug__in=slugs).with_boards().without_blocks()

    def newest_results(self):
        """Shown rows with a paper date, newest first, with their board and paper.

        What the home page and the feed list (each slices it) and /healthz
        reads, in one query.
        """
        return (
            self.shown()
            .filter(paper_date__isnull=False)
            .with_boards()
            .without_blocks()
            .select_related("paper")
            .order_by("-paper_date", "-pk")
        )


class Row(models.Model):
    """One result on a board as the page file gives it: a model, its paper and its values."""

    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="rows", **LEADING_INDEX
    )
    rank = models.PositiveIntegerField(help_text="rank_in_archive_order")
    model = models.TextField()
    uses_additional_data = models.BooleanField(default=False)
    paper = models.ForeignKey(
        Paper, null=True, blank=True, on_delete=models.PROTECT, related_name="rows"
    )
    # The row's own copy of its paper's details, as the file wrote them.
    paper_title = models.TextField(null=True, blank=True)
    paper_url = models.TextField(null=True, blank=True)
    paper_date = models.DateField(null=True, blank=True)
    code = models.TextField(null=True, blank=True)
    n_code_links = models.PositiveIntegerField(default=0)
    extra = OrderedJSONField(default=dict, blank=True)
    # Read from `extra` by the loader (format.rules.archive_says_code, row_tags):
    # whether the source said the paper has code, where it gives no URL, and its
    # tags, so the page shows and filters them without decoding every row's extra.
    archive_says_code = models.BooleanField(null=True, blank=True)
    tags = models.TextField(blank=True, default="")
    # What stays the same when a newer file re-ranks the row (format.rules.row_keys):
    # editors' decisions find the row by it, whatever its id and rank.
    key = models.CharField(max_length=64)
    # The model the row names, across boards (format.rules.model_slug of its name and
    # its paper's identity), written by the loader: its /model/ page reads by it.
    model_slug = models.CharField(max_length=80, default="")
    # Copied from the board's RowDecision by the loader and by editors' actions.
    withheld = models.BooleanField(default=False)
    withheld_reason = models.TextField(blank=True, default="")

    objects = RowQuerySet.as_manager()

    class Meta:
        ordering = ["leaderboard", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["leaderboard", "rank"], name="row_rank_unique"),
            models.UniqueConstraint(fields=["leaderboard", "key"], name="row_key_unique"),
            # An editor who withholds a row says why; the reason stays on record.
            models.CheckConstraint(
                condition=Q(withheld=False) | ~Q(withheld_reason=""),
                name="row_withheld_has_reason",
                violation_error_message="Say why the row is withheld.",
            ),
        ]
        indexes = [
            models.Index(fields=["paper_date"], name="row_paper_date_idx"),
            models.Index(fields=["model_slug"], name="row_model_slug_idx"),
        ]

    def __str__(self):
        return f"#{self.rank} {self.model}"


class MetricValue(models.Model):
    """One row's value for one of its board's metrics: the string as written, and its number."""

    row = models.ForeignKey(Row, on_delete=models.CASCADE, related_name="values", **LEADING_INDEX)
    metric = models.ForeignKey(
        Metric, on_delete=models.CASCADE, related_name="values", **LEADING_INDEX
    )
    raw = models.TextField(null=True, blank=True)
    number = models.FloatField(null=True, blank=True)
    # Where the key stood in the row's `metrics` object, for an exact export.
    position = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["row", "metric"], name="value_row_metric_unique"),
        ]
        indexes = [models.Index(fields=["metric", "number"], name="value_metric_number_idx")]

    def __str__(self):
        return f"{self.metric_id}={self.raw}"

"""Tasks, datasets, papers and leaderboards, as the page files describe them.

Fields named `source_*` (and the verbatim JSON blocks) hold what a file said;
fields named `editor_*` hold what an editor decided. A re-load writes only the
first kind. Decisions about rows and metrics, which a re-load replaces, are
kept by key in RowDecision and DirectionDecision; a row's withheld flag and a
metric's editor direction are their copies where the pages read them.
"""

import json
import logging
import time
from datetime import UTC, datetime
from urllib.parse import urlencode

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length, Upper
from django.urls import reverse
from django.utils import timezone

from leaderboards.format import servable
from leaderboards.format.rules import compact_json, paper_name
from leaderboards.format.rules import n_samples as samples

logger = logging.getLogger(__name__)


class UnreadableJSON:
    """A stored JSON text that cannot be served, kept exactly as stored.

    What a field holds instead of a value that will not decode or that
    servable.problem() refuses: every query that selects the column still
    answers, a page shows that the block could not be shown, and saving the
    object writes the same text back.
    """

    __slots__ = ("text", "reason")

    def __init__(self, text, reason):
        self.text = text
        self.reason = reason

    def __str__(self):
        return f"(stored value cannot be shown: {self.reason})"

    def __eq__(self, other):
        return isinstance(other, UnreadableJSON) and other.text == self.text

    def __hash__(self):
        return hash(self.text)


class OrderedJSONField(models.TextField):
    """JSON stored as text, so key order survives every database.

    PostgreSQL's jsonb sorts object keys, and the export must give back a
    file's keys in the file's order.
    """

    def from_db_value(self, value, expression, connection):
        if value is None:
            return None
        try:
            decoded = json.loads(value)
        except RecursionError:
            reason = "nested deeper than Python can read"
        except ValueError as error:
            # Not JSON, or an integer of more digits than Python converts.
            reason = str(error)[:200]
        else:
            reason = servable.problem(decoded)
            if reason is None:
                return decoded
        logger.error(
            "%s.%s holds JSON that cannot be served: %s", self.model.__name__, self.name, reason
        )
        return UnreadableJSON(value, reason)

    def to_python(self, value):
        if isinstance(value, str):
            return json.loads(value)
        return value

    def get_prep_value(self, value):
        if value is None:
            return None
        if isinstance(value, UnreadableJSON):
            return value.text
        return compact_json(value)

    def value_to_string(self, obj):
        return self.get_prep_value(self.value_from_object(obj))


# The instants Python's datetime can hold, in UTC. PostgreSQL stores a wider
# range (an offset moves 0001-01-01T00:00:00+01:00 to year 0, and
# 9999-12-31T23:59:59-01:00 to year 10000), but psycopg cannot read such a
# value back, so every query that selected the row failed: lists, feeds, the API.
EARLIEST = datetime.min.replace(tzinfo=UTC)
LATEST = datetime.max.replace(tzinfo=UTC)


def readable_instant(name):
    """A check that the datetime column `name` is null or within Python's range."""
    return Q(**{f"{name}__isnull": True}) | Q(**{f"{name}__gte": EARLIEST}) & Q(
        **{f"{name}__lte": LATEST}
    )


class Direction(models.TextChoices):
    HIGHER = "higher", "higher is better"
    LOWER = "lower", "lower is better"
    UNKNOWN = "unknown", "unknown"


class Area(models.Model):
    slug = models.SlugField(max_length=200, unique=True)
    name = models.CharField(max_length=200, unique=True)
    # Kept by stats.refresh_counts() after every load, for lists sorted by size.
    task_count = models.PositiveIntegerField(default=0)
    leaderboard_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("leaderboards:area", args=[self.slug])


class TaskQuerySet(models.QuerySet):
    def in_area(self, area):
        """Tasks in an area (a pk): a probe of the link's unique index per task, so
        a list read in its sort's index order stops once its page is full."""
        return self.filter(
            models.Exists(Task.areas.through.objects.filter(task=models.OuterRef("pk"), area=area))
        )


class Task(models.Model):
    slug = models.SlugField(max_length=300, unique=True)
    name = models.CharField(max_length=500)
    note = models.TextField(null=True, blank=True)
    description = models.TextField(blank=True, default="")
    synonyms = OrderedJSONField(default=list, blank=True)
    source_link = models.TextField(blank=True, default="")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="subtasks"
    )
    areas = models.ManyToManyField(Area, blank=True, related_name="tasks")
    editor_description = models.TextField(null=True, blank=True)
    editor_note = models.TextField(null=True, blank=True)
    leaderboard_count = models.PositiveIntegerField(default=0)
    # Its own leaderboards and those of every subtask below it, kept by
    # refresh_counts(): a parent such as Dialogue holds none of its own.
    tree_leaderboard_count = models.PositiveIntegerField(default=0)
    row_count = models.PositiveIntegerField(default=0)

    objects = TaskQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        indexes = [
            models.Index(fields=["name"], name="task_name_idx"),
            models.Index(fields=["leaderboard_count"], name="task_leaderboard_count_idx"),
            models.Index(fields=["row_count"], name="task_row_count_idx"),
            # The list's sorts: biggest first, by name within a size.
            models.Index(fields=["-leaderboard_count", "name"], name="task_by_boards_idx"),
            models.Index(fields=["-row_count", "name"], name="task_by_rows_idx"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("leaderboards:task", args=[self.slug])

    @property
    def shown_description(self):
        """The editor's text where there is one, else the source's."""
        return self.description if self.editor_description is None else self.editor_description

    @property
    def shown_note(self):
        return self.note if self.editor_note is None else self.editor_note

    @property
    def subtask_leaderboard_count(self):
        return self.tree_leaderboard_count - self.leaderboard_count


class BusiestTask(models.Model):
    """One of the tasks with the most leaderboards in an area, as the home page lists them.

    Kept by upkeep.figures.refresh_counts() from the counts it orders by: the
    home page reads these few rows rather than ranking every task of every area.
    """

    area = models.ForeignKey(Area, on_delete=models.CASCADE, related_name="busiest_tasks")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="+")
    place = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["area", "place"], name="busiest_task_place_unique"),
            models.UniqueConstraint(fields=["area", "task"], name="busiest_task_unique"),
        ]

    def __str__(self):
        return f"{self.place}. in area {self.area_id}: task {self.task_id}"


class Dataset(models.Model):
    slug = models.SlugField(max_length=300, unique=True)
    name = models.CharField(max_length=500)
    full_name = models.TextField(blank=True, default="")
    description = models.TextField(blank=True, default="")
    url = models.TextField(blank=True, default="")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="subdatasets"
    )
    editor_description = models.TextField(null=True, blank=True)
    leaderboard_count = models.PositiveIntegerField(default=0)
    row_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["name"]
        indexes = [
            models.Index(fields=["name"], name="dataset_name_idx"),
            models.Index(fields=["leaderboard_count"], name="dataset_leaderboard_count_idx"),
            models.Index(fields=["-leaderboard_count", "name"], name="dataset_by_boards_idx"),
            models.Index(fields=["-row_count", "name"], name="dataset_by_rows_idx"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("leaderboards:dataset", args=[self.slug])

    @property
    def shown_description(self):
        return self.description if self.editor_description is None else self.editor_description


# Papers newest first, undated last, ties by id. Not "date DESC NULLS LAST":
# PostgreSQL sorts NULLs high and SQLite low, so no index served that order on
# both, and PostgreSQL sorted every paper for each page of the list.
NEWEST_FIRST = (
    models.ExpressionWrapper(Q(date=None), output_field=models.BooleanField()).asc(),
    models.F("date").desc(),
    models.F("id").desc(),
)


# For a foreign key that a unique constraint or an index of its model starts
# with: that index finds a parent's rows as well as one of the key alone, which
# every insert of a load would keep up to date for nothing (two of a metric
# value's three indexes were such).
LEADING_INDEX = {"db_index": False}


class Paper(models.Model):
    slug = models.SlugField(max_length=300, unique=True)
    title = models.TextField(blank=True, default="")
    url = models.TextField(blank=True, default="")
    date = models.DateField(null=True, blank=True)
    arxiv_id = models.CharField(max_length=32, blank=True, default="", db_index=True)
    # Kept by stats.refresh_counts(): any shown row with an http(s) code link,
    # any row whose code samples ran in the newest snapshot.
    has_code = models.BooleanField(default=False)
    verified = models.BooleanField(default=False)

    class Meta:
        ordering = ["-date", "title"]
        indexes = [
            models.Index(fields=["title"], name="paper_title_idx"),
            # Covers the list's filters by year, code and verification, and
            # anything else by date alone.
            models.Index(fields=["date", "has_code", "verified"], name="paper_date_flags_idx"),
            # The list's order, newest first (NEWEST_FIRST), read in either
            # direction (pages past the middle are read backwards).
            models.Index(*NEWEST_FIRST, name="paper_newest_idx"),
            # The list's filter by code that ran, without a year: counted from
            # this rather than from the whole of paper_date_flags_idx.
            models.Index(fields=["verified"], name="paper_verified_idx"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("leaderboards:paper", args=[self.slug])

    @property
    def name(self):
        return paper_name(self.title, self.url) or self.slug


def page_version_now():
    """A board's page version for a change made now: microseconds since the epoch.

    A time, not a count from zero, so a board made again after a flush or a
    delete never meets a page cached for its predecessor, and the version says
    when the board last changed (its pages' Last-Modified).
    """
    return time.time_ns() // 1000


# The result a list shows for a board; see Leaderboard.top_model.
TOP_RESULT = ("top_model", "top_metric", "top_value", "top_is_best")


# Boards by their newest result, those with none last, ties by slug: spelled
# like Paper's NEWEST_FIRST, so one index serves it on both databases.
BOARDS_NEWEST_FIRST = (
    models.ExpressionWrapper(Q(newest_paper_date=None), output_field=models.BooleanField()).asc(),
    models.F("newest_paper_date").desc(),
    models.F("slug").asc(),
)


class LeaderboardQuerySet(models.QuerySet):
    def named(self):
        """The board with its task, dataset and main area, in one query.

        What the board's own pages read this way; its metrics, areas and rows
        they read in plain SQL (web/export.py, PageData).
        """
        return self.select_related("task", "dataset", "category")

    def for_page(self):
        """Everything the page header needs, in one query plus two prefetches."""
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
        return self.select_related("task", "dataset").only(
            "slug", "row_count", "newest_paper_date", *TOP_RESULT,
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


class Leaderboard(models.Model):
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
    updated_at = models.DateTimeField(auto_now=True)
    # Its pages' cache version (leaderboards/upkeep/cache.py): raised after every
    # change to the board, so a change retires this board's cached pages only.
    version = models.BigIntegerField(default=page_version_now)
    # How many entries the public record (/changes/) holds for the board, kept
    # by leaderboards/record.py in the transaction of each change: the page
    # shows it without a count query, and skips looking for added results on
    # the many boards no editor has touched.
    editorial_change_count = models.PositiveIntegerField(default=0)

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
    """The page's `categories`, in the file's order."""

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


class Metric(models.Model):
    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="metrics", **LEADING_INDEX
    )
    name = models.CharField(max_length=300)
    position = models.PositiveSmallIntegerField()
    # As the file wrote it: null, "higher", "lower", or a value this site does
    # not recognise, kept so the export gives it back.
    source_direction = models.CharField(max_length=100, null=True, blank=True)
    editor_direction = models.CharField(max_length=10, choices=Direction, null=True, blank=True)

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
    def direction(self):
        """ "higher", "lower" or None: the editor's word first, then the file's."""
        if self.editor_direction:
            return None if self.editor_direction == Direction.UNKNOWN else self.editor_direction
        if self.source_direction in (Direction.HIGHER, Direction.LOWER):
            return self.source_direction
        return None

    @property
    def direction_set_by(self):
        if self.editor_direction:
            return "editor"
        return "file" if self.source_direction is not None else None

    @property
    def exported_direction(self):
        """What `by_metric` says for this metric in the page file."""
        if self.editor_direction:
            return self.direction
        return self.source_direction


class RowQuerySet(models.QuerySet):
    def shown(self):
        return self.filter(withheld=False)

    def for_page(self):
        """Rows in archive order with their paper and values, in two queries."""
        return (
            self.shown()
            .select_related("paper")
            .prefetch_related(
                models.Prefetch(
                    "values",
                    queryset=MetricValue.objects.select_related("metric").order_by("position"),
                )
            )
            .order_by("rank")
        )


class Row(models.Model):
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
    # What stays the same when a newer file re-ranks the row (format.rules.row_keys):
    # editors' decisions find the row by it, whatever its id and rank.
    key = models.CharField(max_length=64)
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
        ]

    def __str__(self):
        return f"#{self.rank} {self.model}"


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
    direction = models.CharField(max_length=10, choices=Direction)
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


class MetricValue(models.Model):
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


class SiteState(models.Model):
    """The one row saying when the public pages' data last changed.

    Every cached page is keyed by `data_version`, so bumping it
    (cache.bump_data_version) retires every cached page at once, in every
    process that shares the database. Pages that list boards are keyed by
    `catalogue_version` too, bumped whenever any board changes; a board's own
    pages by its `Leaderboard.version` instead.
    """

    data_version = models.PositiveBigIntegerField(default=0)
    catalogue_version = models.PositiveBigIntegerField(default=0)
    changed_at = models.DateTimeField()
    # The site's totals, kept by upkeep.figures.refresh_counts() with the
    # catalogue's other counts: counting 150,000 boards and half a million
    # papers on every home page took longer than the rest of the page. Null
    # until first counted (the row is also made by the first cache bump), and
    # then the lists count for themselves.
    leaderboard_count = models.PositiveIntegerField(null=True, blank=True)
    task_count = models.PositiveIntegerField(null=True, blank=True)
    row_count = models.PositiveBigIntegerField(null=True, blank=True)
    paper_count = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(pk=1), name="site_state_single_row")]

    def __str__(self):
        return f"data version {self.data_version}"


class UpkeepPending(models.Model):
    """A chunk of pages committed whose end-of-load work has not completed yet.

    A load adds a row in the same transaction as each chunk's pages and deletes
    it only once the catalogue figures, the search index and the data version
    have caught up; a load that finds one does that work even when every file
    is unchanged, so a load killed or failing at its end is completed by
    running it again. Rows, not one flag: a load deletes only the markers it
    saw before its end work began, never those of a load that wrote after.
    """

    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"upkeep pending since {self.created_at:%Y-%m-%d %H:%M:%S}"


class SearchKind(models.TextChoices):
    TASK = "task", "Tasks"
    DATASET = "dataset", "Datasets"
    LEADERBOARD = "leaderboard", "Leaderboards"
    PAPER = "paper", "Papers"
    MODEL = "model", "Models"


class SearchEntry(models.Model):
    """One name the site search can find, and the page it leads to.

    Derived, never edited: search.refresh_index() rebuilds the table after a
    load. The full-text index over `name` is the database's own (a GIN
    expression index on PostgreSQL, an FTS5 table on SQLite), made by the
    migration because neither can be declared for both databases in `Meta`.
    """

    kind = models.CharField(max_length=12, choices=SearchKind)
    name = models.TextField()
    # The slug of the page the entry links to: a model's is its leaderboard's.
    slug = models.CharField(max_length=300)
    # What tells two entries of the same name apart (a model's leaderboard).
    context = models.TextField(blank=True, default="")

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=SearchKind.values), name="search_entry_kind_valid"
            ),
        ]
        indexes = [
            # Names of a kind shortest first, the search's order: suggestions for a
            # word's first letters walk it instead of sorting every match.
            models.Index(
                models.F("kind"),
                Length("name"),
                models.F("name"),
                name="search_entry_kind_length_idx",
            ),
            # A name equal to the query (ignoring case) goes first wherever it is:
            # found here, not by reading every name of the query's length (50,000
            # model names at PwC size). Both databases' upper() fold ASCII only,
            # as SQLite's LIKE does.
            models.Index(models.F("kind"), Upper("name"), name="search_entry_kind_upper_idx"),
        ]

    def __str__(self):
        return f"{self.kind}: {self.name}"

    def get_absolute_url(self):
        if self.kind != SearchKind.MODEL:
            return reverse(f"leaderboards:{self.kind}", args=[self.slug])
        # The board filtered to the model: its row may be pages away from the first.
        board = reverse("leaderboards:leaderboard", args=[self.slug])
        return f"{board}?{urlencode({'model': self.name})}#results"


class SearchPrefix(models.Model):
    """One of the first entries of a kind whose name has a word beginning with `prefix`.

    Derived, never edited: search.refresh_prefixes() writes them after each
    load, for every prefix of one to three letters and every longer one that
    begins many names, and every pair and three of initials ("l m": a word
    beginning with each): the first few entries of each kind in the search's order.
    A letter or two match tens of thousands of names; suggestions for them are
    read here instead of ranking every match. A prefix with no rows is not
    known, and is searched.
    """

    prefix = models.CharField(max_length=32)
    entry = models.ForeignKey(SearchEntry, on_delete=models.CASCADE, related_name="prefixes")
    # The entry's words as the database's full-text engine split and folded them,
    # space-separated: a query of several words is checked against them.
    words = models.TextField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["prefix", "entry"], name="search_prefix_unique"),
        ]

    def __str__(self):
        return f"{self.prefix}: {self.entry}"


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
    code = models.TextField(blank=True, default="")
    note = models.TextField(help_text="Where the result comes from and why it belongs here.")
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
    ROW_WITHHELD = "row_withheld", "result withheld as spam"
    ROW_RESTORED = "row_restored", "result restored"
    DIRECTION = "direction", "metric direction"
    ADDED = "added", "result added"
    ADDED_WITHHELD = "added_withheld", "added result withheld as spam"
    ADDED_RESTORED = "added_restored", "added result restored"


class EditorialChangeQuerySet(models.QuerySet):
    def for_record(self):
        """Newest first, with everything an entry shows, in one query."""
        return self.select_related(
            "leaderboard__task", "leaderboard__dataset", "made_by", "addition"
        ).order_by("-pk")


class EditorialChange(models.Model):
    """One entry of the public record of editors' work (/changes/).

    Written by leaderboards/record.py in the transaction of the change itself,
    never edited. An archive row's entries name no model and no value: a
    withheld row shows in the record by its reason, not its content.
    """

    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="editorial_changes"
    )
    kind = models.CharField(max_length=20, choices=ChangeKind)
    # A metric's name, an added result's model; empty for an archive row.
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

    objects = EditorialChangeQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        indexes = [
            # A board's record, newest first, found by key (/changes/?board=).
            models.Index(fields=["leaderboard", "-id"], name="editorial_change_board_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=ChangeKind.values), name="editorial_change_kind_valid"
            ),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} on {self.leaderboard_id}"

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


def public_name(user):
    """How the site names an editor in public: the name they gave, never their login."""
    name = user.get_full_name().strip() if user is not None else ""
    return name or "an editor"

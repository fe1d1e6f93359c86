"""The catalogue: areas, tasks, datasets and papers, which boards are filed under."""

from django.db import models
from django.db.models import Q
from django.urls import reverse

from leaderboards.format.rules import paper_name
from leaderboards.models.fields import OrderedJSONField


class Area(models.Model):
    """A research area (Computer Vision, ...), which tasks and boards are filed under."""

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
    """A task boards measure, perhaps a subtask of another, in one or more areas."""

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


class DatasetModality(models.Model):
    """A kind of data a dataset holds (Images, Texts, ...), as the datasets file names it."""

    slug = models.SlugField(max_length=200, unique=True)
    name = models.CharField(max_length=200, unique=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "dataset modalities"

    def __str__(self):
        return self.name


class DatasetLanguage(models.Model):
    """A language a dataset's texts or speech are in."""

    slug = models.SlugField(max_length=200, unique=True)
    name = models.CharField(max_length=200, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Dataset(models.Model):
    """A dataset boards measure on, perhaps a part of another."""

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
    # From the archive's datasets file (SPEC 2.4); the page files know none of it.
    homepage = models.TextField(blank=True, default="", db_default="")
    introduced_date = models.DateField(null=True, blank=True)
    paper = models.ForeignKey(
        "Paper",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="introduced_datasets",
    )
    paper_title = models.TextField(blank=True, default="", db_default="")
    paper_url = models.TextField(blank=True, default="", db_default="")
    warning = models.TextField(blank=True, default="", db_default="")
    variants = OrderedJSONField(default=list, blank=True, db_default=[])
    # [{url, repo, frameworks}], as the file lists them.
    data_loaders = OrderedJSONField(default=list, blank=True, db_default=[])
    modalities = models.ManyToManyField(DatasetModality, blank=True, related_name="datasets")
    languages = models.ManyToManyField(DatasetLanguage, blank=True, related_name="datasets")
    tasks = models.ManyToManyField(Task, blank=True, related_name="named_datasets")
    # The archive's own count, kept beside the one computed from what the site holds.
    num_papers = models.PositiveIntegerField(null=True, blank=True)
    paper_count = models.PositiveIntegerField(default=0, db_default=0)
    # The slug of its PwC URL where that is not its slug here (a dataset first
    # known from a board keeps the slug its URLs already have): /dataset/<pwc_slug>
    # redirects, so PwC's addresses keep working.
    pwc_slug = models.SlugField(max_length=300, null=True, blank=True, unique=True)

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


# Papers newest first, undated last, ties by slug. Not "date DESC NULLS LAST":
# PostgreSQL sorts NULLs high and SQLite low, so no index served that order on
# both, and PostgreSQL sorted every paper for each page of the list. Ties by slug, not
# id: ids are the order of the loads, so a site restored from its dumps listed papers
# of the same date in another order; a slug is the paper's own.
NEWEST_FIRST = (
    models.ExpressionWrapper(Q(date=None), output_field=models.BooleanField()).asc(),
    models.F("date").desc(),
    models.F("slug").asc(),
)


class Paper(models.Model):
    """A paper results cite, found by its identity (format.rules), with its badges' flags."""

    slug = models.SlugField(max_length=300, unique=True)
    title = models.TextField(blank=True, default="")
    url = models.TextField(blank=True, default="")
    date = models.DateField(null=True, blank=True)
    arxiv_id = models.CharField(max_length=32, blank=True, default="", db_index=True)
    # Kept by stats.refresh_counts(): any shown row with an http(s) code link,
    # any row whose code samples ran in the newest snapshot.
    has_code = models.BooleanField(default=False)
    verified = models.BooleanField(default=False)
    # From the archive's papers file (SPEC 2.1); a paper known only from rows has none.
    abstract = models.TextField(blank=True, default="", db_default="")
    url_abs = models.TextField(blank=True, default="", db_default="")
    url_pdf = models.TextField(blank=True, default="", db_default="")
    proceeding = models.ForeignKey(
        "Proceeding", null=True, blank=True, on_delete=models.SET_NULL, related_name="papers"
    )
    conference_url_abs = models.TextField(blank=True, default="", db_default="")
    conference_url_pdf = models.TextField(blank=True, default="", db_default="")
    tasks = models.ManyToManyField(Task, blank=True, related_name="papers")
    # Whether the papers file describes it (else it is known from rows alone).
    described = models.BooleanField(default=False, db_default=False)
    # The slug of its PwC paper_url where that is not its slug here (a paper first
    # known from a page file keeps its slug): /paper/<pwc_slug> redirects.
    pwc_slug = models.SlugField(max_length=300, null=True, blank=True, unique=True)
    # An editor's, never an import's.
    withheld = models.BooleanField(default=False, db_default=False)
    withheld_reason = models.TextField(blank=True, default="", db_default="")

    class Meta:
        ordering = ["-date", "title"]
        indexes = [
            models.Index(fields=["title"], name="paper_title_idx"),
            # Covers the list's filters by year, code and verification, and
            # anything else by date alone (oldest first). With withheld, which every list
            # compares: without it SQLite read every paper from an index holding it and
            # sorted them all, /paper/?sort=oldest 156 ms at PwC's size (18).
            models.Index(
                fields=["date", "has_code", "verified", "withheld"], name="paper_date_flags_idx"
            ),
            # The list's filter by code that ran, without a year, in the list's
            # order: the few such papers. An index of the flag alone told
            # SQLite that half the papers have either value, so it read all
            # 593,000 to count them (270 ms at PwC size).
            models.Index(
                *NEWEST_FIRST, models.F("id"), condition=Q(verified=True), name="paper_verified_idx"
            ),
            # The list's order, newest first (NEWEST_FIRST), read in either direction
            # (pages past the middle are read backwards), of the papers every list shows
            # (none withheld), with their titles: a filter probed in that order (a
            # framework, a dense method, a title's words) is then read from the index
            # alone. With the order alone, each paper's row of the wide table (its
            # abstract) was read to learn whether it was withheld: 32,000 buffers for
            # /paper/?q=learning&page=20, 287 ms of SQL on PostgreSQL at PwC's size (45
            # from this index), 110 on SQLite (8).
            models.Index(
                *NEWEST_FIRST,
                # The id too, as the lists read ids: PostgreSQL's index holds no row id,
                # and without it read each paper's row (AAAI's page 20: 200 ms, not 10).
                models.F("id"),
                models.F("title"),
                # Its condition again: SQLite reads a bound `withheld = ?` from the
                # table, each wide row, unless the index holds it.
                models.F("withheld"),
                condition=Q(withheld=False),
                name="paper_shown_newest_idx",
            ),
            # A conference's papers in the list's order, read from the index alone: its
            # editions' papers, each a row of the wide table (abstracts), read and sorted
            # took 134 ms on PostgreSQL for AAAI's 14,000 at PwC's size.
            models.Index(
                models.F("proceeding"),
                *NEWEST_FIRST,
                models.F("id"),
                models.F("withheld"),
                condition=Q(withheld=False),
                name="paper_proceeding_newest_idx",
            ),
            # The few withheld papers, which the search of abstracts leaves out
            # of its count without reading each match's row.
            models.Index(fields=["id"], condition=Q(withheld=True), name="paper_withheld_idx"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("leaderboards:paper", args=[self.slug])

    @property
    def name(self):
        return paper_name(self.title, self.url) or self.slug

"""The site's own state: when its data last changed, and end-of-load work still owed."""

from django.db import models
from django.db.models import Q
from django.utils import timezone


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

    `scope` says what the chunk wrote (upkeep.scope.Scope), so the end work
    reads only that: the ids of the boards it wrote, and of the tasks, datasets
    and papers they named before and after. Null (a record importer's chunk, or
    a marker made before scopes were kept) owes the whole site's work.
    """

    created_at = models.DateTimeField(default=timezone.now)
    scope = models.JSONField(null=True, blank=True)

    def __str__(self):
        return f"upkeep pending since {self.created_at:%Y-%m-%d %H:%M:%S}"


class PreparedPart(models.Model):
    """A part of a large board's page made when it was loaded, not by a web worker.

    A board whose rows no worker keeps (web/prepared.py's RowsKept bound,
    20,000 rows) cost its first visitor after a load, in each worker, a read
    of every row and a second of sorting: 190 MB of a worker's memory at
    100,000 rows, a worker replaced when it crossed 300 MB, and its successor
    reading them again. `prepare_boards`, run at the end of every load, makes
    the page's parts and every sort's order once, here.

    `key` is the page cache's for the part (the release, the data's and the
    board's versions): a part is read only at the versions it was made for,
    so an editor's change is never served from one made before it (that view
    is built from the rows, as before, until the board is prepared again).
    `content` is pickled (the page's parts), an array's bytes (an order) or
    zlib-compressed text (the whole page with no query string, a file): only this
    site writes it.
    """

    leaderboard = models.ForeignKey("Leaderboard", on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255, unique=True)
    content = models.BinaryField()

    def __str__(self):
        return self.key

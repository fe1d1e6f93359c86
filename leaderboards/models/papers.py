"""Papers' people and code: authors, conferences and their proceedings, code repositories.

From the archive's papers file (SPEC 2.1: authors, proceeding) and its links
between papers and code (SPEC 2.2). A re-import updates these in place by
their identity (an author's name, a proceeding's name, a repository's URL, a
paper and repository pair) and writes only the source columns: what an editor
decided about a paper's code lives in the `editor_*` columns no import writes.
"""

from django.db import models
from django.db.models import Q
from django.urls import reverse

from leaderboards.models.catalogue import Paper


class Author(models.Model):
    """A name on papers' author lists: one author per name, as Papers with Code had it."""

    slug = models.SlugField(max_length=300, unique=True)
    name = models.TextField(unique=True)
    # Kept by upkeep.figures.refresh_counts() after every import, for lists by size.
    paper_count = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        ordering = ["name"]
        indexes = [models.Index(fields=["-paper_count", "name"], name="author_by_papers_idx")]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("leaderboards:author", args=[self.slug])


class PaperAuthor(models.Model):
    """An author's place on a paper's author list."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="authorships")
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="authorships")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["paper", "position"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "position"], name="paper_author_place_unique"),
        ]
        indexes = [models.Index(fields=["author", "paper"], name="paper_author_by_author_idx")]

    def __str__(self):
        return f"{self.position + 1}. author of paper {self.paper_id}"


class Conference(models.Model):
    """A conference or journal papers were published at (NeurIPS, ICML, ...)."""

    slug = models.SlugField(max_length=300, unique=True)
    name = models.CharField(max_length=300, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("leaderboards:conference", args=[self.slug])


class Proceeding(models.Model):
    """One year's (and month's) proceedings of a conference, as a paper's `proceeding` names it."""

    slug = models.SlugField(max_length=300, unique=True)
    # The archive's words, "NeurIPS 2021 12": its identity across imports.
    name = models.CharField(max_length=300, unique=True)
    conference = models.ForeignKey(Conference, on_delete=models.CASCADE, related_name="proceedings")
    year = models.PositiveSmallIntegerField(null=True, blank=True)
    month = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["conference", "-year", "-month"]
        constraints = [
            models.CheckConstraint(
                condition=Q(month__isnull=True) | Q(month__gte=1, month__lte=12),
                name="proceeding_month_in_year",
            ),
        ]

    def __str__(self):
        return self.name


class Repository(models.Model):
    """A code repository, by its URL, which one or many papers link to."""

    url = models.TextField(unique=True)
    owner = models.CharField(max_length=300, blank=True, default="", db_default="")
    name = models.CharField(max_length=300, blank=True, default="", db_default="")
    description = models.TextField(blank=True, default="", db_default="")
    stars = models.PositiveIntegerField(null=True, blank=True)
    paper_count = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        ordering = ["url"]
        verbose_name_plural = "repositories"
        indexes = [models.Index(fields=["owner", "name"], name="repository_owner_name_idx")]

    def __str__(self):
        return self.url


# The authors' own code: an editor's word where there is one, else the archive's.
OFFICIAL = Q(editor_official=True) | Q(editor_official__isnull=True, is_official=True)


class PaperRepositoryQuerySet(models.QuerySet):
    def shown(self):
        """Links an editor has not said are not the paper's code."""
        return self.filter(editor_unlinked=False)

    def official(self):
        return self.filter(OFFICIAL)

    def official_first(self):
        """Official implementations first, then the others, each by URL."""
        return self.order_by(
            models.Case(
                models.When(OFFICIAL, then=0), default=1, output_field=models.IntegerField()
            ),
            "repository__url",
        )


class PaperRepository(models.Model):
    """A link between a paper and a repository holding its code (SPEC 2.2)."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="code_links")
    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="paper_links")
    is_official = models.BooleanField(default=False, db_default=False)
    mentioned_in_paper = models.BooleanField(default=False, db_default=False)
    mentioned_in_github = models.BooleanField(default=False, db_default=False)
    framework = models.CharField(max_length=100, blank=True, default="", db_default="")
    # An editor's corrections, which no import writes: official or not against
    # the archive's word (None: the archive's stands), or not this paper's code.
    editor_official = models.BooleanField(null=True, blank=True)
    editor_unlinked = models.BooleanField(default=False, db_default=False)
    editor_reason = models.TextField(blank=True, default="", db_default="")

    objects = PaperRepositoryQuerySet.as_manager()

    class Meta:
        verbose_name = "code link"
        constraints = [
            models.UniqueConstraint(fields=["paper", "repository"], name="paper_repository_unique"),
        ]
        indexes = [
            models.Index(fields=["repository", "paper"], name="paper_repo_by_repo_idx"),
            models.Index(fields=["framework", "paper"], name="paper_repo_framework_idx"),
        ]

    def __str__(self):
        return f"{self.repository_id} for paper {self.paper_id}"

    @property
    def official(self):
        """Whether this is the authors' own code (OFFICIAL, for a row in hand)."""
        return self.is_official if self.editor_official is None else self.editor_official

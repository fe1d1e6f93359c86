"""Papers with Code's methods taxonomy: method areas, their nested categories, methods.

From the archive's methods file (SPEC 2.3) and the methods each paper names
(SPEC 2.1, whose `main_collection.parent` nests the categories). Identity is
the slug of a method's PwC URL and of a category's or area's name; an import
writes only the source columns, never the `editor_*` ones.
"""

from django.db import models
from django.urls import reverse

from leaderboards.models.catalogue import Paper


class MethodArea(models.Model):
    """A top level of the methods taxonomy (General, Computer Vision, ...)."""

    slug = models.SlugField(max_length=200, unique=True)
    name = models.CharField(max_length=200, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("leaderboards:method_area", args=[self.slug])


class MethodCategory(models.Model):
    """A category of methods (PwC's "collection"), perhaps inside another, in an area."""

    slug = models.SlugField(max_length=300, unique=True)
    name = models.CharField(max_length=300, unique=True)
    description = models.TextField(blank=True, default="", db_default="")
    area = models.ForeignKey(
        MethodArea, null=True, blank=True, on_delete=models.SET_NULL, related_name="categories"
    )
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children"
    )

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "method categories"

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("leaderboards:method_category", args=[self.slug])


class MethodQuerySet(models.QuerySet):
    def shown(self):
        """Methods no editor has withheld (as spam, say)."""
        return self.filter(withheld=False)


class Method(models.Model):
    """A method papers use (an architecture, a loss, an optimiser ...), as PwC described it."""

    slug = models.SlugField(max_length=300, unique=True)
    name = models.TextField()
    full_name = models.TextField(blank=True, default="", db_default="")
    # Markdown from the public: rendered only through the sanitiser.
    description = models.TextField(blank=True, default="", db_default="")
    # The paper that introduced it, joined by its PwC URL; its words kept beside.
    paper = models.ForeignKey(
        Paper, null=True, blank=True, on_delete=models.SET_NULL, related_name="introduced_methods"
    )
    paper_title = models.TextField(blank=True, default="", db_default="")
    paper_url = models.TextField(blank=True, default="", db_default="")
    introduced_year = models.PositiveSmallIntegerField(null=True, blank=True)
    source_url = models.TextField(blank=True, default="", db_default="")
    source_title = models.TextField(blank=True, default="", db_default="")
    code_snippet_url = models.TextField(blank=True, default="", db_default="")
    # The archive's own count, kept beside the one computed from what the site holds.
    num_papers = models.PositiveIntegerField(null=True, blank=True)
    paper_count = models.PositiveIntegerField(default=0, db_default=0)
    categories = models.ManyToManyField(MethodCategory, blank=True, related_name="methods")
    papers = models.ManyToManyField(Paper, blank=True, related_name="methods")
    editor_description = models.TextField(null=True, blank=True)
    withheld = models.BooleanField(default=False, db_default=False)
    withheld_reason = models.TextField(blank=True, default="", db_default="")
    # The slug of its PwC URL, once the methods file has described it (null for a
    # method known only from papers). A method first made from papers keeps its
    # slug here; /method/<pwc_slug> redirects, so PwC's addresses keep working.
    pwc_slug = models.SlugField(max_length=300, null=True, blank=True, unique=True)

    objects = MethodQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        indexes = [
            models.Index(fields=["name"], name="method_name_idx"),
            models.Index(fields=["-paper_count", "name"], name="method_by_papers_idx"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("leaderboards:method", args=[self.slug])

    @property
    def shown_description(self):
        """The editor's text where there is one, else the archive's."""
        return self.description if self.editor_description is None else self.editor_description

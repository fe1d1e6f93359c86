"""The site search's index: every name it can find, and the answers to short prefixes."""

from urllib.parse import urlencode

from django.db import models
from django.db.models import Q
from django.db.models.functions import Length, Upper
from django.urls import reverse


class SearchKind(models.TextChoices):
    """The kinds of page the search finds, in the order it lists them."""

    TASK = "task", "Tasks"
    DATASET = "dataset", "Datasets"
    LEADERBOARD = "leaderboard", "Leaderboards"
    PAPER = "paper", "Papers"
    METHOD = "method", "Methods"
    AUTHOR = "author", "Authors"
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
    # The slug of the page the entry links to: a model's is its model_slug (one
    # indexed before models had one entry each: its leaderboard's).
    slug = models.CharField(max_length=300)
    # What tells two entries of the same name apart: a board's row count; where a
    # model has results, its board's name or its number of boards (digits).
    context = models.TextField(blank=True, default="")
    # A model's entry: the model it names (Row.model_slug), whose page it leads to.
    # A default in the database too: the index's INSERT ... SELECT of other kinds omits it.
    model_slug = models.CharField(max_length=80, blank=True, default="", db_default="")

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
            # A paper, method or board's entries by its page: an editor's withhold
            # re-indexes one page's entries, and an abstract's match finds its paper's.
            models.Index(fields=["kind", "slug"], name="search_entry_kind_slug_idx"),
        ]

    def __str__(self):
        return f"{self.kind}: {self.name}"

    def get_absolute_url(self):
        if self.kind != SearchKind.MODEL:
            return reverse(f"leaderboards:{self.kind}", args=[self.slug])
        if self.model_slug:
            return reverse("leaderboards:model", args=[self.model_slug])
        # Indexed before models had pages: the board filtered to the model, its row
        # maybe pages away from the first.
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

"""The search index after a load that wrote a few boards: compared, and rebuilt only if it differs.

refresh_index() copies every name again, a million at the archive's size, and
lists every prefix again: most of a one-board load's time. A load that changed
a few boards' values changes no name, so the entries it could have changed are
read as refresh_index() would write them and compared with those stored:

- tasks, datasets, leaderboards and methods whole (tens of thousands of names,
  which an editor may also rename in the admin between loads);
- papers and models only of what the load wrote (upkeep.scope.Scope): the
  papers its boards name, the models of its boards. Authors come from the
  papers file only, whose import owes the whole rebuild.

When they are the same, and no editor's change left an entry out of the
search's order (index.UNORDERED), the index is what a rebuild would make and
nothing is written; otherwise it is rebuilt.
"""

from collections import Counter

from django.db import connection

from leaderboards.models import Leaderboard, Paper, SearchEntry, SearchKind
from leaderboards.search import index

# Compared whole: few enough names to read each time.
WHOLE_KINDS = [SearchKind.TASK, SearchKind.DATASET, SearchKind.LEADERBOARD, SearchKind.METHOD]


def refresh_search(scope):
    """Make the index what refresh_index() would, reading only what `scope` could have changed.

    Returns whether it was rebuilt.
    """
    if SearchEntry.objects.filter(pk__gte=index.UNORDERED).exists() or differs(scope):
        index.refresh_index()
        return True
    return False


def differs(scope):
    """Whether an entry the scope could have changed differs from what a rebuild writes."""
    for kind in WHOLE_KINDS:
        if _wanted(index.SOURCES[kind]()) != _stored(kind):
            return True
    papers = sorted(scope.papers)
    if papers:
        marks = _marks(papers)
        wanted = _wanted(index._paper_sql(f" AND m.id IN ({marks})"), papers)
        slugs = Paper.objects.filter(pk__in=papers).values("slug")
        if wanted != _stored(SearchKind.PAPER, slugs):
            return True
    boards = sorted(scope.boards)
    if boards:
        marks = _marks(boards)
        wanted = _wanted(index._models_sql(f" AND leaderboard_id IN ({marks})"), boards)
        slugs = Leaderboard.objects.filter(pk__in=boards).values("slug")
        if wanted != _stored(SearchKind.MODEL, slugs):
            return True
    return False


def _marks(values):
    return ", ".join(["%s"] * len(values))


def _wanted(select, params=()):
    """The (name, slug, context) a rebuild would write from `select`, counted."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT name, slug, context FROM ({select}) found", params)
        return Counter(cursor.fetchall())


def _stored(kind, slugs=None):
    """The stored entries of a kind (those leading to `slugs`, a query, when given), counted."""
    entries = SearchEntry.objects.filter(kind=kind)
    if slugs is not None:
        entries = entries.filter(slug__in=slugs)
    return Counter(entries.values_list("name", "slug", "context"))

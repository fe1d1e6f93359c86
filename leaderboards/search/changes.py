"""The search index after a load that wrote a few boards: compared, and re-indexed where it differs.

refresh_index() copies every name again, a million at the archive's size, and
lists every prefix again: minutes on PostgreSQL, most of a one-board load's
time. A load that changed a few boards changes few names, so the entries it
could have changed are read as refresh_index() would write them and compared
with those stored:

- tasks, datasets, leaderboards and methods whole (tens of thousands of names,
  which an editor may also rename in the admin between loads);
- papers and models only of what the load wrote (upkeep.scope.Scope): the
  papers its boards name, the models of its boards. Authors come from the
  papers file only, whose import owes the whole rebuild.

The pages whose entries differ are re-indexed alone, as an editor's change is
(index._reindex: numbered after the search's order, their prefixes' lists
dropped until the next rebuild). Once more than REBUILD_AFTER entries stand out
of that order, or a load changed more, the index is rebuilt whole.
"""

from collections import Counter

from django.db import connection

from leaderboards.models import Leaderboard, Paper, SearchEntry, SearchKind
from leaderboards.search import index

# Compared whole: few enough names to read each time.
WHOLE_KINDS = [SearchKind.TASK, SearchKind.DATASET, SearchKind.LEADERBOARD, SearchKind.METHOD]

# Entries out of the search's order past which a load rebuilds the index: each
# is looked up by id, not by its place, and its prefixes' lists are gone.
REBUILD_AFTER = 5000


def refresh_search(scope):
    """Make the index what refresh_index() would, reading only what `scope` could have changed.

    Returns "rebuilt", "re-indexed" or "" (nothing differed).
    """
    unordered = SearchEntry.objects.filter(pk__gte=index.UNORDERED).count()
    if unordered <= REBUILD_AFTER:
        changed = differing(scope)
        if not changed:
            return ""
        if unordered + sum(map(len, changed.values())) <= REBUILD_AFTER:
            for kind, slugs in changed.items():
                _reindex(kind, sorted(slugs))
            return "re-indexed"
    index.refresh_index()
    return "rebuilt"


def differing(scope):
    """{kind: the slugs whose entries differ from what a rebuild writes}, of what
    the scope could change."""
    changed = {}
    for kind in WHOLE_KINDS:
        _note(changed, kind, _wanted(index.SOURCES[kind]()), _stored(kind))
    papers = sorted(scope.papers)
    if papers:
        marks = _marks(papers)
        wanted = _wanted(index._paper_sql(f" AND m.id IN ({marks})"), papers)
        slugs = Paper.objects.filter(pk__in=papers).values("slug")
        _note(changed, SearchKind.PAPER, wanted, _stored(SearchKind.PAPER, slugs))
    boards = sorted(scope.boards)
    if boards:
        marks = _marks(boards)
        wanted = _wanted(index._models_sql(f" AND leaderboard_id IN ({marks})"), boards)
        slugs = Leaderboard.objects.filter(pk__in=boards).values("slug")
        _note(changed, SearchKind.MODEL, wanted, _stored(SearchKind.MODEL, slugs))
    return changed


def _note(changed, kind, wanted, stored):
    slugs = {slug for _, slug, _ in (wanted - stored) + (stored - wanted)}
    if slugs:
        changed[kind] = slugs


def _reindex(kind, slugs):
    """The entries of a kind leading to these slugs, written again from the catalogue."""
    marks = _marks(slugs)
    if kind == SearchKind.MODEL:
        of_boards = (
            f" AND leaderboard_id IN (SELECT id FROM {Leaderboard._meta.db_table} "
            f"WHERE slug IN ({marks}))"
        )
        select = index._models_sql(of_boards)
    elif kind == SearchKind.PAPER:
        select = index._paper_sql(f" AND m.slug IN ({marks})")
    else:
        # A small table's names (tasks, datasets, boards, methods), narrowed by slug.
        select = f"SELECT * FROM ({index.SOURCES[kind]()}) found WHERE found.slug IN ({marks})"
    index._reindex(kind, slugs, select, slugs)


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

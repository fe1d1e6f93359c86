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
        _note(changed, kind, _differing(kind, index.SOURCES[kind]()))
    papers = sorted(scope.papers)
    if papers:
        marks = _marks(papers)
        wanted = index._paper_sql(f" AND m.id IN ({marks})")
        mine = f"SELECT slug FROM {Paper._meta.db_table} WHERE id IN ({marks})"
        _note(changed, SearchKind.PAPER, _differing(SearchKind.PAPER, wanted, papers, mine))
    boards = sorted(scope.boards)
    if boards:
        marks = _marks(boards)
        wanted = index._models_sql(f" AND leaderboard_id IN ({marks})")
        mine = f"SELECT slug FROM {Leaderboard._meta.db_table} WHERE id IN ({marks})"
        _note(changed, SearchKind.MODEL, _differing(SearchKind.MODEL, wanted, boards, mine))
    return changed


def _note(changed, kind, slugs):
    if slugs:
        changed[kind] = slugs


def _differing(kind, wanted, params=(), mine=None):
    """The slugs of `kind` whose entries (name, slug, context), counted, differ
    between `wanted` (SQL giving what a rebuild writes) and those stored (only
    those leading to the slugs `mine`, SQL taking `params` too, when given).

    Compared by the database: read into Python and counted there, the methods'
    60,000 names alone took 0.8 s at PwC size, against 0.24 s.
    """
    stored = f"SELECT name, slug, context, -1 AS side FROM {SearchEntry._meta.db_table} "
    stored += "WHERE kind = %s" + (f" AND slug IN ({mine})" if mine else "")
    sql = (
        "SELECT DISTINCT slug FROM ("
        f"SELECT name, slug, context, 1 AS side FROM ({wanted}) found UNION ALL {stored}"
        ") both_sides GROUP BY name, slug, context HAVING sum(side) <> 0"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, kind, *(params if mine else ())])
        return {slug for (slug,) in cursor.fetchall()}


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

"""The search index after a load that wrote a few boards: compared, and rebuilt only if it differs.

refresh_index() copies every name again, 1.3 million at the archive's size,
and lists every prefix again: most of a one-board load's time. A load that
changed a few boards' values changes no name, so the entries it could have
changed are compared, in the database, with what refresh_index() would write:

- tasks, datasets, leaderboards and methods whole (tens of thousands of names,
  which an editor may also rename in the admin between loads);
- papers and models only of what the load wrote (upkeep.scope.Scope): the
  papers and the models its boards named before and after, each model whole
  (its one entry counts its boards; a model the boards no longer name may
  have lost its last row, or a board). Authors come from the papers file
  only, whose import owes the whole rebuild.

When they are the same, and no editor's change left an entry out of the
search's order (index.UNORDERED), the index is what a rebuild would make and
nothing is written; otherwise it is rebuilt whole. Not re-indexed page by page
as an editor's change is: that drops the prefix lists the suggestions read for
every word of the names, and a short prefix read without its list ("c")
took 0.6 s at the archive's size until the next rebuild.
"""

from django.db import connection

from leaderboards.models import Paper, SearchEntry, SearchKind
from leaderboards.search import index

# Compared whole: few enough names to read each time.
WHOLE_KINDS = [SearchKind.TASK, SearchKind.DATASET, SearchKind.LEADERBOARD, SearchKind.METHOD]


def refresh_search(scope):
    """Make the index what refresh_index() would, reading only what `scope` could have changed.

    Returns whether it was rebuilt. Boards' row counts (their entries'
    context) are set first, in place: a count changes no name.
    """
    index.refresh_board_rows()
    if SearchEntry.objects.filter(pk__gte=index.UNORDERED).exists() or differs(scope):
        index.refresh_index()
        return True
    return False


def differs(scope):
    """Whether an entry the scope could have changed differs from what a rebuild writes."""
    return (
        any(_differs(kind, index.SOURCES[kind]()) for kind in WHOLE_KINDS)
        or _differs_of(SearchKind.PAPER, scope.papers, index._paper_sql(" AND m.id IN ({})"), Paper)
        or _differs_models(scope.models)
    )


def _differs_of(kind, ids, wanted, model):
    """_differs() for the entries of these rows of `model`: `wanted` holds "{}"
    where their ids go."""
    if not ids:
        return False
    ids = sorted(ids)
    marks = _marks(ids)
    mine = f"SELECT slug FROM {model._meta.db_table} WHERE id IN ({marks})"
    return _differs(kind, wanted.format(marks), ids, mine)


def _differs_models(slugs):
    """_differs() for the entries of these models (slugs), found by their slug."""
    if not slugs:
        return False
    slugs = sorted(slugs)
    marks = _marks(slugs)
    wanted = index._models_sql(f" AND model_slug IN ({marks})")
    return _differs(SearchKind.MODEL, wanted, slugs, marks)


def _differs(kind, wanted, params=(), mine=None):
    """Whether the entries of `kind` (name, slug, context; a model's model_slug), counted,
    differ between `wanted` (SQL giving what a rebuild writes) and those stored (only
    those leading to the slugs `mine`, SQL taking `params` too, when given).

    Compared by the database (and differs() stops at the first kind that
    differs): read into Python and counted there, the methods' 60,000 names
    alone took 0.8 s at PwC size, against 0.24 s.
    """
    # A model's entry also names its model's page: a row's paper changed changes that alone.
    columns = index.entry_columns(kind)
    stored = f"SELECT {columns}, -1 AS side FROM {SearchEntry._meta.db_table} "
    stored += "WHERE kind = %s" + (f" AND slug IN ({mine})" if mine else "")
    sql = (
        "SELECT 1 FROM ("
        f"SELECT {columns}, 1 AS side FROM ({wanted}) found UNION ALL {stored}"
        f") both_sides GROUP BY {columns} HAVING sum(side) <> 0 LIMIT 1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, kind, *(params if mine else ())])
        return cursor.fetchone() is not None


def _marks(values):
    return ", ".join(["%s"] * len(values))

"""The site search: one function over tasks, datasets, leaderboards, papers and models.

Names are copied into SearchEntry by refresh_index() after each load; each
database matches them with its own full-text engine (PostgreSQL: to_tsvector
over a GIN expression index; SQLite: an FTS5 table), chosen by the connection
in use. Both split "out-of-distribution" into its words and match every word
of the query as a prefix, so the two backends find the same entries.
"""

import re

from django.contrib.postgres.search import SearchQuery, SearchVector
from django.db import connection, transaction
from django.db.models import Case, Count, F, IntegerField, Value, When, Window
from django.db.models.expressions import RawSQL
from django.db.models.functions import Length, RowNumber

from leaderboards.models import Dataset, Leaderboard, Paper, Row, SearchEntry, SearchKind, Task

FTS_TABLE = "leaderboards_searchentry_fts"
MAX_TERMS = 8
MAX_QUERY_LENGTH = 200
# Words only: everything else would be syntax to one engine or the other.
WORD = re.compile(r"[^\W_]+")


def terms(query):
    """The words of a query, lower-cased, at most MAX_TERMS of them."""
    return WORD.findall(query[:MAX_QUERY_LENGTH].lower())[:MAX_TERMS]


def _matching(words):
    if connection.vendor == "postgresql":
        # The same expression as the migration's GIN index, so it is used.
        tsquery = " & ".join(f"{word}:*" for word in words)
        return SearchEntry.objects.annotate(vector=SearchVector("name", config="simple")).filter(
            vector=SearchQuery(tsquery, config="simple", search_type="raw")
        )
    match = " ".join(f'"{word}"*' for word in words)
    return SearchEntry.objects.filter(
        pk__in=RawSQL(f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s", [match])
    )


DEFAULT_PER_KIND = 10


def search(query, per_kind=DEFAULT_PER_KIND):
    """Entries matching every word of `query`: {kind: (total, [entries])}, kinds in order.

    Within a kind an exact name match (ignoring case) comes first, then
    shorter names, as the closer matches. One query, whatever the kinds.
    """
    words = terms(query)
    if not words:
        return {}
    exact = query.strip()[:MAX_QUERY_LENGTH]
    entries = (
        _matching(words)
        .annotate(
            exact=Case(When(name__iexact=exact, then=Value(0)), default=Value(1)),
            name_length=Length("name"),
            total=Window(Count("pk"), partition_by=[F("kind")]),
            place=Window(
                RowNumber(),
                partition_by=[F("kind")],
                order_by=[F("exact").asc(), F("name_length").asc(), F("name").asc(), F("pk")],
                output_field=IntegerField(),
            ),
        )
        .filter(place__lte=per_kind)
        .order_by("kind", "place")
    )
    found = {}
    for entry in entries:
        found.setdefault(entry.kind, (entry.total, []))[1].append(entry)
    return {kind: found[kind] for kind in SearchKind.values if kind in found}


def _insert(kind, select, params=()):
    """Copy names into the entries table with one INSERT ... SELECT."""
    table = SearchEntry._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (kind, name, slug, context) {select}",
            [kind, *params],
        )


BOARD_NAME = "t.name || ' on ' || d.name"
# Every shown row's model name, once per board.
_MODELS_SQL = (
    f"SELECT DISTINCT %s, r.model, b.slug, {BOARD_NAME} FROM {Row._meta.db_table} r "
    f"JOIN {Leaderboard._meta.db_table} b ON b.id = r.leaderboard_id "
    f"JOIN {Task._meta.db_table} t ON t.id = b.task_id "
    f"JOIN {Dataset._meta.db_table} d ON d.id = b.dataset_id "
    "WHERE NOT r.withheld"
)


def _one_writer_at_a_time(cursor):
    """PostgreSQL: a rebuild and an editor's re-index wait for each other, readers do not.

    Under READ COMMITTED an editor's delete that waited for a rebuild would
    miss the rows the rebuild inserted, and the board's models would be
    indexed twice. SQLite runs one write transaction at a time anyway.
    """
    if connection.vendor == "postgresql":
        table = connection.ops.quote_name(SearchEntry._meta.db_table)
        cursor.execute(f"LOCK TABLE {table} IN SHARE ROW EXCLUSIVE MODE")


def refresh_models(boards):
    """Re-index the model names of a few boards, after editors withheld or restored rows.

    A whole rebuild takes seconds at the archive's size; this touches only the
    boards' own entries. SQLite's FTS5 table takes its content from the entries
    table, so it is told which rows leave and which arrive.
    """
    slugs = [board.slug for board in boards]
    if not slugs:
        return
    table = SearchEntry._meta.db_table
    marks = ", ".join(["%s"] * len(slugs))
    mine = f"FROM {table} WHERE kind = %s AND slug IN ({marks})"
    params = [SearchKind.MODEL, *slugs]
    sqlite = connection.vendor == "sqlite"
    with transaction.atomic(), connection.cursor() as cursor:
        _one_writer_at_a_time(cursor)
        if sqlite:
            leaving = f"SELECT 'delete', id, name {mine}"
            cursor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, name) {leaving}", params)
        cursor.execute(f"DELETE {mine}", params)
        _insert(SearchKind.MODEL, f"{_MODELS_SQL} AND b.slug IN ({marks})", slugs)
        if sqlite:
            cursor.execute(f"INSERT INTO {FTS_TABLE}(rowid, name) SELECT id, name {mine}", params)


def refresh_index():
    """Rebuild the search entries from the catalogue, then the engine's index."""
    task, dataset = Task._meta.db_table, Dataset._meta.db_table
    board, paper = Leaderboard._meta.db_table, Paper._meta.db_table
    with transaction.atomic():
        # Raw, so a post_delete receiver cannot turn it into 150,000 deletes.
        with connection.cursor() as cursor:
            _one_writer_at_a_time(cursor)
            cursor.execute(f"DELETE FROM {SearchEntry._meta.db_table}")
        _insert(SearchKind.TASK, f"SELECT %s, name, slug, '' FROM {task}")
        _insert(SearchKind.DATASET, f"SELECT %s, name, slug, full_name FROM {dataset}")
        _insert(
            SearchKind.LEADERBOARD,
            f"SELECT %s, {BOARD_NAME}, b.slug, '' FROM {board} b "
            f"JOIN {task} t ON t.id = b.task_id JOIN {dataset} d ON d.id = b.dataset_id",
        )
        _insert(SearchKind.PAPER, f"SELECT %s, title, slug, '' FROM {paper} WHERE title <> ''")
        _insert(SearchKind.MODEL, _MODELS_SQL)
        with connection.cursor() as cursor:
            if connection.vendor == "sqlite":
                cursor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES('rebuild')")
    # Fresh statistics, so the planner knows the new table sizes.
    with connection.cursor() as cursor:
        cursor.execute(
            "ANALYZE" if connection.vendor == "sqlite" else f"ANALYZE {SearchEntry._meta.db_table}"
        )

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
    return SearchEntry.objects.filter(pk__in=RawSQL(_FTS_ROWIDS, [_fts_query(words)]))


_FTS_ROWIDS = f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s"


def _fts_query(words):
    return " ".join(f'"{word}"*' for word in words)


DEFAULT_PER_KIND = 10


def _exact(query):
    return query.strip()[:MAX_QUERY_LENGTH]


def _ranked(words, exact, per_kind, totals):
    """The search's order within a kind: an exact name match (ignoring case) first,
    then shorter names, then by name. One query, whatever the kinds."""
    entries = (
        _matching(words)
        .annotate(
            exact=Case(When(name__iexact=exact, then=Value(0)), default=Value(1)),
            name_length=Length("name"),
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
    if totals:
        entries = entries.annotate(total=Window(Count("pk"), partition_by=[F("kind")]))
    return entries


def _in_kind_order(found):
    return {kind: found[kind] for kind in SearchKind.values if kind in found}


def search(query, per_kind=DEFAULT_PER_KIND):
    """Entries matching every word of `query`: {kind: (total, [entries])}, kinds in order.

    Within a kind an exact name match (ignoring case) comes first, then
    shorter names, as the closer matches. One query, whatever the kinds.
    """
    words = terms(query)
    if not words:
        return {}
    found = {}
    for entry in _ranked(words, _exact(query), per_kind, totals=True):
        found.setdefault(entry.kind, (entry.total, []))[1].append(entry)
    return _in_kind_order(found)


# Past this many matches, sorting them all to show a few costs more than walking
# each kind's names shortest first until enough match (SQLite, PwC size: the two
# cost the same near 6,000 matches; "d" matches 38,000 names, "resnet" 4,000).
BROAD_MATCHES = 5000


def suggest(query, per_kind):
    """The first `per_kind` entries of each kind that search() shows: {kind: [entries]}.

    What the search box offers while a word is half typed, without totals. A
    query of a letter or two matches a large part of the archive; on SQLite
    those walk search_entry_kind_length_idx in the same order instead.
    """
    words = terms(query)
    if not words:
        return {}
    exact = _exact(query)
    if connection.vendor == "sqlite" and _matches_at_least(words, BROAD_MATCHES):
        return _in_kind_order(_walked(words, exact, per_kind))
    found = {}
    for entry in _ranked(words, exact, per_kind, totals=False):
        found.setdefault(entry.kind, []).append(entry)
    return _in_kind_order(found)


def _matches_at_least(words, count):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM ({_FTS_ROWIDS} LIMIT %s)", [_fts_query(words), count])
        return cursor.fetchone()[0] >= count


def _walked(words, exact, per_kind):
    """search()'s first entries of each kind, found by walking names shortest first.

    An exact match has the query's own length, so a kind's candidates are its
    names of that length equal to the query, and its first `per_kind` matches in
    (length, name, id) order; sorted as _ranked() sorts, the first of those are
    its. `name LIKE` without wildcards is Django's iexact on SQLite.
    """
    table = SearchEntry._meta.db_table
    like = connection.ops.prep_for_like_query(exact)
    walk = f"SELECT id FROM {table} INDEXED BY search_entry_kind_length_idx WHERE kind = %s"
    branches, params = [], [like, _fts_query(words)]
    for kind in SearchKind.values:
        branches += [
            f"SELECT * FROM ({walk} AND id IN matched ORDER BY length(name), name, id LIMIT %s)",
            # A name equal to the query matches it: no need to look in `matched`.
            f"SELECT * FROM ({walk} AND length(name) = %s AND name LIKE %s ESCAPE '\\')",
        ]
        params += [kind, per_kind, kind, len(exact), like]
    candidates = SearchEntry.objects.raw(
        f"SELECT id, kind, name, slug, context, name LIKE %s ESCAPE '\\' AS exact FROM {table} "
        f"WHERE id IN (WITH matched AS MATERIALIZED ({_FTS_ROWIDS}) "
        f"{' UNION ALL '.join(branches)})",
        params,
    )
    found = {}
    for entry in sorted(candidates, key=lambda e: (not e.exact, len(e.name), e.name, e.pk)):
        shown = found.setdefault(entry.kind, [])
        if len(shown) < per_kind:
            shown.append(entry)
    return found


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

"""The search's entries and lists, rebuilt after each load and after editors' changes.

refresh_index() copies the names of tasks, datasets, leaderboards, papers,
methods, authors and models into SearchEntry, numbered in the search's order
within each kind (see KIND_SPAN), then has each database's full-text engine
index them, and SQLite's the papers' abstracts; refresh_prefixes() lists each
short prefix's first entries (SearchPrefix), from which the search box is
answered; refresh_models() re-indexes a few boards' model names and
refresh_pages() a few papers' or methods' names after an editor withheld or
restored them. The constants here describe what the index holds, which
query.py reads.
"""

import unicodedata
from collections import Counter, defaultdict
from itertools import combinations

from django.contrib.postgres.fields import ArrayField
from django.db import connection, transaction
from django.db.models import Func, TextField
from django.db.models.expressions import RawSQL

from leaderboards.models import (
    Author,
    Dataset,
    Leaderboard,
    Method,
    Paper,
    Row,
    SearchEntry,
    SearchKind,
    SearchPrefix,
    Task,
)
from leaderboards.search.terms import WORD, name_words
from leaderboards.upkeep.bulk import insert

FTS_TABLE = "leaderboards_searchentry_fts"
PG_INDEX = "search_entry_name_vector_idx"
# Papers' abstracts, by paper id, for the search page only (migration 0021): on
# SQLite an FTS5 index whose text stays in the papers table, rebuilt after each
# load; on PostgreSQL a GIN expression index on the papers table itself.
ABSTRACT_FTS_TABLE = "leaderboards_paper_abstract_fts"

# A word of up to this many letters is looked up whole on PostgreSQL: the index
# lists each word's first letter and first two letters as words of their own
# (migration 0014), so "c" is one posting list, not the union of every word
# that begins with c. SQLite's FTS5 table keeps prefix indexes of the same lengths.
INITIALS = 2
# The longest prefix SQLite's full-text index keeps lists for (its `prefix`
# option, migration 0014). A longer word's prefix is found by merging every
# word it begins, each time the query is run.
FTS_PREFIX_LETTERS = 2

# An entry's id is its place in the search's order within its kind: refresh_index()
# numbers kind number k (SearchKind order) from KIND_SPAN * (k + 1), shortest
# name first, then by name. A kind's first matches for any query are then the
# first ids the full-text engine finds in its span, so a query matching half
# the archive stops after a few ids instead of sorting every match. Entries
# re-indexed between loads (refresh_models) are numbered from UNORDERED on.
KIND_SPAN = 10**12
UNORDERED = KIND_SPAN * (len(SearchKind.values) + 1)


def span(kind):
    """The first and last id of a kind's entries in the search's order."""
    start = KIND_SPAN * (SearchKind.values.index(kind) + 1)
    return start, start + KIND_SPAN - 1


# Entries of one name, in the order they are listed: a larger board first (the
# select gives its rows as `weight`), so look-alike boards are told apart; a
# model on more boards first (its boards, as `weight`), among models of one name.
_TIES = dict.fromkeys((SearchKind.LEADERBOARD, SearchKind.MODEL), ", weight DESC, slug")


def entry_columns(kind):
    """The columns a kind's entries are copied with: a model's names its model's page too
    (model_slug); other kinds leave that to its default."""
    return "name, slug, context, model_slug" if kind == SearchKind.MODEL else "name, slug, context"


def _insert(kind, select, params=(), first=None):
    """Copy names into the entries table with one INSERT ... SELECT, numbered in
    the search's order from `first` (the kind's span unless given).

    `select` gives the columns name, slug and context (and a model's, model_slug).
    """
    table = SearchEntry._meta.db_table
    start = span(kind)[0] if first is None else first
    order = f"length(name), name{_TIES.get(kind, '')}"
    columns = entry_columns(kind)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (id, kind, {columns}) "
            f"SELECT %s + ROW_NUMBER() OVER (ORDER BY {order}), %s, {columns} "
            f"FROM ({select}) found",
            [start - 1, kind, *params],
        )


# A list of initials is named by its letters in order, space-separated ("f l r"):
# no word's prefix holds a space, so the two kinds of list never share a name.
def initials_name(letters):
    return " ".join(letters)


def _initials_groups(words):
    """The letters of every list an entry with these words is in: each pair and
    three of their initials, in order; initials_name() names each."""
    letters = sorted({word[0] for word in words})
    for size in range(2, INITIALS_LISTED + 1):
        yield from combinations(letters, size)


# SearchPrefix lists every prefix of up to PREFIX_LETTERS letters, and a longer one
# when its words begin at least BROAD_PREFIX names (fewer are ranked quickly enough),
# up to MAX_PREFIX letters; LISTED_PER_KIND entries of each kind each (the box shows
# three, the rest let a query of several words find three that match all of them).
PREFIX_LETTERS = 3
BROAD_PREFIX = 1000
MAX_PREFIX = SearchPrefix._meta.get_field("prefix").max_length
LISTED_PER_KIND = 8
# Lists of names by their words' initials, each pair and each three of them: as
# many names of a kind as the box shows, since a query reading one is those
# letters and at most a few more.
INITIALS_LISTED = 3
INITIALS_PER_KIND = 3
_VOCAB = "leaderboards_searchentry_words"


def _words_in_search_order():
    """(id, kind, words) of every entry, in search()'s order within each kind, read as
    they are used: held whole, the entries of the archive at PwC's size were most
    of a load's memory.

    That is id order, as refresh_index() numbers them (see KIND_SPAN); this
    runs only straight after it. The words are the engine's own (SQLite's
    from the FTS5 index, PostgreSQL's from the same tsvector the GIN index
    holds), so a prefix lists what query._matching() finds, accents and case folded
    as the engine folds them.
    """
    ordered = SearchEntry.objects.order_by("pk")
    if connection.vendor == "postgresql":
        words = Func(
            name_words(), function="tsvector_to_array", output_field=ArrayField(TextField())
        )
        yield from (
            ordered.annotate(words=words)
            .values_list("pk", "kind", "words")
            .iterator(chunk_size=5000)
        )
        return
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_VOCAB} "
            f"USING fts5vocab(main, '{FTS_TABLE}', 'instance')"
        )
    # Two cursors of their own, both in id order, merged here (SQLite re-ran the
    # grouping for each entry when asked to join them), read while the caller
    # writes with a third; a term holds no space (unicode61 splits there).
    with connection.cursor() as entries, connection.cursor() as terms:
        entries.execute(f"SELECT id, kind FROM {SearchEntry._meta.db_table} ORDER BY id")
        terms.execute(
            f"SELECT doc, group_concat(term, ' ') FROM temp.{_VOCAB} GROUP BY doc ORDER BY doc"
        )
        words = _fetched(terms)
        doc, text = next(words, (None, ""))
        for pk, kind in _fetched(entries):
            while doc is not None and doc < pk:
                doc, text = next(words, (None, ""))
            yield pk, kind, text.split() if doc == pk else []


def _fetched(cursor, size=5000):
    while batch := cursor.fetchmany(size):
        yield from batch


def _broad():
    """The prefixes longer than PREFIX_LETTERS that begin words of BROAD_PREFIX entries or more.

    Counted by word, so an entry with two such words counts twice: a few
    prefixes more are listed than need be, none fewer.
    """
    words = Counter(word for _, _, have in _words_in_search_order() for word in set(have))
    begun = Counter()
    for word, count in words.items():
        for n in range(PREFIX_LETTERS + 1, min(len(word), MAX_PREFIX) + 1):
            begun[word[:n]] += count
    return {prefix for prefix, count in begun.items() if count >= BROAD_PREFIX}


def refresh_prefixes():
    """Write SearchPrefix: for each listed prefix, the first entries of each kind it finds.

    Entries arrive shortest first, so a prefix's list of a kind is done once it
    holds LISTED_PER_KIND; and when a word's longest listed prefix is done its
    shorter ones are too, so most words cost one look-up. Each pair and three
    of an entry's initials gets a list too (see _listed).
    """
    broad = _broad()
    prefixes = {}
    listed = defaultdict(Counter)
    # By letters, named only when listed: a title's ten words have 165 groups,
    # most of them long full, and naming each was a second of a load at PwC size.
    initials_listed = defaultdict(Counter)
    rows = []
    for pk, kind, words in _words_in_search_order():
        counts, mine, spaced = listed[kind], set(), " ".join(words)
        for word in words:
            if word not in prefixes:
                n = min(len(word), PREFIX_LETTERS)
                while n < min(len(word), MAX_PREFIX) and word[: n + 1] in broad:
                    n += 1
                prefixes[word] = [word[:length] for length in range(n, 0, -1)]
            for prefix in prefixes[word]:
                if counts[prefix] >= LISTED_PER_KIND:
                    break
                if prefix not in mine:
                    mine.add(prefix)
                    counts[prefix] += 1
                    rows.append((prefix, pk, spaced))
        initials = initials_listed[kind]
        for group in _initials_groups(words):
            if initials[group] < INITIALS_PER_KIND:
                initials[group] += 1
                rows.append((initials_name(group), pk, spaced))
        if len(rows) >= PREFIX_ROWS_HELD:
            _insert_prefixes(rows)
    _insert_prefixes(rows)


# Prefix rows written as they are found, a bounded number at a time.
PREFIX_ROWS_HELD = 50_000


def _insert_prefixes(rows):
    # Tuples, not SearchPrefix instances: at ten times the archive there are
    # millions, and bulk_create spent more on them than the lists took to make.
    insert(SearchPrefix, ("prefix", "entry", "words"), rows)
    rows.clear()


def _forget(cursor, prefixes):
    """Drop these prefixes' lists, in one statement as refresh_index() deletes."""
    if prefixes:
        marks = ", ".join(["%s"] * len(prefixes))
        table = SearchPrefix._meta.db_table
        cursor.execute(f"DELETE FROM {table} WHERE prefix IN ({marks})", sorted(prefixes))


def _prefixes_a_name_may_begin(names):
    """Every prefix SearchPrefix may list for these names, and many it does not.

    Python's words of the name, as typed and with accents taken off: each word
    the engines make starts where one of these does (a PostgreSQL word like
    "b/16" or "out-of-distribution" at "b" or "out"). Not the lists of their
    initials: a query that reads one reads each of those letters' lists too,
    and needs them all, so dropping those is enough.
    """
    found = set()
    for name in names:
        lower = name.lower()
        plain = "".join(
            c for c in unicodedata.normalize("NFKD", lower) if not unicodedata.combining(c)
        )
        for word in WORD.findall(f"{lower} {plain}"):
            found.update(word[:n] for n in range(1, min(len(word), MAX_PREFIX) + 1))
    return found


BOARD_NAME = "t.name || ' on ' || d.name"


def _models_sql(narrowed=""):
    """Every model with a shown row, once (model_slug: two papers' models of one name are
    two models, each an entry leading to its own page); `narrowed` (SQL, " AND" first)
    narrows the rows it reads, and must keep each model's rows whole or none.

    Named as its page names it: the spelling of its first row by board slug, then
    rank (web.model_data.model_rows). Its context says where it has results: its
    board's name when it has one, else how many boards (digits, which a board's
    name, "<task> on <dataset>", never is; the view puts them in words); its
    weight, the boards, puts the model on most boards first among models of one
    name. Each model's first row on each board is found from the rows alone,
    and only the first board's row is joined to read its spelling.
    """
    rows = Row._meta.db_table
    board = Leaderboard._meta.db_table
    return (
        f"SELECT r.model AS name, f.model_slug AS slug, CASE WHEN f.boards = 1 "
        f"THEN {BOARD_NAME} ELSE CAST(f.boards AS TEXT) END AS context, f.model_slug, "
        "f.boards AS weight FROM ("
        "SELECT m.model_slug, m.leaderboard_id, m.rank, "
        "ROW_NUMBER() OVER (PARTITION BY m.model_slug ORDER BY o.slug) AS place, "
        "COUNT(*) OVER (PARTITION BY m.model_slug) AS boards "
        f"FROM (SELECT model_slug, leaderboard_id, MIN(rank) AS rank FROM {rows} "
        f"WHERE NOT withheld{narrowed} GROUP BY model_slug, leaderboard_id) m "
        f"JOIN {board} o ON o.id = m.leaderboard_id) f "
        f"JOIN {rows} r ON r.leaderboard_id = f.leaderboard_id AND r.rank = f.rank "
        f"JOIN {board} b ON b.id = f.leaderboard_id "
        f"JOIN {Task._meta.db_table} t ON t.id = b.task_id "
        f"JOIN {Dataset._meta.db_table} d ON d.id = b.dataset_id "
        "WHERE f.place = 1"
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


def _paper_sql(narrowed=""):
    """Every shown paper's title; `narrowed` (SQL, " AND" first) narrows the papers."""
    return (
        f"SELECT m.title AS name, m.slug, '' AS context FROM {Paper._meta.db_table} m "
        f"WHERE m.title <> '' AND NOT m.withheld{narrowed}"
    )


def _method_sql(narrowed=""):
    """Every shown method by its name, and by its full name where that says more;
    `narrowed` (SQL, " AND" first) narrows the methods.

    Two entries for one page: "ResNet" and "Residual Network" are both what
    a visitor may type. Each names the other beside it. Each method is read
    once, joined to the two ways of naming it, so `narrowed` appears once.
    """
    other = "m.full_name <> '' AND upper(m.full_name) <> upper(m.name)"
    return (
        "SELECT CASE WHEN way.second = 1 THEN m.full_name ELSE m.name END AS name, m.slug, "
        f"CASE WHEN way.second = 1 THEN m.name WHEN {other} THEN m.full_name ELSE '' END "
        f"AS context FROM {Method._meta.db_table} m "
        "JOIN (SELECT 0 AS second UNION ALL SELECT 1) way "
        f"ON CASE WHEN way.second = 1 THEN {other} ELSE m.name <> '' END "
        f"WHERE NOT m.withheld{narrowed}"
    )


def _author_sql():
    return f"SELECT name, slug, '' AS context FROM {Author._meta.db_table} WHERE name <> ''"


def _reindex(kind, which, which_params, select, params):
    """Re-index the entries of a kind whose pages `which` names (SQL, a condition on
    their `slug`, taking `which_params`), from `select`.

    A whole rebuild takes seconds at the archive's size; this touches only the
    pages' own entries. SQLite's FTS5 table takes its content from the entries
    table, so it is told which rows leave and which arrive. The prefixes whose
    lists held a leaving entry, or might take an arriving one, are dropped:
    they are searched until the next load lists them again.
    """
    table = SearchEntry._meta.db_table
    mine = f"FROM {table} WHERE kind = %s AND {which}"
    params_mine = [kind, *which_params]
    sqlite = connection.vendor == "sqlite"
    entries = SearchEntry.objects.filter(pk__in=RawSQL(f"SELECT id {mine}", params_mine))
    with transaction.atomic(), connection.cursor() as cursor:
        _one_writer_at_a_time(cursor)
        stale = set(SearchPrefix.objects.filter(entry__in=entries).values_list("prefix", flat=True))
        if sqlite:
            leaving = f"SELECT 'delete', id, name {mine}"
            cursor.execute(
                f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, name) {leaving}", params_mine
            )
        _forget(cursor, stale)
        cursor.execute(f"DELETE {mine}", params_mine)
        # Out of the search's order: numbered after every entry refresh_index() placed.
        cursor.execute(f"SELECT max(id) FROM {table}")
        first = max(cursor.fetchone()[0] or 0, UNORDERED - 1) + 1
        _insert(kind, select, params, first)
        stale = _prefixes_a_name_may_begin(entries.values_list("name", flat=True))
        _forget(cursor, stale)
        if sqlite:
            cursor.execute(
                f"INSERT INTO {FTS_TABLE}(rowid, name) SELECT id, name {mine}", params_mine
            )


def _models_of(boards, models):
    """SQL selecting the slugs of the models with a row on these boards (ids) and of
    `models` (slugs), and its parameters.

    One list for the rows to read and the entries to replace, so a model whose
    rows are gone is still named: a subquery and a list ORed together made
    PostgreSQL read every row.
    """
    ways, params = [], []
    if boards:
        marks = ", ".join(["%s"] * len(boards))
        ways.append(
            f"SELECT model_slug FROM {Row._meta.db_table} WHERE leaderboard_id IN ({marks})"
        )
        params += boards
    if models:
        ways.append("VALUES " + ", ".join(["(%s)"] * len(models)))
        params += models
    return " UNION ALL ".join(ways), params


def refresh_models(boards, models=()):
    """Re-index the models with rows on a few boards, after editors withheld, restored or
    deleted rows there, and `models` (slugs): those whose rows were deleted, which the
    boards no longer name. A model's one entry is made of its rows on every board, so it
    is re-indexed whole; one that has no shown row left leaves the search."""
    ids = sorted({board.pk for board in boards})
    models = sorted(set(models))
    if not ids and not models:
        return
    slugs, params = _models_of(ids, models)
    select = _models_sql(f" AND model_slug IN ({slugs})")
    _reindex(SearchKind.MODEL, f"slug IN ({slugs})", params, select, params)


# The kinds refresh_pages() re-indexes, each by what it selects of a few slugs.
_PAGE_SQL = {SearchKind.PAPER: _paper_sql, SearchKind.METHOD: _method_sql}


def refresh_pages(kind, slugs):
    """Re-index a few papers' or methods' names, after an editor withheld or restored them.

    A withheld page leaves the search and the suggestions at once, a restored
    one comes back (numbered out of order, as refresh_models() numbers). A
    paper's abstract is matched through its entry, so it follows.
    """
    slugs = sorted(set(slugs))
    if not slugs:
        return
    marks = ", ".join(["%s"] * len(slugs))
    _reindex(kind, f"slug IN ({marks})", slugs, _PAGE_SQL[kind](f" AND m.slug IN ({marks})"), slugs)


def _task_sql():
    return f"SELECT name, slug, '' AS context FROM {Task._meta.db_table}"


def _dataset_sql():
    return f"SELECT name, slug, full_name AS context FROM {Dataset._meta.db_table}"


# A board's entry tells it from a look-alike by its rows: its context is its
# row count, kept in step by refresh_board_rows() (counts change without names).
_BOARD_ROWS = "CAST(b.row_count AS TEXT)"


def refresh_board_rows(boards=None):
    """Set the row count of these boards' entries (of every board by default):
    one statement, writing only the entries whose count changed."""
    table, board = SearchEntry._meta.db_table, Leaderboard._meta.db_table
    sql = (
        f"UPDATE {table} SET context = (SELECT {_BOARD_ROWS} FROM {board} b "
        f"WHERE b.slug = {table}.slug) WHERE kind = %s AND slug IN (SELECT b.slug FROM {board} b "
        f"WHERE b.slug = {table}.slug AND {_BOARD_ROWS} <> {table}.context"
    )
    params = [SearchKind.LEADERBOARD]
    if boards is not None:
        ids = sorted({board.pk for board in boards})
        if not ids:
            return
        sql += f" AND b.id IN ({', '.join(['%s'] * len(ids))})"
        params += ids
    with connection.cursor() as cursor:
        cursor.execute(sql + ")", params)


def _board_sql():
    return (
        f"SELECT {BOARD_NAME} AS name, b.slug, {_BOARD_ROWS} AS context, b.row_count AS weight "
        f"FROM {Leaderboard._meta.db_table} b "
        f"JOIN {Task._meta.db_table} t ON t.id = b.task_id "
        f"JOIN {Dataset._meta.db_table} d ON d.id = b.dataset_id"
    )


# What each kind's entries are copied from, all of them (name, slug, context).
SOURCES = {
    SearchKind.TASK: _task_sql,
    SearchKind.DATASET: _dataset_sql,
    SearchKind.LEADERBOARD: _board_sql,
    SearchKind.PAPER: _paper_sql,
    SearchKind.METHOD: _method_sql,
    SearchKind.AUTHOR: _author_sql,
    SearchKind.MODEL: _models_sql,
}


def refresh_index():
    """Rebuild the search entries from the catalogue, then the engine's index."""
    with transaction.atomic():
        # One statement each: the ORM would first collect the prefixes each
        # entry cascades to.
        with connection.cursor() as cursor:
            _one_writer_at_a_time(cursor)
            cursor.execute(f"DELETE FROM {SearchPrefix._meta.db_table}")
            cursor.execute(f"DELETE FROM {SearchEntry._meta.db_table}")
        for kind, select in SOURCES.items():
            _insert(kind, select())
        with connection.cursor() as cursor:
            if connection.vendor == "sqlite":
                cursor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES('rebuild')")
                # Read again from the papers table: abstracts a load changed.
                table = ABSTRACT_FTS_TABLE
                cursor.execute(f"INSERT INTO {table}({table}) VALUES('rebuild')")
            else:
                # Rows inserted in bulk wait in the GIN index's pending list, which
                # every search scans whole until autovacuum merges it: 20 ms for a
                # word nothing matches at PwC size, against 0.1 ms once merged.
                cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [PG_INDEX])
        refresh_prefixes()

"""The site search: one function over tasks, datasets, leaderboards, papers and models.

Names are copied into SearchEntry by refresh_index() after each load; each
database matches them with its own full-text engine (PostgreSQL: to_tsvector,
with each word's first letters, over a GIN expression index; SQLite: an FTS5
table), chosen by the connection in use. Both split "out-of-distribution" into
its words and match every word of the query as a prefix, so the two backends
find the same entries.
"""

import re
import unicodedata
from collections import Counter, defaultdict
from itertools import combinations

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.search import SearchVector
from django.db import connection, transaction
from django.db.models import Func, TextField
from django.db.models.expressions import RawSQL

from leaderboards.models import (
    Dataset,
    Leaderboard,
    Paper,
    Row,
    SearchEntry,
    SearchKind,
    SearchPrefix,
    Task,
)
from leaderboards.upkeep.bulk import insert

FTS_TABLE = "leaderboards_searchentry_fts"
PG_INDEX = "search_entry_name_vector_idx"
MAX_TERMS = 8
MAX_QUERY_LENGTH = 200
# Words only: everything else would be syntax to one engine or the other.
WORD = re.compile(r"[^\W_]+")


def terms(query):
    """The words of a query, lower-cased, at most MAX_TERMS of them."""
    return WORD.findall(query[:MAX_QUERY_LENGTH].lower())[:MAX_TERMS]


def _words():
    """The name's words as PostgreSQL's full-text engine makes them."""
    return SearchVector("name", config="simple")


# A word of up to this many letters is looked up whole on PostgreSQL: the index
# lists each word's first letter and first two letters as words of their own
# (migration 0014), so "c" is one posting list, not the union of every word
# that begins with c. SQLite's FTS5 table keeps prefix indexes of the same lengths.
INITIALS = 2


def _matched_ids():
    """(SQL, its id column): the ids, as `id`, of the entries matching a query as
    _engine_query() writes it, its one parameter. It ends in its WHERE clause, so
    a caller may narrow it with `AND <id column> ...`.

    On PostgreSQL the expression is the migration's GIN index's, so the index is used.
    """
    if connection.vendor == "postgresql":
        table = SearchEntry._meta.db_table
        match = f"SELECT id FROM {table} WHERE sotasite_search_vector(name) @@ "
        return match + "to_tsquery('simple', %s)", "id"
    return _FTS_ROWIDS, "rowid"


def _matching(words):
    """The entries matching every word, as a queryset: the match the search's own SQL makes."""
    match, _ = _matched_ids()
    return SearchEntry.objects.filter(pk__in=RawSQL(match, [_engine_query(words)]))


_FTS_ROWIDS = f"SELECT rowid AS id FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s"


def _fts_query(words):
    return " ".join(f'"{word}"*' for word in words)


def _engine_query(words):
    """The query as the database's engine reads it: every word a prefix."""
    if connection.vendor == "postgresql":
        return " & ".join(word if len(word) <= INITIALS else f"{word}:*" for word in words)
    return _fts_query(words)


DEFAULT_PER_KIND = 10


def _exact(query):
    return query.strip()[:MAX_QUERY_LENGTH]


def _in_kind_order(found):
    return {kind: found[kind] for kind in SearchKind.values if kind in found}


def search(query, per_kind=DEFAULT_PER_KIND):
    """Entries matching every word of `query`: {kind: (total, [entries])}, kinds in order.

    Within a kind an exact name match (ignoring case) comes first, then
    shorter names, as the closer matches. A kind's first entries are its
    first matching ids (see KIND_SPAN), as suggest() finds them, not a sort
    of every match: "detection" matches 7,800 names at the archive's size,
    and sorting them took 26 ms on SQLite and 23 on PostgreSQL, against about
    2 and 7 now. One query where the matches are found once (_matched_once),
    else two: the entries, and each kind's total.
    """
    words = terms(query)
    if not words:
        return {}
    if _matched_once(words):
        rows, totals = _first_and_totals(words, _exact(query), per_kind)
    else:
        rows, totals = _first_in_order(words, _exact(query), per_kind), None
    found = {}
    for row in rows:
        shown = found.setdefault(row.kind, [])
        if len(shown) < per_kind:
            shown.append(row.entry())
    if totals is None:
        totals = _totals(words)
    # On SQLite counted a statement later: a load between the two may have added
    # names, never fewer than those shown.
    return _in_kind_order(
        {kind: (max(totals.get(kind, 0), len(shown)), shown) for kind, shown in found.items()}
    )


def _totals(words):
    """How many entries of each kind match every word: {kind: total}. One query.

    Counted on the full-text engine's ids alone where an id tells its kind (its
    span), and with the entries table only for those numbered out of order: 1
    ms for "detection" on SQLite against 13 with each match looked up.
    """
    query = _engine_query(words)
    match, column = _matched_ids()
    sql = _totals_sql(f"{match} AND {column} < %s", f"{match} AND {column} >= %s")
    with connection.cursor() as cursor:
        cursor.execute(sql, [KIND_SPAN, query, UNORDERED, UNORDERED, query, UNORDERED])
        return _totals_by_kind(cursor.fetchall())


def _totals_sql(below, beyond, between=""):
    """Each kind's number of matches, as rows (id span or None, kind or None,
    `between` columns, count): the ids `below` UNORDERED counted by their span,
    those `beyond` it by their entry's kind. `below` and `beyond` are SQL
    selecting those ids; the parameters are KIND_SPAN, below's, UNORDERED,
    beyond's."""
    table = SearchEntry._meta.db_table
    return (
        f"SELECT m.id / %s, NULL{between}, COUNT(*) FROM ({below}) AS m GROUP BY 1 "
        f"UNION ALL SELECT NULL, e.kind{between}, COUNT(*) FROM {table} e "
        f"WHERE e.id >= %s AND e.id IN ({beyond}) GROUP BY e.kind"
    )


def _totals_by_kind(counted):
    """{kind: total} from _totals_sql()'s rows, read as (span, kind, count)."""
    totals = Counter()
    for span, kind, count in counted:
        totals[kind if span is None else SearchKind.values[span - 1]] += count
    return totals


def suggest(query, per_kind):
    """The first `per_kind` entries of each kind that search() shows: {kind: [entries]}.

    What the search box offers while a word is half typed, without totals. A
    query of a letter or two matches a large part of the archive: those are
    read from SearchPrefix; other queries take each kind's first matching ids,
    which are the search's order (see `KIND_SPAN`), instead of sorting every
    match.
    """
    words = terms(query)
    if not words:
        return {}
    exact = _exact(query)
    found = _listed(words, exact, per_kind) if per_kind <= LISTED_PER_KIND else None
    if found is None:
        found = {}
        for row in _first_in_order(words, exact, per_kind):
            shown = found.setdefault(row.kind, [])
            if len(shown) < per_kind:
                shown.append(row)
    return {kind: [row.entry() for row in rows] for kind, rows in _in_kind_order(found).items()}


def _listed(words, exact, per_kind):
    """suggest() read from SearchPrefix, or None when the lists cannot tell.

    A word's list of a kind is its first matches by (length, name, id), all of
    them when it is short of LISTED_PER_KIND. An entry matching the whole query
    is in each word's list if it comes before that list's last entry: the
    entries of the lists that match every word, up to the furthest a list
    reaches, are the query's first, and they are enough when there are
    `per_kind` of them or a list holds all of its kind. A name equal to the
    query (ignoring case) goes first and has the query's length, so it is
    looked up on search_entry_kind_upper_idx. One query.

    Words of one letter each match so densely together ("m l": thousands of
    names) that their own lists rarely reach three names with all of them:
    every pair and three of initials has a list of its own, of the names with
    a word beginning with each. Any list that holds every match of the query
    from its start serves the rule above.
    """
    entry, prefix = SearchEntry._meta.db_table, SearchPrefix._meta.db_table
    lists = [*dict.fromkeys(words), *_initials_list(word for word in words if len(word) == 1)]
    marks = ", ".join(["%s"] * len(lists))
    sql = (
        f"SELECT {_ENTRY}, p.prefix, p.words FROM {entry} e "
        f"JOIN {prefix} p ON p.entry_id = e.id WHERE p.prefix IN ({marks}) "
        f"UNION ALL SELECT {_ENTRY}, '', '' FROM {entry} e WHERE {_NAMED} "
        f"ORDER BY {_ORDER}"
    )
    rows = _rows(sql, [exact, *lists, exact, *SearchKind.values, exact])
    # Each word's list is needed; the initials' may be missing (no name has
    # them all, or an editor's re-index dropped it) and is then not used.
    known = {row.prefix for row in rows}
    if not set(words) <= known:
        return None
    lists = [name for name in lists if name in known]
    found = {}
    for kind in SearchKind.values:
        first = _first_of_kind([row for row in rows if row.kind == kind], lists, words, per_kind)
        if first is None:
            return None
        if first:
            found[kind] = first
    return found


def _first_of_kind(rows, lists, words, per_kind):
    """The first `per_kind` entries of one kind matching every word, or None if unknown.

    `rows` are in the search's order: named entries (equal to the query) and
    the entries of `lists` (each word's, its initials'), which carry their
    words as the engine has them.
    """
    reach, whole = -1, False
    for name in lists:
        places = [place for place, row in enumerate(rows) if row.prefix == name]
        whole |= len(places) < (INITIALS_PER_KIND if _is_initials(name) else LISTED_PER_KIND)
        reach = max(reach, places[-1] if places else -1)
    shown = []
    for place, row in enumerate(rows):
        if not whole and place > reach:
            break
        if len(shown) == per_kind:
            break
        if any(other.pk == row.pk for other in shown):
            continue
        if not row.prefix or _has_every_word(row.words.split(), words):
            shown.append(row)
    if len(shown) < per_kind and not whole:
        return None
    return shown


# A list of initials is named by its letters in order, space-separated ("f l r"):
# no word's prefix holds a space, so the two kinds of list never share a name.
def _initials_name(letters):
    return " ".join(letters)


def _is_initials(name):
    return " " in name


def _initials_list(letters):
    """The list of names with words beginning with these letters, the first
    INITIALS_LISTED of them: ["f l r"] for r, l and f (or r, l, f and x); none
    for fewer than two."""
    first = sorted(set(letters))[:INITIALS_LISTED]
    return [_initials_name(first)] if len(first) > 1 else []


def _initials_groups(words):
    """The letters of every list an entry with these words is in: each pair and
    three of their initials, in order; _initials_name() names each."""
    letters = sorted({word[0] for word in words})
    for size in range(2, INITIALS_LISTED + 1):
        yield from combinations(letters, size)


def _has_every_word(have, words):
    return all(any(word.startswith(typed) for word in have) for typed in words)


# An entry's id is its place in the search's order within its kind: refresh_index()
# numbers kind number k (SearchKind order) from KIND_SPAN * (k + 1), shortest
# name first, then by name. A kind's first matches for any query are then the
# first ids the full-text engine finds in its span, so a query matching half
# the archive stops after a few ids instead of sorting every match. Entries
# re-indexed between loads (refresh_models) are numbered from UNORDERED on.
KIND_SPAN = 10**12
UNORDERED = KIND_SPAN * (len(SearchKind.values) + 1)
# Queries of this many different words are searched once on SQLite, not once a kind.
MATCHED_ONCE = 3
# The longest prefix SQLite's full-text index keeps lists for (its `prefix`
# option, migration 0014). A longer word's prefix is found by merging every
# word it begins, each time the query is run.
FTS_PREFIX_LETTERS = 2


def _span(kind):
    start = KIND_SPAN * (SearchKind.values.index(kind) + 1)
    return start, start + KIND_SPAN - 1


# The two suggestion queries are written out, not built by the ORM: building them
# cost about 3 ms of a 15 ms answer. Their order is search()'s: a name equal to
# the query (ignoring case, ASCII only on SQLite as its LIKE is) first, then
# shorter names, then by name.
_ENTRY = (
    "e.id, e.kind, e.name, e.slug, e.context, "
    "CASE WHEN upper(e.name) = upper(%s) THEN 0 ELSE 1 END AS exact, length(e.name) AS name_length"
)
_ORDER = "exact, name_length, name, id"
_KINDS = ", ".join(["%s"] * len(SearchKind.values))
# Entries whose name is the query, ignoring case: search_entry_kind_upper_idx.
_NAMED = f"e.kind IN ({_KINDS}) AND upper(e.name) = upper(%s)"


class _Row:
    """An entry as the suggestion queries read it, with the prefix list it came from."""

    __slots__ = ("pk", "kind", "name", "slug", "context", "prefix", "words")

    def __init__(self, pk, kind, name, slug, context, _exact, _length, prefix="", words=""):
        self.pk, self.kind, self.name, self.slug, self.context = pk, kind, name, slug, context
        self.prefix, self.words = prefix, words

    def entry(self):
        return SearchEntry(
            id=self.pk, kind=self.kind, name=self.name, slug=self.slug, context=self.context
        )


def _rows(sql, params):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [_Row(*found) for found in cursor.fetchall()]


def _candidates(words, exact, per_kind):
    """The ids that can be a kind's first `per_kind`: its first matching ids in its
    span, every match numbered out of order, and every name equal to the query
    (which goes first whatever its place). SQL and params, one statement."""
    table = SearchEntry._meta.db_table
    query = _engine_query(words)
    # search_entry_kind_upper_idx. A branch of its own: ORed with the rest in one
    # WHERE, PostgreSQL read the whole table (130 ms).
    named = f"SELECT e.id FROM {table} e WHERE {_NAMED}"
    named_params = [*SearchKind.values, exact]
    if _matched_once(words):
        # PostgreSQL: the GIN index finds every match at once (walking a kind's
        # ids in order instead would read the whole kind when few of them
        # match); each kind's first ids are then a cheap sort of integers, not
        # of names. SQLite, for a query of several words: few names match them
        # all, and one search costs what one kind's does (2 ms for "on the role
        # of masked modeling for docum", whose "for" begins 900 words); for
        # two long words, see _matched_once().
        with_sql, body, params = _matched_first(per_kind)
        return f"{with_sql} {body} UNION ALL {named}", [query, *params, *named_params]
    # FTS5 reads its prefix index in rowid order and stops at the limit: a word
    # or two may match half the archive. Entries out of order are looked for
    # only when there are some (a constant test, made before the full-text
    # search starts).
    some = f"EXISTS (SELECT 1 FROM {table} WHERE id >= %s)"
    branches = [f"{_FTS_ROWIDS} AND rowid >= %s AND {some}"]
    params = [query, UNORDERED, UNORDERED]
    first = f"SELECT * FROM ({_FTS_ROWIDS} AND rowid BETWEEN %s AND %s ORDER BY rowid LIMIT %s)"
    for kind in SearchKind.values:
        branches.append(first)
        params += [query, *_span(kind), per_kind]
    return " UNION ALL ".join([*branches, named]), [*params, *named_params]


def _matched_once(words):
    """Whether the query's matches are found once and each kind's first taken from
    them, rather than found again in each kind's span as far as its first.

    Always on PostgreSQL (see _candidates). On SQLite for three words or more,
    and for two or more words longer than FTS_PREFIX_LETTERS: those prefixes
    are merged whole at each search, and the search of each kind's span and the
    count repeated it seven times ("image classification": 45 ms against 17
    at ten times the archive). Shorter words are read from the prefix index as
    far as each kind's first ids, which is quicker than finding every match
    ("de le": 9 ms against 18).
    """
    distinct = set(words)
    return (
        connection.vendor == "postgresql"
        or len(distinct) >= MATCHED_ONCE
        or sum(len(word) > FTS_PREFIX_LETTERS for word in distinct) >= 2
    )


def _matched_first(per_kind):
    """The query's matches, once, as the CTE `matched`, and each
    kind's first `per_kind` of them with every match numbered out of order:
    (the WITH clause, whose one parameter is the engine's query; the ids; their
    parameters)."""
    match, _ = _matched_ids()
    branches = ["SELECT id FROM matched WHERE id >= %s"]
    params = [UNORDERED]
    first = (
        "SELECT id FROM (SELECT id FROM matched WHERE id BETWEEN %s AND %s "
        "ORDER BY id LIMIT %s) AS kind_first"
    )
    for kind in SearchKind.values:
        branches.append(first)
        params += [*_span(kind), per_kind]
    with_sql = f"WITH matched AS MATERIALIZED ({match})"
    return with_sql, " UNION ALL ".join(branches), params


def _first_and_totals(words, exact, per_kind):
    """_first_in_order() and _totals() in one statement that matches once, for
    the queries _matched_once() names. On PostgreSQL each match is a row read
    from the table (the GIN index gives row places, not ids): "resnet" matches
    40,000 names at ten times the archive, and reading them twice, once for the
    first and once for the totals, was most of the search's 80 ms."""
    table = SearchEntry._meta.db_table
    with_sql, body, params = _matched_first(per_kind)
    named = f"SELECT e.id FROM {table} e WHERE {_NAMED}"
    # A total's row has no name: exact = 2 puts it after every entry.
    totals = _totals_sql(
        "SELECT id FROM matched WHERE id < %s",
        "SELECT id FROM matched WHERE id >= %s",
        between=", NULL, NULL, NULL, 2, 0",
    )
    sql = (
        f"{with_sql} SELECT {_ENTRY}, CAST(NULL AS BIGINT) AS total FROM {table} e "
        f"WHERE e.id IN ({body} UNION ALL {named}) UNION ALL {totals} ORDER BY {_ORDER}"
    )
    query = _engine_query(words)
    with connection.cursor() as cursor:
        cursor.execute(
            sql,
            [
                query,
                exact,
                *params,
                *SearchKind.values,
                exact,
                KIND_SPAN,
                UNORDERED,
                UNORDERED,
                UNORDERED,
            ],
        )
        found = cursor.fetchall()
    rows = [_Row(*entry) for *entry, total in found if total is None]
    counted = [(entry[0], entry[1], total) for *entry, total in found if total is not None]
    return rows, _totals_by_kind(counted)


def _first_in_order(words, exact, per_kind):
    """The candidates' entries in the search's order: the first `per_kind` of
    each kind are search()'s. One query."""
    candidates, params = _candidates(words, exact, per_kind)
    sql = (
        f"SELECT {_ENTRY} FROM {SearchEntry._meta.db_table} e "
        f"WHERE e.id IN ({candidates}) ORDER BY {_ORDER}"
    )
    return _rows(sql, [exact, *params])


def _insert(kind, select, params=(), first=None):
    """Copy names into the entries table with one INSERT ... SELECT, numbered in
    the search's order from `first` (the kind's span unless given).

    `select` gives the columns name, slug and context.
    """
    table = SearchEntry._meta.db_table
    start = _span(kind)[0] if first is None else first
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (id, kind, name, slug, context) "
            "SELECT %s + ROW_NUMBER() OVER (ORDER BY length(name), name), %s, name, slug, context "
            f"FROM ({select}) found",
            [start - 1, kind, *params],
        )


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
    """(id, kind, words) of every entry, in search()'s order within each kind.

    That is id order, as refresh_index() numbers them (see KIND_SPAN); this
    runs only straight after it. The words are the engine's own (SQLite's
    from the FTS5 index, PostgreSQL's from the same tsvector the GIN index
    holds), so a prefix lists what _matching() finds, accents and case folded
    as the engine folds them.
    """
    ordered = SearchEntry.objects.order_by("pk")
    if connection.vendor == "postgresql":
        words = Func(_words(), function="tsvector_to_array", output_field=ArrayField(TextField()))
        return list(ordered.annotate(words=words).values_list("pk", "kind", "words"))
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_VOCAB} "
            f"USING fts5vocab(main, '{FTS_TABLE}', 'instance')"
        )
        # A term holds no space: unicode61 splits there.
        cursor.execute(f"SELECT doc, group_concat(term, ' ') FROM temp.{_VOCAB} GROUP BY doc")
        words = dict(cursor.fetchall())
        # The cursor, not the ORM's rows: a second of a load at PwC size.
        cursor.execute(f"SELECT id, kind FROM {SearchEntry._meta.db_table} ORDER BY id")
        return [(pk, kind, words.get(pk, "").split()) for pk, kind in cursor.fetchall()]


def _broad(entries):
    """The prefixes longer than PREFIX_LETTERS that begin words of BROAD_PREFIX entries or more.

    Counted by word, so an entry with two such words counts twice: a few
    prefixes more are listed than need be, none fewer.
    """
    words = Counter(word for _, _, have in entries for word in set(have))
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
    entries = _words_in_search_order()
    broad = _broad(entries)
    prefixes = {}
    listed = defaultdict(Counter)
    # By letters, named only when listed: a title's ten words have 165 groups,
    # most of them long full, and naming each was a second of a load at PwC size.
    initials_listed = defaultdict(Counter)
    rows = []
    for pk, kind, words in entries:
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
                rows.append((_initials_name(group), pk, spaced))
    # Tuples, not SearchPrefix instances: at ten times the archive there are
    # millions, and bulk_create spent more on them than the lists took to make.
    insert(SearchPrefix, ("prefix", "entry", "words"), rows)


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


def _models_sql(of_boards=""):
    """Every shown row's model name, once per board; `of_boards` (SQL, " AND"
    first) narrows the rows it reads.

    Made distinct by board id and model before the joins: distinct by the
    names' text after them took 0.8 s at PwC size, this 0.5.
    """
    return (
        f"SELECT r.model AS name, b.slug AS slug, {BOARD_NAME} AS context "
        f"FROM (SELECT DISTINCT leaderboard_id, model FROM {Row._meta.db_table} "
        f"WHERE NOT withheld{of_boards}) r "
        f"JOIN {Leaderboard._meta.db_table} b ON b.id = r.leaderboard_id "
        f"JOIN {Task._meta.db_table} t ON t.id = b.task_id "
        f"JOIN {Dataset._meta.db_table} d ON d.id = b.dataset_id"
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
    table, so it is told which rows leave and which arrive. The prefixes whose
    lists held a leaving entry, or might take an arriving one, are dropped:
    they are searched until the next load lists them again.
    """
    slugs = [board.slug for board in boards]
    if not slugs:
        return
    table = SearchEntry._meta.db_table
    marks = ", ".join(["%s"] * len(slugs))
    mine = f"FROM {table} WHERE kind = %s AND slug IN ({marks})"
    params = [SearchKind.MODEL, *slugs]
    sqlite = connection.vendor == "sqlite"
    entries = SearchEntry.objects.filter(kind=SearchKind.MODEL, slug__in=slugs)
    with transaction.atomic(), connection.cursor() as cursor:
        _one_writer_at_a_time(cursor)
        stale = set(SearchPrefix.objects.filter(entry__in=entries).values_list("prefix", flat=True))
        if sqlite:
            leaving = f"SELECT 'delete', id, name {mine}"
            cursor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, name) {leaving}", params)
        _forget(cursor, stale)
        cursor.execute(f"DELETE {mine}", params)
        # Out of the search's order: numbered after every entry refresh_index() placed.
        cursor.execute(f"SELECT max(id) FROM {table}")
        first = max(cursor.fetchone()[0] or 0, UNORDERED - 1) + 1
        board = Leaderboard._meta.db_table
        of_boards = f" AND leaderboard_id IN (SELECT id FROM {board} WHERE slug IN ({marks}))"
        _insert(SearchKind.MODEL, _models_sql(of_boards), slugs, first)
        stale = _prefixes_a_name_may_begin(entries.values_list("name", flat=True))
        _forget(cursor, stale)
        if sqlite:
            cursor.execute(f"INSERT INTO {FTS_TABLE}(rowid, name) SELECT id, name {mine}", params)


def refresh_index():
    """Rebuild the search entries from the catalogue, then the engine's index."""
    task, dataset = Task._meta.db_table, Dataset._meta.db_table
    board, paper = Leaderboard._meta.db_table, Paper._meta.db_table
    with transaction.atomic():
        # One statement each: the ORM would first collect the prefixes each
        # entry cascades to.
        with connection.cursor() as cursor:
            _one_writer_at_a_time(cursor)
            cursor.execute(f"DELETE FROM {SearchPrefix._meta.db_table}")
            cursor.execute(f"DELETE FROM {SearchEntry._meta.db_table}")
        _insert(SearchKind.TASK, f"SELECT name, slug, '' AS context FROM {task}")
        _insert(SearchKind.DATASET, f"SELECT name, slug, full_name AS context FROM {dataset}")
        _insert(
            SearchKind.LEADERBOARD,
            f"SELECT {BOARD_NAME} AS name, b.slug, '' AS context FROM {board} b "
            f"JOIN {task} t ON t.id = b.task_id JOIN {dataset} d ON d.id = b.dataset_id",
        )
        _insert(
            SearchKind.PAPER,
            f"SELECT title AS name, slug, '' AS context FROM {paper} WHERE title <> ''",
        )
        _insert(SearchKind.MODEL, _models_sql())
        with connection.cursor() as cursor:
            if connection.vendor == "sqlite":
                cursor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES('rebuild')")
            else:
                # Rows inserted in bulk wait in the GIN index's pending list, which
                # every search scans whole until autovacuum merges it: 20 ms for a
                # word nothing matches at PwC size, against 0.1 ms once merged.
                cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [PG_INDEX])
        refresh_prefixes()

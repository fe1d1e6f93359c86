"""What visitors run: the search page's search() and the search box's suggest().

Both read what index.py wrote: the entries, numbered in the search's order
within each kind, through the database's full-text engine, and for the box the
lists of each short prefix's first entries.
"""

from collections import Counter

from django.db import connection
from django.db.models.expressions import RawSQL

from leaderboards.models import Paper, SearchEntry, SearchKind, SearchPrefix
from leaderboards.search import index
from leaderboards.search.terms import exact_text, folded_words, terms


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


_FTS_ROWIDS = f"SELECT rowid AS id FROM {index.FTS_TABLE} WHERE {index.FTS_TABLE} MATCH %s"


def _fts_query(words):
    return " ".join(f'"{word}"*' for word in words)


def _engine_query(words):
    """The query as the database's engine reads it: every word a prefix."""
    if connection.vendor == "postgresql":
        return " & ".join(word if len(word) <= index.INITIALS else f"{word}:*" for word in words)
    return _fts_query(words)


DEFAULT_PER_KIND = 10


def _in_kind_order(found):
    return {kind: found[kind] for kind in SearchKind.values if kind in found}


def search(query, per_kind=DEFAULT_PER_KIND, kinds=None):
    """Entries matching every word of `query`: {kind: (total, [entries])}, kinds in order.

    `kinds` (SearchKind values) keeps to those: a list of one kind's matches
    reads that kind's span alone.

    Within a kind an exact name match (ignoring case) comes first, then
    shorter names, as the closer matches. A kind's first entries are its
    first matching ids (see index.KIND_SPAN), as suggest() finds them, not a sort
    of every match: "detection" matches 7,800 names at the archive's size,
    and sorting them took 26 ms on SQLite and 23 on PostgreSQL, against about
    2 and 7 now. One query where the matches are found once (_matched_once),
    else two: the entries, and each kind's total.
    """
    words = terms(query)
    if not words:
        return {}
    kinds = list(kinds or SearchKind.values)
    if _matched_once(words):
        rows, totals = _first_and_totals(words, exact_text(query), per_kind, kinds)
    else:
        rows, totals = _first_in_order(words, exact_text(query), per_kind, kinds), None
    found = {}
    for row in rows:
        if row.kind not in kinds:
            continue
        shown = found.setdefault(row.kind, [])
        if len(shown) < per_kind:
            shown.append(row.entry())
    if totals is None:
        totals = _totals(words)
    # On SQLite counted a statement later: a load between the two may have added
    # names, never fewer than those shown.
    return _in_kind_order(
        {
            kind: (max(totals.get(kind, 0), len(shown)), shown)
            for kind, shown in found.items()
            if kind in kinds
        }
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
        cursor.execute(
            sql, [index.KIND_SPAN, query, index.UNORDERED, index.UNORDERED, query, index.UNORDERED]
        )
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
    which are the search's order (see `index.KIND_SPAN`), instead of sorting every
    match.
    """
    words = terms(query)
    if not words:
        return {}
    exact = exact_text(query)
    found = _listed(words, exact, per_kind) if per_kind <= index.LISTED_PER_KIND else None
    if found is None:
        found = {}
        for row in _first_in_order(words, exact, per_kind, SearchKind.values):
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
        whole |= len(places) < (
            index.INITIALS_PER_KIND if _is_initials(name) else index.LISTED_PER_KIND
        )
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


def _is_initials(name):
    return " " in name


def _initials_list(letters):
    """The list of names with words beginning with these letters, the first
    INITIALS_LISTED of them: ["f l r"] for r, l and f (or r, l, f and x); none
    for fewer than two."""
    first = sorted(set(letters))[: index.INITIALS_LISTED]
    return [index.initials_name(first)] if len(first) > 1 else []


def _has_every_word(have, words):
    return all(any(word.startswith(typed) for word in have) for typed in words)


# Queries of this many different words are searched once on SQLite, not once a kind.
MATCHED_ONCE = 3


# The two suggestion queries are written out, not built by the ORM: building them
# cost about 3 ms of a 15 ms answer. Their order is search()'s: a name equal to
# the query (ignoring case, ASCII only on SQLite as its LIKE is) first, then
# shorter names, then by name.
_ENTRY = (
    "e.id, e.kind, e.name, e.slug, e.context, "
    "CASE WHEN upper(e.name) = upper(%s) THEN 0 ELSE 1 END AS exact, "
    "length(e.name) AS name_length, e.model_slug"
)
_ORDER = "exact, name_length, name, id"
_KINDS = ", ".join(["%s"] * len(SearchKind.values))
# Entries whose name is the query, ignoring case: search_entry_kind_upper_idx.
_NAMED = f"e.kind IN ({_KINDS}) AND upper(e.name) = upper(%s)"


class _Row:
    """An entry as the suggestion queries read it, with the prefix list it came from."""

    __slots__ = ("pk", "kind", "name", "slug", "context", "model_slug", "prefix", "words")

    def __init__(
        self, pk, kind, name, slug, context, _exact, _length, model_slug, prefix="", words=""
    ):
        self.pk, self.kind, self.name, self.slug, self.context = pk, kind, name, slug, context
        self.model_slug, self.prefix, self.words = model_slug or "", prefix, words

    def entry(self):
        return SearchEntry(
            id=self.pk,
            kind=self.kind,
            name=self.name,
            slug=self.slug,
            context=self.context,
            model_slug=self.model_slug,
        )


def _rows(sql, params):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [_Row(*found) for found in cursor.fetchall()]


def _candidates(words, exact, per_kind, kinds):
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
        with_sql, body, params = _matched_first(per_kind, kinds)
        return f"{with_sql} {body} UNION ALL {named}", [query, *params, *named_params]
    # FTS5 reads its prefix index in rowid order and stops at the limit: a word
    # or two may match half the archive. Entries out of order are looked for
    # only when there are some (a constant test, made before the full-text
    # search starts).
    some = f"EXISTS (SELECT 1 FROM {table} WHERE id >= %s)"
    branches = [f"{_FTS_ROWIDS} AND rowid >= %s AND {some}"]
    params = [query, index.UNORDERED, index.UNORDERED]
    first = f"SELECT * FROM ({_FTS_ROWIDS} AND rowid BETWEEN %s AND %s ORDER BY rowid LIMIT %s)"
    for kind in kinds:
        branches.append(first)
        params += [query, *index.span(kind), per_kind]
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
        or sum(len(word) > index.FTS_PREFIX_LETTERS for word in distinct) >= 2
    )


def _matched_first(per_kind, kinds):
    """The query's matches, once, as the CTE `matched`, and each
    kind's first `per_kind` of them with every match numbered out of order:
    (the WITH clause, whose one parameter is the engine's query; the ids; their
    parameters)."""
    match, _ = _matched_ids()
    branches = ["SELECT id FROM matched WHERE id >= %s"]
    params = [index.UNORDERED]
    first = (
        "SELECT id FROM (SELECT id FROM matched WHERE id BETWEEN %s AND %s "
        "ORDER BY id LIMIT %s) AS kind_first"
    )
    for kind in kinds:
        branches.append(first)
        params += [*index.span(kind), per_kind]
    with_sql = f"WITH matched AS MATERIALIZED ({match})"
    return with_sql, " UNION ALL ".join(branches), params


def _first_and_totals(words, exact, per_kind, kinds):
    """_first_in_order() and _totals() in one statement that matches once, for
    the queries _matched_once() names. On PostgreSQL each match is a row read
    from the table (the GIN index gives row places, not ids): "resnet" matches
    40,000 names at ten times the archive, and reading them twice, once for the
    first and once for the totals, was most of the search's 80 ms."""
    table = SearchEntry._meta.db_table
    with_sql, body, params = _matched_first(per_kind, kinds)
    named = f"SELECT e.id FROM {table} e WHERE {_NAMED}"
    # A total's row has no name: exact = 2 puts it after every entry.
    totals = _totals_sql(
        "SELECT id FROM matched WHERE id < %s",
        "SELECT id FROM matched WHERE id >= %s",
        between=", NULL, NULL, NULL, 2, 0, NULL",
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
                index.KIND_SPAN,
                index.UNORDERED,
                index.UNORDERED,
                index.UNORDERED,
            ],
        )
        found = cursor.fetchall()
    rows = [_Row(*entry) for *entry, total in found if total is None]
    counted = [(entry[0], entry[1], total) for *entry, total in found if total is not None]
    return rows, _totals_by_kind(counted)


def _first_in_order(words, exact, per_kind, kinds):
    """The candidates' entries in the search's order: the first `per_kind` of
    each of `kinds` are search()'s. One query."""
    candidates, params = _candidates(words, exact, per_kind, kinds)
    sql = (
        f"SELECT {_ENTRY} FROM {SearchEntry._meta.db_table} e "
        f"WHERE e.id IN ({candidates}) ORDER BY {_ORDER}"
    )
    return _rows(sql, [exact, *params])


# The search page reads at most this many papers whose abstract has the query's
# words: "learning" is in half the archive's 576,000 abstracts, and reading
# each match would cost what the rest of the search costs many times over.
ABSTRACTS_READ = 1000
# Papers fetched at a time, in id order, for the few shown: those whose title
# matches too are left out (search() lists them), so a few more than shown.
ABSTRACTS_PER_READ = 50


def search_abstracts(query, per_kind=DEFAULT_PER_KIND):
    """Papers whose abstract has every word of `query` and whose title does not
    match it (search() lists those): (total, more, [paper entries]).

    The search page's, not the box's. Words are matched whole, not as prefixes:
    the abstracts hold millions of different words, and a prefix would merge
    every word it begins at each search. The engine's first ABSTRACTS_READ + 1
    matches are found, in id order on SQLite (the order the archive was
    loaded in) and in the table's order on PostgreSQL, and counted: `total`
    counts those not withheld, titles that match included; `more` says there
    were more to read. Their titles are fetched ABSTRACTS_PER_READ at a time
    until enough are shown, and matched here, as the engine folds words: read
    and matched by the engine for each match, 1,001 titles took a second at a
    tenth of PwC's size. One query: run again for each further batch, where
    most matches' titles match too ("learning"), the engine's match cost 44 ms
    on SQLite and 81 on PostgreSQL at PwC's size, against 11 and 20 once.
    """
    words = terms(query)
    if not words:
        return 0, False, []
    entry, paper = SearchEntry._meta.db_table, Paper._meta.db_table
    if connection.vendor == "postgresql":
        found = (
            f"SELECT id FROM {paper} WHERE abstract <> '' AND "
            "to_tsvector('simple'::regconfig, abstract) @@ to_tsquery('simple', %s) LIMIT %s"
        )
        whole = " & ".join(words)
    else:
        table = index.ABSTRACT_FTS_TABLE
        found = f"SELECT rowid AS id FROM {table} WHERE {table} MATCH %s ORDER BY rowid LIMIT %s"
        whole = " ".join(f'"{word}"' for word in words)
    # Withheld papers are few: their ids come from paper_withheld_idx, not from
    # reading each match's row. Its condition as each database writes it.
    withheld = "withheld" if connection.vendor == "postgresql" else "withheld = 1"
    counted = (
        "(SELECT COUNT(*) FROM found), "
        f"(SELECT COUNT(*) FROM found WHERE id IN (SELECT id FROM {paper} WHERE {withheld}))"
    )
    sql = (
        f"WITH found AS MATERIALIZED ({found}) "
        f"SELECT {counted}, e.id, e.kind, e.name, e.slug, e.context "
        # Joined to one row, so the counts arrive when no paper is left to show.
        f"FROM (SELECT 1 AS one) one LEFT JOIN (found f "
        f"JOIN {paper} p ON p.id = f.id AND NOT p.withheld "
        f"JOIN {entry} e ON e.kind = %s AND e.slug = p.slug) ON 1 = 1 "
        "ORDER BY f.id"
    )
    typed = folded_words(" ".join(words))
    shown = []
    with connection.cursor() as cursor:
        cursor.execute(sql, [whole, ABSTRACTS_READ + 1, SearchKind.PAPER])
        rows = cursor.fetchmany(ABSTRACTS_PER_READ)
        read, withheld = rows[0][0], rows[0][1]
        while rows and len(shown) < per_kind:
            for *_, pk, kind, name, slug, context in rows:
                if pk is None or len(shown) == per_kind:
                    continue
                if not _has_every_word(folded_words(name), typed):
                    shown.append(
                        SearchEntry(id=pk, kind=kind, name=name, slug=slug, context=context)
                    )
            rows = cursor.fetchmany(ABSTRACTS_PER_READ)
    return min(read - withheld, ABSTRACTS_READ), read > ABSTRACTS_READ, shown

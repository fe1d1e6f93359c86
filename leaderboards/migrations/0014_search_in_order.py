"""Search entries numbered in the search's order, and indexes that read short prefixes at once.

See leaderboards/search/index.py (KIND_SPAN): each kind's entries are
numbered from its own span, shortest name first, so a kind's first matches
are its first matching ids. Existing entries are renumbered here; the prefix
lists are emptied (they refer to the old ids) and written again by the next
load's upkeep, suggestions being searched meanwhile.

PostgreSQL: the GIN index is over the words and every word's first one and
two letters as words of their own, so a word of a letter or two is one
posting list instead of the union of every word it begins. SQLite: the FTS5
table keeps prefix indexes of one and two letters for the same reason. On
both, names are indexed ignoring case, for the name equal to the query.
"""

from django.db import migrations, models
from django.db.models.functions import Upper

ENTRY = "leaderboards_searchentry"
PREFIX = "leaderboards_searchprefix"
FTS_TABLE = "leaderboards_searchentry_fts"
PG_INDEX = "search_entry_name_vector_idx"
KIND_SPAN = 10**12
KINDS = ["task", "dataset", "leaderboard", "paper", "model"]

# The words as to_tsvector('simple') makes them, and for each its first letter
# and first two letters as lexemes: every one is a prefix of a word, so a query
# of prefixes ('image:*') matches exactly the entries it matched before.
PG_FUNCTION = r"""
CREATE FUNCTION sotasite_search_vector(name text) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT words || array_to_tsvector(string_to_array(regexp_replace(
    array_to_string(tsvector_to_array(words), ' '), '(\S)(\S?)\S*', '\1 \1\2', 'g'), ' '))
  FROM to_tsvector('simple'::regconfig, name) words
$$
"""


def _renumber(schema_editor):
    place = " ".join(f"WHEN '{kind}' THEN {n + 1}" for n, kind in enumerate(KINDS))
    execute = schema_editor.execute
    execute(f"DELETE FROM {PREFIX}")
    execute(f"CREATE TEMPORARY TABLE renumbered AS SELECT kind, name, slug, context FROM {ENTRY}")
    execute(f"DELETE FROM {ENTRY}")
    execute(
        f"INSERT INTO {ENTRY} (id, kind, name, slug, context) "
        f"SELECT (CASE kind {place} END) * {KIND_SPAN} "
        "+ ROW_NUMBER() OVER (PARTITION BY kind ORDER BY length(name), name), "
        "kind, name, slug, context FROM renumbered"
    )
    execute("DROP TABLE renumbered")


def forwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(PG_FUNCTION)
        schema_editor.execute(f"DROP INDEX IF EXISTS {PG_INDEX}")
        _renumber(schema_editor)
        # The prefix lists' deferred foreign-key checks must run before the index.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        schema_editor.execute(
            f"CREATE INDEX {PG_INDEX} ON {ENTRY} USING gin (sotasite_search_vector(name))"
        )
    elif vendor == "sqlite":
        schema_editor.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
        _renumber(schema_editor)
        schema_editor.execute(
            f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5("
            f"name, content='{ENTRY}', content_rowid='id', "
            "tokenize='unicode61 remove_diacritics 2', prefix='1 2')"
        )
        schema_editor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES('rebuild')")


def backwards(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {PG_INDEX}")
        schema_editor.execute(
            f"CREATE INDEX {PG_INDEX} ON {ENTRY} "
            "USING gin (to_tsvector('simple'::regconfig, COALESCE(name, '')))"
        )
        schema_editor.execute("DROP FUNCTION IF EXISTS sotasite_search_vector(text)")
    elif vendor == "sqlite":
        schema_editor.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
        schema_editor.execute(
            f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5("
            f"name, content='{ENTRY}', content_rowid='id', "
            "tokenize='unicode61 remove_diacritics 2')"
        )
        schema_editor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES('rebuild')")


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0013_editorial_record"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
        migrations.AddIndex(
            model_name="searchentry",
            index=models.Index(
                models.F("kind"), Upper("name"), name="search_entry_kind_upper_idx"
            ),
        ),
    ]

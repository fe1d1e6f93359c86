"""Methods and authors in the search, and papers' abstracts searchable on the search page.

The kinds' order changes (methods and authors come between papers and
models), and with it the id span of every kind after papers (see
leaderboards/search/index.py, KIND_SPAN): existing entries are renumbered, and
the prefix lists emptied until the next load's upkeep writes them again.

Abstracts are indexed where they are, by paper id, with no copy of their text:
SQLite an FTS5 table whose content is the papers table (words only, no
positions: detail=none), PostgreSQL a GIN expression index on the papers table.
"""

from django.db import migrations, models


ENTRY = "leaderboards_searchentry"
PREFIX = "leaderboards_searchprefix"
PAPER = "leaderboards_paper"
FTS_TABLE = "leaderboards_searchentry_fts"
ABSTRACT_FTS_TABLE = "leaderboards_paper_abstract_fts"
PG_ABSTRACT_INDEX = "paper_abstract_words_idx"
KIND_SPAN = 10**12
KINDS = ["task", "dataset", "leaderboard", "paper", "method", "author", "model"]
OLD_KINDS = ["task", "dataset", "leaderboard", "paper", "model"]


def _renumber(schema_editor, kinds):
    place = " ".join(f"WHEN '{kind}' THEN {n + 1}" for n, kind in enumerate(kinds))
    execute = schema_editor.execute
    execute(f"DELETE FROM {PREFIX}")
    execute(f"CREATE TEMPORARY TABLE renumbered AS SELECT kind, name, slug, context FROM {ENTRY}")
    execute(f"DELETE FROM {ENTRY}")
    execute(
        f"INSERT INTO {ENTRY} (id, kind, name, slug, context) "
        f"SELECT (CASE kind {place} END) * {KIND_SPAN} "
        "+ ROW_NUMBER() OVER (PARTITION BY kind ORDER BY length(name), name), "
        f"kind, name, slug, context FROM renumbered WHERE kind IN ({_listed(kinds)})"
    )
    execute("DROP TABLE renumbered")


def _listed(kinds):
    return ", ".join(f"'{kind}'" for kind in kinds)


def _renumbered(kinds):
    def run(apps, schema_editor):
        vendor = schema_editor.connection.vendor
        if vendor == "postgresql":
            # The prefix lists' deferred foreign-key checks, before the rows move.
            schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        _renumber(schema_editor, kinds)
        if vendor == "sqlite":
            schema_editor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES('rebuild')")

    return run


def abstracts(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX {PG_ABSTRACT_INDEX} ON {PAPER} "
            "USING gin (to_tsvector('simple'::regconfig, abstract)) WHERE abstract <> ''"
        )
    elif vendor == "sqlite":
        schema_editor.execute(
            f"CREATE VIRTUAL TABLE {ABSTRACT_FTS_TABLE} USING fts5("
            f"abstract, content='{PAPER}', content_rowid='id', detail='none', "
            "tokenize='unicode61 remove_diacritics 2')"
        )
        schema_editor.execute(
            f"INSERT INTO {ABSTRACT_FTS_TABLE}({ABSTRACT_FTS_TABLE}) VALUES('rebuild')"
        )


def no_abstracts(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {PG_ABSTRACT_INDEX}")
    elif vendor == "sqlite":
        schema_editor.execute(f"DROP TABLE IF EXISTS {ABSTRACT_FTS_TABLE}")


class Migration(migrations.Migration):

    dependencies = [
        ('leaderboards', '0022_method_pwc_slug'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='searchentry',
            name='search_entry_kind_valid',
        ),
        migrations.RunPython(_renumbered(KINDS), _renumbered(OLD_KINDS)),
        migrations.RunPython(abstracts, no_abstracts),
        migrations.AlterField(
            model_name='searchentry',
            name='kind',
            field=models.CharField(choices=[('task', 'Tasks'), ('dataset', 'Datasets'), ('leaderboard', 'Leaderboards'), ('paper', 'Papers'), ('method', 'Methods'), ('author', 'Authors'), ('model', 'Models')], max_length=12),
        ),
        migrations.AddIndex(
            model_name='searchentry',
            index=models.Index(fields=['kind', 'slug'], name='search_entry_kind_slug_idx'),
        ),
        migrations.AddConstraint(
            model_name='searchentry',
            constraint=models.CheckConstraint(condition=models.Q(('kind__in', ['task', 'dataset', 'leaderboard', 'paper', 'method', 'author', 'model'])), name='search_entry_kind_valid'),
        ),
    ]

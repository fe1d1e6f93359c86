"""PostgreSQL: the list filters that match part of a name read a trigram index.

"Title contains" (/paper/?q=), "Metric" (/sota/?metric=) and the name filters
of tasks and datasets (/task/?q=, /dataset/?q=, /sota/?task=, ?dataset=) are
Django's icontains, UPPER(column) LIKE UPPER('%...%'), which read every row and
upper-case it: at the archive's size /paper/?q=learning took 133 ms and
/sota/?metric=accuracy 79. A GIN index of the upper-cased column's trigrams
(pg_trgm, an extension PostgreSQL ships and lets a database's owner create)
finds the matching rows instead: their counts took 8 and 12 ms. The
expression is Django's own, cast included, so the planner matches it. SQLite
has no such index and keeps reading every name.
"""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

INDEXES = {
    "paper_title_trgm_idx": ("leaderboards_paper", "title"),
    "metric_name_trgm_idx": ("leaderboards_metric", "name"),
    "task_name_trgm_idx": ("leaderboards_task", "name"),
    "dataset_name_trgm_idx": ("leaderboards_dataset", "name"),
}


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for index, (table, column) in INDEXES.items():
        schema_editor.execute(
            f"CREATE INDEX {index} ON {table} USING gin (upper({column}::text) gin_trgm_ops)"
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for index in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {index}")


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0015_home_figures"),
    ]

    operations = [
        TrigramExtension(),
        migrations.RunPython(forwards, backwards),
    ]

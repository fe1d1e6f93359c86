"""PostgreSQL: the board list walks its slug order without reading the boards.

The default sort of /sota/ is by slug, and a filter on the task or the minimum
of rows is checked board by board along it: the slug's unique index gave the
order, each board's task and row count came from the table. At ten times the
archive the 20th page of `/sota/?task=detection&min_rows=5` read 39,000 boards
that way in 34 ms; from an index that carries task, row count and id (with the
visibility map the end of a load now sets, see upkeep.statistics) in 18 ms.

Only PostgreSQL has indexes that carry columns they are not sorted by (INCLUDE).
Declared on the model, SQLite would get a second index on the slug alone, which
its lists (under 50 ms there) do not need and every load would write.
"""

from django.db import migrations

INDEX = "leaderboard_slug_cover_idx"


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"CREATE INDEX {INDEX} ON leaderboards_leaderboard (slug) INCLUDE (task_id, row_count, id)"
    )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0018_list_filter_indexes"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
    ]

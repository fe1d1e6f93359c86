"""The board list's task and dataset filters read slugs and row counts from one index.

(task, slug) and (dataset, slug) take row_count too, so a broad filter's
boards are sorted without reading each; the foreign keys' own indexes, which
these start with, are dropped by name as in 0017 (altering a foreign key makes
SQLite copy the table).
"""

import django.db.models.deletion
from django.db import migrations, models

DROPPED = [
    ("dataset_id", "leaderboards_leaderboard_dataset_id_a682bbb9"),
    ("task_id", "leaderboards_leaderboard_task_id_f699110f"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0017_leading_indexes_only"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="leaderboard",
            name="leaderboard_task_slug_idx",
        ),
        migrations.RemoveIndex(
            model_name="leaderboard",
            name="leaderboard_dataset_slug_idx",
        ),
        migrations.AddIndex(
            model_name="leaderboard",
            index=models.Index(fields=["task", "slug", "row_count"], name="leaderboard_task_list_idx"),
        ),
        migrations.AddIndex(
            model_name="leaderboard",
            index=models.Index(
                fields=["dataset", "slug", "row_count"], name="leaderboard_dataset_list_idx"
            ),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{index}"',
                    reverse_sql=f'CREATE INDEX "{index}" ON "leaderboards_leaderboard" ("{column}")',
                )
                for column, index in DROPPED
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="leaderboard",
                    name="dataset",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="leaderboards",
                        to="leaderboards.dataset",
                    ),
                ),
                migrations.AlterField(
                    model_name="leaderboard",
                    name="task",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="leaderboards",
                        to="leaderboards.task",
                    ),
                ),
            ],
        ),
        # The planner weighs the new indexes by what it knows of them: a
        # site migrated between loads would otherwise wait for the next load.
        migrations.RunSQL(
            "ANALYZE leaderboards_leaderboard", reverse_sql=migrations.RunSQL.noop
        ),
    ]

"""Drop the foreign keys' own indexes that an index of their model starts with.

Each is a copy of the start of a unique constraint's (or an index's) own
index, kept up to date by every insert of a load for nothing. Dropped by
name: an altered foreign key makes SQLite copy its whole table, and the
tables in question are the largest the site has.
"""

import django.db.models.deletion
from django.db import migrations, models


# (table, column, index name): Django names a field's index the same way on both databases.
DROPPED = [
    ("leaderboards_leaderboardarea", "leaderboard_id", "leaderboards_leaderboardarea_leaderboard_id_9f4a6c99"),
    ("leaderboards_metric", "leaderboard_id", "leaderboards_metric_leaderboard_id_abb0bade"),
    ("leaderboards_metricvalue", "metric_id", "leaderboards_metricvalue_metric_id_063d34a8"),
    ("leaderboards_metricvalue", "row_id", "leaderboards_metricvalue_row_id_92a6f4f2"),
    ("leaderboards_row", "leaderboard_id", "leaderboards_row_leaderboard_id_8e47441a"),
    ("leaderboards_rowverification", "snapshot_id", "leaderboards_rowverification_snapshot_id_6db72efb"),
    ("leaderboards_syntologysnapshot", "leaderboard_id", "leaderboards_syntologysnapshot_leaderboard_id_9b3a4444"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0016_trigram_filters"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="paper",
            name="paper_date_idx",
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{index}"',
                    reverse_sql=f'CREATE INDEX "{index}" ON "{table}" ("{column}")',
                )
                for table, column, index in DROPPED
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="leaderboardarea",
                    name="leaderboard",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="area_links",
                        to="leaderboards.leaderboard",
                    ),
                ),
                migrations.AlterField(
                    model_name="metric",
                    name="leaderboard",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="metrics",
                        to="leaderboards.leaderboard",
                    ),
                ),
                migrations.AlterField(
                    model_name="metricvalue",
                    name="metric",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="values",
                        to="leaderboards.metric",
                    ),
                ),
                migrations.AlterField(
                    model_name="metricvalue",
                    name="row",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="values",
                        to="leaderboards.row",
                    ),
                ),
                migrations.AlterField(
                    model_name="row",
                    name="leaderboard",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="rows",
                        to="leaderboards.leaderboard",
                    ),
                ),
                migrations.AlterField(
                    model_name="rowverification",
                    name="snapshot",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="verifications",
                        to="leaderboards.syntologysnapshot",
                    ),
                ),
                migrations.AlterField(
                    model_name="syntologysnapshot",
                    name="leaderboard",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="snapshots",
                        to="leaderboards.leaderboard",
                    ),
                ),
            ],
        ),
    ]

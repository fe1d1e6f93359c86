"""Papers found by their URL in a few lookups, not a scan of the table.

The papers and links files find each chunk's papers by URL among other keys
(ingest.papers.PaperFinder). With no index on `url` every batch of that lookup
read the whole table: at the archive's size (593,000 papers) 0.27 s a batch on
SQLite, several batches a chunk, hundreds of chunks.

A URL may run to 2,000 characters, past what a PostgreSQL B-tree entry holds
(about 2,700 bytes), so PostgreSQL gets a hash index, which holds any length and
serves the lookup's `url IN (...)`; SQLite's B-tree holds any length.
"""

from django.db import migrations

INDEX = "paper_url_idx"


def forwards(apps, schema_editor):
    using = "USING hash " if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(f"CREATE INDEX {INDEX} ON leaderboards_paper {using}(url)")


def backwards(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0024_code_link_name"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards),
    ]

"""What a row's source said beyond the format, as columns the page reads: PwC's
`paper_has_code` and its tags (format.rules.archive_says_code, row_tags)."""

from django.db import migrations, models

from leaderboards.format.rules import archive_says_code, row_tags

CHUNK = 2000


def read_extras(apps, schema_editor):
    Row = apps.get_model("leaderboards", "Row")
    rows = Row.objects.exclude(extra={}).order_by("pk").only("pk", "extra")
    changed = []
    for row in rows.iterator(chunk_size=CHUNK):
        said, tags = archive_says_code(row.extra), row_tags(row.extra)
        if said is not None or tags:
            row.archive_says_code, row.tags = said, tags
            changed.append(row)
        if len(changed) >= CHUNK:
            Row.objects.bulk_update(changed, ["archive_says_code", "tags"])
            changed = []
    Row.objects.bulk_update(changed, ["archive_says_code", "tags"])


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0029_metric_order_evidence"),
    ]

    operations = [
        migrations.AddField(
            model_name="row",
            name="archive_says_code",
            field=models.BooleanField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="row",
            name="tags",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.RunPython(read_extras, migrations.RunPython.noop, elidable=True),
    ]

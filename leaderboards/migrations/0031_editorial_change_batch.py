"""The entries one decision writes share a batch: the record lists them as one."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0030_row_archive_code_and_tags"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="editorialchange",
            name="batch",
            field=models.CharField(blank=True, db_default="", default="", max_length=32),
        ),
        migrations.AddIndex(
            model_name="editorialchange",
            index=models.Index(
                condition=models.Q(("batch", ""), _negated=True),
                fields=["batch", "id"],
                name="editorial_change_batch_idx",
            ),
        ),
    ]

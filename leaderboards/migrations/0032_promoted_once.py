"""A since-archive entry is promoted once, its month carried over."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0031_editorial_change_batch"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="editoraddition",
            name="paper_month",
            field=models.CharField(
                blank=True,
                default="",
                help_text="YYYY-MM, when the paper's day is not known.",
                max_length=7,
            ),
        ),
        migrations.AddField(
            model_name="editoraddition",
            name="promoted_from",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AddConstraint(
            model_name="editoraddition",
            constraint=models.UniqueConstraint(
                condition=models.Q(("promoted_from", ""), _negated=True),
                fields=("leaderboard", "promoted_from"),
                name="editor_addition_promoted_once",
            ),
        ),
    ]

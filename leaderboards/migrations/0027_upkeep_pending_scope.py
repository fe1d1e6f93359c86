from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0026_paper_withheld_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="upkeeppending",
            name="scope",
            field=models.JSONField(blank=True, null=True),
        ),
    ]

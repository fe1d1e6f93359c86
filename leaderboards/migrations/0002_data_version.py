import django.db.models
import django.utils.timezone
from django.db import migrations, models


def create_state(apps, schema_editor):
    SiteState = apps.get_model("leaderboards", "SiteState")
    SiteState.objects.using(schema_editor.connection.alias).get_or_create(
        pk=1, defaults={"data_version": 0, "changed_at": django.utils.timezone.now()}
    )


class Migration(migrations.Migration):

    dependencies = [
        ("leaderboards", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="SiteState",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("data_version", models.PositiveBigIntegerField(default=0)),
                ("changed_at", models.DateTimeField()),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(
                        condition=django.db.models.Q(("pk", 1)), name="site_state_single_row"
                    )
                ],
            },
        ),
        migrations.RunPython(create_state, migrations.RunPython.noop),
    ]

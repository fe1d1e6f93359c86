from django.contrib.auth.management import create_permissions
from django.db import migrations, models

from leaderboards.admin.editors import EDITORS, ensure_editors_group


def create_editors_group(apps, schema_editor):
    # Permissions are normally made after all migrations ran; a fresh
    # database has none yet, so make this app's now.
    app_config = apps.get_app_config("leaderboards")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None

    ensure_editors_group(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


def remove_editors_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=EDITORS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0002_data_version"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="row",
            constraint=models.CheckConstraint(
                condition=models.Q(("withheld", False), models.Q(("withheld_reason", ""), _negated=True), _connector="OR"),
                name="row_withheld_has_reason",
                violation_error_message="Say why the row is withheld.",
            ),
        ),
        migrations.RunPython(create_editors_group, remove_editors_group),
    ]

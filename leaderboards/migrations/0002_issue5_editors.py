from django.contrib.auth.management import create_permissions
from django.db import migrations, models

EDITORS = "Editors"
# What curating needs and nothing more: correct texts, directions and spam
# rows; look at everything else. No adding or deleting (the files are the
# source of rows and pages) and no user management.
EDITOR_PERMISSIONS = {
    "task": ("view", "change"),
    "dataset": ("view", "change"),
    "leaderboard": ("view", "change"),
    "metric": ("view", "change"),
    "row": ("view", "change"),
    "area": ("view",),
    "paper": ("view",),
    "leaderboardarea": ("view",),
    "metricvalue": ("view",),
    "syntologysnapshot": ("view",),
    "rowverification": ("view",),
}


def create_editors_group(apps, schema_editor):
    # Permissions are normally made after all migrations ran; a fresh
    # database has none yet, so make this app's now.
    app_config = apps.get_app_config("leaderboards")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None

    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    codenames = [
        f"{action}_{model}" for model, actions in EDITOR_PERMISSIONS.items() for action in actions
    ]
    permissions = Permission.objects.filter(
        content_type__app_label="leaderboards", codename__in=codenames
    )
    group, _ = Group.objects.get_or_create(name=EDITORS)
    group.permissions.set(permissions)


def remove_editors_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=EDITORS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0001_initial"),
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

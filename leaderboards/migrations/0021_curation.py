from django.contrib.auth.management import create_permissions
from django.db import migrations

from leaderboards.admin.editors import ensure_editors_group


def editors_curate_code_and_methods(apps, schema_editor):
    app_config = apps.get_app_config("leaderboards")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    ensure_editors_group(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


class Migration(migrations.Migration):

    dependencies = [
        ('leaderboards', '0020_archive_catalogue'),
        ('auth', '0012_alter_user_first_name_max_length'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.RunPython(editors_curate_code_and_methods, migrations.RunPython.noop),
    ]

import django.db.models.deletion
from django.db import migrations, models

from leaderboards.admin.editors import refresh_editors_group


class Migration(migrations.Migration):

    dependencies = [
        ('leaderboards', '0020_archive_catalogue'),
        ('auth', '0012_alter_user_first_name_max_length'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='editorialchange',
            name='editorial_change_kind_valid',
        ),
        migrations.AddField(
            model_name='editorialchange',
            name='target',
            field=models.TextField(blank=True, db_default='', default=''),
        ),
        migrations.AlterField(
            model_name='editorialchange',
            name='kind',
            field=models.CharField(choices=[('row_withheld', 'result withheld as spam'), ('row_restored', 'result restored'), ('direction', 'metric direction'), ('added', 'result added'), ('added_withheld', 'added result withheld as spam'), ('added_restored', 'added result restored'), ('code', "paper's code"), ('method_withheld', 'method withheld as spam'), ('method_restored', 'method restored'), ('paper_withheld', 'paper withheld'), ('paper_restored', 'paper restored'), ('method_description', 'method description'), ('dataset_description', 'dataset description')], max_length=20),
        ),
        migrations.AlterField(
            model_name='editorialchange',
            name='leaderboard',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='editorial_changes', to='leaderboards.leaderboard'),
        ),
        migrations.AddConstraint(
            model_name='editorialchange',
            constraint=models.CheckConstraint(condition=models.Q(('kind__in', ['row_withheld', 'row_restored', 'direction', 'added', 'added_withheld', 'added_restored', 'code', 'method_withheld', 'method_restored', 'paper_withheld', 'paper_restored', 'method_description', 'dataset_description'])), name='editorial_change_kind_valid'),
        ),
        migrations.AddConstraint(
            model_name='editorialchange',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('leaderboard__isnull', False), ('target', ''), models.Q(('kind__in', ['code', 'paper_withheld', 'paper_restored', 'method_withheld', 'method_restored', 'method_description', 'dataset_description']), _negated=True)), models.Q(('kind__in', ['code', 'paper_withheld', 'paper_restored', 'method_withheld', 'method_restored', 'method_description', 'dataset_description']), ('leaderboard__isnull', True), models.Q(('target', ''), _negated=True)), _connector='OR'), name='editorial_change_has_target'),
        ),
        migrations.RunPython(refresh_editors_group, migrations.RunPython.noop),
    ]

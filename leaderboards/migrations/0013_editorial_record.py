import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models
from django.db.models import Count

import leaderboards.models
from leaderboards.admin.editors import refresh_editors_group


def record_standing_decisions(apps, schema_editor):
    """The decisions editors made before the record existed, as its first entries.

    What a direction was before its decision was not kept: its old value is empty.
    """
    RowDecision = apps.get_model("leaderboards", "RowDecision")
    DirectionDecision = apps.get_model("leaderboards", "DirectionDecision")
    EditorialChange = apps.get_model("leaderboards", "EditorialChange")
    Leaderboard = apps.get_model("leaderboards", "Leaderboard")
    entries = [
        (decision.decided_at, 0, decision.pk, EditorialChange(
            leaderboard_id=decision.leaderboard_id,
            kind="row_withheld",
            old_value="shown",
            new_value="withheld",
            reason=decision.reason,
            made_at=decision.decided_at,
            made_by_id=decision.decided_by_id,
        ))
        for decision in RowDecision.objects.filter(withheld=True).iterator()
    ]
    entries += [
        (decision.decided_at, 1, decision.pk, EditorialChange(
            leaderboard_id=decision.leaderboard_id,
            kind="direction",
            subject=decision.metric,
            new_value=decision.direction,
            reason=decision.reason,
            made_at=decision.decided_at,
            made_by_id=decision.decided_by_id,
        ))
        for decision in DirectionDecision.objects.iterator()
    ]
    # Oldest first, so the record's order (by id) is the order they were made in.
    entries.sort(key=lambda entry: entry[:3])
    EditorialChange.objects.bulk_create([entry[3] for entry in entries], batch_size=500)
    counts = EditorialChange.objects.order_by().values("leaderboard").annotate(n=Count("pk"))
    for count in counts.iterator():
        Leaderboard.objects.filter(pk=count["leaderboard"]).update(
            editorial_change_count=count["n"]
        )




class Migration(migrations.Migration):

    dependencies = [
        ('leaderboards', '0012_directions_queue'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='leaderboard',
            name='editorial_change_count',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.CreateModel(
            name='EditorAddition',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('model', models.TextField()),
                ('metrics', leaderboards.models.OrderedJSONField(default=dict)),
                ('uses_additional_data', models.BooleanField(default=False)),
                ('paper_title', models.TextField()),
                ('paper_url', models.TextField(help_text='The citation: an http(s) URL of the paper.', verbose_name='paper URL')),
                ('paper_date', models.DateField(blank=True, null=True)),
                ('code', models.TextField(blank=True, default='')),
                ('note', models.TextField(help_text='Where the result comes from and why it belongs here.')),
                ('added_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('withheld', models.BooleanField(default=False)),
                ('withheld_reason', models.TextField(blank=True, default='')),
                ('added_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('leaderboard', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='editor_additions', to='leaderboards.leaderboard')),
            ],
            options={
                'verbose_name': "editor's result",
                'verbose_name_plural': "editors' results",
                'ordering': ['leaderboard', 'added_at', 'pk'],
            },
        ),
        migrations.CreateModel(
            name='EditorialChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('row_withheld', 'result withheld as spam'), ('row_restored', 'result restored'), ('direction', 'metric direction'), ('added', 'result added'), ('added_withheld', 'added result withheld as spam'), ('added_restored', 'added result restored')], max_length=20)),
                ('subject', models.TextField(blank=True, default='')),
                ('old_value', models.TextField(blank=True, default='')),
                ('new_value', models.TextField(blank=True, default='')),
                ('reason', models.TextField(blank=True, default='')),
                ('made_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('addition', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='changes', to='leaderboards.editoraddition')),
                ('leaderboard', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='editorial_changes', to='leaderboards.leaderboard')),
                ('made_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-pk'],
            },
        ),
        migrations.AddIndex(
            model_name='editoraddition',
            index=models.Index(fields=['leaderboard', 'added_at'], name='editor_addition_board_idx'),
        ),
        migrations.AddConstraint(
            model_name='editoraddition',
            constraint=models.CheckConstraint(condition=models.Q(('paper_url__startswith', 'http://'), ('paper_url__startswith', 'https://'), _connector='OR'), name='editor_addition_cited', violation_error_message='Cite the paper with an http(s) URL.'),
        ),
        migrations.AddConstraint(
            model_name='editoraddition',
            constraint=models.CheckConstraint(condition=models.Q(('note', ''), _negated=True), name='editor_addition_has_note'),
        ),
        migrations.AddConstraint(
            model_name='editoraddition',
            constraint=models.CheckConstraint(condition=models.Q(('model', ''), _negated=True), name='editor_addition_has_model'),
        ),
        migrations.AddConstraint(
            model_name='editoraddition',
            constraint=models.CheckConstraint(condition=models.Q(('withheld', False), models.Q(('withheld_reason', ''), _negated=True), _connector='OR'), name='editor_addition_withheld_has_reason', violation_error_message='Say why the result is withheld.'),
        ),
        migrations.AddIndex(
            model_name='editorialchange',
            index=models.Index(fields=['leaderboard', '-id'], name='editorial_change_board_idx'),
        ),
        migrations.AddConstraint(
            model_name='editorialchange',
            constraint=models.CheckConstraint(condition=models.Q(('kind__in', ['row_withheld', 'row_restored', 'direction', 'added', 'added_withheld', 'added_restored'])), name='editorial_change_kind_valid'),
        ),
        migrations.RunPython(record_standing_decisions, migrations.RunPython.noop),
        migrations.RunPython(refresh_editors_group, migrations.RunPython.noop),
    ]

from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

from leaderboards.admin.editors import refresh_editors_group
from leaderboards.format.rules import key_digest, stored_keys


def keys_and_decisions(apps, schema_editor):
    """Give stored rows their keys; turn withheld rows and editor directions into decisions."""
    Leaderboard = apps.get_model("leaderboards", "Leaderboard")
    Row = apps.get_model("leaderboards", "Row")
    Metric = apps.get_model("leaderboards", "Metric")
    RowDecision = apps.get_model("leaderboards", "RowDecision")
    DirectionDecision = apps.get_model("leaderboards", "DirectionDecision")
    now = timezone.now()
    for board in Leaderboard.objects.order_by("pk").values_list("pk", flat=True).iterator():
        rows = list(
            Row.objects.filter(leaderboard=board)
            .order_by("rank")
            .values(
                "pk", "model", "paper__slug", "paper_url", "paper_title", "withheld",
                "withheld_reason",
            )
        )
        keyed = list(zip(rows, stored_keys(rows), strict=True))
        Row.objects.bulk_update(
            [Row(pk=row["pk"], key=key_digest(key)) for row, key in keyed], ["key"], batch_size=500
        )
        RowDecision.objects.bulk_create(
            RowDecision(
                leaderboard_id=board,
                key=key_digest(key),
                model=key[0],
                paper=key[1],
                occurrence=key[2],
                withheld=True,
                reason=row["withheld_reason"],
                decided_at=now,
            )
            for row, key in keyed
            if row["withheld"]
        )
    DirectionDecision.objects.bulk_create(
        DirectionDecision(leaderboard_id=board, metric=name, direction=direction, decided_at=now)
        for board, name, direction in Metric.objects.exclude(editor_direction=None).values_list(
            "leaderboard", "name", "editor_direction"
        )
    )




class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0007_read_at_within_python_range"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="row",
            name="key",
            field=models.CharField(default="", max_length=64),
            preserve_default=False,
        ),
        migrations.CreateModel(
            name="RowDecision",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("key", models.CharField(max_length=64)),
                ("model", models.TextField()),
                ("paper", models.TextField(blank=True, default="")),
                ("occurrence", models.PositiveIntegerField(default=1)),
                ("withheld", models.BooleanField()),
                ("reason", models.TextField(blank=True, default="")),
                ("decided_at", models.DateTimeField()),
                ("decided_by", models.ForeignKey(null=True, on_delete=models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
                ("leaderboard", models.ForeignKey(on_delete=models.deletion.CASCADE, related_name="row_decisions", to="leaderboards.leaderboard")),
            ],
            options={
                "ordering": ["leaderboard", "model", "occurrence"],
                "constraints": [
                    models.UniqueConstraint(fields=("leaderboard", "key"), name="row_decision_key_unique"),
                    models.CheckConstraint(condition=models.Q(("withheld", False), models.Q(("reason", ""), _negated=True), _connector="OR"), name="row_decision_withheld_has_reason", violation_error_message="Say why the row is withheld."),
                    models.CheckConstraint(condition=models.Q(("occurrence__gte", 1)), name="row_decision_occurrence_positive"),
                ],
            },
        ),
        migrations.CreateModel(
            name="DirectionDecision",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("metric", models.CharField(max_length=300)),
                ("direction", models.CharField(choices=[("higher", "higher is better"), ("lower", "lower is better"), ("unknown", "unknown")], max_length=10)),
                ("decided_at", models.DateTimeField()),
                ("decided_by", models.ForeignKey(null=True, on_delete=models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
                ("leaderboard", models.ForeignKey(on_delete=models.deletion.CASCADE, related_name="direction_decisions", to="leaderboards.leaderboard")),
            ],
            options={
                "ordering": ["leaderboard", "metric"],
                "constraints": [
                    models.UniqueConstraint(fields=("leaderboard", "metric"), name="direction_decision_metric_unique"),
                    models.CheckConstraint(condition=models.Q(("direction__in", ["higher", "lower", "unknown"])), name="direction_decision_valid"),
                ],
            },
        ),
        migrations.RunPython(keys_and_decisions, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="row",
            constraint=models.UniqueConstraint(fields=("leaderboard", "key"), name="row_key_unique"),
        ),
        migrations.RunPython(refresh_editors_group, migrations.RunPython.noop),
    ]

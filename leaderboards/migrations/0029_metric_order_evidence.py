"""How each board's first metric runs down the archive's order, and the best
results that follow where that settles a direction (format.figures)."""

from collections import defaultdict

from django.db import migrations, models

from leaderboards.format.figures import FirstMetric, file_direction, order_evidence, top_result

CHUNK = 500


def infer(apps, schema_editor):
    Leaderboard = apps.get_model("leaderboards", "Leaderboard")
    Metric = apps.get_model("leaderboards", "Metric")
    MetricValue = apps.get_model("leaderboards", "MetricValue")
    Row = apps.get_model("leaderboards", "Row")
    ids = list(Leaderboard.objects.order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        first = {}
        for metric in Metric.objects.filter(leaderboard__in=chunk).order_by(
            "leaderboard", "position"
        ):
            first.setdefault(metric.leaderboard_id, metric)
        values = {
            row: (raw, number)
            for row, raw, number in MetricValue.objects.filter(
                metric__in=[metric.pk for metric in first.values()]
            ).values_list("row", "raw", "number")
        }
        rows = defaultdict(list)
        for board, pk, model, date in (
            Row.objects.filter(leaderboard__in=chunk, withheld=False)
            .order_by("leaderboard", "rank")
            .values_list("leaderboard", "pk", "model", "paper_date")
        ):
            rows[board].append((model, *values.get(pk, (None, None)), date))
        for board, metric in first.items():
            order = order_evidence([row[2] for row in rows[board]])
            metric.order_lean, metric.order_agree, metric.order_pairs = (
                order.lean,
                order.agree,
                order.pairs,
            )
            metric.save(update_fields=["order_lean", "order_agree", "order_pairs"])
            if metric.editor_direction or file_direction(metric.source_direction):
                continue
            if order.settled and rows[board]:
                first_metric = FirstMetric(metric.name, order.settled, order.settled)
                best = top_result(first_metric, rows[board])
                Leaderboard.objects.filter(pk=board).update(**best)


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0028_paper_verified_in_list_order"),
    ]

    operations = [
        migrations.AddField(
            model_name="metric",
            name="order_agree",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="metric",
            name="order_lean",
            field=models.CharField(blank=True, max_length=10, null=True),
        ),
        migrations.AddField(
            model_name="metric",
            name="order_pairs",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="leaderboard",
            name="top_inferred",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(infer, migrations.RunPython.noop, elidable=True),
    ]

"""Each row's model across boards (issue #30): Row.model_slug, format.rules.model_slug
of its model's name and its paper's identity, filled for the rows already stored; and
the model a search entry names (SearchEntry.model_slug)."""

from django.db import migrations, models

from leaderboards.format.rules import model_slug, paper_identity

CHUNK = 2000


def fill_model_slugs(apps, schema_editor):
    Row = apps.get_model("leaderboards", "Row")
    rows = Row.objects.order_by("pk").values_list(
        "pk", "model", "paper__slug", "paper_url", "paper_title"
    )
    changed = []
    for pk, model, slug, url, title in rows.iterator(chunk_size=CHUNK):
        # As the loader sees the row in its file: the paper as its page's path.
        row = {"paper": slug and f"/paper/{slug}", "paper_url": url, "paper_title": title}
        changed.append(Row(pk=pk, model_slug=model_slug(model, paper_identity(row))))
        if len(changed) >= CHUNK:
            Row.objects.bulk_update(changed, ["model_slug"])
            changed = []
    Row.objects.bulk_update(changed, ["model_slug"])


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboards", "0038_board_freshness"),
    ]

    operations = [
        migrations.AddField(
            model_name="row",
            name="model_slug",
            field=models.CharField(default="", max_length=80),
        ),
        # Filled before it is indexed: one index build, not one update per row.
        migrations.RunPython(fill_model_slugs, migrations.RunPython.noop, elidable=True),
        migrations.AddIndex(
            model_name="row",
            index=models.Index(fields=["model_slug"], name="row_model_slug_idx"),
        ),
        # A model's search entry leads to its page: filled by the next rebuild of the
        # index (every load's); until then an entry leads to its board, as before.
        migrations.AddField(
            model_name="searchentry",
            name="model_slug",
            field=models.CharField(blank=True, db_default="", default="", max_length=80),
        ),
    ]

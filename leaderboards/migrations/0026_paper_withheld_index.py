from django.db import migrations, models


class Migration(migrations.Migration):
    """The few withheld papers, which the search of abstracts counts apart
    (search.query.search_abstracts) instead of reading each match's row."""

    dependencies = [
        ("leaderboards", "0025_paper_url_index"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="paper",
            index=models.Index(
                condition=models.Q(("withheld", True)), fields=["id"], name="paper_withheld_idx"
            ),
        ),
    ]

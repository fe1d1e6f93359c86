"""Each row's model across boards (issue #30): Row.model_slug, format.rules.model_slug
of its model's name and its paper's identity, filled for the rows already stored (by a
frozen copy of that rule, below); and the model a search entry names
(SearchEntry.model_slug)."""

import hashlib
import re

from django.db import migrations, models
from django.utils.text import slugify

CHUNK = 2000

# Frozen: model_slug() and paper_identity() of leaderboards.format.rules, with what they
# call, as they were when this migration was written. A migration run later must fill
# the slugs it filled then, whatever the live rules have become;
# tests/models/test_migrations.py says where the two still agree.
MODEL_SLUG_NAME_LIMIT = 60
MODEL_SLUG_DIGEST = 12
_ARXIV = re.compile(
    r"arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5}|[a-z][a-z.-]{0,23}/\d{7})(?:v\d+)?(?:\.pdf)?/?$",
    re.IGNORECASE,
)


def slug_for(text, fallback, limit=200):
    return slugify(text or "")[:limit].strip("-") or fallback


def arxiv_id(url):
    match = _ARXIV.search((url or "").strip())
    return match.group(1) if match else ""


def paper_key(url):
    url = (url or "").strip()
    if not url:
        return None
    found = arxiv_id(url)
    return f"arxiv:{found}" if found else f"url:{url.rstrip('/')}"


def paper_identity(row):
    """Its paper page; else its external URL (arXiv abs and pdf one); else its title."""
    return row["paper"] or paper_key(row["paper_url"]) or row["paper_title"] or None


def model_name_key(model):
    return " ".join((model or "").split()).casefold()


def model_slug(model, identity):
    """The model's normalised name, slugified, and a digest of it with its paper's identity."""
    name = model_name_key(model)
    digest = hashlib.sha256(f"{name}\n{identity or ''}".encode()).hexdigest()
    readable = slug_for(name, "model", MODEL_SLUG_NAME_LIMIT)
    return f"{readable}-{digest[:MODEL_SLUG_DIGEST]}"


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

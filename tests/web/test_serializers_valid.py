"""Text stored before the character rule still gives well-formed output everywhere (issue #32).

Page files and editors' forms are refused a C0 control now, but a database
keeps what older builds wrote: one U+0001 in a model name once made every
reader of /feeds/newest.atom a 500, and one in a withhold reason did the same
to /changes/feed.atom for good. Each test writes such text straight through
the ORM into every text column there is, then parses what each writer gives:
XML with an XML parser, JSON strictly, CSV as a reader would.
"""

import csv
import io
import json
from xml.etree import ElementTree

import pytest
from django.apps import apps
from django.db import connection, models
from django.db.models import F, Value
from django.db.models.functions import Concat
from django.urls import reverse

from leaderboards.models import ChangeKind, EditorialChange
from leaderboards.models.fields import OrderedJSONField
from tests.helpers import DATASET, SEED_SLUG, TASK

PAPER = "line-out-of-distribution-detection-by"

# Atom feeds, badges and sitemaps: each must parse as XML.
XML = [
    "/feeds/newest.atom",
    "/changes/feed.atom",
    f"/changes/feed.atom?board={SEED_SLUG}",
    f"/sota/{SEED_SLUG}/badge.svg",
    f"/paper/{PAPER}/badge.svg",
    f"/badge/{PAPER}/{SEED_SLUG}",
    "/sitemap.xml",
    "/sitemap-leaderboards.xml",
]
JSON = [
    f"/sota/{SEED_SLUG}.json",
    "/api/v1/evaluations/",
    f"/api/v1/evaluations/{SEED_SLUG}/",
    f"/api/v1/evaluations/{SEED_SLUG}/results/",
    f"/api/v1/evaluations/{SEED_SLUG}/metrics/",
    f"/api/v1/papers/{PAPER}/",
    f"/api/v1/papers/{PAPER}/results/",
    f"/api/v1/tasks/{TASK}/",
    f"/api/v1/datasets/{DATASET}/",
    "/api/v1/search/?q=detection",
    "/search/suggest?q=detection",
]
HTML = [
    "/",
    "/sota/",
    f"/sota/{SEED_SLUG}",
    f"/task/{TASK}",
    f"/dataset/{DATASET}",
    f"/paper/{PAPER}",
    "/paper/",
    "/changes/",
    "/search?q=detection",
]

# Never touched: identities, keys and hashes the URLs and joins are made of,
# and columns a constraint holds to a short list (a record entry's target, a slug).
LEFT_ALONE = {
    "slug",
    "pwc_slug",
    "key",
    "model_slug",
    "prepared_key",
    "source_sha256",
    "sha256_before",
    "sha256_after",
    "arxiv_id",
    "target",
}


def controls():
    """The forbidden characters a database can hold (PostgreSQL's text takes no NUL)."""
    return "\x01\x0b\x1f" if connection.vendor == "postgresql" else "\x00\x01\x0b\x1f"


def spoil_every_text_column(text):
    """Append `text` to every stored string of the app's models, past every check."""
    for model in apps.get_app_config("leaderboards").get_models():
        if model._meta.managed is False or model._meta.proxy:
            continue
        names = [
            field.name
            for field in model._meta.concrete_fields
            if isinstance(field, models.CharField | models.TextField)
            and not isinstance(field, OrderedJSONField)
            and not field.choices
            and field.name not in LEFT_ALONE
        ]
        if names:
            model.objects.update(**{name: Concat(F(name), Value(text)) for name in names})


@pytest.fixture
def spoiled(seeded, admin_user):
    seeded.editorial_changes.create(
        kind=ChangeKind.ROW_WITHHELD, old_value="shown", new_value="withheld", made_by=admin_user
    )
    EditorialChange.objects.update(reason=Value("spam\x01 reason"))
    spoil_every_text_column(controls())
    return seeded


def test_every_xml_writer_gives_well_formed_xml(spoiled, client):
    for url in XML:
        response = client.get(url)
        assert response.status_code == 200, url
        ElementTree.fromstring(response.content)


def test_the_feeds_show_the_text_with_the_character_replaced(spoiled, client):
    newest = client.get("/feeds/newest.atom").content.decode()
    changes = client.get("/changes/feed.atom").content.decode()
    assert "\x01" not in newest + changes
    # Each entry's model name and the reason, each control now a space.
    assert newest.count(f"{' ' * len(controls())} on ") >= newest.count("<entry>") > 0
    assert "Reason: spam  reason" in changes


def test_every_json_writer_gives_strict_json(spoiled, client):
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    for url in JSON:
        response = client.get(url)
        assert response.status_code == 200, url
        json.loads(response.content, parse_constant=refuse)
    exported = client.get(f"/sota/{SEED_SLUG}.json").json()
    # The page file gives back what is stored, the character included.
    assert exported["rows"][1]["model"] == f"LINe (ResNet50){controls()}"


def test_the_csv_reads_back_as_stored(spoiled, client):
    response = client.get(reverse("leaderboards:leaderboard_csv", args=[SEED_SLUG]))
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert any(f"LINe (ResNet50){controls()}" in cells for cells in rows)


def test_every_page_still_answers(spoiled, client):
    for url in HTML:
        response = client.get(url)
        assert response.status_code == 200, url
        response.content.decode()

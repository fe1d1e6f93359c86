"""Rows the importers create and update in bulk (upkeep/bulk.create, update) are the rows
the ORM would have written: every column a record does not give holds its field's default,
the ids returned are the rows', and an update writes only the rows named."""

import datetime

from django.db import transaction

from leaderboards.models import Dataset, Paper
from leaderboards.upkeep import bulk


def test_created_rows_hold_what_the_orm_would_give_them(db):
    with transaction.atomic():
        pks = bulk.create(
            Paper,
            [
                {"slug": "a", "title": "A", "date": datetime.date(2020, 1, 2)},
                {"slug": "b", "title": "B", "url": "https://example.org/b"},
            ],
        )
    orm = Paper.objects.create(slug="c", title="C")
    made = {paper.slug: paper for paper in Paper.objects.all()}
    assert [made["a"].pk, made["b"].pk] == pks
    assert made["a"].date == datetime.date(2020, 1, 2)
    assert made["b"].url == "https://example.org/b"
    for field in Paper._meta.concrete_fields:
        if field.name not in ("id", "slug", "title", "date", "url"):
            assert getattr(made["a"], field.attname) == getattr(orm, field.attname), field.name
    # A JSON column's default is written as JSON, not as Python's repr.
    with transaction.atomic():
        (pk,) = bulk.create(Dataset, [{"slug": "d", "name": "D"}])
    assert Dataset.objects.get(pk=pk).variants == []


def test_an_update_writes_the_rows_named_and_no_other(db):
    with transaction.atomic():
        first, second = bulk.create(Paper, [{"slug": "a"}, {"slug": "b"}])
    bulk.update(Paper, ["title", "date"], [(second, "B", datetime.date(2021, 5, 6))])
    assert Paper.objects.values_list("slug", "title", "date").order_by("slug")[::1] == [
        ("a", "", None),
        ("b", "B", datetime.date(2021, 5, 6)),
    ]

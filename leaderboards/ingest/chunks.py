"""The write loop for the archive's record files: papers, code links, methods, datasets.

Each importer (papers.py, code_links.py, methods.py, datasets.py) gives
import_file() two functions: `prepare(record)` checks one record and returns
what to write (or raises RecordError, which refuses it), `write(items, report)`
writes a chunk of prepared records. Every chunk is one transaction with its
UpkeepPending marker, so a killed import is finished by running it again; a
chunk the database refuses is written again record by record, so only the bad
record is refused and the rest go in. The counts a chunk adds to the report
count only once it committed.

Upsert is the one way a row is created or brought up to date by its identity:
it writes only the columns the archive gives (never an editor's), and only
where they changed, so the same files again change nothing.
"""

import itertools
from pathlib import Path

from django.db import DatabaseError, IntegrityError, transaction

from leaderboards.format.rules import free_slug, slug_for
from leaderboards.ingest.records import ImportReport, RecordError, records
from leaderboards.models import UpkeepPending

CHUNK = 1000


def import_file(path, kind, prepare, write, report, size=CHUNK):
    """Every record of the file prepared, written a chunk at a time, and counted in report."""
    name = Path(path).name
    for chunk in itertools.batched(records(path, report), size):
        items = []
        for index, record in chunk:
            try:
                items.append((index, prepare(record)))
            except RecordError as error:
                report.refuse(kind, name, index, error.field, error.reason)
        if not items:
            continue
        try:
            _write_chunk(items, write, report)
        except (IntegrityError, DatabaseError):
            # One bad record must not cost the chunk: each again, alone.
            for index, item in items:
                try:
                    _write_chunk([(index, item)], write, report)
                except (IntegrityError, DatabaseError) as error:
                    reason = f"the database refused it: {error}"
                    report.refuse(kind, name, index, "(record)", reason)


def _write_chunk(items, write, report):
    counted = ImportReport()
    with transaction.atomic():
        write([item for _, item in items], counted)
        UpkeepPending.objects.bulk_create([UpkeepPending()])
    report.merge(counted)


class Upsert:
    """Rows of one model created or updated by a unique key, writing only the given columns."""

    def __init__(self, model, key, fields):
        self.model = model
        self.key = key
        self.fields = tuple(fields)

    def write(self, wanted, counts, created_with=None, changed=None):
        """{key: {field: value}} written; returns {key: pk}. counts is a KindReport.

        `created_with` gives columns written only when a row is created ({key:
        {field: value}}: a slug, a name the first source decides); the keys of
        rows created or updated are added to the set `changed` when given.
        """
        if not wanted:
            return {}
        created_with = created_with or {}
        stored = {
            row[self.key]: row
            for keys in itertools.batched(wanted, 500)
            for row in self.model.objects.filter(**{f"{self.key}__in": keys}).values(
                "pk", self.key, *self.fields
            )
        }
        new, updated = [], []
        for key, values in wanted.items():
            row = stored.get(key)
            if row is None:
                new.append(self.model(**{self.key: key}, **values, **created_with.get(key, {})))
            elif any(row[field] != value for field, value in values.items()):
                updated.append(self.model(pk=row["pk"], **{self.key: key}, **values))
            else:
                counts.unchanged += 1
        if changed is not None:
            changed.update(getattr(obj, self.key) for obj in (*new, *updated))
        if updated:
            fields = sorted({field for values in wanted.values() for field in values})
            self.model.objects.bulk_update(updated, fields, batch_size=500)
            counts.updated += len(updated)
        if new:
            self.model.objects.bulk_create(new, batch_size=500)
            counts.created += len(new)
        ids = {key: row["pk"] for key, row in stored.items()}
        if new:
            ids.update(
                self.model.objects.filter(
                    **{f"{self.key}__in": [getattr(obj, self.key) for obj in new]}
                ).values_list(self.key, "pk")
            )
        return ids


def set_links(through, owner_field, other_field, wanted, extra=None, changed=None):
    """A many-to-many's links for these owners made exactly `wanted` ({owner: [other, ...]}).

    Only links that differ are deleted or inserted; `extra` gives columns of a
    link by (owner, other) (a position, a flag). Returns whether anything changed;
    the owners whose links changed are added to the set `changed` when given.
    """
    if not wanted:
        return False
    extra = extra or {}
    columns = sorted({name for values in extra.values() for name in values})
    have = {}
    for owners in itertools.batched(wanted, 500):
        for row in through.objects.filter(**{f"{owner_field}__in": owners}).values(
            "pk", owner_field, other_field, *columns
        ):
            have[row[owner_field], row[other_field]] = row
    want = {(owner, other) for owner, others in wanted.items() for other in others}
    stale = [
        row["pk"]
        for pair, row in have.items()
        if pair not in want or any(row[c] != extra.get(pair, {}).get(c) for c in columns)
    ]
    fresh = [
        through(**{owner_field: owner, other_field: other}, **extra.get((owner, other), {}))
        for owner, other in sorted(want)
        if (owner, other) not in have or have[owner, other]["pk"] in stale
    ]
    for pks in itertools.batched(stale, 500):
        through.objects.filter(pk__in=pks).delete()
    through.objects.bulk_create(fresh, batch_size=500)
    if changed is not None:
        gone = set(stale)
        changed.update(owner for (owner, _), row in have.items() if row["pk"] in gone)
        changed.update(getattr(link, owner_field) for link in fresh)
    return bool(stale or fresh)


def by_name(model, names, counts, slugs=None, created_with=None):
    """{name: pk} of a small table's rows (areas, categories, modalities) by their names.

    A missing one is made under `slugs[name]` where given and free, else the
    slug of its name (the first free `-2`, `-3`, ...), with the columns of
    `created_with[name]`; a stored one is left as it is. counts is a KindReport.
    """
    names = list(dict.fromkeys(names))
    if not names:
        return {}
    found = dict(model.objects.filter(name__in=names).values_list("name", "pk"))
    counts.unchanged += len(found)
    missing = [name for name in names if name not in found]
    if missing:
        slugs, created_with = slugs or {}, created_with or {}
        limit = model._meta.get_field("slug").max_length
        taken = set(model.objects.values_list("slug", flat=True))
        made = []
        for name in missing:
            slug = slugs.get(name) or slug_for(name, model._meta.model_name, limit)
            slug = free_slug(slug, taken, limit)
            taken.add(slug)
            made.append(model(slug=slug, name=name, **created_with.get(name, {})))
        model.objects.bulk_create(made)
        counts.created += len(made)
        found.update(model.objects.filter(name__in=missing).values_list("name", "pk"))
    return found


def count_rows(counts, total, created, changed):
    """A chunk's `total` rows counted once each in counts (a KindReport): `created`
    made, the rest of `changed` (a column or a link differed) updated, the others
    unchanged."""
    counts.created += created
    counts.updated += len(changed) - created
    counts.unchanged += total - len(changed)

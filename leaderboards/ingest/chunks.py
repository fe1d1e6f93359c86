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

import collections
import functools
import itertools
import multiprocessing
import operator
import os
import queue
from pathlib import Path

from django.db import DatabaseError, IntegrityError, transaction
from django.utils.module_loading import import_string

from leaderboards.format.rules import free_slug, slug_for
from leaderboards.ingest.archive import ArchiveError
from leaderboards.ingest.files import run_in_reader
from leaderboards.ingest.joins import suffixed
from leaderboards.ingest.records import ImportReport, RecordError, records
from leaderboards.models import UpkeepPending
from leaderboards.upkeep import bulk

CHUNK = 1000
# Chunks a reader process prepares ahead of the writer: a few megabytes of records.
CHUNKS_AHEAD = 2
# A smaller file is read in the importing process: starting a second Python with
# Django costs about a second, which a small file does not win back.
READ_AHEAD_BYTES = 1 << 20
# How often the writer, waiting for a chunk, looks whether the reader is still there.
READER_CHECK_SECONDS = 1.0


def import_file(path, kind, prepare, write, report, size=None, indexed=False, read_ahead=False):
    """Every record of the file prepared, written a chunk at a time, and counted in report.

    With `indexed`, write() gets (index, item) pairs, so it can refuse a record
    only the rest of its chunk shows wrong (a second record for one paper) by
    `counted.refuse(kind, file name, index, field, reason)`. With `read_ahead`
    (a large file, `prepare` a module's function), the records are read and
    prepared in a second process a few chunks ahead, where there is a core for it.
    """
    name = Path(path).name
    size = size or CHUNK
    if (
        read_ahead
        and len(os.sched_getaffinity(0)) > 1
        and Path(path).stat().st_size >= READ_AHEAD_BYTES
    ):
        prepared = _read_ahead(path, kind, prepare, size)
    else:
        prepared = _prepared_chunks(path, kind, prepare, size)
    try:
        for items, read in prepared:
            report.merge(read)
            if items:
                _write_or_refuse(name, kind, items, write, report, indexed)
    finally:
        prepared.close()


def _prepared_chunks(path, kind, prepare, size):
    """(items, report) for each chunk of the file: its records prepared as (index,
    item), and a report of those refused (and of the characters replaced)."""
    name = Path(path).name
    read = ImportReport()
    for chunk in itertools.batched(records(path, read), size):
        items = []
        for index, record in chunk:
            try:
                items.append((index, prepare(record)))
            except RecordError as error:
                read.refuse(kind, name, index, error.field, error.reason)
        yield items, _taken(read)
    yield [], _taken(read)


def _taken(report):
    """What the report holds, in a report of its own, its refusals in the file's order
    however the chunks fell; the report emptied (records() goes on writing to it)."""
    refused = sorted(report.refused, key=lambda refusal: refusal.position)
    taken = ImportReport(report.kinds, refused, report.replaced_characters)
    report.kinds, report.refused, report.replaced_characters = {}, [], 0
    return taken


def _read_ahead(path, kind, prepare, size):
    """_prepared_chunks(), run in a second process CHUNKS_AHEAD chunks ahead.

    Reading and checking the papers file's records (JSON, text made storable,
    identities) was a fifth of importing it. The reader starts fresh ("spawn"),
    not forked from a process holding database connections; what it raises
    (a file cut short, not JSON) is raised here, as reading here would.
    """
    context = multiprocessing.get_context("spawn")
    results = context.Queue(CHUNKS_AHEAD)
    reader = context.Process(
        target=run_in_reader,
        args=(
            os.getpid(),
            f"{__name__}._read_in_reader",
            path,
            kind,
            f"{prepare.__module__}.{prepare.__qualname__}",
            size,
            results,
        ),
        daemon=True,
    )
    reader.start()
    try:
        while True:
            try:
                done, result = results.get(timeout=READER_CHECK_SECONDS)
            except queue.Empty:
                if reader.is_alive() or not results.empty():
                    continue
                raise OSError(
                    f"the process reading {Path(path).name} stopped (exit code "
                    f"{reader.exitcode}); the chunks before it are written: run the same "
                    "import again"
                ) from None
            if isinstance(result, BaseException):
                raise result
            yield result
            if done:
                return
    finally:
        reader.kill()
        reader.join()


def _read_in_reader(path, kind, prepare, size, results):
    try:
        for chunk in _prepared_chunks(path, kind, import_string(prepare), size):
            results.put((False, chunk))
        results.put((True, ([], ImportReport())))
    except (ArchiveError, OSError, EOFError) as error:
        results.put((True, error))
    except Exception as error:  # noqa: BLE001 - said in the importing process, not lost here
        results.put((True, RuntimeError(f"reading {Path(path).name}: {error!r}")))


def _write_or_refuse(name, kind, items, write, report, indexed):
    try:
        _write_chunk(items, write, report, indexed)
    except (IntegrityError, DatabaseError):
        # One bad record must not cost the chunk: each again, alone.
        for index, item in items:
            try:
                _write_chunk([(index, item)], write, report, indexed)
            except (IntegrityError, DatabaseError) as error:
                reason = f"the database refused it: {error}"
                report.refuse(kind, name, index, "(record)", reason)


def _write_chunk(items, write, report, indexed):
    counted = ImportReport()
    with transaction.atomic():
        write(items if indexed else [item for _, item in items], counted)
        UpkeepPending.objects.bulk_create([UpkeepPending()])
    report.merge(counted)


class Upsert:
    """Rows of one model created or updated by a unique key, writing only the given columns.

    The key is a column, or a tuple of columns (a link's paper and repository),
    whose values are then given as tuples.
    """

    def __init__(self, model, key, fields):
        self.model = model
        self.columns = key if isinstance(key, tuple) else (key,)
        self.key = key
        self.fields = tuple(fields)

    def _key_of(self, row):
        return tuple(row[c] for c in self.columns) if isinstance(self.key, tuple) else row[self.key]

    def _columns_of(self, key):
        return dict(zip(self.columns, key if isinstance(self.key, tuple) else (key,), strict=True))

    def _stored(self, keys):
        """{key: row} of the stored rows among these keys (narrowed by the key's first column)."""
        first = self.columns[0]
        stored = {}
        for batch in itertools.batched(
            dict.fromkeys(self._columns_of(key)[first] for key in keys), 500
        ):
            for row in self.model.objects.filter(**{f"{first}__in": batch}).values(
                "pk", *self.columns, *self.fields
            ):
                key = self._key_of(row)
                if key in keys:
                    stored[key] = row
        return stored

    def write(self, wanted, counts, created_with=None, changed=None):
        """{key: {field: value}} written; returns {key: pk}. counts is a KindReport.

        `created_with` gives columns written only when a row is created ({key:
        {field: value}}: a slug, a name the first source decides); the keys of
        rows created or updated are added to the set `changed` when given.
        """
        if not wanted:
            return {}
        created_with = created_with or {}
        stored = self._stored(wanted)
        new, updated = {}, {}
        for key, values in wanted.items():
            row = stored.get(key)
            if row is None:
                new[key] = {**self._columns_of(key), **values, **created_with.get(key, {})}
            elif any(row[field] != value for field, value in values.items()):
                updated[key] = values
            else:
                counts.unchanged += 1
        if changed is not None:
            changed.update(new, updated)
        if updated:
            fields = sorted({field for values in updated.values() for field in values})
            bulk.update(
                self.model,
                fields,
                [
                    (stored[key]["pk"], *(values.get(f, stored[key][f]) for f in fields))
                    for key, values in updated.items()
                ],
            )
            counts.updated += len(updated)
        ids = {key: row["pk"] for key, row in stored.items()}
        ids.update(zip(new, bulk.create(self.model, list(new.values())), strict=True))
        counts.created += len(new)
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
        {owner_field: owner, other_field: other, **extra.get((owner, other), {})}
        for owner, other in sorted(want)
        if (owner, other) not in have or have[owner, other]["pk"] in stale
    ]
    for pks in itertools.batched(stale, 500):
        through.objects.filter(pk__in=pks).delete()
    bulk.create(through, fresh)
    if changed is not None:
        gone = set(stale)
        changed.update(owner for (owner, _), row in have.items() if row["pk"] in gone)
        changed.update(link[owner_field] for link in fresh)
    return bool(stale or fresh)


def count_rows(counts, total, created, changed):
    """A chunk's `total` rows counted once each in counts (a KindReport): `created`
    made, the rest of `changed` (a column or a link differed) updated, the others
    unchanged."""
    counts.created += created
    counts.updated += len(changed) - created
    counts.unchanged += total - len(changed)


def free_slugs(model, texts, fallback, limit=None, slugs=None):
    """{text: slug}: `slugs[text]` where given (PwC's), else a slug made from the text
    (rules.slug_for), suffixed where the model's table or an earlier text holds it. A
    few queries a chunk, not one a text. `limit`: the model's slug column's."""
    limit = limit or model._meta.get_field("slug").max_length
    slugs = slugs or {}
    bases = {
        text: slugs.get(text) or slug_for(text, fallback, limit) for text in dict.fromkeys(texts)
    }
    taken = set()
    for batch in itertools.batched(set(bases.values()), 500):
        taken.update(model.objects.filter(slug__in=batch).order_by().values_list("slug", flat=True))
    # A base stored, or shared by two texts, will be suffixed: the suffixed ones stored too.
    shared = {base for base, n in collections.Counter(bases.values()).items() if n > 1}
    for batch in itertools.batched(sorted(taken | shared), 100):
        numbered = functools.reduce(operator.or_, (suffixed(base) for base in batch))
        taken.update(model.objects.filter(numbered).order_by().values_list("slug", flat=True))
    slugs = {}
    for text, base in bases.items():
        slugs[text] = free_slug(base, taken, limit)
        taken.add(slugs[text])
    return slugs


def named(model, wanted, counts, fallback, limit=None, fill=(), slugs=None):
    """{name: pk} for rows known by their unique `name` (areas, categories, authors,
    modalities); a missing one is created with a free slug (free_slugs: `slugs[name]`
    where given, else made from its name) and the columns `wanted` gives it ({name:
    {column: value}}). A stored row keeps its columns, but those in `fill` it has empty
    take the wanted value. counts is a KindReport."""
    found = {}
    filled = []
    for batch in itertools.batched(wanted, 500):
        for row in model.objects.filter(name__in=batch).values("pk", "name", *fill):
            found[row["name"]] = row["pk"]
            empty = {
                column: wanted[row["name"]][column]
                for column in fill
                if row[column] in ("", None) and wanted[row["name"]].get(column) not in ("", None)
            }
            if empty:
                filled.append((row["pk"], *({**row, **empty}[column] for column in fill)))
    bulk.update(model, fill, filled)
    counts.updated += len(filled)
    counts.unchanged += len(found) - len(filled)
    missing = [name for name in wanted if name not in found]
    if missing:
        slugs = free_slugs(model, missing, fallback, limit, slugs)
        pks = bulk.create(
            model, [{"name": name, "slug": slugs[name], **wanted[name]} for name in missing]
        )
        counts.created += len(missing)
        found.update(zip(missing, pks, strict=True))
    return found

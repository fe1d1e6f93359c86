"""Importing the archive's datasets file (SPEC 2.4): datasets, their modalities, languages, tasks.

A dataset is the slug of its PwC URL. It is the dataset stored under that slug
(or holding it as `pwc_slug`); else one the boards made under the record's name
or one of its `variants` (the names tables cite it by), which keeps its slug
and name and gets PwC's slug as `pwc_slug`; else a new one under PwC's slug. A
variant that is another record's name never joins: that dataset is the other
record's. The name is written when the dataset is made and kept after, as the
boards keep it: the boards find their datasets by name. Modalities and
languages are found by name (made as needed), tasks by URL, name or synonym
(one this site does not hold is left out); each list is the dataset's exactly.
`editor_description` is never written. A record may carry `dataset_links`, which
PwC's file lacks and this site's dumps add: its first URL is written as the
dataset's `url` (the home page a board's table gave it); none leaves it.
"""

import dataclasses

from leaderboards.ingest import chunks, record_fields
from leaderboards.ingest.joins import Described, TaskNames, by_pwc_slug, named_in, pwc_slug
from leaderboards.ingest.records import KindReport, RecordError
from leaderboards.models import Dataset, DatasetLanguage, DatasetModality, Paper

KIND = "datasets"
NAME_LIMIT = Dataset._meta.get_field("name").max_length
URL_LIMIT = 2000
LABEL_LIMIT = DatasetModality._meta.get_field("name").max_length
FIELDS = (
    "full_name",
    "homepage",
    "description",
    "paper_title",
    "paper_url",
    "introduced_date",
    "warning",
    "variants",
    "num_papers",
    "data_loaders",
    "pwc_slug",
    "paper_id",
)


@dataclasses.dataclass(frozen=True)
class PreparedDataset:
    """One record, checked: its identity, columns, introducing paper and lists."""

    pwc: str
    name: str
    columns: dict
    paper: str | None
    modalities: tuple
    languages: tuple
    tasks: tuple  # task pks this site holds
    # The first of `dataset_links`, which this site's own dumps add (PwC's file has
    # none): the address a board's table gave the dataset. "" leaves the stored one.
    link: str = ""


def import_file(path, report):
    """Every dataset of the file written; counts and refusals in report."""
    slugs, names = named_in(path, "dataset")
    tasks = TaskNames()
    seen = set()

    def prepare(record):
        dataset = prepare_dataset(record, tasks)
        if dataset.pwc in seen:
            raise RecordError("url", f"dataset {dataset.pwc!r} again: its first record is kept")
        seen.add(dataset.pwc)
        return dataset

    def write(datasets, counted):
        write_datasets(datasets, counted, reserved=slugs, names=names)

    chunks.import_file(path, KIND, prepare, write, report)


def prepare_dataset(record, tasks):
    """The record checked; RecordError for a field that cannot be stored."""
    pwc = pwc_slug(record.get("url"), "dataset")
    name = record_fields.name(record, "name", NAME_LIMIT)
    paper, paper_title, paper_url = record_fields.introducing_paper(record)
    loaders = record_fields.items(record, "data_loaders")
    columns = {
        "full_name": record_fields.text(record, "full_name"),
        "homepage": record_fields.text(record, "homepage"),
        "description": record_fields.text(record, "description"),
        "paper_title": paper_title,
        "paper_url": paper_url,
        "introduced_date": record_fields.date(record, "introduced_date"),
        "warning": record_fields.text(record, "warning"),
        "variants": record_fields.names(record, "variants", NAME_LIMIT),
        "num_papers": record_fields.count(record, "num_papers"),
        "data_loaders": loaders,
    }
    found = []
    for index, item in enumerate(record_fields.items(record, "tasks")):
        try:
            task = tasks.find(record_fields.text(item, "task"), record_fields.text(item, "url"))
        except RecordError as error:
            raise RecordError(f"tasks[{index}].{error.field}", error.reason) from None
        if task is not None and task not in found:
            found.append(task)
    return PreparedDataset(
        pwc,
        name,
        columns,
        paper,
        tuple(record_fields.names(record, "modalities", LABEL_LIMIT)),
        tuple(record_fields.names(record, "languages", LABEL_LIMIT)),
        tuple(found),
        _first_link(record),
    )


def _first_link(record):
    for index, item in enumerate(record_fields.items(record, "dataset_links")):
        try:
            url = record_fields.text(item, "url", URL_LIMIT)
        except RecordError as error:
            raise RecordError(f"dataset_links[{index}].{error.field}", error.reason) from None
        if url:
            return url
    return ""


def write_datasets(datasets, counted, reserved=frozenset(), names=frozenset()):
    """A chunk of prepared datasets written, with their modalities, languages and tasks.

    `reserved` and `names`: every PwC slug and name of the file (a variant that
    names another record's dataset joins nothing).
    """
    modalities = chunks.named(
        DatasetModality,
        {label: {} for dataset in datasets for label in dataset.modalities},
        counted.kind("dataset modalities"),
        "modality",
    )
    languages = chunks.named(
        DatasetLanguage,
        {label: {} for dataset in datasets for label in dataset.languages},
        counted.kind("dataset languages"),
        "language",
    )
    described = Described(
        Dataset,
        [
            (
                dataset.pwc,
                [dataset.name]
                + [name for name in dataset.columns["variants"] if name not in names],
            )
            for dataset in datasets
        ],
        reserved,
    ).slugs()
    papers = by_pwc_slug(Paper, {dataset.paper for dataset in datasets if dataset.paper})
    wanted, created_with = {}, {}
    for dataset, (slug, new) in zip(datasets, described, strict=True):
        wanted[slug] = {
            **dataset.columns,
            "pwc_slug": dataset.pwc,
            "paper_id": papers.get(dataset.paper),
        }
        if new:
            created_with[slug] = {"name": dataset.name}
    changed: set[str] = set()
    made = KindReport()
    ids = chunks.Upsert(Dataset, "slug", FIELDS).write(wanted, made, created_with, changed)
    linked = {
        slug: {"url": dataset.link}
        for dataset, (slug, _) in zip(datasets, described, strict=True)
        if dataset.link
    }
    chunks.Upsert(Dataset, "slug", ("url",)).write(linked, KindReport(), changed=changed)
    owners = [(ids[slug], dataset) for dataset, (slug, _) in zip(datasets, described, strict=True)]
    relinked: set[int] = set()
    lists = {
        (Dataset.modalities.through, "datasetmodality_id"): {
            pk: [modalities[name] for name in dataset.modalities] for pk, dataset in owners
        },
        (Dataset.languages.through, "datasetlanguage_id"): {
            pk: [languages[name] for name in dataset.languages] for pk, dataset in owners
        },
        (Dataset.tasks.through, "task_id"): {pk: list(dataset.tasks) for pk, dataset in owners},
    }
    for (through, other), links in lists.items():
        chunks.set_links(through, "dataset_id", other, links, changed=relinked)
    by_pk = {pk: slug for slug, pk in ids.items()}
    changed |= {by_pk[pk] for pk in relinked}
    chunks.count_rows(counted.kind(KIND), len(wanted), made.created, changed)

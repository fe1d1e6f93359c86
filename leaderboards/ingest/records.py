"""The archive's five files: which is which, their records one at a time, what an import reports.

Papers with Code published its database as five JSON arrays (SPEC 2), usually
gzipped. `import_pwc` takes any of them, recognised by name, and imports them
in CANONICAL order whatever order they were given in, so the joins between
them (a board's rows to papers, a method to the paper that introduced it, a
dataset to its tasks) come out the same. Each record is read whole, one at a
time, from a stream: memory follows the largest record, not the file.

A record an importer cannot use is refused, named by file, index, field and
reason, and skipped; the rest of the file goes on.
"""

import dataclasses
import re
from pathlib import Path
from typing import NamedTuple

import ijson

from leaderboards.format.rules import storable
from leaderboards.ingest.archive import ArchiveError, _any_integer, _items, open_archive

# The order the files are imported in, whatever order they are given in: the
# boards first (they make tasks, datasets and the papers their rows cite),
# then the papers that join them, their code, the methods papers name, and the
# datasets, which name tasks and papers.
CANONICAL = (
    "evaluation-tables",
    "papers-with-abstracts",
    "links-between-papers-and-code",
    "methods",
    "datasets",
)
_NAME = re.compile(r"(?P<kind>" + "|".join(map(re.escape, CANONICAL)) + r")\.json(?:\.gz)?")


def recognise(path):
    """Which of the five files a path is: by its name (`methods.json`, `datasets.json.gz`,
    ...), else by the fields of its first record. A file neither tells of is read as
    evaluation-tables, the one file import_pwc read before the others, so its
    errors are the ones it always gave."""
    match = _NAME.fullmatch(Path(path).name)
    if match is not None:
        return match["kind"]
    return _by_first_record(path) or "evaluation-tables"


# What only one file's records have: a task's name; a paper's abstract; a link's
# repository; a method's or a dataset's PwC URL, told apart by its path.
def _kind_of(record):
    if "task" in record:
        return "evaluation-tables"
    if "repo_url" in record:
        return "links-between-papers-and-code"
    if "abstract" in record:
        return "papers-with-abstracts"
    url = record.get("url")
    if isinstance(url, str) and "/method/" in url:
        return "methods"
    if isinstance(url, str) and "/dataset/" in url:
        return "datasets"
    return None


def _by_first_record(path):
    try:
        with open_archive(path) as stream, _any_integer():
            for record in _items(ijson.basic_parse(stream)):
                return _kind_of(record) if isinstance(record, dict) else None
    except (ijson.JSONError, ArchiveError, OSError, EOFError):
        return None
    return None


def in_canonical_order(paths):
    """(kind, path) in CANONICAL order; ValueError for a kind given twice."""
    by_kind: dict[str, object] = {}
    for path in paths:
        kind = recognise(path)
        if kind in by_kind:
            raise ValueError(f"{Path(path).name}: {kind} given twice ({by_kind[kind]})")
        by_kind[kind] = path
    return [(kind, by_kind[kind]) for kind in CANONICAL if kind in by_kind]


class Refused(NamedTuple):
    """A record skipped: where it is, which field, and why."""

    file: str
    # The record's index in the file's array ("index" would hide tuple.index).
    position: int
    field: str
    reason: str

    def __str__(self):
        return f"{self.file}[{self.position}].{self.field}: {self.reason}"


class RecordError(ValueError):
    """A record an importer cannot use; `field` is its JSON path within the record."""

    def __init__(self, field, reason):
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


@dataclasses.dataclass
class KindReport:
    """What an import did to one kind of thing (papers, repositories, methods, ...)."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    refused: int = 0

    def __str__(self):
        return (
            f"{self.created:,} created, {self.updated:,} updated, "
            f"{self.unchanged:,} unchanged, {self.refused:,} refused"
        )


@dataclasses.dataclass
class ImportReport:
    """An import's counts per kind, the records it refused, and the characters it replaced."""

    kinds: dict[str, KindReport] = dataclasses.field(default_factory=dict)
    refused: list[Refused] = dataclasses.field(default_factory=list)
    # C0 controls and lone surrogates replaced in records' text (rules.storable).
    replaced_characters: int = 0

    def kind(self, name):
        return self.kinds.setdefault(name, KindReport())

    def refuse(self, kind, file, index, field, reason):
        self.kind(kind).refused += 1
        self.refused.append(Refused(file, index, field, reason))

    def merge(self, other):
        """Another report's counts and refusals added to this one's."""
        for name, counts in other.kinds.items():
            mine = self.kind(name)
            for field in dataclasses.fields(KindReport):
                setattr(mine, field.name, getattr(mine, field.name) + getattr(counts, field.name))
        self.refused.extend(other.refused)
        self.replaced_characters += other.replaced_characters


def records(path, report):
    """(index, record) of each object in the file's top-level array, its text made storable.

    A record that is not an object is refused here; ArchiveError if the file is
    not a JSON array at all.
    """
    name = Path(path).name
    with open_archive(path) as stream, _any_integer():
        try:
            for index, record in enumerate(_items(ijson.basic_parse(stream))):
                if not isinstance(record, dict):
                    report.refused.append(Refused(name, index, "(record)", "expected an object"))
                    continue
                record, replaced = storable(record)
                report.replaced_characters += replaced
                yield index, record
        except ijson.JSONError as error:
            raise ArchiveError(f"invalid JSON: {error}") from None

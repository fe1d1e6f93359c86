"""What a load is given, and what it reports.

A source names one page to write and what its source knows of the catalogue
beyond the page format (the archive's task parents, synonyms and links,
dataset parents and links, arXiv ids); the page file loader and the archive
importer both hand the writer sources, and get a LoadReport back.
"""

import dataclasses
from collections.abc import Callable
from typing import NamedTuple

from leaderboards.format.page import slug_of
from leaderboards.ingest.prepare import PreparedPage
from leaderboards.models import Leaderboard


class Problem(NamedTuple):
    """A file the load refused, or warned about, and why."""

    file: str
    message: str


class FileDifference(NamedTuple):
    """A stated derived figure that differs from the computed one, and its file."""

    file: str
    path: str
    stated: object
    computed: object


@dataclasses.dataclass
class LoadReport:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    older: int = 0
    failed: list[Problem] = dataclasses.field(default_factory=list)
    warnings: list[Problem] = dataclasses.field(default_factory=list)
    differences: list[FileDifference] = dataclasses.field(default_factory=list)
    # An earlier load's end-of-load work was found unfinished, and this run did it.
    completed_earlier: bool = False
    # Why the load stopped before its last file (the disk is full), else None.
    stopped: str | None = None

    @property
    def files(self):
        return self.created + self.updated + self.unchanged + self.older + len(self.failed)


@dataclasses.dataclass
class Entry:
    """A task or dataset as one source states it.

    `fields` holds the other columns this source states (`parent` as a slug);
    a column it does not state keeps what is stored. `areas` (tasks only) are
    area names the task belongs to, added to those it has.
    """

    slug: str | None  # None for one that could not be stored (archive._unstored)
    name: str
    fields: dict = dataclasses.field(default_factory=dict)
    areas: tuple = ()


@dataclasses.dataclass
class Catalogue:
    """What a source knows of the catalogue beyond its page, if anything."""

    tasks: list = dataclasses.field(default_factory=list)
    datasets: list = dataclasses.field(default_factory=list)
    paper_arxiv: dict = dataclasses.field(default_factory=dict)  # paper slug -> arXiv id


class ReadPage(NamedTuple):
    """A page read and checked: what a source's `read()` gives the writer.

    `prepared` is prepare.prepare(page), worked out where the page was read
    (in the reading process of a large load, whence it is pickled).
    """

    page: dict
    sha256: str
    warnings: list
    prepared: PreparedPage


@dataclasses.dataclass
class Source:
    """One page to write: `read()` gives its ReadPage or raises PageError.

    A source with no `read` carries only catalogue metadata (a task of the
    archive with no table of its own).
    """

    name: str
    read: Callable | None
    catalogue: Catalogue = dataclasses.field(default_factory=Catalogue)


@dataclasses.dataclass
class PageItem:
    """A checked page as the writer carries it through its chunk."""

    source: Source
    page: dict
    sha: str
    prepared: PreparedPage
    current: Leaderboard | None
    # Set while written: the board, its metrics and rows as inserted.
    board: Leaderboard | None = None
    metric_ids: dict = dataclasses.field(default_factory=dict)  # name -> id
    row_ids: list = dataclasses.field(default_factory=list)  # in page["rows"] order

    @property
    def slug(self):
        return slug_of(self.page["url"])

    @property
    def read_at(self):
        return self.prepared.read_at

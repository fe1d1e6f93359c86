"""The archive's papers file (SPEC 2.1): papers described, with authors, proceedings,
tasks and the methods they use.

A record's paper is the one PwC's `paper_url` names (the paper it describes under
that slug), else the one with its arXiv id, else one with that slug here at one of
its URLs, else the one whose URL is its `url_abs`; else it is made, with PwC's
slug. `PaperFinder` is that rule, and the links file (code_links.py) finds or
makes its papers with it too, so a paper a board row, the papers file or a code
link names first is the same paper for the others. What the papers file says of a
paper wins over a board row's words; a value the record leaves empty never erases
one stored. A record may carry `url`, which PwC's file lacks and this site's dumps
add: the address a board's row named the paper by, where a restore finds it.
"""

import dataclasses
import itertools
import re
from pathlib import Path

from leaderboards.format.rules import arxiv_id as arxiv_id_of
from leaderboards.format.rules import arxiv_key, paper_key
from leaderboards.ingest import chunks, paper_methods, record_fields
from leaderboards.ingest.archive import _paper_slug_text
from leaderboards.ingest.joins import TaskNames, by_pwc_slug, pwc_slug
from leaderboards.ingest.record_fields import text
from leaderboards.ingest.records import RecordError
from leaderboards.models import (
    Author,
    Conference,
    Method,
    Paper,
    PaperAuthor,
    Proceeding,
)

KIND = "papers"
# PostgreSQL refuses an index entry past about 2,700 bytes, and a title, an
# author's name or a URL is indexed: a longer one is refused by its field.
TITLE_LIMIT = 1000
NAME_LIMIT = 300
URL_LIMIT = 2000
# The paper's own columns the papers file writes (never withheld*).
PAPER_FIELDS = (
    "title", "abstract", "url_abs", "url_pdf", "date", "arxiv_id", "url", "proceeding_id",
    "conference_url_abs", "conference_url_pdf", "described", "pwc_slug",
)  # fmt: skip
# "NeurIPS 2021 12": a conference, a year, perhaps a month.
_PROCEEDING = re.compile(r"^(?P<conference>.+?)\s+(?P<year>\d{4})(?:\s+(?P<month>\d{1,2}))?$")


def import_file(path, report):
    """The papers file's records imported into report (see chunks.import_file)."""
    importer = _PapersFile(path)
    chunks.import_file(path, KIND, prepare, importer.write, report, indexed=True, read_ahead=True)


# Reading one record ----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Identity:
    """What names a paper in a record: PwC's slug, its arXiv id, its abstract page."""

    slug: str | None
    arxiv_id: str
    url_abs: str
    title: str = ""
    url_pdf: str = ""
    # The address a board's row named the paper by: not a field of PwC's file, but
    # of this site's dumps, so a restore finds a board's paper that has no arXiv id.
    url_here: str = ""

    @property
    def url_key(self):
        return paper_key(self.url_abs)

    @property
    def keys(self):
        """paper_key() of every URL of the paper the identity names."""
        found = {paper_key(self.url_abs), paper_key(self.url_pdf)}
        if self.url_here:
            found.add(paper_key(self.url_here))
        return found | {arxiv_key(self.arxiv_id)} if self.arxiv_id else found


def identity(record, prefix=""):
    """The paper a record names. The papers file's fields, or the links file's, which
    say `paper_arxiv_id` for `arxiv_id` (prefix "paper_") and may lack a paper_url."""
    slug = None
    if not prefix or record.get("paper_url"):
        slug = pwc_slug(record.get("paper_url"), "paper", "paper_url")
    url_abs = text(record, f"{prefix}url_abs", URL_LIMIT).strip()
    url_pdf = text(record, f"{prefix}url_pdf", URL_LIMIT).strip()
    given = text(record, f"{prefix}arxiv_id").strip()
    if len(given) > Paper._meta.get_field("arxiv_id").max_length:
        raise RecordError(f"{prefix}arxiv_id", f"{given[:40]!r}... is no arXiv id")
    found = given or arxiv_id_of(url_abs) or arxiv_id_of(url_pdf)
    title = text(record, f"{prefix}title", TITLE_LIMIT).strip()
    if slug is None and not found and not url_abs:
        raise RecordError("paper_url", "names no paper: no paper_url, arXiv id or url_abs")
    url_here = "" if prefix else text(record, "url", URL_LIMIT).strip()
    return Identity(slug, found, url_abs, title, url_pdf, url_here)


def prepare(record):
    """One papers-file record checked: what write() needs of it."""
    paper = identity(record)
    proceeding = text(record, "proceeding", NAME_LIMIT).strip() or None
    return {
        "identity": paper,
        "columns": {
            "title": paper.title,
            "abstract": text(record, "abstract"),
            "url_abs": paper.url_abs,
            "url_pdf": paper.url_pdf,
            "date": record_fields.date(record, "date"),
            "conference_url_abs": text(record, "conference_url_abs", URL_LIMIT).strip(),
            "conference_url_pdf": text(record, "conference_url_pdf", URL_LIMIT).strip(),
        },
        "proceeding": proceeding and parse_proceeding(proceeding),
        "authors": _names(record, "authors", NAME_LIMIT),
        "tasks": _names(record, "tasks", None),
        "methods": [
            paper_methods.read(method, f"methods[{index}]")
            for index, method in enumerate(record_fields.items(record, "methods"))
        ],
    }


def parse_proceeding(name):
    """(name, conference, year, month) of "NeurIPS 2021 12"; the whole text a conference
    with no year where it does not read so."""
    match = _PROCEEDING.match(name)
    if match is None:
        return name, name, None, None
    month = int(match["month"]) if match["month"] else None
    if month is not None and not 1 <= month <= 12:
        return name, name, None, None
    return name, match["conference"], int(match["year"]), month


def _names(record, field, limit):
    """The list's names in order, each once; empty and non-text entries left out."""
    names = []
    for index, name in enumerate(record_fields.items(record, field, object)):
        if not isinstance(name, str) or not name.strip():
            continue
        name = " ".join(name.split())
        if limit is not None and len(name) > limit:
            raise RecordError(f"{field}[{index}]", f"{len(name):,} characters, over {limit}")
        names.append(name)
    return list(dict.fromkeys(names))


# Finding papers ------------------------------------------------------------------------


@dataclasses.dataclass
class Found:
    """Where a record's paper is: a stored paper's row, or the slug of one to be made."""

    slug: str
    row: dict | None = None
    # Set on a paper made here: PwC's slug where another paper holds it as its slug.
    pwc_slug: str | None = None


class PaperFinder:
    """A chunk's papers, found by the join rule in a few queries; those not found made.

    `describing`: the papers file, whose records each describe one paper, so a
    second record for a paper is refused and a described paper found by its URL
    alone, under another PwC slug, is another paper. The links file joins any.
    """

    COLUMNS = ("pk", "slug", "pwc_slug", "described", "title", "url", "date", "arxiv_id")

    def __init__(self, identities, describing):
        self.describing = describing
        slugs = {i.slug for i in identities if i.slug}
        self.by_slug = by_pwc_slug(Paper, slugs)
        arxiv_ids = {i.arxiv_id for i in identities if i.arxiv_id}
        urls = {
            variant
            for i in identities
            for url in (i.url_abs, i.url_here)
            if url
            for variant in (url.rstrip("/"), url.rstrip("/") + "/")
        }
        self.rows = {}
        for field, values in (
            ("pk", set(self.by_slug.values())),
            ("arxiv_id", arxiv_ids),
            ("url", urls),
        ):
            for batch in itertools.batched(values, 500):
                for row in (
                    Paper.objects.filter(**{f"{field}__in": batch})
                    .order_by("pk")
                    .values(*self.COLUMNS)
                ):
                    self.rows[row["pk"]] = row
        self.by_arxiv: dict[str, dict] = {}
        self.by_url: dict[str, dict] = {}
        self.taken = set()
        for _, row in sorted(self.rows.items()):
            self.taken.add(row["slug"])
            if row["arxiv_id"]:
                self.by_arxiv.setdefault(row["arxiv_id"], row)
            if row["url"]:
                self.by_url.setdefault(paper_key(row["url"]), row)
        # This chunk's papers made here, and those a record of the papers file describes.
        self.new = {}  # slug -> Identity
        self.claimed = {}  # slug -> the index of the record describing it

    def _stored_as(self, row, paper):
        """Whether a stored paper found by slug or URL may be the identity's: not if
        their arXiv ids differ, nor, for the papers file, if a record described it
        as another PwC paper."""
        if row["arxiv_id"] and paper.arxiv_id and row["arxiv_id"] != paper.arxiv_id:
            return False
        if not self.describing or not row["described"]:
            return True
        return (row["pwc_slug"] or row["slug"]) == paper.slug

    def find(self, paper):
        """Found for the identity: a stored or new paper, else None (make it).

        The paper PwC describes under this slug first; then the one with its arXiv
        id; then one that merely has the slug here (a board's paper, slugged from
        its title, so two papers of one title may hold each other's PwC slugs) if
        it is at one of the identity's URLs; then one at its URL.
        """
        row = self.rows.get(self.by_slug.get(paper.slug)) if paper.slug else None
        if (
            row is not None
            and row["described"]
            and (row["pwc_slug"] or row["slug"]) == paper.slug
            and self._stored_as(row, paper)
        ):
            return Found(row["slug"], row)
        if paper.arxiv_id and paper.arxiv_id in self.by_arxiv:
            row = self.by_arxiv[paper.arxiv_id]
            return Found(row["slug"], row)
        if row is not None and self._stored_as(row, paper) and _same_place(row, paper):
            return Found(row["slug"], row)
        key = paper.url_key
        if key and not arxiv_id_of(paper.url_abs):
            row = self.by_url.get(key)
            if row is not None and self._stored_as(row, paper):
                return Found(row["slug"], row)
        if paper.url_here:
            # A dump's record: the board's paper at the address its row named.
            row = self.by_url.get(paper_key(paper.url_here))
            if row is not None and self._stored_as(row, paper):
                return Found(row["slug"], row)
        return None

    def resolve(self, papers):
        """Found for each identity: stored papers found, the others made (a record that
        names a paper an earlier one of the chunk makes joins it), free slugs for all
        in a few queries."""
        targets = [self.find(paper) for paper in papers]
        first: dict[
            tuple, int
        ] = {}  # a key of a paper to be made -> the index of the record making it
        leaders = []
        for i, paper in enumerate(papers):
            if targets[i] is not None:
                continue
            keys = [("slug", paper.slug), ("arxiv", paper.arxiv_id)]
            if not self.describing:
                # Two papers the papers file describes may share a landing page.
                keys.append(("url", paper.url_key))
            keys = [key for key in keys if key[1]]
            leader = next((first[key] for key in keys if key in first), None)
            if leader is None:
                leaders.append(i)
                leader = i
            for key in keys:
                first.setdefault(key, leader)
            targets[i] = leader
        made = dict(zip(leaders, self._make([papers[i] for i in leaders]), strict=True))
        return [made[t] if isinstance(t, int) else t for t in targets]

    def _make(self, papers):
        """Found for each identity (none stored), as new papers with free slugs: PwC's
        where no paper holds it here (else a free one, PwC's kept in pwc_slug), else
        one made from the title or arXiv id."""
        texts = [
            p.slug or _paper_slug_text(p.title) or p.arxiv_id.replace("/", "-") or "paper"
            for p in papers
        ]
        wanted = [t for p, t in zip(papers, texts, strict=True) if not p.slug or t in self.taken]
        slugs = chunks.free_slugs(Paper, wanted, "paper") if wanted else {}
        made = []
        for paper, slug_text in zip(papers, texts, strict=True):
            slug = _free_here(slugs.get(slug_text, slug_text), self.new)
            found = Found(slug, pwc_slug=paper.slug if paper.slug != slug else None)
            self.new[slug] = paper
            made.append(found)
        return made


def _same_place(row, paper):
    """Whether a stored paper's URL is one the identity names (or it has none)."""
    return not row["url"] or paper_key(row["url"]) in paper.keys


def _free_here(slug, new):
    """The slug, or one suffixed past those made earlier in the chunk."""
    base, n = slug, 1
    while slug in new:
        n += 1
        slug = f"{base}-{n}"
    return slug


NEW_PAPER_FIELDS = ("title", "url", "url_abs", "url_pdf", "arxiv_id", "pwc_slug")


def new_paper_columns(paper, found):
    """What a paper made from a record's identity alone holds (the links file's papers):
    its url is url_abs and its arXiv id set, so a board row naming it finds it."""
    return {
        "title": paper.title,
        "url": paper.url_abs,
        "url_abs": paper.url_abs,
        "url_pdf": paper.url_pdf,
        "arxiv_id": paper.arxiv_id,
        "pwc_slug": found.pwc_slug,
    }


# Writing a chunk -----------------------------------------------------------------------------


class _PapersFile:
    """The papers file's chunks written; the task names read once for the whole file."""

    def __init__(self, path):
        self.file = Path(path).name
        self.tasks = TaskNames()

    def write(self, items, counted):
        finder = PaperFinder([item["identity"] for _, item in items], describing=True)
        targets = self._targets(finder, items, counted)
        proceedings = self._proceedings(items, counted)
        wanted = {}
        for (_, item), found in zip(items, targets, strict=True):
            if found is not None:
                wanted[found.slug] = _paper_columns(item, found, proceedings)
        ids = chunks.Upsert(Paper, "slug", PAPER_FIELDS).write(wanted, counted.kind(KIND))
        kept = [
            (ids[found.slug], item)
            for (_, item), found in zip(items, targets, strict=True)
            if found is not None
        ]
        self._authors(kept, counted)
        chunks.set_links(
            Paper.tasks.through,
            "paper_id",
            "task_id",
            {
                pk: list(dict.fromkeys(filter(None, map(self.tasks.find, item["tasks"]))))
                for pk, item in kept
            },
        )
        methods = paper_methods.write([item for _, item in kept], counted)
        chunks.set_links(
            Method.papers.through,
            "paper_id",
            "method_id",
            {
                pk: list(dict.fromkeys(methods[m["name"]] for m in item["methods"]))
                for pk, item in kept
            },
        )

    def _targets(self, finder, items, counted):
        """Found for each item, or None for one refused: a second record for one paper."""
        targets = finder.resolve([item["identity"] for _, item in items])
        for i, ((index, item), found) in enumerate(zip(items, targets, strict=True)):
            earlier = finder.claimed.get(found.slug)
            row = found.row
            other = row and row["described"] and (row["pwc_slug"] or row["slug"])
            if earlier is not None or (other and other != item["identity"].slug):
                field, given = _joined_by(item["identity"], found)
                by = f"record {earlier}" if earlier is not None else f"PwC's {other!r}"
                counted.refuse(
                    KIND, self.file, index, field,
                    f"{given!r} names the paper {by} describes (one paper, one record)",
                )  # fmt: skip
                targets[i] = None
            else:
                finder.claimed[found.slug] = index
        return targets

    def _proceedings(self, items, counted):
        """{proceeding name: pk} for the chunk's proceedings, their conferences made as needed."""
        wanted = {
            item["proceeding"][0]: item["proceeding"] for _, item in items if item["proceeding"]
        }
        if not wanted:
            return {}
        conferences = chunks.named(
            Conference,
            {conference: {} for _, conference, _, _ in wanted.values()},
            counted.kind("conferences"),
            "conference",
        )
        return chunks.named(
            Proceeding,
            {
                name: {"conference_id": conferences[conference], "year": year, "month": month}
                for name, conference, year, month in wanted.values()
            },
            counted.kind("proceedings"),
            "proceeding",
        )

    def _authors(self, kept, counted):
        names: dict[str, dict] = {name: {} for _, item in kept for name in item["authors"]}
        authors = chunks.named(Author, names, counted.kind("authors"), "author")
        lists = {pk: [authors[name] for name in item["authors"]] for pk, item in kept}
        chunks.set_links(
            PaperAuthor,
            "paper_id",
            "author_id",
            lists,
            {
                (pk, author): {"position": position}
                for pk, ids in lists.items()
                for position, author in enumerate(ids)
            },
        )


def _joined_by(paper, found):
    if paper.slug and found.slug == paper.slug:
        return "paper_url", paper.slug
    if paper.arxiv_id and found.row and found.row["arxiv_id"] == paper.arxiv_id:
        return "arxiv_id", paper.arxiv_id
    if paper.arxiv_id and not found.row:
        return "arxiv_id", paper.arxiv_id
    return "url_abs", paper.url_abs


def _paper_columns(item, found, proceedings):
    """The paper's columns as this record has them; an empty title, date, URL or arXiv
    id leaves the stored one, and a stored paper keeps its slug, PwC's in pwc_slug."""
    paper = item["identity"]
    columns = dict(item["columns"])
    columns["proceeding_id"] = proceedings.get(item["proceeding"] and item["proceeding"][0])
    columns["described"] = True
    columns["arxiv_id"] = paper.arxiv_id
    columns["url"] = paper.url_here or paper.url_abs
    row = found.row
    if row is None:
        columns["pwc_slug"] = found.pwc_slug
        return columns
    for field in ("title", "date", "url", "arxiv_id"):
        if row[field] and (field in ("url", "arxiv_id") or not columns[field]):
            columns[field] = row[field]
    columns["pwc_slug"] = paper.slug if paper.slug != row["slug"] else row["pwc_slug"]
    return columns

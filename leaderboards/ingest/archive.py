"""Importing the Papers with Code archive (`evaluation-tables.json`, SPEC 2).

The archive is a list of tasks, each with datasets and subtasks, each dataset
with its table of rows. The importer streams it one top-level task at a time,
turns every (task, dataset) table into a page dict (SPEC 1) and hands the pages
to the one writer with what the page format has no room for (task parents,
synonyms, source links and areas, dataset parents and links, papers' arXiv
ids), so an import is checked, chunked, idempotent and keeps editors' decisions
exactly as a load of page files does. Each task tree's catalogue also goes to
the writer on its own, after its pages, so a task without a table of its own
is kept too.

Slugs follow PwC: lower-case and hyphenated, `<task>-on-<dataset>` for a
table, with a numeric suffix on collision. A name the database already knows
keeps the slug it has, so a re-import or a later, larger archive gives every
existing page the same URL.
"""

import contextlib
import dataclasses
import datetime
import gzip
import sys
from decimal import Decimal
from functools import partial

import ijson
from django.utils.text import slugify

from leaderboards.format import derive
from leaderboards.format.page import MAX_DEPTH, PageError, Refused, check_text, parse_date, slug_of
from leaderboards.format.rules import (
    arxiv_id,
    arxiv_key,
    free_slug,
    paper_key,
    slug_for,
    storable,
)
from leaderboards.ingest.loader import check_built
from leaderboards.ingest.sources import Catalogue, Entry, Problem, Source
from leaderboards.ingest.writer import Writer
from leaderboards.models import Dataset, Leaderboard, Paper, Task

ARCHIVE = "Papers with Code (evaluation-tables.json), CC BY-SA 4.0"
RANK_NOTE = "the archive's row order at snapshot; not re-ranked"
VALUES_NOTE = "the archive's strings, untouched"
DIRECTION_NOTE = (
    "the archive records no direction, so the chart draws points only until an editor sets one"
)
SLUG_LIMIT = 200
PAPER_SLUG_LIMIT = 50


@contextlib.contextmanager
def open_archive(path):
    """A binary stream of the archive, gunzipped when it is gzip (by its magic bytes)."""
    with open(path, "rb") as stream:
        if stream.peek(2)[:2] == b"\x1f\x8b":
            with gzip.GzipFile(fileobj=stream) as unzipped:
                yield unzipped
        else:
            yield stream


def archive_date(path):
    """The date the archive file itself records, or None.

    A gzip header carries the compressed file's modification time (bytes 4-7,
    little-endian seconds, 0 when not recorded): the archive's own metadata,
    which travels with it. A plain JSON file records no date; the filesystem's
    modification time says when this copy was written, not when the archive
    was taken, so it is never used.
    """
    with open(path, "rb") as stream:
        header = stream.read(8)
    if len(header) < 8 or header[:2] != b"\x1f\x8b":
        return None
    seconds = int.from_bytes(header[4:8], "little")
    if not seconds:
        return None
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC).date()


class ArchiveError(ValueError):
    """The file is not an archive this importer can read."""


def read_tasks(stream):
    """The archive's top-level tasks, one parsed at a time."""
    # Numbers stay Decimal: str() of one gives back the digits as the file had them.
    try:
        with _any_integer():
            for index, task in enumerate(_items(ijson.basic_parse(stream))):
                _check_task(task, f"[{index}]")
                yield task
    except ijson.JSONError as error:
        raise ArchiveError(f"invalid JSON: {error}") from None


@contextlib.contextmanager
def _any_integer():
    """Let the parser convert an integer of any length; the page check refuses it.

    ijson's C parser converts integer literals itself and crashes the process
    (a segfault, not an exception) on one past Python's 4,300-digit limit.
    """
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(limit)


_OPEN = {"start_map": dict, "start_array": list}
_CLOSE = {"end_map", "end_array"}


def _items(events):
    """The items of the top-level array, built from parse events.

    ijson.items() keeps a prefix string per level, so its memory grows with the
    square of the nesting (4 GB at 40,000 levels). Here a value nested past the
    page limit is kept as a marker that the page check refuses with its path.
    """
    stack: list = []
    key = None
    for event, value in events:
        if event == "map_key":
            key = value
            continue
        if event in _CLOSE:
            done = stack.pop()
            if isinstance(done, _Skipped):
                done.depth -= 1
                if done.depth:
                    stack.append(done)
                    continue
            if len(stack) == 1:
                yield done
            continue
        if not stack:
            if event != "start_array":
                raise ArchiveError("expected a list of tasks")
            stack.append([])
            continue
        parent = stack[-1]
        if isinstance(parent, _Skipped):
            parent.depth += event in _OPEN
            continue
        if event in _OPEN:
            child = _OPEN[event]() if len(stack) <= MAX_DEPTH else _Skipped()
        else:
            child = value
        if len(stack) == 1:
            # A task: yielded when whole, never kept in the top-level list.
            if event not in _OPEN:
                yield child
        elif isinstance(parent, dict):
            parent[key] = child
        else:
            parent.append(child)
        if event in _OPEN:
            stack.append(child)
    if stack:
        raise ArchiveError("invalid JSON: the document ends inside a value")


class _Skipped(Refused):
    """A value nested past the limit, not built: its events are counted and dropped."""

    def __init__(self):
        super().__init__(f"nested deeper than {MAX_DEPTH} levels")
        self.depth = 1


def _check_task(task, path):
    """Enough shape that building pages cannot trip; the loader checks the pages."""
    if not isinstance(task, dict) or not isinstance(task.get("task"), str):
        raise ArchiveError(f"{path}: expected a task object with a name")
    for key in ("datasets", "subtasks", "categories", "synonyms"):
        if not isinstance(task.get(key) or [], list):
            raise ArchiveError(f"{path}.{key}: expected a list")
    for key in ("categories", "synonyms"):
        if not all(isinstance(item, str) for item in task.get(key) or []):
            raise ArchiveError(f"{path}.{key}: expected a list of names")
    for index, subtask in enumerate(task.get("subtasks") or []):
        _check_task(subtask, f"{path}.subtasks[{index}]")
    for index, dataset in enumerate(task.get("datasets") or []):
        _check_dataset(dataset, f"{path}.datasets[{index}]")


def _check_dataset(dataset, path):
    if not isinstance(dataset, dict):
        raise ArchiveError(f"{path}: expected a dataset object")
    table = dataset.get("sota") or {}
    if not isinstance(table, dict) or not isinstance(table.get("rows") or [], list):
        raise ArchiveError(f"{path}.sota: expected an object with a list of rows")
    if not isinstance(table.get("metrics") or [], list):
        raise ArchiveError(f"{path}.sota.metrics: expected a list")
    for index, row in enumerate(table.get("rows") or []):
        if not isinstance(row, dict) or not isinstance(row.get("metrics") or {}, dict):
            raise ArchiveError(f"{path}.sota.rows[{index}]: expected a row with a metrics object")
    if not isinstance(dataset.get("dataset_links") or [], list):
        raise ArchiveError(f"{path}.dataset_links: expected a list")
    for index, child in enumerate(dataset.get("subdatasets") or []):
        _check_dataset(child, f"{path}.subdatasets[{index}]")


def _text(value):
    if value is None:
        return None
    if isinstance(value, Decimal | int | float) and not isinstance(value, bool):
        return str(value)
    return value


def _is_date(text):
    """A date a page's paper_date may hold (the page format's rule, range included)."""
    try:
        return isinstance(text, str) and parse_date(text, "paper_date") is not None
    except PageError:
        return False


class Slugs:
    """Slugs taken so far, and the rule that makes a new one from a name."""

    def __init__(self, taken):
        self.taken = set(taken)

    def claim(self, text, fallback, limit=SLUG_LIMIT):
        slug = free_slug(slug_for(text, fallback, limit), self.taken, limit)
        self.taken.add(slug)
        return slug


def _paper_slug_text(title):
    """PwC's paper slugs are the title's first words, cut at a word boundary."""
    text = slugify(title or "")
    if len(text) > PAPER_SLUG_LIMIT:
        text = text[:PAPER_SLUG_LIMIT].rsplit("-", 1)[0]
    return text


@dataclasses.dataclass
class ImportReport:
    tasks: int = 0
    datasets: int = 0
    tables: int = 0
    empty_tables: int = 0
    rows: int = 0
    load: object = None
    # The newest row's date (ISO) and its board: a snapshot cannot be older.
    newest_row: tuple[str, str] | None = None


class Importer:
    def __init__(self, snapshot, dry_run=False):
        # The archive copy's date, or None when nothing states it.
        self.snapshot = snapshot
        self.report = ImportReport()
        self.writer = Writer(dry_run=dry_run)
        tasks = Task.objects.order_by("-pk").values_list("name", "slug")
        datasets = Dataset.objects.order_by("-pk").values_list("name", "slug")
        # Later entries win in dict(), so ordering by -pk keeps the oldest.
        self.task_slugs = dict(tasks)
        self.dataset_slugs = dict(datasets)
        self.task_slug_rule = Slugs(slug for _, slug in tasks)
        self.dataset_slug_rule = Slugs(slug for _, slug in datasets)
        self.board_slugs: dict[tuple[str, str], list[str]] = {}
        for task, dataset, slug in Leaderboard.objects.order_by("pk").values_list(
            "task__slug", "dataset__slug", "slug"
        ):
            self.board_slugs.setdefault((task, dataset), []).append(slug)
        self.board_slug_rule = Slugs(Leaderboard.objects.values_list("slug", flat=True))
        self.board_seen = {}
        self.paper_slugs = {}
        taken = []
        for slug, url, stored_arxiv in Paper.objects.order_by("-pk").values_list(
            "slug", "url", "arxiv_id"
        ):
            taken.append(slug)
            # A board names a paper by its arXiv id or by the URL it was first
            # named by, which stays its url when the papers file adds an arXiv id.
            for key in (paper_key(url), stored_arxiv and arxiv_key(stored_arxiv)):
                if key:
                    self.paper_slugs[key] = slug
        self.paper_slug_rule = Slugs(taken)
        # The catalogue entry of every task and dataset met so far, by name:
        # the first mention of a name is the one that counts.
        self.tasks = {}
        self.datasets = {}
        self.paper_arxiv = {}

    def run(self, stream, progress=None):
        self.report.load = self.writer.write(self._sources(read_tasks(stream)), progress)
        return self.report

    # Building pages ---------------------------------------------------------

    def _sources(self, tasks):
        for index, task in enumerate(tasks):
            # The archive's text, like its records', gets each character the
            # rule forbids replaced (PwC's tables carry stray U+0002/U+0003).
            task, _ = storable(task)
            tree = Catalogue()
            yield from self._task_pages(task, [], [], tree)
            if tree.tasks or tree.datasets:
                # The tree's whole catalogue, tasks and datasets without tables too.
                yield Source(f"[{index}] {task['task']}", None, tree)

    def _task_pages(self, task, ancestors, inherited_areas, tree):
        name = task["task"]
        areas = list(dict.fromkeys(task.get("categories") or [])) or inherited_areas
        entry = self.tasks.get(name)
        if entry is None:
            link = task.get("source_link")
            fields = {
                "description": task.get("description") or "",
                "synonyms": list(task.get("synonyms") or []),
                "source_link": (link.get("url") or "") if isinstance(link, dict) else "",
            }
            if self._storable("task", name, fields):
                self.report.tasks += 1
                parent = {"parent": ancestors[-1].slug if ancestors else None}
                entry = Entry(self._task_slug(name), name, {**parent, **fields}, tuple(areas))
                tree.tasks.append(entry)
            else:
                entry = _unstored(name)
            self.tasks[name] = entry
        chain = [*ancestors, entry]
        # A task that cannot be stored is reported once, and neither it nor its
        # tables are written; its subtasks go in without it as their parent.
        datasets = (task.get("datasets") or []) if entry.slug else []
        for dataset in datasets:
            yield from self._dataset_pages(task, chain, areas, dataset, [], tree)
        for subtask in task.get("subtasks") or []:
            yield from self._task_pages(subtask, chain, areas, tree)

    def _dataset_pages(self, task, task_chain, areas, dataset, ancestors, tree):
        own = dataset.get("dataset") or dataset.get("subdataset") or ""
        if not isinstance(own, str):
            self.writer.report.failed.append(
                Problem(
                    f"archive task {task['task'][:40]!r}", "dataset: expected a name, not a value"
                )
            )
            return
        name = f"{ancestors[-1].name} ({own})" if ancestors else own
        entry = self.datasets.get(name)
        if entry is None:
            entry = self.datasets[name] = self._dataset_entry(name, dataset, ancestors, tree)
        chain = [*ancestors, entry]
        table = dataset.get("sota") or {}
        if not entry.slug:
            pass
        elif table.get("rows"):
            yield self._table_source(task, task_chain, areas, chain, table)
        else:
            self.report.empty_tables += 1
        for child in dataset.get("subdatasets") or []:
            yield from self._dataset_pages(task, task_chain, areas, child, chain, tree)

    def _dataset_entry(self, name, dataset, ancestors, tree):
        """The Entry of a dataset met for the first time, added to its tree's catalogue."""
        links = dataset.get("dataset_links") or []
        fields = {
            "description": dataset.get("description") or "",
            "url": next(
                (link["url"] for link in links if isinstance(link, dict) and link.get("url")),
                "",
            ),
        }
        if not self._storable("dataset", name, fields):
            # Reported; its subdatasets keep their names and go in without a parent.
            return _unstored(name)
        self.report.datasets += 1
        parent = {"parent": ancestors[-1].slug if ancestors else None}
        entry = Entry(self._dataset_slug(name), name, {**parent, **fields})
        tree.datasets.append(entry)
        return entry

    def _table_source(self, task, task_chain, areas, chain, table):
        """The Source of a dataset's table: its page, and the catalogue above it."""
        entry = chain[-1]
        task_slug = task_chain[-1].slug
        board = self._board_slug(task_slug, entry.slug)
        self.report.tables += 1
        self.report.rows += len(table["rows"])
        page = self._page(task, task_slug, areas, entry.name, entry.slug, board, table)
        ends = page["source"]["rows_end_at"]
        if ends and (self.report.newest_row is None or ends > self.report.newest_row[0]):
            self.report.newest_row = (ends, page["url"])
        papers = {slug_of(row["paper"]) for row in page["rows"] if row["paper"]}
        catalogue = Catalogue(
            tasks=[stored for stored in task_chain if stored.slug],
            datasets=[stored for stored in chain if stored.slug],
            paper_arxiv={
                slug: self.paper_arxiv[slug] for slug in papers if slug in self.paper_arxiv
            },
        )
        return Source(f"/sota/{board}", partial(check_built, page), catalogue)

    def _page(self, task, task_slug, areas, dataset_name, dataset_slug, board, table):
        rows = [self._row(rank, row) for rank, row in enumerate(table["rows"], start=1)]
        # A row may carry a metric the table's list lacks; the page lists it after.
        metrics = list(dict.fromkeys(table.get("metrics") or []))
        for row in rows:
            metrics += [name for name in row["metrics"] if name not in metrics]
        description = task.get("description") or None
        return {
            "url": f"/sota/{board}",
            "task": {"name": task["task"], "url": f"/task/{task_slug}", "note": None},
            "dataset": {"name": dataset_name, "url": f"/dataset/{dataset_slug}"},
            "category": areas[0] if areas else None,
            "categories": areas,
            "category_note": None,
            "description": description,
            "description_from": "task" if description else None,
            "source": {
                "archive": ARCHIVE,
                "snapshot": self.snapshot.isoformat() if self.snapshot else None,
                "rank": RANK_NOTE,
                # The newest row's date: what the rows themselves show, never guessed.
                "rows_end_at": max(
                    (row["paper_date"] for row in rows if row["paper_date"]), default=None
                ),
                "rows_withheld_as_spam": 0,
                "metric_values": VALUES_NOTE,
            },
            "metrics": metrics,
            "metric_direction": {
                "note": DIRECTION_NOTE,
                "by_metric": dict.fromkeys(metrics),
            },
            "counts": derive.page_counts(rows),
            "rows": rows,
            "since_archive": None,
            # The archive holds no verification: the page says its code was not checked.
            "syntology": None,
        }

    def _row(self, rank, row):
        code_links = [
            {"title": _text(link.get("title")), "url": _text(link.get("url"))}
            for link in row.get("code_links") or []
            if isinstance(link, dict)
        ]
        paper_url = _text(row.get("paper_url")) or None
        date = _text(row.get("paper_date")) or None
        extra = {}
        if date is not None and not _is_date(date):
            # A page's paper_date must be a date; the archive's text stays on the row.
            extra["paper_date_in_archive"] = date
            date = None
        return {
            "rank_in_archive_order": rank,
            "model": _text(row.get("model_name")) or "",
            "metrics": {name: _text(value) for name, value in (row.get("metrics") or {}).items()},
            "uses_additional_data": bool(row.get("uses_additional_data")),
            "paper_date": date,
            "paper": self._paper_path(paper_url, row.get("paper_title")),
            "paper_url": paper_url,
            "paper_title": _text(row.get("paper_title")),
            "code": next((link["url"] for link in code_links if link["url"]), None),
            "n_code_links": len(code_links),
            "syntology": None,
            # Kept beyond the page format's one `code`: every link the archive gave.
            "code_links": code_links,
            **extra,
        }

    def _storable(self, kind, name, fields):
        """Whether a task's or dataset's name and details can be stored; if not, say so."""
        try:
            check_text(name, f"{kind}.name", column=f"{kind}.name")
            for field, value in fields.items():
                if isinstance(value, list):
                    for index, text in enumerate(value):
                        check_text(text, f"{field}[{index}]")
                else:
                    check_text(value, field)
        except PageError as error:
            label = f"archive {kind} {str(name)[:40]!r}"
            self.writer.report.failed.append(Problem(label, str(error)))
            return False
        return True

    # Slugs -------------------------------------------------------------------

    def _task_slug(self, name):
        slug = self.task_slugs.get(name)
        if slug is None:
            slug = self.task_slugs[name] = self.task_slug_rule.claim(name, "task")
        return slug

    def _dataset_slug(self, name):
        slug = self.dataset_slugs.get(name)
        if slug is None:
            slug = self.dataset_slugs[name] = self.dataset_slug_rule.claim(name, "dataset")
        return slug

    def _board_slug(self, task_slug, dataset_slug):
        """The n-th table of a (task, dataset) in the archive keeps the n-th stored slug."""
        pair = (task_slug, dataset_slug)
        n = self.board_seen.get(pair, 0)
        self.board_seen[pair] = n + 1
        stored = self.board_slugs.setdefault(pair, [])
        if n < len(stored):
            return stored[n]
        slug = self.board_slug_rule.claim(f"{task_slug}-on-{dataset_slug}", "leaderboard")
        stored.append(slug)
        return slug

    def _paper_path(self, url, title):
        key = paper_key(url)
        if key is None:
            return None
        slug = self.paper_slugs.get(key)
        if slug is None:
            found = arxiv_id(url)
            text = _paper_slug_text(title) or slugify(found.replace("/", "-"))
            slug = self.paper_slugs[key] = self.paper_slug_rule.claim(text, "paper")
            if found:
                self.paper_arxiv[slug] = found
        return f"/paper/{slug}"


def _unstored(name):
    """The place of a task or dataset that could not be stored: named, with no slug."""
    return Entry(None, name)

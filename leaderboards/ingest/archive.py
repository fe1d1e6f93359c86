"""Importing the Papers with Code archive (`evaluation-tables.json`, SPEC 2).

The archive is a list of tasks, each with datasets and subtasks, each dataset
with its table of rows. The importer streams it one top-level task at a time,
turns every (task, dataset) table into a page dict (SPEC 1) and hands the pages
to the loader, so an import is checked, chunked, idempotent and keeps editors'
decisions exactly as a load of page files does. What the page format has no
room for (task parents, synonyms, source links, dataset parents and links, a
paper's arXiv id) goes in when the object is first created, and is brought up
to date after the pages for objects that already existed.

Slugs follow PwC: lower-case and hyphenated, `<task>-on-<dataset>` for a
table, with a numeric suffix on collision. A name the database already knows
keeps the slug it has, so a re-import or a later, larger archive gives every
existing page the same URL.
"""

import contextlib
import dataclasses
import gzip
import re
import sys
from decimal import Decimal

import ijson
from django.db import transaction
from django.utils.text import slugify

from leaderboards.format import derive
from leaderboards.format.page import (
    MAX_DEPTH,
    PageError,
    Refused,
    check_text,
    parse_date,
    slug_of,
)
from leaderboards.ingest.loader import Loader, _date
from leaderboards.models import (
    Area,
    Dataset,
    Leaderboard,
    Paper,
    Task,
)
from leaderboards.upkeep.cache import bump_data_version
from leaderboards.upkeep.figures import refresh_counts

ARCHIVE = "Papers with Code (evaluation-tables.json), CC BY-SA 4.0"
RANK_NOTE = "the archive's row order at snapshot; not re-ranked"
VALUES_NOTE = "the archive's strings, untouched"
DIRECTION_NOTE = "the archive records no direction; null = unknown, the chart draws points only"
SLUG_LIMIT = 200
PAPER_SLUG_LIMIT = 50

# An old-style id is an archive's name (cond-mat.stat-mech, the longest, has 18
# letters) and 7 digits; the bound keeps every id within Paper.arxiv_id's 32.
_ARXIV = re.compile(
    r"arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5}|[a-z][a-z.-]{0,23}/\d{7})(?:v\d+)?(?:\.pdf)?/?$",
    re.IGNORECASE,
)


def arxiv_id(url):
    """The arXiv id of an abs or pdf URL, without its version; "" if not arXiv."""
    match = _ARXIV.search((url or "").strip())
    return match.group(1) if match else ""


def paper_key(url):
    """What makes two rows' papers the same: the arXiv id, else the URL."""
    url = (url or "").strip()
    if not url:
        return None
    found = arxiv_id(url)
    return f"arxiv:{found}" if found else f"url:{url.rstrip('/')}"


@contextlib.contextmanager
def open_archive(path):
    """A binary stream of the archive, gunzipped when it is gzip (by its magic bytes)."""
    with open(path, "rb") as stream:
        if stream.peek(2)[:2] == b"\x1f\x8b":
            with gzip.GzipFile(fileobj=stream) as unzipped:
                yield unzipped
        else:
            yield stream


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
    stack, key = [], None
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
    """A date a page's paper_date may hold (the page format's rule)."""
    try:
        return isinstance(text, str) and parse_date(text, "paper_date") is not None
    except PageError:
        return False


class Slugs:
    """Slugs taken so far, and the rule that makes a new one from a name."""

    def __init__(self, taken):
        self.taken = set(taken)

    def claim(self, text, fallback, limit=SLUG_LIMIT):
        base = slugify(text)[:limit].strip("-") or fallback
        slug, n = base, 1
        while slug in self.taken:
            n += 1
            slug = f"{base}-{n}"
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
    # Tasks and datasets whose archive details (parent, description, links) changed.
    updated_meta: int = 0
    load: object = None


class Importer:
    def __init__(self, snapshot, dry_run=False):
        self.snapshot = snapshot
        self.read_at = f"{snapshot.isoformat()}T00:00:00+00:00"
        self.report = ImportReport()
        self.loader = Loader(prepare=self.prepare, dry_run=dry_run)
        self.dry_run = dry_run
        tasks = Task.objects.order_by("-pk").values_list("name", "slug")
        datasets = Dataset.objects.order_by("-pk").values_list("name", "slug")
        # Later entries win in dict(), so ordering by -pk keeps the oldest.
        self.task_slugs = dict(tasks)
        self.dataset_slugs = dict(datasets)
        self.task_slug_rule = Slugs(slug for _, slug in tasks)
        self.dataset_slug_rule = Slugs(slug for _, slug in datasets)
        self.board_slugs = {}
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
            key = f"arxiv:{stored_arxiv}" if stored_arxiv else paper_key(url)
            if key:
                self.paper_slugs[key] = slug
        self.paper_slug_rule = Slugs(taken)
        # Collected while streaming, written after the pages.
        self.task_meta = {}
        self.dataset_meta = {}
        self.paper_arxiv = {}

    def run(self, stream, progress=None):
        self.loader.load_pages(self._pages(read_tasks(stream)), progress)
        self.report.load = self.loader.report
        if not self.dry_run:
            with transaction.atomic():
                self._write_meta()
            refresh_counts()
            # The metadata is written after the pages: retire what was cached in between.
            bump_data_version()
        return self.report

    # Building pages ---------------------------------------------------------

    def _pages(self, tasks):
        for task in tasks:
            yield from self._task_pages(task, parent=None, inherited_areas=[])

    def _task_pages(self, task, parent, inherited_areas):
        name = task["task"]
        slug = self._task_slug(name)
        areas = list(dict.fromkeys(task.get("categories") or [])) or inherited_areas
        link = task.get("source_link")
        if name not in self.task_meta:
            self.report.tasks += 1
        fields = {
            "description": task.get("description") or "",
            "synonyms": list(task.get("synonyms") or []),
            "source_link": (link.get("url") or "") if isinstance(link, dict) else "",
        }
        # A task that cannot be stored is reported, and neither it nor its
        # tables are written; its subtasks stand alone.
        storable = self._storable("task", name, fields)
        if storable:
            self.task_meta.setdefault(
                name, {"slug": slug, "parent": parent, "areas": areas, "fields": fields}
            )
            for dataset in task.get("datasets") or []:
                yield from self._dataset_pages(task, slug, areas, dataset, parent=None)
        for subtask in task.get("subtasks") or []:
            parent = name if storable else None
            yield from self._task_pages(subtask, parent=parent, inherited_areas=areas)

    def _dataset_pages(self, task, task_slug, areas, dataset, parent):
        own = dataset.get("dataset") or dataset.get("subdataset") or ""
        if not isinstance(own, str):
            self.loader.report.failed.append(
                (f"archive task {task['task'][:40]!r}", "dataset: expected a name, not a value")
            )
            return
        name = f"{parent} ({own})" if parent else own
        slug = self._dataset_slug(name)
        links = dataset.get("dataset_links") or []
        fields = {
            "description": dataset.get("description") or "",
            "url": next(
                (link["url"] for link in links if isinstance(link, dict) and link.get("url")),
                "",
            ),
        }
        if name not in self.dataset_meta and self._storable("dataset", name, fields):
            self.report.datasets += 1
            # A parent that could not be stored leaves its children without one.
            stored_parent = parent if parent in self.dataset_meta else None
            self.dataset_meta[name] = {"slug": slug, "parent": stored_parent, "fields": fields}
        table = dataset.get("sota") or {}
        if name not in self.dataset_meta:
            pass  # reported as it could not be stored; its children may still be
        elif table.get("rows"):
            board = self._board_slug(task_slug, slug)
            self.report.tables += 1
            self.report.rows += len(table["rows"])
            yield board, self._page(task, task_slug, areas, name, slug, board, table)
        else:
            self.report.empty_tables += 1
        for child in dataset.get("subdatasets") or []:
            yield from self._dataset_pages(task, task_slug, areas, child, parent=name)

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
                "snapshot": self.snapshot.isoformat(),
                "rank": RANK_NOTE,
                "rows_end_at": self.snapshot.isoformat(),
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
            "syntology": {
                "read_at": self.read_at,
                "claim": None,
                **derive.syntology_figures(rows),
            },
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
            self.loader.report.failed.append((label, str(error)))
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

    # What the pages have no room for ---------------------------------------------

    def prepare(self, catalog, pages):
        """Create a chunk's new tasks, datasets and papers with all the archive says.

        Called by the bulk loader before it writes the pages, so that what the
        page format has no room for (parents, synonyms, links, arXiv ids) goes
        in with the first insert rather than as an update of every object later.
        """
        self._create(catalog.tasks, Task, self.task_meta, [p["task"]["name"] for p in pages])
        self._create(
            catalog.datasets, Dataset, self.dataset_meta, [p["dataset"]["name"] for p in pages]
        )
        first = {}
        for page in pages:
            for row in page["rows"]:
                if row["paper"]:
                    first.setdefault(slug_of(row["paper"]), row)
        papers = Paper.objects.in_bulk(list(first), field_name="slug")
        # The same fields the loader gives a new paper, and the arXiv id it cannot.
        # A paper already stored is left as it is: the archive names it again,
        # perhaps with a different title on another row, and the first one stands.
        created = Paper.objects.bulk_create(
            Paper(
                slug=slug,
                title=row["paper_title"] or "",
                url=row["paper_url"] or "",
                date=_date(row["paper_date"]),
                arxiv_id=self.paper_arxiv.get(slug, ""),
            )
            for slug, row in first.items()
            if slug not in papers
        )
        papers.update((paper.slug, paper) for paper in created)
        return papers

    def _create(self, cache, model, meta, names):
        """Create the named objects missing from `cache`, each parent before its children."""
        wanted = []
        for name in dict.fromkeys(names):
            chain = []
            while name is not None and meta[name]["slug"] not in cache and name not in wanted:
                chain.append(name)
                name = meta[name]["parent"]
            wanted += reversed(chain)
        while wanted:
            # Those whose parent is stored now go in this round.
            ready = [
                name
                for name in wanted
                if meta[name]["parent"] is None or meta[meta[name]["parent"]]["slug"] in cache
            ]
            objects = model.objects.bulk_create(
                model(
                    slug=meta[name]["slug"],
                    name=name,
                    parent=cache[meta[meta[name]["parent"]]["slug"]]
                    if meta[name]["parent"]
                    else None,
                    **meta[name]["fields"],
                )
                for name in ready
            )
            cache.update((obj.slug, obj) for obj in objects)
            done = set(ready)
            wanted = [name for name in wanted if name not in done]

    def _write_meta(self):
        """Bring stored tasks and datasets to what this archive says of them."""
        self._update(Task, self.task_meta)
        self._update(Dataset, self.dataset_meta)
        self._link_areas()
        unset = set(Paper.objects.filter(arxiv_id="").values_list("slug", flat=True))
        for slug in unset & set(self.paper_arxiv):
            Paper.objects.filter(slug=slug).update(arxiv_id=self.paper_arxiv[slug])

    def _update(self, model, meta):
        stored = {obj.slug: obj for obj in model.objects.all()}
        for name, item in meta.items():
            obj = stored.get(item["slug"])
            parent = stored.get(meta[item["parent"]]["slug"]) if item["parent"] else None
            wanted = {"parent_id": parent.pk if parent else None, **item["fields"]}
            if obj is None:
                obj = stored[item["slug"]] = model.objects.create(
                    slug=item["slug"], name=name, **wanted
                )
            elif any(getattr(obj, field) != value for field, value in wanted.items()):
                # One at a time: after a first import, only what the archive changed.
                model.objects.filter(pk=obj.pk).update(**wanted)
                self.report.updated_meta += 1

    def _link_areas(self):
        """A task without tables of its own still belongs to its archive categories."""
        through = Task.areas.through
        areas = dict(Area.objects.values_list("name", "pk"))
        tasks = dict(Task.objects.values_list("slug", "pk"))
        wanted = {
            (tasks[meta["slug"]], areas[name])
            for meta in self.task_meta.values()
            for name in meta["areas"]
            if name in areas
        }
        have = set(through.objects.values_list("task_id", "area_id"))
        through.objects.bulk_create(
            [through(task_id=task, area_id=area) for task, area in wanted - have],
            batch_size=1000,
        )

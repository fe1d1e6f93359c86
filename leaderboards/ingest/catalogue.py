"""The catalogue a chunk's sources name: areas, tasks, datasets and papers,
created or brought up to date before the chunk's boards are written.
"""

import dataclasses

from leaderboards.format.page import slug_of
from leaderboards.format.rules import free_slug, slug_for
from leaderboards.ingest.sources import Entry, Problem
from leaderboards.ingest.tables import create
from leaderboards.models import Area, Dataset, Paper, Task
from leaderboards.upkeep.bulk import among, reserve_ids
from leaderboards.upkeep.bulk import insert as _insert


class CatalogueWriter:
    """Areas, tasks, datasets and papers a batch of sources names, created or brought up to date.

    A name or title is written when its object is first created and never
    changed by a later source: tasks, datasets and papers are shared by many
    boards, and a new board's file must not rename them for all the others.
    A source that states another name gets a warning saying what was kept.
    Other details a source states (descriptions, parents, links) are written
    when they differ; editors' fields (`editor_*`) are never touched.
    """

    def __init__(self, report):
        self.report = report
        self.task_entries = {}  # slug -> [(source name, Entry)]
        self.dataset_entries = {}
        self.paper_entries = {}  # slug -> [(source name, {title, url, date})]
        self.paper_flags = {}  # slug -> {has_code, verified} as this batch's rows say
        self.paper_arxiv = {}
        self.area_names = []
        self.changed = False
        self.shared_changed = False

    def add_page(self, name, page, prepared):
        """What the page itself says of its task, dataset, areas and papers."""
        task = page["task"]
        fields = {"note": task["note"]}
        if page["description_from"] == "task":
            # A page may say its (null) description is the task's; the task's text is never null.
            fields["description"] = page["description"] or ""
        self.task_entries.setdefault(slug_of(task["url"]), []).append(
            (name, Entry(slug_of(task["url"]), task["name"], fields))
        )
        dataset = page["dataset"]
        self.dataset_entries.setdefault(slug_of(dataset["url"]), []).append(
            (name, Entry(slug_of(dataset["url"]), dataset["name"]))
        )
        self.area_names += page["categories"]
        if page["category"]:
            self.area_names.append(page["category"])
        for row, paper, date, code, ran in zip(
            page["rows"],
            prepared.papers,
            prepared.dates,
            prepared.has_code,
            prepared.ran,
            strict=True,
        ):
            if paper:
                flags = self.paper_flags.setdefault(paper, {"has_code": False, "verified": False})
                flags["has_code"] |= code
                flags["verified"] |= ran
                self.paper_entries.setdefault(paper, []).append(
                    (
                        name,
                        {
                            "title": row["paper_title"] or "",
                            "url": row["paper_url"] or "",
                            "date": date,
                        },
                    )
                )

    def add(self, name, catalogue):
        for entry in catalogue.tasks:
            self.task_entries.setdefault(entry.slug, []).append((name, entry))
            self.area_names += entry.areas
        for entry in catalogue.datasets:
            self.dataset_entries.setdefault(entry.slug, []).append((name, entry))
        self.paper_arxiv.update(catalogue.paper_arxiv)

    def write(self):
        self.areas = self._areas()
        self.tasks = self._objects(Task, "task", self.task_entries)
        self.datasets = self._objects(Dataset, "dataset", self.dataset_entries)
        self._task_areas()
        self.papers = self._papers()

    def _areas(self):
        """Areas by name; a name the fixtures lack is made, with a free slug."""
        names = list(dict.fromkeys(self.area_names))
        areas = {area.name: area for area in Area.objects.filter(name__in=names)}
        missing = [name for name in names if name not in areas]
        if missing:
            taken = set(Area.objects.values_list("slug", flat=True))
            made = []
            for name in missing:
                slug = free_slug(slug_for(name, "area"), taken)
                taken.add(slug)
                made.append(Area(slug=slug, name=name))
            areas.update((area.name, area) for area in Area.objects.bulk_create(made))
            self.changed = True
        return areas

    def _warn_name(self, name, kind, slug, field, kept, other):
        self.report.warnings.append(
            Problem(
                name,
                f"{kind} {slug!r} keeps its {field} {kept!r}; this source's {other!r} is "
                f"not applied ({kind}s are shared by boards: the first source wins)",
            )
        )

    def _objects(self, model, kind, entries):
        """Tasks or datasets by slug: missing ones created (parents first), others updated."""
        objects = model.objects.in_bulk([*entries, *_parents(entries)], field_name="slug")
        wanted = self._wanted(kind, entries, objects)
        created = self._create_missing(model, wanted, objects)
        for slug, (_, fields) in wanted.items():
            if slug not in created:
                self._update_stated(model, objects[slug], fields, objects)
        return objects

    def _wanted(self, kind, entries, objects):
        """slug -> (name, fields) the batch says; a stored or first stated name is kept."""
        wanted = {}
        for slug, stated in entries.items():
            first = objects[slug].name if slug in objects else stated[0][1].name
            fields = {}
            for source, entry in stated:
                if entry.name != first:
                    self._warn_name(source, kind, slug, "name", first, entry.name)
                fields.update(entry.fields)
            wanted[slug] = (first, fields)
        return wanted

    def _create_missing(self, model, wanted, objects):
        """Create the wanted objects not stored, parents before their children; their slugs."""
        missing = [slug for slug in wanted if slug not in objects]
        created = set(missing)
        while missing:
            # Those whose parent is stored by now go in this round.
            ready = [
                slug
                for slug in missing
                if (parent := wanted[slug][1].get("parent")) is None
                or parent in objects
                or parent not in wanted
            ] or missing  # parents in a loop: made without them rather than never
            made = [
                model(slug=slug, name=wanted[slug][0], **self._columns(wanted[slug][1], objects))
                for slug in ready
            ]
            create(model, made)
            objects.update((obj.slug, obj) for obj in made)
            missing = [slug for slug in missing if slug not in objects]
            self.changed = True
        return created

    def _update_stated(self, model, obj, fields, objects):
        """Write the columns a source states that differ from the stored object's."""
        if getattr(obj, "pwc_slug", None):
            # The datasets file describes it (ingest/datasets.py): its text wins.
            fields = {column: value for column, value in fields.items() if column != "description"}
        changed = {
            column: value
            for column, value in self._columns(fields, objects).items()
            if getattr(obj, column) != value
        }
        if changed:
            # One at a time: after a first load, only what a source changed.
            model.objects.filter(pk=obj.pk).update(**changed)
            for column, value in changed.items():
                setattr(obj, column, value)
            self.changed = self.shared_changed = True

    @staticmethod
    def _columns(fields, objects):
        columns = dict(fields)
        if "parent" in columns:
            parent = columns.pop("parent")
            columns["parent_id"] = objects[parent].pk if parent in objects else None
        return columns

    def _task_areas(self):
        """A task belongs to every area a source names for it (added, never removed)."""
        through = Task.areas.through
        wanted = {
            (self.tasks[slug].pk, self.areas[area].pk)
            for slug, stated in self.task_entries.items()
            for _, entry in stated
            for area in entry.areas
        }
        if not wanted:
            return
        have = set(
            through.objects.filter(task__in={task for task, _ in wanted}).values_list(
                "task_id", "area_id"
            )
        )
        if wanted - have:
            through.objects.bulk_create(
                [through(task_id=task, area_id=area) for task, area in wanted - have]
            )
            self.changed = True

    def _papers(self):
        """The Paper of every row that has a paper page; a stored paper keeps its details."""
        stored = Paper.objects.values_list("slug", "pk", "title", "url", "date", "arxiv_id")
        papers = {
            slug: _StoredPaper(pk, *fields)
            for slug, pk, *fields in among(stored, "slug", self.paper_entries)
        }
        new = []
        for slug, stated in self.paper_entries.items():
            paper = papers.get(slug)
            if paper is None:
                paper = papers[slug] = _StoredPaper(
                    0, arxiv_id=self.paper_arxiv.get(slug, ""), **stated[0][1]
                )
                new.append((slug, paper))
            self._warn_paper(slug, paper, stated)
        self._insert_papers(new)
        self._add_arxiv_ids(papers)
        return papers

    def _warn_paper(self, slug, paper, stated):
        """A warning for each source and detail it states otherwise than the paper keeps."""
        warned = set()
        for source, fields in stated:
            for field, value in fields.items():
                kept = getattr(paper, field)
                if value != kept and (source, field) not in warned:
                    warned.add((source, field))
                    self._warn_name(source, "paper", slug, field, _text(kept), _text(value))

    def _insert_papers(self, new):
        """Insert the new (slug, paper) pairs under ids reserved for them."""
        for (_, paper), pk in zip(new, reserve_ids(Paper, len(new)), strict=True):
            paper.pk = pk
        # Flagged as their rows here say: the end of the load sets every
        # paper's flags from all its rows, and rewrites only those it changes.
        _insert(
            Paper,
            PAPER_FIELDS,
            [
                (paper.pk, slug, paper.title, paper.url, paper.date, paper.arxiv_id,
                 self.paper_flags[slug]["has_code"], self.paper_flags[slug]["verified"])
                for slug, paper in new
            ],
        )  # fmt: skip
        self.changed |= bool(new)

    def _add_arxiv_ids(self, papers):
        """An arXiv id the archive gives for a paper a page file made first."""
        for slug, found in self.paper_arxiv.items():
            paper = papers.get(slug)
            if paper is not None and not paper.arxiv_id:
                Paper.objects.filter(pk=paper.pk).update(arxiv_id=found)
                paper.arxiv_id = found
                self.changed = self.shared_changed = True


PAPER_FIELDS = ("id", "slug", "title", "url", "date", "arxiv_id", "has_code", "verified")


@dataclasses.dataclass(slots=True)
class _StoredPaper:
    """What the writer reads of a stored paper, or writes of a new one: building
    a Paper for each of the hundreds of thousands a large load meets again cost
    more than its query, and for the new ones half a second at PwC size."""

    pk: int
    title: str
    url: str
    date: object
    arxiv_id: str


def _parents(entries):
    """The parent slugs the entries state."""
    return {
        entry.fields["parent"]
        for stated in entries.values()
        for _, entry in stated
        if entry.fields.get("parent")
    }


def _text(value):
    """A stored value as a warning quotes it: a date as YYYY-MM-DD."""
    return value.isoformat() if hasattr(value, "isoformat") else value

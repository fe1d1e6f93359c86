"""The site's data as the archive's record files (SPEC 2.1-2.4), one record at a time.

Each function yields the records of one file, read a chunk of rows at a time
(CHUNK), so memory follows a chunk, never the table. A record holds every field
the importer reads (ingest/papers.py, code_links.py, methods.py, datasets.py),
so importing the file into an empty site gives the pages back. Editors'
decisions are applied as the site shows them: an editor's description in place
of the archive's, an editor's "official" on a code link; what an editor
withheld (a paper, a method, an unlinked code link) is left out and counted.
A method's description an editor wrote is marked so (rules.editors_mark), so a
restored site shows it as an editor's, as this one does.
"""

import dataclasses

from django.db.models import Prefetch

from leaderboards.format.rules import editors_mark
from leaderboards.models import (
    Dataset,
    Method,
    MethodArea,
    MethodCategory,
    Paper,
    PaperAuthor,
    PaperRepository,
)

CHUNK = 2000
PWC = "https://paperswithcode.com"


@dataclasses.dataclass
class Tally:
    """What one file holds and what it leaves out."""

    records: int = 0
    withheld: int = 0


def pwc_url(kind, slug):
    """The PwC address the importers read a paper's, method's or dataset's slug from."""
    return f"{PWC}/{kind}/{slug}"


def _chunked(queryset):
    """The rows of a queryset by primary key, CHUNK at a time (keyset, not OFFSET)."""
    last = 0
    while True:
        rows = list(queryset.filter(pk__gt=last).order_by("pk")[:CHUNK])
        if not rows:
            return
        yield rows
        last = rows[-1].pk


def _shown(source, editor):
    """The text the site shows: the editor's where an editor wrote one."""
    return source if editor is None else editor


def _introducing(item):
    if not item.paper_title and not item.paper_url:
        return None
    return {"title": item.paper_title, "url": item.paper_url}


class _Categories:
    """Every method category and area, read once: a few hundred rows at PwC's size."""

    def __init__(self):
        self.areas = {area.pk: area for area in MethodArea.objects.all()}
        self.by_pk = {category.pk: category for category in MethodCategory.objects.all()}

    def chain(self, pk, depth=20):
        """A category as the papers file nests it: {name, description, area, parent}."""
        category = self.by_pk.get(pk)
        if category is None or not depth:
            return None
        area = self.areas.get(category.area_id)
        return {
            "name": category.name,
            "description": category.description,
            "area": area.name if area else None,
            "parent": self.chain(category.parent_id, depth - 1),
        }

    def collection(self, pk):
        """A category as the methods file lists it: {collection, area_id, area}."""
        category = self.by_pk[pk]
        area = self.areas.get(category.area_id)
        return {
            "collection": category.name,
            "area_id": area.slug if area else None,
            "area": area.name if area else "",
        }


def _method_categories(method_ids):
    """{method pk: [category pk, ...]} in the order they were linked."""
    through = Method.categories.through
    found: dict[int, list[int]] = {}
    for method, category in (
        through.objects.filter(method_id__in=method_ids)
        .order_by("pk")
        .values_list("method_id", "methodcategory_id")
    ):
        found.setdefault(method, []).append(category)
    return found


def papers(tally):
    """papers-with-abstracts.json: every paper, not withheld.

    A paper is written under its PwC slug, with `url`, the address a board's
    row named it by (this site's field, not PwC's): a restore finds the board's
    paper by it, and gives it back what a page file has no room for (its arXiv
    id, and the date and title the first board to name it gave, whatever order
    the page files are loaded in).
    """
    categories = _Categories()
    tally.withheld += Paper.objects.filter(withheld=True).count()
    queryset = Paper.objects.filter(withheld=False).prefetch_related(
        Prefetch(
            "authorships",
            PaperAuthor.objects.select_related("author").order_by("position"),
        ),
        Prefetch("tasks", to_attr="task_list"),
        Prefetch(
            "methods", Method.objects.filter(withheld=False).order_by("pk"), to_attr="method_list"
        ),
    )
    for rows in _chunked(queryset.select_related("proceeding")):
        chains = _method_categories({m.pk for paper in rows for m in paper.method_list})
        for paper in rows:
            tally.records += 1
            yield _paper(paper, chains, categories)


def _paper(paper, chains, categories):
    return {
        "paper_url": pwc_url("paper", paper.pwc_slug or paper.slug),
        "arxiv_id": paper.arxiv_id or None,
        "title": paper.title,
        "abstract": paper.abstract,
        "url_abs": paper.url_abs,
        "url_pdf": paper.url_pdf,
        "proceeding": paper.proceeding.name if paper.proceeding else None,
        "authors": [authorship.author.name for authorship in paper.authorships.all()],
        "tasks": sorted(task.name for task in paper.task_list),
        "date": paper.date.isoformat() if paper.date else None,
        "methods": [
            {
                "name": method.name,
                "full_name": method.full_name,
                "description": _shown(method.description, method.editor_description),
                **editors_mark(method.editor_description),
                "introduced_year": method.introduced_year,
                "source_url": method.source_url,
                "source_title": method.source_title,
                "code_snippet_url": method.code_snippet_url,
                "main_collection": categories.chain(next(iter(chains.get(method.pk, [])), None)),
            }
            for method in paper.method_list
        ],
        "conference_url_abs": paper.conference_url_abs,
        "conference_url_pdf": paper.conference_url_pdf,
        "url": paper.url,
    }


def code_links(tally):
    """links-between-papers-and-code.json: every link shown (an editor's unlinking leaves
    one out), with the editor's word on whether it is official."""
    tally.withheld += PaperRepository.objects.filter(
        editor_unlinked=True, paper__withheld=False
    ).count()
    tally.withheld += PaperRepository.objects.filter(paper__withheld=True).count()
    queryset = PaperRepository.objects.filter(
        editor_unlinked=False, paper__withheld=False
    ).select_related("paper", "repository")
    for rows in _chunked(queryset):
        for link in rows:
            tally.records += 1
            yield _code_link(link)


def _code_link(link):
    paper = link.paper
    return {
        "paper_url": pwc_url("paper", paper.pwc_slug or paper.slug),
        "paper_title": paper.title,
        "paper_arxiv_id": paper.arxiv_id or None,
        # A paper a board row named has its address in `url` alone: the link
        # finds it there again.
        "paper_url_abs": paper.url_abs or paper.url,
        "paper_url_pdf": paper.url_pdf or None,
        "repo_url": link.repository.url,
        "is_official": _shown(link.is_official, link.editor_official),
        "mentioned_in_paper": link.mentioned_in_paper,
        "mentioned_in_github": link.mentioned_in_github,
        "framework": link.framework or None,
    }


def methods(tally):
    """methods.json: every method the methods file described, not withheld."""
    categories = _Categories()
    described = Method.objects.filter(pwc_slug__isnull=False)
    tally.withheld += described.filter(withheld=True).count()
    for rows in _chunked(described.filter(withheld=False)):
        chains = _method_categories([method.pk for method in rows])
        for method in rows:
            tally.records += 1
            yield {
                "url": pwc_url("method", method.pwc_slug),
                "name": method.name,
                "full_name": method.full_name,
                "description": _shown(method.description, method.editor_description),
                **editors_mark(method.editor_description),
                "paper": _introducing(method),
                "introduced_year": method.introduced_year,
                "source_url": method.source_url,
                "source_title": method.source_title,
                "code_snippet_url": method.code_snippet_url,
                "num_papers": method.num_papers,
                "collections": [categories.collection(pk) for pk in chains.get(method.pk, [])],
            }


def datasets(tally):
    """datasets.json: every dataset, each under the slug it has here (so a restore finds
    the board's dataset by it), with `dataset_links` for the address a board's table gave."""
    queryset = Dataset.objects.prefetch_related(
        Prefetch("modalities", to_attr="modality_list"),
        Prefetch("languages", to_attr="language_list"),
        Prefetch("tasks", to_attr="task_list"),
    )
    for rows in _chunked(queryset):
        for dataset in rows:
            tally.records += 1
            yield _dataset(dataset)


def _dataset(dataset):
    return {
        "url": pwc_url("dataset", dataset.pwc_slug or dataset.slug),
        "name": dataset.name,
        "full_name": dataset.full_name,
        "homepage": dataset.homepage,
        "description": _shown(dataset.description, dataset.editor_description),
        "paper": _introducing(dataset),
        "introduced_date": dataset.introduced_date.isoformat() if dataset.introduced_date else None,
        "warning": dataset.warning,
        "modalities": sorted(modality.name for modality in dataset.modality_list),
        "tasks": [
            {"task": task.name, "url": pwc_url("task", task.slug)}
            for task in sorted(dataset.task_list, key=lambda task: task.pk)
        ],
        "languages": sorted(language.name for language in dataset.language_list),
        "variants": list(dataset.variants or []),
        "num_papers": dataset.num_papers,
        "data_loaders": list(dataset.data_loaders or []),
        # Not a field of PwC's datasets.json: this site's dumps add it, so the
        # address evaluation-tables gave a board's dataset survives a restore.
        "dataset_links": [{"title": "", "url": dataset.url}] if dataset.url else [],
    }

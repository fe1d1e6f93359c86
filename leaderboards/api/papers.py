"""The API's papers and what hangs off them: code repositories, authors, conferences, methods.

A router that views.py mounts on the API. A paper an editor withheld is in no
answer (its own id is a 404), nor is a method withheld or a link to code an
editor unlinked; a repository is listed while some shown paper links it.
"""

import re

from django.db.models import Exists, F, OuterRef, Q
from ninja import Query, Router

from leaderboards.api import schemas
from leaderboards.api.lists import (
    LIST_ERRORS,
    NOT_FOUND,
    NotFound,
    RepositoryPart,
    Slug,
    code_links,
    filtered,
    get,
    methods,
    named,
    paginate,
    papers,
    rank,
    repositories,
    results,
    shown_links,
    with_framework,
)
from leaderboards.models import (
    Author,
    Conference,
    Dataset,
    Method,
    Paper,
    PaperAuthor,
    Proceeding,
    Row,
    Task,
)

router = Router()


def _paper(slug):
    return get(Paper.objects.filter(withheld=False), slug=slug)


def _with_arxiv_id(queryset, found):
    """Papers with this arXiv id, stored or (a paper a page file made) in their arXiv URL.

    The URL's form is format.rules.arxiv_id's, which schemas.Paper reads the id by.
    """
    in_url = rf"arxiv\.org/(abs|pdf)/{re.escape(found)}(v[0-9]+)?(\.pdf)?/?$"
    return queryset.filter(Q(arxiv_id=found) | Q(arxiv_id="", url__iregex=in_url))


# Papers --------------------------------------------------------------------


@router.get("/papers/", response={200: schemas.Page[schemas.Paper], **LIST_ERRORS})
def paper_list(request, filters: Query[schemas.PaperQuery], pages: Query[schemas.PageQuery]):
    found = filtered(
        Paper.objects, filters, q="title__icontains", title="title", abstract="abstract__icontains"
    )
    if filters.arxiv_id:
        found = _with_arxiv_id(found, filters.arxiv_id)
    return paginate(request, papers(found), pages)


@router.get("/papers/{id}/", response={200: schemas.Paper, **NOT_FOUND})
def paper_detail(request, id: str = Slug):
    return get(papers(Paper.objects), slug=id)


@router.get("/papers/{id}/results/", response={200: schemas.Page[schemas.Result], **LIST_ERRORS})
def paper_results(request, pages: Query[schemas.PageQuery], id: str = Slug):
    paper = _paper(id)
    return paginate(request, results(paper.rows.all()), pages, rank)


@router.get(
    "/papers/{id}/repositories/", response={200: schemas.Page[schemas.CodeLink], **LIST_ERRORS}
)
def paper_repositories(request, pages: Query[schemas.PageQuery], id: str = Slug):
    paper = _paper(id)
    return paginate(request, code_links(paper.code_links.all()), pages)


@router.get("/papers/{id}/datasets/", response={200: schemas.Page[schemas.Dataset], **LIST_ERRORS})
def paper_datasets(request, pages: Query[schemas.PageQuery], id: str = Slug):
    """The datasets the paper introduced and those it has results on."""
    paper = _paper(id)
    measured = Row.objects.shown().filter(paper=paper, leaderboard__dataset=OuterRef("pk"))
    datasets = Dataset.objects.filter(Q(paper=paper) | Exists(measured))
    return paginate(request, datasets.order_by("name", "slug"), pages)


@router.get("/papers/{id}/tasks/", response={200: schemas.Page[schemas.Task], **LIST_ERRORS})
def paper_tasks(request, pages: Query[schemas.PageQuery], id: str = Slug):
    """The tasks the papers file names for the paper and those it has results on."""
    paper = _paper(id)
    named = Paper.tasks.through.objects.filter(paper=paper, task=OuterRef("pk"))
    measured = Row.objects.shown().filter(paper=paper, leaderboard__task=OuterRef("pk"))
    tasks = Task.objects.filter(Exists(named) | Exists(measured))
    return paginate(request, tasks.order_by("name", "slug"), pages)


@router.get("/papers/{id}/methods/", response={200: schemas.Page[schemas.Method], **LIST_ERRORS})
def paper_methods(request, pages: Query[schemas.PageQuery], id: str = Slug):
    paper = _paper(id)
    return paginate(request, methods(paper.methods.all()), pages)


# Repositories ----------------------------------------------------------------


def _repository(owner, name):
    # Owner and name are not unique across hosts: the first by URL answers.
    found = repositories().filter(owner=owner, name=name).first()
    if found is None:
        raise NotFound("No repository with that owner and name.")
    return found


@router.get("/repositories/", response={200: schemas.Page[schemas.Repository], **LIST_ERRORS})
def repository_list(
    request, filters: Query[schemas.RepositoryQuery], pages: Query[schemas.PageQuery]
):
    found = filtered(repositories(), filters, owner="owner", name="name", stars="stars__gte")
    if filters.q:
        found = found.filter(
            Q(owner__icontains=filters.q)
            | Q(name__icontains=filters.q)
            | Q(description__icontains=filters.q)
        )
    if filters.framework:
        found = with_framework(found, filters.framework)
    return paginate(request, found, pages)


@router.get(
    "/repositories/{owner}/",
    response={200: schemas.Page[schemas.Repository], **LIST_ERRORS},
)
def repository_owner_list(request, pages: Query[schemas.PageQuery], owner: str = RepositoryPart):
    """An owner's repositories (an owner with none listed has an empty list)."""
    return paginate(request, repositories().filter(owner=owner), pages)


@router.get("/repositories/{owner}/{name}/", response={200: schemas.Repository, **NOT_FOUND})
def repository_detail(request, owner: str = RepositoryPart, name: str = RepositoryPart):
    return _repository(owner, name)


@router.get(
    "/repositories/{owner}/{name}/papers/",
    response={200: schemas.Page[schemas.Paper], **LIST_ERRORS},
)
def repository_papers(
    request,
    pages: Query[schemas.PageQuery],
    owner: str = RepositoryPart,
    name: str = RepositoryPart,
):
    repository = _repository(owner, name)
    linked = shown_links().filter(repository=repository, paper=OuterRef("pk"))
    return paginate(request, papers(Paper.objects.filter(Exists(linked))), pages)


# Authors ---------------------------------------------------------------------


def _authors():
    """Authors of some paper no editor withheld, by name."""
    shown = PaperAuthor.objects.filter(author=OuterRef("pk"), paper__withheld=False)
    return Author.objects.filter(Exists(shown)).order_by("name")


@router.get("/authors/", response={200: schemas.Page[schemas.Author], **LIST_ERRORS})
def author_list(request, filters: Query[schemas.AuthorQuery], pages: Query[schemas.PageQuery]):
    found = filtered(_authors(), filters, q="name__icontains", full_name="name")
    return paginate(request, found, pages)


@router.get("/authors/{id}/", response={200: schemas.Author, **NOT_FOUND})
def author_detail(request, id: str = Slug):
    return get(_authors(), slug=id)


@router.get("/authors/{id}/papers/", response={200: schemas.Page[schemas.Paper], **LIST_ERRORS})
def author_papers(request, pages: Query[schemas.PageQuery], id: str = Slug):
    author = get(_authors(), slug=id)
    wrote = PaperAuthor.objects.filter(author=author, paper=OuterRef("pk"))
    return paginate(request, papers(Paper.objects.filter(Exists(wrote))), pages)


# Conferences and their proceedings ---------------------------------------------


def _proceeding(conference_slug, slug):
    conference = get(Conference.objects, slug=conference_slug)
    return get(Proceeding.objects.filter(conference=conference), slug=slug)


@router.get("/conferences/", response={200: schemas.Page[schemas.Conference], **LIST_ERRORS})
def conference_list(request, filters: Query[schemas.Named], pages: Query[schemas.PageQuery]):
    return paginate(request, named(Conference.objects.order_by("name"), filters), pages)


@router.get("/conferences/{id}/", response={200: schemas.Conference, **NOT_FOUND})
def conference_detail(request, id: str = Slug):
    return get(Conference.objects, slug=id)


@router.get(
    "/conferences/{id}/proceedings/",
    response={200: schemas.Page[schemas.Proceeding], **LIST_ERRORS},
)
def proceeding_list(request, pages: Query[schemas.PageQuery], id: str = Slug):
    """A conference's proceedings, newest first."""
    conference = get(Conference.objects, slug=id)
    found = conference.proceedings.order_by(
        F("year").desc(nulls_last=True), F("month").desc(nulls_last=True), "slug"
    )
    return paginate(request, found, pages)


@router.get(
    "/conferences/{id}/proceedings/{proceeding_id}/",
    response={200: schemas.Proceeding, **NOT_FOUND},
)
def proceeding_detail(request, id: str = Slug, proceeding_id: str = Slug):
    return _proceeding(id, proceeding_id)


@router.get(
    "/conferences/{id}/proceedings/{proceeding_id}/papers/",
    response={200: schemas.Page[schemas.Paper], **LIST_ERRORS},
)
def proceeding_papers(
    request, pages: Query[schemas.PageQuery], id: str = Slug, proceeding_id: str = Slug
):
    proceeding = _proceeding(id, proceeding_id)
    return paginate(request, papers(proceeding.papers.all()), pages)


# Methods ---------------------------------------------------------------------


@router.get("/methods/", response={200: schemas.Page[schemas.Method], **LIST_ERRORS})
def method_list(request, filters: Query[schemas.MethodQuery], pages: Query[schemas.PageQuery]):
    found = filtered(methods(), filters, name="name", full_name="full_name")
    if filters.q:
        found = found.filter(Q(name__icontains=filters.q) | Q(full_name__icontains=filters.q))
    return paginate(request, found, pages)


@router.get("/methods/{id}/", response={200: schemas.Method, **NOT_FOUND})
def method_detail(request, id: str = Slug):
    return get(methods(Method.objects), slug=id)

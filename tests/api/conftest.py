"""The API tests' data: the seed with the other archive files' catalogue around it."""

from types import SimpleNamespace

import pytest

from leaderboards.models import Dataset, Method, Paper, PaperRepository, Repository, Task
from tests.helpers import (
    PAPER,
    TASK,
    make_authors,
    make_code_link,
    make_method,
    make_paper,
    make_proceeding,
    make_showcase,
)


def name_repositories():
    # As the links file's reader fills them: owner and name from a GitHub URL.
    for repository in Repository.objects.all():
        owner, name = repository.url.rstrip("/").split("/")[-2:]
        repository.owner, repository.name = owner, name
        repository.save(update_fields=["owner", "name"])


@pytest.fixture
def catalogue(seeded):
    """make_showcase()'s catalogue, a task tree around the seed's task, and a withheld paper.

    The withheld paper has everything a shown one has (an author of its own, a
    repository only it links, a proceeding, a method it introduced), so an
    answer that forgets to leave it out shows it.
    """
    paper = make_showcase()
    task = Task.objects.get(slug=TASK)
    parent = Task.objects.create(slug="anomaly-detection", name="Anomaly Detection")
    Task.objects.filter(pk=task.pk).update(parent=parent)
    child = Task.objects.create(slug="near-ood-detection", name="Near-OOD Detection", parent=task)
    Repository.objects.filter(url__endswith="/CMA-OoDD").update(
        description="Cross-modal alignment for OoD detection.", stars=42
    )
    # An editor's word over the archive's: the reimplementation is official after all.
    PaperRepository.objects.filter(repository__url__endswith="/cma-reimplementation").update(
        editor_official=True
    )
    withheld = make_paper(
        "casino-bonus-paper", "Casino bonus paper", "2025-05-01",
        withheld=True, withheld_reason="Spam.", abstract="Best online casino.",
        proceeding=make_proceeding("CVPR 2024 6", conference="CVPR", year=2024, month=6),
    )  # fmt: skip
    make_authors(withheld, "Spam Bot", "Jeonghyeon Kim")
    make_code_link(withheld, "https://github.com/spam/bonus", framework="pytorch")
    withheld.tasks.add(task)
    make_method("bonus-net", "BonusNet", papers=[withheld], paper=withheld)
    Method.objects.filter(slug="vision-transformer").update(paper=withheld)
    Method.objects.filter(slug="infonce").update(paper=paper)
    name_repositories()
    return SimpleNamespace(
        paper=Paper.objects.get(slug=PAPER), task=task, parent=parent, child=child,
        withheld=withheld,
    )  # fmt: skip


@pytest.fixture
def grow(catalogue):
    """`grow(n)`: n more of everything each list lists, linked as the catalogue's own."""
    made = 0
    proceeding = Paper.objects.get(slug="vit-study-3").proceeding

    def more(size):
        nonlocal made
        for n in range(made, made + size):
            paper = make_paper(f"grown-{n}", f"Grown paper {n}", abstract="Grown.")
            Paper.objects.filter(pk=paper.pk).update(proceeding=proceeding)
            make_authors(paper, "Jeonghyeon Kim", f"Grown Author {n}")
            make_code_link(paper, f"https://github.com/grown/repo-{n}", framework="pytorch")
            if n:
                make_code_link(paper, "https://github.com/grown/repo-0", is_official=n % 2 == 0)
            make_code_link(catalogue.paper, f"https://github.com/grown/impl-{n}")
            make_method(f"grown-method-{n}", papers=[catalogue.paper, paper])
            make_proceeding(f"CVPR {1990 + n} 1", conference="CVPR", year=1990 + n, month=1)
            paper.tasks.add(catalogue.task)
            task = Task.objects.create(slug=f"grown-task-{n}", name=f"Grown {n}")
            catalogue.paper.tasks.add(task)
            Task.objects.create(slug=f"grown-child-{n}", name=f"Grown child {n}", parent=task)
            Task.objects.create(slug=f"grown-sub-{n}", name=f"Grown sub {n}", parent=catalogue.task)
            Dataset.objects.create(slug=f"grown-data-{n}", name=f"Grown {n}", paper=catalogue.paper)
        made += size
        name_repositories()

    return more

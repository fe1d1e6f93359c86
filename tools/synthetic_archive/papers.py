"""Papers and their code links, each a pure function of the seed and the paper's index.

A paper is recomputed wherever another file cites it (a board row, a method, a
dataset), so no file needs a list of papers. The oddities of the real files are
placed by index, so that every size has each of them.
"""

import dataclasses
import datetime

from tools.synthetic_archive.names import (
    BASE_TASKS,
    MARKER,
    SLUG_MARKER,
    TEX,
    coined,
    pick,
    pwc_url,
    rng_for,
    title_slug,
    unissued_arxiv_id,
)
from tools.synthetic_pages import PAPER_DAYS, TITLE_ADJECTIVES, TITLE_NOUNS

# The oddities, each placed by index so that every size has them.
NO_ARXIV = 4  # papers i % 4 == 2 have no arXiv id
REPEATED_TITLE = 509  # paper i % 509 == 7 has paper i - 1's title
SHARED_REPO_PAPERS = (3, 10, 17)  # papers i % 97 in these share one repository
UNKNOWN_LINK = 40  # after paper i % 40 == 5, a link to a paper not in the file
ARXIV_ONLY_LINK = 40  # paper i % 40 == 9's first link names it by arXiv id only
# A paper with code has 1 + a geometric number of links: 0.35 * 1.37 plus the
# shared and unknown links is PwC's 0.52 links a paper.
CODE_SHARE = 0.35
MORE_LINKS = 0.27

GIVEN = (
    "Wei", "Søren", "José", "Aïsha", "Łukasz", "Zoë", "Ngọc Anh", "Jürgen", "Ana",
    "Rahul", "Yuki", "Olusegun", "François", "Mei", "Ömer", "Ivan", "Chloé", "Priya",
    "明", "Sebastián", "Kateřina", "Hyun-woo", "Fatma", "Tomás", "Ingrid", "Kwame",
)  # fmt: skip
FAMILY = (
    "Zhang", "Ødegård", "García", "Müller", "Nguyễn", "Kowalski", "Smith", "Tanaka",
    "Okafor", "Dubois", "Wang", "Yılmaz", "Ivanov", "Novák", "Kim", "Patel", "Li",
    "Hernández", "Andersson", "Mensah", "Brown", "Rossi", "Schröder", "Chen", "王",
)  # fmt: skip
CONFERENCES = (
    ("NeurIPS", 12), ("ICML", 7), ("ICLR", 5), ("CVPR", 6), ("ICCV", 10), ("ECCV", 10),
    ("ACL", 7), ("EMNLP", 11), ("NAACL", 6), ("AAAI", 2), ("IJCAI", 8), ("KDD", 8),
)  # fmt: skip
FRAMEWORKS = ("pytorch", "pytorch", "pytorch", "tf", "tf", "jax", "mxnet", "paddle", "none")


@dataclasses.dataclass(frozen=True, slots=True)
class Paper:
    index: int
    slug: str
    title: str
    arxiv: str | None
    url_abs: str
    url_pdf: str | None
    date: str | None
    base: tuple

    @property
    def url(self):
        return pwc_url("paper", self.slug)


def paper(seed, index):
    """Paper `index` as every file sees it."""
    rng = rng_for(seed, "paper", index)
    base = BASE_TASKS[int(rng.random() * len(BASE_TASKS))]
    day = PAPER_DAYS.draw(rng)
    date = datetime.date.fromordinal(day[0] + int(rng.random() * day[1])).isoformat()
    title = (
        f"{MARKER} {coined(index)}: {pick(rng, TITLE_ADJECTIVES)} "
        f"{pick(rng, TITLE_NOUNS)} for {base[1]}"
    )
    if rng.random() < 0.08:
        title = f"{title} with {pick(rng, TEX)} Guarantees"
    slug = title_slug(title)
    if index % REPEATED_TITLE == 7:
        # Two papers with one title: PwC numbered the second slug.
        title = paper(seed, index - 1).title
        slug = f"{title_slug(title)}-2"
    if index % NO_ARXIV == 2:
        arxiv = None
        code = f"{SLUG_MARKER}{index:x}"
        if rng.random() < 0.5:
            url_abs, url_pdf = (
                f"https://openreview.net/forum?id={code}",
                f"https://openreview.net/pdf?id={code}",
            )
        else:
            url_abs = f"https://aclanthology.org/{code}/"
            url_pdf = None if index % 8 == 2 else f"https://aclanthology.org/{code}.pdf"
    else:
        arxiv = unissued_arxiv_id(index, int(date[:4]))
        url_abs = f"https://arxiv.org/abs/{arxiv}"
        url_pdf = f"https://arxiv.org/pdf/{arxiv}v{1 + int(rng.random() * 3)}.pdf"
    if index % 61 == 5:
        date = None
    return Paper(index, slug, title, arxiv, url_abs, url_pdf, date, base)


def _author(number):
    """Author `number`'s name: the first 650 from the lists, then made-up family names."""
    rest, given = divmod(number, len(GIVEN))
    # Names that share a given name spread over the family names.
    family = FAMILY[(rest + number) % len(FAMILY)] if rest < len(FAMILY) else coined(rest)
    return f"{MARKER} {GIVEN[given]} {family}"


def _abstract(rng, item, plan):
    task = item.base[1]
    sentences = [
        f"We study {pick(rng, TITLE_NOUNS).lower()} for {task.lower()}, where "
        f"{pick(rng, TEX)} bounds are loose.",
        f"Our method, {coined(item.index)}, reaches {rng.uniform(40, 99):.1f}% on "
        f"{pick(rng, plan.datasets).name} with {pick(rng, TEX)} cost.",
        f"Unlike prior work on {task.lower()}, it needs no {pick(rng, TITLE_NOUNS).lower()}.",
        f"Experiments on {1 + int(rng.random() * 9)} benchmarks show gains of "
        f"{rng.uniform(0.1, 9):.2f} points over the baselines.",
        "Code and models are released.",
        f"We also analyse the {pick(rng, TITLE_ADJECTIVES).lower()} regime, where the "
        f"{pick(rng, TITLE_NOUNS).lower()} of Schrödinger-type models fail.",
    ]
    rng.shuffle(sentences)
    # Abstracts come with the line breaks of the PDF they were cut from.
    joiner = "\n" if rng.random() < 0.2 else " "
    return joiner.join(sentences[: 3 + int(rng.random() * 4)])


def paper_record(seed, item, plan):
    """The papers-with-abstracts.json record of a paper."""
    index = item.index
    rng = rng_for(seed, "paper-record", index)
    abstract = _abstract(rng, item, plan)
    proceeding = None
    if rng.random() < 0.3:
        conference, month = pick(rng, CONFERENCES)
        proceeding = f"{MARKER}-{conference} {(item.date or '2020')[:4]} {month}"
    # Some authors write many papers; a paper names each of its authors once.
    pool = max(plan.sizes.papers, len(GIVEN) * len(FAMILY))
    authors = list(
        dict.fromkeys(
            _author(int(pool * rng.random() ** 2)) for _ in range(1 + int(rng.random() * 7))
        )
    )
    tasks = [pick(rng, plan.tasks).name for _ in range(int(rng.random() * 4))]
    if index % 23 == 6:
        tasks.append(f"{MARKER} Unlisted Task {index}")
    methods = {}
    for _ in range(int(rng.random() * 5)):
        method = plan.pick_method(rng).embedded
        methods[method["name"]] = method
    methods = list(methods.values())
    if index % 13 == 8:
        methods.append(_unknown_method(index))
    if index % 29 == 1:
        abstract, authors, tasks, methods = "", [], [], []
    record = {
        "paper_url": item.url,
        "arxiv_id": item.arxiv,
        "title": item.title,
        "abstract": abstract if index % 29 != 14 else None,
        "url_abs": item.url_abs,
        "url_pdf": item.url_pdf,
        "proceeding": proceeding,
        "authors": authors,
        "tasks": list(dict.fromkeys(tasks)),
        "date": item.date,
        "methods": methods,
    }
    if proceeding and index % 3 == 0:
        code = f"{SLUG_MARKER}{index:x}c"
        record["conference"] = proceeding.rsplit(" ", 1)[0]
        record["conference_url_abs"] = f"https://openreview.net/forum?id={code}"
        record["conference_url_pdf"] = "" if index % 2 else f"https://openreview.net/pdf?id={code}"
    return record


def _unknown_method(index):
    return {
        "name": f"{MARKER} Unlisted Method {index}",
        "full_name": "",
        "description": "",
        "introduced_year": None,
        "source_url": None,
        "source_title": None,
        "code_snippet_url": None,
        "main_collection": None,
    }


# Code links -----------------------------------------------------------------

SHARED_REPO = f"https://github.com/{SLUG_MARKER}-lab/{SLUG_MARKER}-toolkit"


def repositories(seed, index):
    """Paper `index`'s repositories: (url, official, framework), official first."""
    rng = rng_for(seed, "links", index)
    repos = []
    if rng.random() < CODE_SHARE or index == 0:
        name = coined(index + 7).lower()
        repos.append((f"https://github.com/{SLUG_MARKER}-{coined(index).lower()}/{name}", True))
        while rng.random() < MORE_LINKS:
            fork = f"{SLUG_MARKER}-{coined(int(rng.random() * 2**20)).lower()}"
            repos.append((f"https://github.com/{fork}/{name}", False))
    if index % 97 in SHARED_REPO_PAPERS:
        repos.append((SHARED_REPO, False))
    return [(url, official, pick(rng, FRAMEWORKS)) for url, official in repos]


def link_records(seed, item):
    """The links-between-papers-and-code.json records of a paper."""
    index = item.index
    records = []
    for position, (url, official, framework) in enumerate(repositories(seed, index)):
        by_arxiv_only = position == 0 and index % ARXIV_ONLY_LINK == 9 and item.arxiv
        records.append(
            {
                "paper_url": None if by_arxiv_only else item.url,
                "paper_title": "" if by_arxiv_only else item.title,
                "paper_arxiv_id": item.arxiv,
                "paper_url_abs": item.url_abs,
                "paper_url_pdf": item.url_pdf,
                "repo_url": url,
                "is_official": official,
                "mentioned_in_paper": official and index % 3 != 0,
                "mentioned_in_github": index % 5 != 0,
                "framework": framework,
            }
        )
    if index % UNKNOWN_LINK == 5:
        slug = f"{SLUG_MARKER}-unknown-paper-{index}"
        records.append(
            {
                "paper_url": pwc_url("paper", slug),
                "paper_title": f"{MARKER} Unknown Paper {index}",
                "paper_arxiv_id": None,
                "paper_url_abs": "",
                "paper_url_pdf": "",
                "repo_url": f"https://gitlab.com/{SLUG_MARKER}-unknown/{slug}",
                "is_official": False,
                "mentioned_in_paper": False,
                "mentioned_in_github": True,
                "framework": "none",
            }
        )
    return records

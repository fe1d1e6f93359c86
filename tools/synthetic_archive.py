"""The archive's five files (SPEC 2), synthetic, at any size: for tests and benchmarks.

`write_archive(folder, papers, seed)` writes evaluation-tables, papers-with-abstracts,
links-between-papers-and-code, methods and datasets, joined as the real files are:
papers name tasks of the tables and methods of the methods file (and a few that
are in neither), links name papers of the papers file (a few unknown, a few by
arXiv id only), board rows cite papers by arXiv abs or pdf URL or by another URL,
datasets name tasks and papers, methods the papers that introduced them. Counts
follow Papers with Code's at shutdown (SIZES), with small minimums. The oddities
of the real files are each present at least once at any size (ODDITIES).

Generated data never takes a real slug. Every name a slug is made from starts
with MARKER, a word glued to a digit that no real name starts with ("Synthetic
Data Generation" is a real task; "Synthetic0 ..." is not), so every slug starts
with SLUG_MARKER. A row with an empty title names its paper by arXiv id alone;
generated arXiv ids have a month of 13 or more, which arXiv never issues. The
areas are the exception: tasks and methods join the site's fixed areas
(fixtures/areas.json) and PwC's method areas, as real records do.

Papers and links are streamed: paper `i` is a pure function of the seed and
`i`, recomputed wherever another file cites it, so nothing holds a list as long
as the papers file. Tasks, boards, datasets and methods (under 40,000 at full
size) are planned in memory first. The same seed gives the same bytes.
"""

import dataclasses
import datetime
import gzip
import io
import json
import random
from pathlib import Path

from leaderboards.format.rules import slug_for
from tools.synthetic_pages import (
    AREAS,
    DATASET_SEEDS,
    GENERIC_VARIANTS,
    MAX_ROWS,
    METHOD_HEADS,
    METHOD_TAILS,
    NAME_HEADS,
    NAME_TAILS,
    PAPER_DAYS,
    ROWS_ALPHA,
    ROWS_MIN,
    TASK_MODIFIERS,
    TITLE_ADJECTIVES,
    TITLE_NOUNS,
)

MARKER = "Synthetic0"
SLUG_MARKER = "synthetic0"
PWC = "https://paperswithcode.com"

# The five files, in the order an import takes them (leaderboards.ingest.records).
FILES = (
    "evaluation-tables",
    "papers-with-abstracts",
    "links-between-papers-and-code",
    "methods",
    "datasets",
)

# Papers with Code at shutdown (SPEC 2); every count scales with the papers.
SHUTDOWN = {
    "papers": 576_000,
    "links": 300_000,
    "methods": 8_700,
    "datasets": 15_000,
    "boards": 9_300,
    "tasks": 4_450,
}
MINIMUM = {"links": 12, "methods": 12, "datasets": 12, "boards": 12, "tasks": 8}
# Below this, the oddities that are placed by index would not all fit.
MIN_PAPERS = 30
# Generated arXiv ids keep five digits below this.
MAX_PAPERS = 5_000_000

# The oddities, each placed by index so that every size has them.
NO_ARXIV = 4  # papers i % 4 == 2 have no arXiv id
REPEATED_TITLE = 509  # paper i % 509 == 7 has paper i - 1's title
SHARED_REPO_PAPERS = (3, 10, 17)  # papers i % 97 in these share one repository
UNKNOWN_LINK = 40  # after paper i % 40 == 5, a link to a paper not in the file
ARXIV_ONLY_LINK = 40  # paper i % 40 == 9's first link names it by arXiv id only
ODDITIES = (
    "empty and null fields",
    "TeX in abstracts and descriptions",
    "Markdown tables and links",
    "non-ASCII names",
    "one repository shared by many papers",
    "papers without an arXiv id",
    "repeated names",
)

# A paper with code has 1 + a geometric number of links: 0.35 * 1.37 plus the
# shared and unknown links is PwC's 0.52 links a paper.
CODE_SHARE = 0.35
MORE_LINKS = 0.27
SUBTASK_SHARE = 0.35
POPULAR_SHARE = 0.3

SYLLABLES = (
    "ka", "vo", "ru", "ti", "mel", "sa", "no", "zer", "di", "qua", "lo", "ben", "shi",
    "tor", "ae", "fi", "gra", "hu", "jin", "ko", "lu", "mi", "nex", "or", "pla", "rho",
    "sen", "tu", "ul", "var", "wen", "xi",
)  # fmt: skip
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
MODALITIES = ("Images", "Texts", "Videos", "Audio", "Graphs", "Tabular", "3D", "Time series")
LANGUAGES = ("English", "Chinese", "German", "French", "Japanese", "Hindi", "Arabic")
METHOD_AREAS = (
    "General", "Computer Vision", "Natural Language Processing", "Reinforcement Learning",
    "Graphs", "Audio", "Sequential",
)  # fmt: skip
# Method categories: name, area, parent (an earlier entry) or None.
COLLECTIONS = (
    ("Image Models", "Computer Vision", None),
    ("Convolutional Neural Networks", "Computer Vision", "Image Models"),
    ("Image Model Blocks", "Computer Vision", None),
    ("Vision Transformers", "Computer Vision", "Image Models"),
    ("Attention Modules", "General", None),
    ("Attention Mechanisms", "General", "Attention Modules"),
    ("Normalization", "General", None),
    ("Regularization", "General", None),
    ("Activation Functions", "General", None),
    ("Stochastic Optimization", "General", None),
    ("Language Models", "Natural Language Processing", None),
    ("Transformers", "Natural Language Processing", "Language Models"),
    ("Word Embeddings", "Natural Language Processing", None),
    ("Policy Gradient Methods", "Reinforcement Learning", None),
    ("Graph Models", "Graphs", None),
    ("Audio Model Blocks", "Audio", None),
    ("Recurrent Neural Networks", "Sequential", None),
)
METHOD_KINDS = (
    "Attention Module", "Normalization", "Convolution", "Activation Function",
    "Pooling Operation", "Optimizer", "Language Model", "Graph Network", "Regularizer",
)  # fmt: skip
TEX = (
    r"$\ell_2$", r"$\mathcal{O}(n \log n)$", r"$k$-NN", r"$\epsilon = 8/255$",
    r"$\mathbb{E}[\log p_\theta(x)]$", r"$\sqrt{d_k}$", r"$\alpha$-divergence",
)  # fmt: skip
BASE_TASKS = tuple(
    (area, name, description, metrics)
    for area, (_, tasks) in AREAS.items()
    for name, description, metrics in tasks
)
TASK_AREAS = tuple(AREAS)
DATASET_BASES = tuple(name for names in DATASET_SEEDS.values() for name in names) + tuple(
    head + tail for head in NAME_HEADS for tail in NAME_TAILS
)


def _rng(seed, kind, index=0):
    """The generator of one record: the same seed, kind and index give the same draws."""
    return random.Random(f"{seed}:{kind}:{index}")


def coined(index):
    """A made-up capitalised word, a different one for every index."""
    # Spread neighbouring indexes over the alphabet: an odd multiplier is a
    # bijection modulo a power of two, and the offset keeps three syllables.
    number = (index * 0x9E3B5) % 2**20 if index < 2**20 else index
    number += len(SYLLABLES) ** 3
    parts = []
    while number:
        number, digit = divmod(number, len(SYLLABLES))
        parts.append(SYLLABLES[digit])
    return "".join(reversed(parts)).capitalize()


def title_slug(title, limit=50):
    """PwC's paper slug: the title's first words, cut at a word boundary."""
    slug = slug_for(title, "paper")
    if len(slug) > limit:
        slug = slug[:limit].rsplit("-", 1)[0]
    return slug


def pwc_url(kind, slug):
    return f"{PWC}/{kind}/{slug}"


def _arxiv_id(index, year):
    """An id arXiv never issues (month 13 and above), a different one for every index."""
    return f"{year % 100:02d}{13 + index % 87:02d}.{index // 87 + 1:05d}"


# Sizes ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Sizes:
    papers: int
    links: int
    methods: int
    datasets: int
    boards: int
    tasks: int


def sizes_for(papers):
    """How many of each thing an archive of `papers` papers holds (links: about)."""
    scale = papers / SHUTDOWN["papers"]
    counts = {
        kind: max(MINIMUM[kind], round(n * scale))
        for kind, n in SHUTDOWN.items()
        if kind != "papers"
    }
    return Sizes(papers=papers, **counts)


# Papers ---------------------------------------------------------------------


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
    rng = _rng(seed, "paper", index)
    base = BASE_TASKS[int(rng.random() * len(BASE_TASKS))]
    day = PAPER_DAYS.draw(rng)
    date = datetime.date.fromordinal(day[0] + int(rng.random() * day[1])).isoformat()
    title = (
        f"{MARKER} {coined(index)}: {rng.choice(TITLE_ADJECTIVES)} "
        f"{rng.choice(TITLE_NOUNS)} for {base[1]}"
    )
    if rng.random() < 0.08:
        title = f"{title} with {rng.choice(TEX)} Guarantees"
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
        arxiv = _arxiv_id(index, int(date[:4]))
        url_abs = f"https://arxiv.org/abs/{arxiv}"
        url_pdf = f"https://arxiv.org/pdf/{arxiv}v{1 + int(rng.random() * 3)}.pdf"
    if index % 61 == 5:
        date = None
    return Paper(index, slug, title, arxiv, url_abs, url_pdf, date, base)


def _author(number):
    """Author `number`'s name: the first few thousand from the lists, then made-up family names."""
    rest, given = divmod(number, len(GIVEN))
    # Names that share a given name spread over the family names.
    family = FAMILY[(rest + number) % len(FAMILY)] if rest < len(FAMILY) else coined(rest)
    return f"{MARKER} {GIVEN[given]} {family}"


def _abstract(rng, item, plan):
    task = item.base[1]
    sentences = [
        f"We study {rng.choice(TITLE_NOUNS).lower()} for {task.lower()}, where "
        f"{rng.choice(TEX)} bounds are loose.",
        f"Our method, {coined(item.index)}, reaches {rng.uniform(40, 99):.1f}% on "
        f"{rng.choice(plan.datasets).name} with {rng.choice(TEX)} cost.",
        f"Unlike prior work on {task.lower()}, it needs no {rng.choice(TITLE_NOUNS).lower()}.",
        f"Experiments on {1 + int(rng.random() * 9)} benchmarks show gains of "
        f"{rng.uniform(0.1, 9):.2f} points over the baselines.",
        "Code and models are released.",
        f"We also analyse the {rng.choice(TITLE_ADJECTIVES).lower()} regime, where the "
        f"{rng.choice(TITLE_NOUNS).lower()} of Schrödinger-type models fail.",
    ]
    rng.shuffle(sentences)
    # Abstracts come with the line breaks of the PDF they were cut from.
    joiner = "\n" if rng.random() < 0.2 else " "
    return joiner.join(sentences[: 3 + int(rng.random() * 4)])


def paper_record(seed, item, plan):
    """The papers-with-abstracts.json record of a paper."""
    index = item.index
    rng = _rng(seed, "paper-record", index)
    abstract = _abstract(rng, item, plan)
    proceeding = None
    if rng.random() < 0.3:
        conference, month = rng.choice(CONFERENCES)
        proceeding = f"{MARKER}-{conference} {(item.date or '2020')[:4]} {month}"
    # Some authors write many papers; a paper names each of its authors once.
    pool = max(plan.sizes.papers, len(GIVEN) * len(FAMILY))
    authors = list(
        dict.fromkeys(
            _author(int(pool * rng.random() ** 2)) for _ in range(1 + int(rng.random() * 7))
        )
    )
    tasks = [rng.choice(plan.tasks).name for _ in range(int(rng.random() * 4))]
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
    rng = _rng(seed, "links", index)
    repos = []
    if rng.random() < CODE_SHARE or index == 0:
        name = coined(index + 7).lower()
        repos.append((f"https://github.com/{SLUG_MARKER}-{coined(index).lower()}/{name}", True))
        while rng.random() < MORE_LINKS:
            fork = f"{SLUG_MARKER}-{coined(int(rng.random() * 2**20)).lower()}"
            repos.append((f"https://github.com/{fork}/{name}", False))
    if index % 97 in SHARED_REPO_PAPERS:
        repos.append((SHARED_REPO, False))
    return [(url, official, rng.choice(FRAMEWORKS)) for url, official in repos]


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


# The catalogue: tasks, boards, datasets, methods ---------------------------


@dataclasses.dataclass(slots=True)
class Task:
    index: int
    name: str
    slug: str
    base: tuple
    areas: list
    parent: int | None
    children: list = dataclasses.field(default_factory=list)
    boards: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass(slots=True)
class Dataset:
    index: int
    name: str
    slug: str
    variants: list
    tasks: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass(slots=True)
class Board:
    index: int
    task: int
    dataset: int | None
    name: str
    rows: int
    metrics: list
    # The board whose dataset entry holds this one as a subdataset.
    parent: int | None = None


@dataclasses.dataclass(slots=True)
class Method:
    record: dict
    embedded: dict


@dataclasses.dataclass
class Plan:
    sizes: Sizes
    tasks: list
    datasets: list
    boards: list
    methods: list

    def pick_method(self, rng):
        """A method, the first ones far more often: a few are in most papers."""
        return self.methods[int(len(self.methods) * rng.random() ** 3)]


def plan(seed, sizes):
    """Everything but papers and links, which are streamed."""
    rng = _rng(seed, "plan")
    tasks = [_task(rng, index, tasks_so_far) for index, tasks_so_far in _growing(sizes.tasks)]
    for task in tasks:
        if task.parent is not None:
            tasks[task.parent].children.append(task.index)
    datasets = [_dataset(rng, index) for index in range(sizes.datasets)]
    boards = []
    for index in range(sizes.boards):
        boards.append(_board(rng, index, tasks, datasets, boards))
    for board in boards:
        tasks[board.task].boards.append(board.index)
        if board.dataset is not None:
            have = datasets[board.dataset].tasks
            if board.task not in have:
                have.append(board.task)
    methods = [_method(seed, rng, index, sizes) for index in range(sizes.methods)]
    return Plan(sizes, tasks, datasets, boards, methods)


def _growing(count):
    """(index, the list being built) pairs, so a task can pick an earlier parent."""
    built = []
    for index in range(count):
        yield index, built
        built.append(index)


def _task(rng, index, earlier):
    count = len(BASE_TASKS)
    if index < count:
        base, name = BASE_TASKS[index], BASE_TASKS[index][1]
    else:
        modifier, rest = divmod(index - count, count)
        base = BASE_TASKS[rest]
        round_, modifier = divmod(modifier, len(TASK_MODIFIERS))
        name = f"{TASK_MODIFIERS[modifier]} {base[1]}" + (f" {round_ + 1}" if round_ else "")
    name = f"{MARKER} {name}"
    parent = None
    if index == 1 or (earlier and rng.random() < SUBTASK_SHARE):
        parent = 0 if index == 1 else earlier[int(rng.random() * len(earlier))]
    areas = [base[0]]
    if rng.random() < 0.1:
        areas.append(rng.choice(TASK_AREAS))
    if parent is not None and rng.random() < 0.5:
        # A subtask often leaves its areas to its parent.
        areas = []
    return Task(index, name, slug_for(name, "task"), base, list(dict.fromkeys(areas)), parent)


def _dataset(rng, index):
    base = DATASET_BASES[index % len(DATASET_BASES)]
    round_ = index // len(DATASET_BASES)
    name = f"{MARKER} {base}" + (f"-{round_ + 1}" if round_ else "")
    if index == 2:
        name = f"{MARKER} Çağdaş Türkçe Derlemi"
    variants = [name]
    if rng.random() < 0.3 or index == 0:
        variants.append(f"{name} (test)")
    return Dataset(index, name, slug_for(name, "dataset"), variants)


def _board(rng, index, tasks, datasets, earlier):
    # The last task never gets a table: PwC had many tasks without one.
    task = tasks[int((len(tasks) - 1) * rng.random() ** 2)].index
    dataset = None if index % 33 == 2 else int(len(datasets) * rng.random() ** 1.5)
    if dataset is None:
        name = f"{MARKER} Private Split {index}"
    else:
        name = rng.choice(datasets[dataset].variants)
    rows = max(3 if index == 0 else 1, min(MAX_ROWS, int(ROWS_MIN * rng.paretovariate(ROWS_ALPHA))))
    parent = None
    if index == 1:
        # A second table of one task and dataset: its slug gets a -2.
        task, dataset, name = earlier[0].task, earlier[0].dataset, earlier[0].name
    elif index % 50 == 4:
        # A subdataset of the board before, which the tables name "Parent (Sub)".
        parent = earlier[index - 1]
        task, dataset = parent.task, parent.dataset
        name = rng.choice(("Hard", "test", "Long-tail split", "Zero-shot"))
        if dataset is not None:
            datasets[dataset].variants.append(f"{parent.name} ({name})")
        parent = parent.index
    metrics = tasks[task].base[3]
    metrics = list(metrics[: 1 + int(rng.random() * len(metrics))])
    return Board(index, task, dataset, name, rows, metrics, parent)


def _method(seed, rng, index, sizes):
    pairs = len(METHOD_HEADS) * len(METHOD_TAILS)
    head, tail = divmod(index % pairs, len(METHOD_TAILS))
    round_ = index // pairs
    short = METHOD_HEADS[head] + METHOD_TAILS[tail] + (f"-{round_ + 1}" if round_ else "")
    name = f"{MARKER} {short}"
    kind = rng.choice(METHOD_KINDS)
    full_name = "" if index % 17 == 5 else f"{name} {kind}"
    introducer = None if index % 6 == 1 else int(sizes.papers * rng.random())
    item = paper(seed, introducer) if introducer is not None else None
    year = int(item.date[:4]) if item and item.date else None
    snippet = None
    if rng.random() < 0.6:
        snippet = (
            f"https://github.com/{SLUG_MARKER}-{coined(index).lower()}/{short.lower()}"
            f"/blob/main/{short.lower()}.py#L{1 + int(rng.random() * 400)}"
        )
    elif index % 2:
        snippet = ""
    chosen = [] if index % 11 == 3 else rng.sample(COLLECTIONS, 1 + (rng.random() < 0.2))
    description = _markdown(rng, name, f"a {kind.lower()} that scales its input by", index, item)
    common = {
        "name": name,
        "full_name": full_name,
        "description": description,
        "introduced_year": year,
        "source_url": item.url_abs if item else None,
        "source_title": item.title if item else None,
        "code_snippet_url": snippet,
    }
    record = {
        "url": pwc_url("method", slug_for(name, "method")),
        "name": name,
        "full_name": full_name,
        "description": description,
        "paper": {"title": item.title, "url": item.url} if item else None,
        "introduced_year": year,
        "source_url": common["source_url"],
        "source_title": common["source_title"],
        "code_snippet_url": snippet,
        "num_papers": int(sizes.papers / (index + 2) ** 0.9 * rng.random()),
        "collections": [
            {
                "collection": f"{MARKER} {collection}",
                "area_id": slug_for(area, "area"),
                "area": area,
            }
            for collection, area, _ in chosen
        ],
    }
    main = None
    if chosen:
        collection, area, parent = chosen[0]
        main = {
            "name": f"{MARKER} {collection}",
            "description": f"**{collection}** are methods of {area.lower()}.",
            "area": area,
            "parent": f"{MARKER} {parent}" if parent else None,
        }
    return Method(record, {**common, "main_collection": main})


def _markdown(rng, name, what, index, item):
    """A description as PwC's editors wrote them: Markdown with TeX, links, sometimes a table."""
    if index % 19 == 9:
        return ""
    parts = [f"**{name}** is {what} {rng.choice(TEX)}, so that $y = \\sigma(Wx + b)$ holds."]
    if item is not None:
        parts.append(f"It was introduced in [{item.title}]({item.url_abs}).")
    if index % 4 == 0:
        parts.append(
            "| Variant | Params | Top-1 |\n|---|---|---|\n"
            f"| {name}-S | {rng.uniform(5, 30):.1f}M | {rng.uniform(70, 80):.1f} |\n"
            f"| {name}-L | {rng.uniform(50, 300):.1f}M | {rng.uniform(80, 90):.1f} |"
        )
    if index % 5 == 0:
        parts.append(
            f"Image source: [{MARKER} figures](https://{SLUG_MARKER}.example.org/fig{index}.png)"
        )
    return "\n\n".join(parts)


# Records --------------------------------------------------------------------


def dataset_record(seed, plan, dataset):
    """A datasets.json record."""
    rng = _rng(seed, "dataset", dataset.index)
    index = dataset.index
    homepage = f"https://{dataset.slug}.example.org/"
    if index % 11 == 3:
        homepage = ""
    elif index % 11 == 7:
        homepage = None
    elif index % 37 == 1:
        homepage = f"ftp://ftp.example.org/{dataset.slug}/"
    introducer = None if index % 5 == 0 else int(plan.sizes.papers * rng.random())
    item = paper(seed, introducer) if introducer is not None else None
    tasks = [
        {"task": plan.tasks[task].name, "url": pwc_url("task", plan.tasks[task].slug)}
        for task in dataset.tasks
    ]
    if index % 9 == 4:
        unknown = f"{MARKER} Unlisted Task {index}"
        tasks.append({"task": unknown, "url": pwc_url("task", slug_for(unknown, "task"))})
    loaders = []
    if rng.random() < 0.3:
        loaders.append(
            {
                "url": f"https://github.com/{SLUG_MARKER}-loaders/{dataset.slug}",
                "repo": f"https://github.com/{SLUG_MARKER}-loaders/datasets",
                "frameworks": rng.sample(("pytorch", "tf", "jax"), 1 + int(rng.random() * 3)),
            }
        )
    description = _markdown(rng, dataset.name, "a dataset whose samples are drawn by", index, item)
    return {
        "url": pwc_url("dataset", dataset.slug),
        "name": dataset.name,
        "full_name": "" if index % 7 == 2 else f"{dataset.name} Benchmark",
        "homepage": homepage,
        "description": description,
        "paper": {"title": item.title, "url": item.url} if item else None,
        "introduced_date": item.date if item else None,
        "warning": "Withdrawn by its authors; kept for existing results."
        if index % 41 == 6
        else None,
        "modalities": rng.sample(MODALITIES, int(rng.random() * 3)),
        "tasks": tasks,
        "languages": rng.sample(LANGUAGES, int(rng.random() ** 2 * 3)),
        "variants": list(dataset.variants),
        "num_papers": int(plan.sizes.papers / (index + 5) ** 0.8 * rng.random()),
        "data_loaders": loaders,
    }


def task_record(seed, plan, task):
    """An evaluation-tables.json task, its subtasks and tables inside."""
    rng = _rng(seed, "task", task.index)
    entries, by_board = [], {}
    for number in task.boards:
        board = plan.boards[number]
        entry = _table(seed, plan, board)
        if board.parent in by_board:
            by_board[board.parent]["subdatasets"].append(entry)
        else:
            entries.append(entry)
        by_board[number] = entry
    if task.index % 25 == 2:
        # A table PwC kept with no rows.
        entries.append(_entry(f"{MARKER} Empty Split {task.index}", [], []))
    link = None
    if rng.random() < 0.2:
        link = {"title": f"{task.name} leaderboard", "url": f"https://{task.slug}.example.org/"}
    description = "" if task.index % 7 == 3 else _task_description(rng, task)
    return {
        "categories": task.areas,
        "datasets": entries,
        "description": description,
        "source_link": link,
        "subtasks": [task_record(seed, plan, plan.tasks[child]) for child in task.children],
        "synonyms": [f"{MARKER} {coined(task.index)} task"] if task.index % 10 == 5 else [],
        "task": task.name,
    }


def _task_description(rng, task):
    text = f"**{task.name}**: {task.base[2]} Scores are reported with {rng.choice(TEX)} error bars."
    if task.index % 3 == 0:
        survey = f"https://arxiv.org/abs/{_arxiv_id(task.index, 2020)}"
        text += f"\n\n( Image credit: [{MARKER} survey]({survey}) )"
    return text


def _entry(name, metrics, rows, subdataset=False):
    return {
        "subdataset" if subdataset else "dataset": name,
        "dataset_citations": [],
        "dataset_links": [],
        "description": "",
        "sota": {"metrics": metrics, "rows": rows},
        "subdatasets": [],
    }


def _table(seed, plan, board):
    rng = _rng(seed, "board", board.index)
    entry = _entry(
        board.name, board.metrics, _rows(seed, rng, plan, board), board.parent is not None
    )
    if board.index % 3 == 0:
        entry["dataset_links"].append(
            {"title": "download", "url": f"https://{SLUG_MARKER}.example.org/{board.index}"}
        )
    if board.index % 17 == 0:
        # As in NLP-progress's tables: a link relative to the page it was cut from.
        entry["dataset_links"].append({"title": "Go back to the README", "url": "../README.md"})
    # Sorted keys, as the archive writes them.
    return dict(sorted(entry.items()))


def _rows(seed, rng, plan, board):
    papers = plan.sizes.papers
    rows = []
    for number in range(board.rows):
        roll = rng.random()
        if roll < POPULAR_SHARE:
            cited = int(papers / 50 * rng.random())
        else:
            cited = int(papers * rng.random())
        rows.append(_row(seed, rng, board, number, roll, paper(seed, cited)))
    if board.index == 0:
        rows[1]["model_name"] = rows[0]["model_name"]
    return rows


def _row(seed, rng, board, number, roll, item):
    title, date = item.title, item.date
    code = [{"title": "", "url": url} for url, _, _ in repositories(seed, item.index)]
    model = coined(item.index)
    if rng.random() < 0.4:
        model = f"{model} ({rng.choice(GENERIC_VARIANTS)})"
    if roll > 0.98 or (board.index == 0 and number == 2):
        # A row that names no paper at all.
        url, title, date, code = "", "", None, []
    elif roll > 0.95:
        # A paper the papers file does not hold.
        url = f"https://proceedings.mlr.press/v999/{SLUG_MARKER}-{board.index}-{number}.html"
        title = f"{MARKER} Unlisted Paper {board.index}.{number}"
    elif item.arxiv is None:
        url = item.url_abs
    elif roll > 0.85:
        url = item.url_pdf
    else:
        url = item.url_abs
        if roll < 0.04:
            # Named by its arXiv id alone: the importer's slug is the id's digits.
            title = ""
    if rng.random() < 0.2:
        date = None
    return {
        "code_links": code,
        "metrics": {metric: _value(rng, metric) for metric in board.metrics},
        "model_links": [],
        "model_name": model,
        "paper_date": date,
        "paper_title": title,
        "paper_url": url,
        "uses_additional_data": rng.random() < 0.05,
    }


def _value(rng, metric):
    """A metric value as the archive writes it: a string, with its units and quirks."""
    roll = rng.random()
    if roll < 0.01:
        return ""
    if roll < 0.02:
        return "-"
    if "param" in metric.lower():
        count = rng.uniform(0.5, 900)
        return f"{count:.1f}M" if roll < 0.7 else str(int(count * 1e6))
    number = rng.uniform(10, 99)
    if roll < 0.1:
        return f"{number:.2f} ± {rng.uniform(0.01, 0.9):.2f}"
    if roll < 0.2:
        return f"{number:.1f}%"
    return f"{number:.{1 + int(rng.random() * 3)}f}"


# Writing --------------------------------------------------------------------


class _ArrayFile:
    """A JSON array written one record at a time, gzipped or not."""

    def __init__(self, path, gzipped):
        self.raw = open(path, "wb")  # noqa: SIM115 (closed by close())
        stream = self.raw
        if gzipped:
            # No name and no time in the header, so a seed's bytes never change.
            self.zipped = gzip.GzipFile(
                filename="", mode="wb", fileobj=self.raw, compresslevel=6, mtime=0
            )
            stream = self.zipped
        self.stream = io.BufferedWriter(stream, 1 << 20)
        self.count = 0
        self.stream.write(b"[")

    def write(self, record):
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        self.stream.write((",\n" if self.count else "\n").encode() + text.encode())
        self.count += 1

    def close(self):
        self.stream.write(b"\n]\n")
        self.stream.close()
        self.raw.close()


@dataclasses.dataclass
class Written:
    """What write_archive wrote: records per file, and the board rows."""

    records: dict = dataclasses.field(default_factory=dict)
    rows: int = 0


def file_name(kind, gzipped=False):
    return f"{kind}.json" + (".gz" if gzipped else "")


def write_archive(folder, papers, seed, gzipped=False):
    """Write the five files into `folder` for `papers` papers; return what was written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    catalogue = plan(seed, sizes_for(papers))
    files = {kind: _ArrayFile(folder / file_name(kind, gzipped), gzipped) for kind in FILES}
    written = Written()
    try:
        for task in catalogue.tasks:
            if task.parent is None:
                files["evaluation-tables"].write(task_record(seed, catalogue, task))
        written.rows = sum(board.rows for board in catalogue.boards)
        for index in range(papers):
            item = paper(seed, index)
            files["papers-with-abstracts"].write(paper_record(seed, item, catalogue))
            for link in link_records(seed, item):
                files["links-between-papers-and-code"].write(link)
        for method in catalogue.methods:
            files["methods"].write(method.record)
        for dataset in catalogue.datasets:
            files["datasets"].write(dataset_record(seed, catalogue, dataset))
    finally:
        for kind, array in files.items():
            array.close()
            written.records[kind] = array.count
    return written


def main(argv=None):
    """`python -m tools.synthetic_archive --out DIR --papers N [--seed S] [--gzip]`."""
    import argparse
    import time

    parser = argparse.ArgumentParser(
        prog="python -m tools.synthetic_archive",
        description=(
            "Write the Papers with Code archive's five files, synthetic, joined as the real "
            "ones are, with PwC's proportions: --papers 576000 is the archive at shutdown. "
            "Every slug starts with 'synthetic0'. The same --seed gives the same files."
        ),
    )
    parser.add_argument("--out", required=True, type=Path, help="folder to write into")
    parser.add_argument(
        "--papers", required=True, type=int, help=f"how many papers ({MIN_PAPERS} or more)"
    )
    parser.add_argument("--seed", default="1", help="random seed (default 1)")
    parser.add_argument("--gzip", action="store_true", help="write .json.gz files")
    options = parser.parse_args(argv)
    if not MIN_PAPERS <= options.papers <= MAX_PAPERS:
        parser.error(f"--papers must be from {MIN_PAPERS} to {MAX_PAPERS:,}")
    if options.out.exists() and not options.out.is_dir():
        parser.error(f"{options.out} exists and is not a folder")
    started = time.perf_counter()
    written = write_archive(options.out, options.papers, options.seed, options.gzip)
    counts = ", ".join(f"{count:,} {kind}" for kind, count in written.records.items())
    seconds = time.perf_counter() - started
    print(f"{counts} ({written.rows:,} board rows) written to {options.out} in {seconds:.1f} s")


if __name__ == "__main__":
    main()

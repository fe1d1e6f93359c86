"""The archive's tasks, boards, datasets and methods: planned in memory, written as records.

They number under 40,000 at full size, so the plan holds them all: a dataset
lists the tasks whose boards cite it, a task its subtasks and boards. Board rows
cite papers (`papers.paper`), recomputed from their index.
"""

import dataclasses

from leaderboards.format.rules import slug_for
from tools.synthetic_archive.names import (
    BASE_TASKS,
    DATASET_BASES,
    MARKER,
    SLUG_MARKER,
    TASK_AREAS,
    TEX,
    coined,
    pwc_url,
    rng_for,
    unissued_arxiv_id,
)
from tools.synthetic_archive.papers import paper, repositories
from tools.synthetic_pages import (
    GENERIC_VARIANTS,
    MAX_ROWS,
    METHOD_HEADS,
    METHOD_TAILS,
    ROWS_ALPHA,
    ROWS_MIN,
    TASK_MODIFIERS,
)

# Papers with Code at shutdown (SPEC 2); every count scales with the papers.
# Links are drawn paper by paper (papers.CODE_SHARE), so theirs is an average.
SHUTDOWN = {
    "papers": 576_000,
    "links": 300_000,
    "methods": 8_700,
    "datasets": 15_000,
    "boards": 9_300,
    "tasks": 4_450,
}
MINIMUM = {"methods": 12, "datasets": 12, "boards": 12, "tasks": 8}
# Below this, the oddities that are placed by index would not all fit.
MIN_PAPERS = 30
# Generated arXiv ids keep five digits below this.
MAX_PAPERS = 5_000_000

SUBTASK_SHARE = 0.35
# Subtasks of subtasks nest no deeper than this: the archive reader refuses a
# record nested past the page format's limit.
MAX_TASK_DEPTH = 4
POPULAR_SHARE = 0.3
MODALITIES = ("Images", "Texts", "Videos", "Audio", "Graphs", "Tabular", "3D", "Time series")
LANGUAGES = ("English", "Chinese", "German", "French", "Japanese", "Hindi", "Arabic")
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


@dataclasses.dataclass(frozen=True)
class Sizes:
    papers: int
    methods: int
    datasets: int
    boards: int
    tasks: int


def sizes_for(papers):
    """How many of each thing an archive of `papers` papers holds."""
    scale = papers / SHUTDOWN["papers"]
    counts = {kind: max(least, round(SHUTDOWN[kind] * scale)) for kind, least in MINIMUM.items()}
    return Sizes(papers=papers, **counts)


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
    rng = rng_for(seed, "plan")
    tasks, names = [], set()
    for index in range(sizes.tasks):
        tasks.append(_task(rng, index, tasks, names))
        names.add(tasks[-1].name)
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


def _task(rng, index, earlier, taken):
    """Task `index`; `earlier` are the tasks before it, one of which may be its parent."""
    count = len(BASE_TASKS)
    if index < count:
        base, name = BASE_TASKS[index], BASE_TASKS[index][1]
    else:
        modifier, rest = divmod(index - count, count)
        base = BASE_TASKS[rest]
        round_, modifier = divmod(modifier, len(TASK_MODIFIERS))
        name = f"{TASK_MODIFIERS[modifier]} {base[1]}" + (f" {round_ + 1}" if round_ else "")
    name = f"{MARKER} {name}"
    if name in taken:
        # A modifier that spells a base task ("3D" and "Object Detection").
        name = f"{name} (variant)"
    parent = None
    if index == 1 or (earlier and rng.random() < SUBTASK_SHARE):
        parent = 0 if index == 1 else int(rng.random() * len(earlier))
        if _depth(earlier, parent) >= MAX_TASK_DEPTH:
            parent = None
    areas = [base[0]]
    if rng.random() < 0.1:
        areas.append(rng.choice(TASK_AREAS))
    if parent is not None and rng.random() < 0.5:
        # A subtask often leaves its areas to its parent.
        areas = []
    return Task(index, name, slug_for(name, "task"), base, list(dict.fromkeys(areas)), parent)


def _depth(tasks, index):
    depth = 0
    while tasks[index].parent is not None:
        index = tasks[index].parent
        depth += 1
    return depth


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
    rows = max(
        len(FIRST_ROWS) if index == 0 else 1,
        min(MAX_ROWS, int(ROWS_MIN * rng.paretovariate(ROWS_ALPHA))),
    )
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
    rng = rng_for(seed, "dataset", dataset.index)
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
    rng = rng_for(seed, "task", task.index)
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
        survey = f"https://arxiv.org/abs/{unissued_arxiv_id(task.index, 2020)}"
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
    rng = rng_for(seed, "board", board.index)
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


# Board 0's first rows, so that every size has each kind of citation: a paper
# named by arXiv id alone, one with no arXiv id, no paper, a pdf link, a paper
# the papers file does not hold.
FIRST_ROWS = (11, 2, "none", 3, "unknown")


def _rows(seed, rng, plan, board):
    papers = plan.sizes.papers
    rows = []
    for number in range(board.rows):
        roll = rng.random()
        cited = int((papers / 50 if roll < POPULAR_SHARE else papers) * rng.random())
        kind = "none" if roll > 0.98 else "unknown" if roll > 0.95 else "paper"
        if board.index == 0 and number < len(FIRST_ROWS):
            forced = FIRST_ROWS[number]
            kind, cited = (forced, cited) if isinstance(forced, str) else ("paper", forced)
        rows.append(_row(seed, rng, board, number, kind, paper(seed, cited)))
    if board.index == 0:
        # One model name on two rows, from two papers; a value left blank.
        rows[1]["model_name"] = rows[0]["model_name"]
        rows[-1]["metrics"][board.metrics[-1]] = ""
    return rows


def _row(seed, rng, board, number, kind, item):
    title, date = item.title, item.date
    code = [{"title": "", "url": url} for url, _, _ in repositories(seed, item.index)]
    model = coined(item.index)
    if rng.random() < 0.4:
        model = f"{model} ({rng.choice(GENERIC_VARIANTS)})"
    if kind == "none":
        url, title, date, code = "", "", None, []
    elif kind == "unknown":
        url = f"https://proceedings.mlr.press/v999/{SLUG_MARKER}-{board.index}-{number}.html"
        title = f"{MARKER} Unlisted Paper {board.index}.{number}"
    elif item.arxiv is None:
        url = item.url_abs
    else:
        # A paper's rows cite its abstract page, or its pdf; a few rows differ.
        pdf = (item.index % 7 == 3) != (rng.random() < 0.02)
        url = item.url_pdf if pdf else item.url_abs
        if item.index % 25 == 11:
            # Named by its arXiv id alone: the importer's slug is the id's digits.
            title = ""
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

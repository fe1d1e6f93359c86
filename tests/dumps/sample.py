"""A small whole site for the dumps' tests: the seed page, PwC's real OGB evaluation tables
(read where they lie), and one record or more of each of the other four archive files
joined to them, with editors' decisions on top."""

import json

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection

from leaderboards import curation, decisions
from leaderboards.models import Leaderboard, Method, Metric, Row
from tests.helpers import (
    PWC_DATA,
    ROOT,
    SEED_FILE,
    SEED_SLUG,
    SPAM_MODEL,
    row,
    run_import_pwc,
    table,
    task,
)

OGB = PWC_DATA / "sota-extractor_ogb.json"
PWC = "https://paperswithcode.com"
SAGN = "scalable-and-adaptive-graph-neural-networks-with"
QUIET = "no-board-cites-me"
WITHHELD_PAPER = "a-retracted-paper"
GCN_COLLECTION = {
    "name": "Graph Models",
    "description": "Models of graphs.",
    "area": "Graphs",
    "parent": None,
}

PAPERS = [
    {
        "paper_url": f"{PWC}/paper/{SAGN}",
        "arxiv_id": "2104.09376",
        "title": "Scalable and Adaptive Graph Neural Networks with Self-Label-Enhanced",
        "abstract": "Self-label-enhanced training for large graphs, with $\\ell_2$ and ünïcode.",
        "url_abs": "https://arxiv.org/abs/2104.09376v3",
        "url_pdf": "https://arxiv.org/pdf/2104.09376v3.pdf",
        "proceeding": "NeurIPS 2021 12",
        "authors": ["Chuxiong Sun", "Hongming Gu", "Jie Hu"],
        "tasks": ["Node Property Prediction"],
        "date": "2021-04-19",
        "methods": [
            {
                "name": "GCN",
                "full_name": "Graph Convolutional Network",
                "description": "A GCN.",
                "introduced_year": 2016,
                "source_url": "https://arxiv.org/abs/1609.02907v4",
                "source_title": "Semi-Supervised Classification with GCNs",
                "code_snippet_url": "",
                "main_collection": GCN_COLLECTION,
            },
            {
                # Named by this paper alone: the methods file does not describe it.
                "name": "Label Propagation",
                "full_name": "",
                "description": "Labels spread along edges.",
                "introduced_year": None,
                "source_url": "",
                "source_title": "",
                "code_snippet_url": "",
                "main_collection": None,
            },
        ],
        "conference_url_abs": "https://proceedings.example.org/sagn",
        "conference_url_pdf": "",
    },
    {
        "paper_url": f"{PWC}/paper/{QUIET}",
        "arxiv_id": None,
        "title": "No board cites me",
        "abstract": "Quiet.",
        "url_abs": "https://example.org/quiet",
        "url_pdf": "",
        "proceeding": "ICLR 2022",
        "authors": ["Jie Hu"],
        "tasks": [],
        "date": None,
        "methods": [],
    },
    {
        "paper_url": f"{PWC}/paper/{WITHHELD_PAPER}",
        "arxiv_id": "2201.00002",
        "title": "A retracted paper",
        "abstract": "Withdrawn.",
        "url_abs": "https://arxiv.org/abs/2201.00002",
        "url_pdf": "",
        "proceeding": None,
        "authors": ["Someone Else"],
        "tasks": [],
        "date": "2022-01-02",
        "methods": [],
    },
]
LINKS = [
    {
        "paper_url": f"{PWC}/paper/{SAGN}",
        "paper_title": "Scalable and Adaptive Graph Neural Networks",
        "paper_arxiv_id": "2104.09376",
        "paper_url_abs": "https://arxiv.org/abs/2104.09376v3",
        "paper_url_pdf": None,
        "repo_url": "https://github.com/skepsun/SAGN_with_SLE",
        "is_official": True,
        "mentioned_in_paper": True,
        "mentioned_in_github": False,
        "framework": "pytorch",
    },
    {
        "paper_url": f"{PWC}/paper/only-code-knows-me",
        "paper_title": "Only code knows me",
        "paper_arxiv_id": "1901.00001",
        "paper_url_abs": "https://arxiv.org/abs/1901.00001",
        "paper_url_pdf": None,
        "repo_url": "https://gitlab.com/someone/quiet",
        "is_official": False,
        "mentioned_in_paper": False,
        "mentioned_in_github": True,
        "framework": "none",
    },
]
METHODS = [
    {
        "url": f"{PWC}/method/gcn",
        "name": "GCN",
        "full_name": "Graph Convolutional Network",
        "description": "A **graph** convolution.",
        "paper": {"title": "Semi-Supervised Classification", "url": f"{PWC}/paper/{SAGN}"},
        "introduced_year": 2016,
        "source_url": "https://arxiv.org/abs/1609.02907v4",
        "source_title": "Semi-Supervised Classification with GCNs",
        "code_snippet_url": "https://github.com/tkipf/gcn/blob/master/gcn/layers.py",
        "num_papers": 1234,
        "collections": [
            {"collection": "Graph Models", "area_id": "graphs", "area": "Graphs"},
            {"collection": "Convolutions", "area_id": "general", "area": "General"},
        ],
    },
    {
        "url": f"{PWC}/method/spam-net",
        "name": "SpamNet",
        "full_name": "",
        "description": "Buy now.",
        "paper": None,
        "introduced_year": None,
        "source_url": "",
        "source_title": "",
        "code_snippet_url": "",
        "num_papers": 0,
        "collections": [],
    },
]
DATASETS = [
    {
        "url": f"{PWC}/dataset/ogb",
        "name": "OGB",
        "full_name": "Open Graph Benchmark",
        "homepage": "https://ogb.stanford.edu/",
        "description": "Graphs, **benchmarked**.",
        "paper": {"title": "OGB", "url": f"{PWC}/paper/{QUIET}"},
        "introduced_date": "2020-05-02",
        "warning": "",
        "modalities": ["Graphs"],
        "tasks": [
            {"task": "Node Property Prediction", "url": f"{PWC}/task/node-property-prediction"}
        ],
        "languages": ["English"],
        "variants": ["OGB", "ogbn-arxiv"],
        "num_papers": 99,
        "data_loaders": [
            {
                "url": "https://github.com/snap-stanford/ogb",
                "repo": "https://github.com/snap-stanford/ogb",
                "frameworks": ["pytorch"],
            }
        ],
    },
]


def tiny_tables(folder):
    """A second evaluation-tables file: a table whose dataset the archive gives a home page,
    and a subtask."""
    linked = table("Tiny Set", [row("TinyNet", {"Accuracy": "91.2%"}, date="2024-02-03")])
    linked["dataset_links"] = [{"title": "Home", "url": "https://example.org/tiny"}]
    child = task("Tiny Subtask", [table("Tiny Sub Set", [row("SubNet", {"F1": "0.5"})])])
    tree = task("Tiny Task", [linked], subtasks=[child], categories=["Computer Vision"])
    path = folder / "evaluation-tables.json"
    path.write_text(json.dumps([tree]), encoding="utf-8")
    return path


def write_records(folder):
    """The four record files in `folder`: their paths, in any order."""
    paths = []
    for name, records in (
        ("papers-with-abstracts.json", PAPERS),
        ("links-between-papers-and-code.json", LINKS),
        ("methods.json", METHODS),
        ("datasets.json", DATASETS),
    ):
        path = folder / name
        path.write_text(json.dumps(records), encoding="utf-8")
        paths.append(path)
    return paths


def build_site(folder):
    """The sample site, with an editor's withheld row, direction, descriptions (of a method
    the methods file describes and of one only a paper names), withheld paper and method,
    and unlinked code link."""
    call_command("load_seeds", str(SEED_FILE), verbosity=0)
    run_import_pwc(OGB, *write_records(folder))
    tiny = folder / "tiny"
    tiny.mkdir()
    run_import_pwc(tiny_tables(tiny))
    editor = get_user_model().objects.create_user("erin", password="x-long-passphrase-42")
    spam = Row.objects.get(model=SPAM_MODEL, leaderboard__slug=SEED_SLUG)
    decisions.withhold(
        [decisions.row_ref(spam.leaderboard_id, spam.key, spam.model)], "Spam.", editor
    )
    board = Leaderboard.objects.exclude(slug=SEED_SLUG).order_by("slug").first()
    metric = Metric.objects.filter(leaderboard=board).order_by("pk").first()
    decisions.set_direction([decisions.metric_ref(board.pk, metric.name)], "higher", editor)
    curation.withhold_papers([WITHHELD_PAPER], "Retracted.", editor)
    curation.withhold_methods(["spam-net"], "Spam.", editor)
    curation.describe(Method, "gcn", "An editor's **clearer** words.", "Clearer.", editor)
    curation.describe(
        Method, "label-propagation", "Labels **spread** by an editor.", "Plainer.", editor
    )
    return editor


def empty_site():
    """The database as `migrate` and the areas fixture leave a new site."""
    if connection.vendor == "postgresql":
        # Inside the test's transaction PostgreSQL truncates no table with checks pending.
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    call_command("flush", "--no-input", verbosity=0)
    call_command("loaddata", ROOT / "fixtures" / "areas.json", verbosity=0)

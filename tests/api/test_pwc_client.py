"""The public `paperswithcode-client` (0.3.1) reads this site as it read PwC.

Its pinned dependencies (httpx 0.14, pydantic 1.6) clash with ours, so it gets
its own virtual environment, installed from tests/pwc_client/uv.lock by
`make pwc-client` (test-sqlite and test-postgres depend on it), and talks to a
live server over HTTP from a subprocess.
"""

import json
import subprocess
from pathlib import Path

import pytest

from leaderboards.models import Paper
from tests.helpers import DATASET, PAPER, ROOT, SEED_SLUG, TASK

CLIENT_VENV = ROOT / ".venv" / "pwc-client"
SCRIPT = Path(__file__).with_name("pwc_client_script.py")


@pytest.fixture(scope="session")
def client_python():
    # Installed by make from its lock, never here: a test run reaches no registry.
    python = CLIENT_VENV / "bin" / "python"
    check = [str(python), "-c", "import paperswithcode"]
    if not python.exists() or subprocess.run(check, capture_output=True).returncode:
        pytest.fail(f"no paperswithcode-client in {CLIENT_VENV}: run `make pwc-client`")
    return python


# What the script reads, by the ids of the catalogue fixture's objects.
IDS = {
    "evaluation": SEED_SLUG, "paper": PAPER, "task": TASK, "dataset": DATASET,
    "area": "computer-vision", "owner": "ma-kjh", "name": "CMA-OoDD",
    "author": "jeonghyeon-kim", "conference": "cvpr", "proceeding": "cvpr-2023-6",
    "method": "vision-transformer", "search": "OoD Detection", "abstract": "cross-modal loss",
}  # fmt: skip


@pytest.fixture
def read_by_client(client_python, live_server, catalogue):
    result = subprocess.run(
        [str(client_python), str(SCRIPT), live_server.url, json.dumps(IDS)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.mark.slow
def test_the_client_reads_the_site_through_every_read_call(read_by_client, seed_page):
    """One run of the client (seconds), checked part by part below."""
    read = read_by_client
    assert len(read["read_calls"]) == 40
    assert read["calls_made"] == read["read_calls"]
    _check_the_seed(read, seed_page)
    _check_a_paper(read)
    _check_repositories(read)
    _check_people_tasks_and_methods(read)


def _check_the_seed(read, seed_page):
    """The seed's board as the file has it."""
    assert {"id": "computer-vision", "name": "Computer Vision"} in read["areas"]
    assert read["area"] == {"id": "computer-vision", "name": "Computer Vision"}
    assert [t["id"] for t in read["area_tasks"]] == [TASK]
    assert TASK in [t["id"] for t in read["tasks"]]
    assert read["task"]["name"] == "Out-of-Distribution Detection"
    assert [d["name"] for d in read["datasets"]] == [seed_page["dataset"]["name"]]
    assert read["dataset"]["id"] == DATASET
    assert [e["id"] for e in read["evaluations"]] == [SEED_SLUG]
    assert read["task_evaluations"] == read["dataset_evaluations"] == read["evaluations"]
    assert read["evaluation"]["task"] == TASK
    assert read["evaluation"]["description"] == seed_page["description"]
    # FPR95 falls down the archive's ranking: lower is better, inferred, so a loss.
    assert [(m["name"], m["is_loss"]) for m in read["metrics"]] == [
        ("FPR95", True),
        ("AUROC", False),
    ]
    assert read["metric"] == read["metrics"][1]
    # 22 results over three pages of ten, in archive order, values as written.
    assert read["results_count"] == len(read["results"]) == 22
    assert read["result"] == read["results"][0]
    rows = seed_page["rows"]
    assert [r["metrics"] for r in read["results"]] == [row["metrics"] for row in rows]
    assert [r["methodology"] for r in read["results"]] == [row["model"] for row in rows]
    assert [r["evaluated_on"] for r in read["results"]] == [row["paper_date"] for row in rows]
    assert [r["uses_additional_data"] for r in read["results"]] == [
        row["uses_additional_data"] for row in rows
    ]
    # The seed's file gives no direction; the archive's ranking gives FPR95's, and each
    # result with an FPR95 ranks by it: the archive's order is that ranking.
    with_fpr = [row for row in rows if "FPR95" in row["metrics"]]
    assert [r["best_rank"] for r in read["results"] if r["best_rank"]] == list(
        range(1, len(with_fpr) + 1)
    )
    assert read["paper"]["title"] == rows[0]["paper_title"]
    assert read["paper"]["url_abs"] == rows[0]["paper_url"]
    assert str(read["paper"]["published"]) == rows[0]["paper_date"]
    assert [r["methodology"] for r in read["paper_results"]] == [rows[0]["model"]]
    assert read["searched_tasks"]["count"] == 1


def _check_a_paper(read):
    """A paper with its authors, proceeding, code (official first), datasets, tasks, methods."""
    paper = read["paper"]
    assert paper["authors"] == ["Jeonghyeon Kim", "Sangheum Hwang", "Zoë Ångström-Núñez"]
    assert (paper["conference"], paper["proceeding"]) == ("cvpr", "cvpr-2025-6")
    assert paper["abstract"].startswith("Out-of-distribution (OoD) detection")
    assert paper["url_pdf"] == "https://arxiv.org/pdf/2503.18817v1.pdf"
    assert [p["id"] for p in read["papers_by_abstract"]["results"]] == [PAPER]
    # Withheld papers are in no list; every shown one is read, three at a time.
    shown = set(Paper.objects.filter(withheld=False).values_list("slug", flat=True))
    assert [p["id"] for p in read["papers"]] == list(dict.fromkeys(p["id"] for p in read["papers"]))
    assert {p["id"] for p in read["papers"]} == shown
    assert [(r["name"], r["is_official"]) for r in read["paper_repositories"]] == [
        ("CMA-OoDD", True),
        ("cma-reimplementation", True),  # the editor's word over the archive's
    ]
    assert [d["id"] for d in read["paper_datasets"]] == [DATASET]
    assert [t["id"] for t in read["paper_tasks"]] == [TASK]
    assert [(m["id"], m["paper"]) for m in read["paper_methods"]] == [
        ("infonce", PAPER),
        ("vision-transformer", None),
    ]
    hit = read["search"]["results"][0]
    assert (hit["paper"]["id"], hit["repository"]["name"], hit["is_official"]) == (
        PAPER, "CMA-OoDD", True,
    )  # fmt: skip


def _check_repositories(read):
    assert [(r["owner"], r["name"], r["framework"]) for r in read["repositories"]] == [
        ("ma-kjh", "CMA-OoDD", "pytorch"),
        ("someone", "cma-reimplementation", "jax"),
    ]
    assert [r["name"] for r in read["repositories_with_stars"]["results"]] == ["CMA-OoDD"]
    assert read["owner_repositories"]["results"] == [read["repository"]]
    assert read["repository"] == {
        "url": "https://github.com/ma-kjh/CMA-OoDD",
        "owner": "ma-kjh",
        "name": "CMA-OoDD",
        "description": "Cross-modal alignment for OoD detection.",
        "stars": 42,
        "framework": "pytorch",
        "is_official": None,
    }
    assert [p["id"] for p in read["repository_papers"]] == [PAPER]


def _check_people_tasks_and_methods(read):
    assert [a["full_name"] for a in read["authors"]] == [
        "Jeonghyeon Kim",
        "Sangheum Hwang",
        "Zoë Ångström-Núñez",
    ]
    assert read["author"] == {"id": "jeonghyeon-kim", "full_name": "Jeonghyeon Kim"}
    assert [p["id"] for p in read["author_papers"]] == [PAPER, "vit-study-0"]
    assert read["conferences"] == [read["conference"]] == [{"id": "cvpr", "name": "CVPR"}]
    assert [(p["id"], p["year"], p["month"]) for p in read["proceedings"]] == [
        ("cvpr-2025-6", 2025, 6),
        ("cvpr-2024-6", 2024, 6),
        ("cvpr-2023-6", 2023, 6),
    ]
    assert read["proceeding"] == read["proceedings"][2]
    assert [p["id"] for p in read["proceeding_papers"]] == ["vit-study-3"]
    assert [t["id"] for t in read["task_parents"]] == ["anomaly-detection"]
    assert [t["id"] for t in read["task_children"]] == ["near-ood-detection"]
    assert PAPER in [p["id"] for p in read["task_papers"]]
    assert "casino-bonus-paper" not in [p["id"] for p in read["task_papers"]]
    assert [m["id"] for m in read["methods"]] == ["bonus-net", "infonce", "vision-transformer"]
    assert read["method"]["full_name"] == "Vision Transformer"
    assert read["method"]["description"].startswith("The **Vision Transformer**")

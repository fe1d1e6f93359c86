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

from tests.helpers import ROOT, SEED_SLUG

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


@pytest.fixture
def read_by_client(client_python, live_server, seeded):
    result = subprocess.run(
        [str(client_python), str(SCRIPT), live_server.url, SEED_SLUG],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


def test_the_client_reads_the_seed_as_the_file_has_it(read_by_client, seed_page):
    read = read_by_client
    assert {"id": "computer-vision", "name": "Computer Vision"} in read["areas"]
    assert [t["id"] for t in read["tasks"]] == ["out-of-distribution-detection"]
    assert [d["name"] for d in read["datasets"]] == [seed_page["dataset"]["name"]]
    assert [e["id"] for e in read["evaluations"]] == [SEED_SLUG]
    assert read["evaluation"]["task"] == "out-of-distribution-detection"
    assert read["evaluation"]["description"] == seed_page["description"]
    assert [(m["name"], m["is_loss"]) for m in read["metrics"]] == [
        ("FPR95", False),
        ("AUROC", False),
    ]
    # 22 results over three pages of ten, in archive order, values as written.
    assert read["results_count"] == len(read["results"]) == 22
    rows = seed_page["rows"]
    assert [r["metrics"] for r in read["results"]] == [row["metrics"] for row in rows]
    assert [r["methodology"] for r in read["results"]] == [row["model"] for row in rows]
    assert [r["evaluated_on"] for r in read["results"]] == [row["paper_date"] for row in rows]
    assert [r["uses_additional_data"] for r in read["results"]] == [
        row["uses_additional_data"] for row in rows
    ]
    # Directions are unknown in the seed: no result claims a rank.
    assert {r["best_rank"] for r in read["results"]} == {None}
    assert read["paper"]["title"] == rows[0]["paper_title"]
    assert read["paper"]["url_abs"] == rows[0]["paper_url"]
    assert str(read["paper"]["published"]) == rows[0]["paper_date"]
    assert [r["methodology"] for r in read["paper_results"]] == [rows[0]["model"]]
    assert read["searched_tasks"]["count"] == 1

"""Task trees: a parent counts its subtasks' boards, areas have an index, the API a root."""

import io
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from leaderboards.models import Task
from leaderboards.upkeep.figures import tree_totals
from tests.helpers import PWC_DATA

NLP = PWC_DATA / "sota-extractor_nlp-progress.json"


@pytest.fixture
def nlp(db):
    call_command("import_pwc", str(NLP), "--snapshot=2025-07-28", stdout=io.StringIO())


def text(response):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_a_parent_task_counts_its_subtasks_leaderboards(nlp, client):
    dialogue = Task.objects.get(slug="dialogue")
    subtasks = list(dialogue.subtasks.all())
    assert len(subtasks) == 5
    assert dialogue.leaderboard_count == 0
    page = text(client.get(dialogue.get_absolute_url()))
    assert "10 leaderboards, 0 of them its own, 10 in its subtasks" in page
    for sub in subtasks:
        assert f"{sub.name} {sub.tree_leaderboard_count} {sub.leaderboard_count}" in page
    assert sum(sub.tree_leaderboard_count for sub in subtasks) == 10


def test_a_task_without_subtasks_says_only_its_count(nlp, client):
    leaf = Task.objects.filter(leaderboard_count__gt=0, subtasks=None).first()
    page = text(client.get(leaf.get_absolute_url()))
    assert "of them its own" not in page
    assert "Subtasks" not in page


def test_tree_totals_add_every_level_and_survive_a_loop():
    parents = {"a": None, "b": "a", "c": "b", "x": "y", "y": "x"}
    own = {"a": 1, "b": 2, "c": 4, "x": 1, "y": 1}
    assert tree_totals(parents, own) == {"a": 7, "b": 6, "c": 4, "x": 2, "y": 2}


def test_the_area_index_lists_areas_with_counts(nlp, client):
    response = client.get("/area/")
    assert response.status_code == 200
    page = text(response)
    assert re.search(r"Natural Language Processing \d+ \d+", page)
    area_page = client.get(reverse("leaderboards:area", args=["natural-language-processing"]))
    assert 'href="/area/">Areas</a>' in area_page.content.decode()


def test_the_area_index_is_in_the_sitemap(nlp, client):
    assert "/area/</loc>" in client.get("/sitemap-lists.xml").content.decode()


def test_a_boards_breadcrumbs_lead_to_the_area_index(nlp, client):
    board = Task.objects.get(slug="dialogue").subtasks.first().leaderboards.first()
    assert 'href="/area/">Areas</a>' in client.get(board.get_absolute_url()).content.decode()


def test_the_api_root_lists_its_endpoints(db, client):
    response = client.get("/api/v1/")
    assert response.status_code == 200
    document = response.json()
    paths = [endpoint["path"] for endpoint in document["endpoints"]]
    assert "/api/v1/tasks/" in paths
    assert "/api/v1/evaluations/{id}/results/" in paths
    # One for each read call of paperswithcode-client 0.3.1.
    assert len(paths) == 40
    assert document["openapi"] == "/api/v1/openapi.json"
    assert client.get(document["docs"]).status_code == 200

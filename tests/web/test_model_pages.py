"""A model across boards (issue #30): its page, the compare view, and their bad input."""

import copy

import pytest
from django.urls import reverse

from leaderboards.format.rules import model_slug
from leaderboards.models import Leaderboard, Metric, Row
from tests.helpers import SEED_FILE, SEED_SLUG, board

CMA = "CMA(ViT-B/16, NegLabel)"
CMA_PAPER = "/paper/enhanced-ood-detection-through-cross-modal"
LINE = "LINe (ResNet50)"
LINE_PAPER = "/paper/line-out-of-distribution-detection-by"
SECOND = "out-of-distribution-detection-on-board-set-1"


def slug_of(model, paper):
    return model_slug(model, paper)


def model_url(model, paper):
    return reverse("leaderboards:model", args=[slug_of(model, paper)])


def compare_url(*slugs):
    query = "&".join(f"m={slug}" for slug in slugs)
    return f"{reverse('leaderboards:model_compare')}?{query}"


def second_board(seed_page, rows=5):
    """The seed as a second board, its directions stated: FPR95 lower, AUROC higher."""
    page = board(copy.deepcopy(seed_page), 1, rows=rows)
    page["metric_direction"]["by_metric"] = {"FPR95": "lower", "AUROC": "higher"}
    # LINe ahead of CMA here on AUROC (higher), behind on FPR95 (lower).
    page["rows"][1]["metrics"] = {"AUROC": "97.01", "FPR95": "18.5"}
    return page


@pytest.fixture
def two_boards(load, seed_page, write_page):
    ok, _, err = load(SEED_FILE, write_page(second_board(seed_page)))
    assert ok, err
    return Leaderboard.objects.get(slug=SEED_SLUG), Leaderboard.objects.get(slug=SECOND)


def test_loader_writes_each_row_its_model_slug(two_boards):
    cma = Row.objects.filter(model=CMA)
    assert {row.model_slug for row in cma} == {slug_of(CMA, CMA_PAPER)}
    assert cma.count() == 2


def test_smoke(two_boards, client):
    response = client.get(model_url(CMA, CMA_PAPER))
    assert response.status_code == 200, response.content.decode()[:2000]
    print(response.content.decode())
    response = client.get(compare_url(slug_of(CMA, CMA_PAPER), slug_of(LINE, LINE_PAPER)))
    assert response.status_code == 200
    print(response.content.decode())

"""Migrations that fill columns by the site's rules carry frozen copies of them (0038's
papers_waiting, 0039's model_slug and paper_identity), so an old migration run later
fills what it filled then. Should a live rule change, the test comparing them fails:
the migration keeps the old rule, and the test's inputs say where the two now differ."""

import ast
import importlib
import sys
from pathlib import Path

import pytest

from leaderboards.format import figures, rules

FRESHNESS = importlib.import_module("leaderboards.migrations.0038_board_freshness")
MODELS = importlib.import_module("leaderboards.migrations.0039_models")


def imported_roots(module):
    """The top-level packages a module's source imports."""
    roots = set()
    for node in ast.walk(ast.parse(Path(module.__file__).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            roots.add((node.module or "").split(".")[0] if not node.level else ".")
    return roots


@pytest.mark.parametrize("module", [FRESHNESS, MODELS], ids=["0038", "0039"])
def test_the_migration_imports_django_and_python_alone(module):
    assert {root for root in imported_roots(module) if root != "django"} <= sys.stdlib_module_names


NAMES = [
    "ResNet-50",
    "resnet-50 ",
    "ResNet-50\u00a0 (ours)",
    "RESNET-50",
    "ResNet50",
    "Ünïcode Net ℓ2",
    "ＶｉＴ-B/16",  # full-width letters
    "Straße-İ",
    "模型",
    "M" * 90,
    "  ",
    "",
    None,
]


def a_row(paper, url, title):
    return {"paper": paper, "paper_url": url, "paper_title": title}


ROWS = [
    a_row("/paper/deep-residual", "https://arxiv.org/abs/1512.03385", "Deep"),
    a_row(None, "https://arxiv.org/pdf/1512.03385v2.pdf", ""),
    a_row(None, " HTTPS://ARXIV.ORG/ABS/cond-mat.stat-mech/0102003v1/ ", None),
    a_row("", "https://example.org/Paper/", "A títle"),
    a_row(None, "   ", "Only a títle"),
    a_row(None, None, ""),
]


@pytest.mark.parametrize("row", ROWS)
def test_0039s_frozen_rules_give_todays_model_slugs(row):
    identity = rules.paper_identity(row)
    assert MODELS.paper_identity(row) == identity
    for name in NAMES:
        assert MODELS.model_slug(name, identity) == rules.model_slug(name, identity), name


def waiting(count):
    return {"coverage": {"papers_not_yet_extracted": count}}


@pytest.mark.parametrize(
    "block",
    [None, {}, [], "text", {"coverage": None}, {"coverage": []}, {"coverage": {}},
     waiting(None), waiting(0), waiting(42), waiting(-1), waiting(True), waiting(2.0),
     waiting("3")],
)  # fmt: skip
def test_0038s_frozen_rule_gives_todays_papers_waiting(block):
    assert FRESHNESS.papers_waiting(block) == figures.papers_waiting(block)

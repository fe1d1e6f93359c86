"""The direction the admin suggests from a metric's name."""

import json

import pytest

from leaderboards.admin.directions import suggest_direction
from tests.helpers import PWC_DATA

SAYS_LOWER = [
    "Error",
    "Top-1 Error Rate",
    "Word Error Rate (WER)",
    "CER",
    "FPR95",
    "FID",
    "Test perplexity",
    "ppl",
    "Bit per Character (BPC)",
    "MAE",
    "Validation loss",
]
SAYS_HIGHER = [
    "Accuracy",
    "Top 1 Accuracy",
    "AUROC",
    "Test ROC-AUC",
    "F1",
    "F-Score",
    "BLEU-4",
    "mAP",
    "AP50",
    "ROUGE-L",
    "Hits@1",
    "MRR",
    "EM (Quasar-T)",
]
# Costs, bare dataset splits and misspellings: the name does not say.
SAYS_NOTHING = ["Number of params", "GFLOPs", "Params(M)", "A1", "Accuarcy", "Dev", "Score", ""]


@pytest.mark.parametrize("name", SAYS_LOWER)
def test_names_of_errors_and_losses_suggest_lower(name):
    assert suggest_direction(name).direction == "lower"


@pytest.mark.parametrize("name", SAYS_HIGHER)
def test_names_of_scores_suggest_higher(name):
    assert suggest_direction(name).direction == "higher"


@pytest.mark.parametrize("name", SAYS_NOTHING)
def test_names_that_do_not_say_suggest_nothing(name):
    assert suggest_direction(name) is None


def test_words_inside_other_words_do_not_count():
    assert suggest_direction("Heatmap quality") is None  # not mAP
    assert suggest_direction("Temporal awareness") is None  # not "em"


def test_the_suggestion_names_the_word_it_rests_on():
    assert str(suggest_direction("FPR95")) == "lower is better (the name says “fpr”)"


def test_the_real_aishell_page_ranks_its_suggested_metric_as_suggested():
    # PwC ranked AISHELL-1 by WER ascending: the suggestion agrees with it.
    rows = json.loads((PWC_DATA / "pwc-sota-page_speech-recognition-on-aishell-1.json").read_text())
    assert suggest_direction("Word Error Rate (WER)").direction == "lower"
    ranked = sorted(rows, key=lambda row: row["rank"])
    wer = [float(row["metrics"]["Word Error Rate (WER)"]) for row in ranked]
    assert wer == sorted(wer)

"""A guess at a metric's direction from its name, for editors to accept or not.

The archive never recorded which way its metrics point. Most names say it
("Word Error Rate (WER)", "Top 1 Accuracy"), so the admin offers a guess; the
guess is stored nowhere and never shown to visitors. What boards show, where
neither an editor nor the file gives a direction, is the one the archive's
ranking settles (Metric.inferred_direction), marked as inferred; the queue
shows that evidence beside the guess.
"""

import dataclasses
import re

from django.db.models import Count, Sum
from django.db.models.functions import Coalesce

from leaderboards import decisions
from leaderboards.models import Direction, order_settles

# Checked in this order, first match wins: "Top-1 Error" is an error, though
# "top-1" alone would say accuracy. Terms match whole words (a digit may
# follow, as in FPR95 or AP50). Costs such as parameters, FLOPs or time are
# left out on purpose: fewer is cheaper, not better, and the page should not
# crown the smallest model.
LOWER_TERMS = (
    "error",
    "wer",
    "cer",
    "ter",
    "eer",
    "fpr",
    "fnr",
    "frr",
    "fid",
    "loss",
    "nll",
    "perplexity",
    "ppl",
    "bpc",
    "bits per character",
    "bit per character",
    "bits per dim",
    "bpd",
    "mae",
    "mse",
    "rmse",
    "mape",
    "chamfer distance",
    "miss rate",
)
HIGHER_TERMS = (
    "accuracy",
    "acc",
    "top 1",
    "top 5",
    "auroc",
    "auc",
    "auprc",
    "roc auc",
    "f1",
    "f 1",
    "f score",
    "f measure",
    "f0.5",
    "bleu",
    "gleu",
    "rouge",
    "meteor",
    "cider",
    "spice",
    "map",
    "ap",
    "precision",
    "recall",
    "hits",
    "mrr",
    "ndcg",
    "iou",
    "miou",
    "dice",
    "psnr",
    "ssim",
    "em",
    "exact match",
    "las",
    "uas",
    "smatch",
)


@dataclasses.dataclass(frozen=True)
class Suggestion:
    direction: str
    term: str

    def __str__(self):
        return f"{Direction(self.direction).label} (the name says “{self.term}”)"


def _pattern(term):
    words = r"[\s_-]*".join(re.escape(word) for word in term.split())
    # Whole words; a trailing digit or plural "s" may follow (FPR95, errors).
    return re.compile(rf"(?<![a-z]){words}s?(?![a-z])")


_RULES = [(_pattern(term), Direction.LOWER, term) for term in LOWER_TERMS] + [
    (_pattern(term), Direction.HIGHER, term) for term in HIGHER_TERMS
]


def suggest_direction(name):
    """A Suggestion for the metric name, or None when the name does not say."""
    text = (name or "").lower()
    for pattern, direction, term in _RULES:
        if pattern.search(text):
            return Suggestion(direction.value, term)
    return None


def queue(search=""):
    """Metric names with no direction on some board, the most used first; those
    holding `search` (any case) when given.

    Each entry is {name, boards, rows}: the boards still without a direction
    for it and their shown rows, which is what setting it would change; and
    the evidence of the archive's ranking on them: on how many boards it
    settles higher and lower (the boards use that, marked as inferred, until
    an editor decides), and how many neighbouring results agree there.
    """
    undecided = decisions.undecided_metrics()
    if search:
        undecided = undecided.filter(name__icontains=search)
    higher, lower = order_settles(Direction.HIGHER), order_settles(Direction.LOWER)
    return (
        undecided.values("name")
        .annotate(
            boards=Count("pk"),
            rows=Coalesce(Sum("leaderboard__row_count"), 0),
            inferred_higher=Count("pk", filter=higher),
            inferred_lower=Count("pk", filter=lower),
            agree=Coalesce(Sum("order_agree", filter=higher | lower), 0),
            pairs=Coalesce(Sum("order_pairs", filter=higher | lower), 0),
        )
        .order_by("-boards", "-rows", "name")
    )


def affected(name):
    """{boards, rows} that deciding `name` on every board would change, now."""
    return (
        decisions.undecided_metrics()
        .filter(name=name)
        .aggregate(boards=Count("pk"), rows=Coalesce(Sum("leaderboard__row_count"), 0))
    )

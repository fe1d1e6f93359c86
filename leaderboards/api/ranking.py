"""Ranks the API reports: by a metric's direction, and only where it is known."""

import bisect

from leaderboards.format.values import parse_metric_value
from leaderboards.models import Direction, EditorAddition, Metric, MetricValue


def competition_ranks(numbers, direction):
    """rank(x) for values among `numbers`: 1 + how many are strictly better."""
    ordered = sorted(numbers)
    if direction == Direction.HIGHER:
        return lambda x: 1 + len(ordered) - bisect.bisect_right(ordered, x)
    return lambda x: 1 + bisect.bisect_left(ordered, x)


def added_key(pk):
    """The key best_ranks() gives an editor-added result, apart from the rows' pks."""
    return ("added", pk)


def result_key(result):
    """best_ranks()'s key of a Row or an EditorAddition."""
    return added_key(result.pk) if isinstance(result, EditorAddition) else result.pk


def best_ranks(rows):
    """{row pk: (best rank, metric name)} over the metrics of known direction.

    A row ranks among the shown rows and the shown editor-added results of its
    leaderboard (they compete; an added result's key is added_key(pk)), by the
    parsed number of each metric whose direction is known; its best rank is the
    smallest of those, the first metric in page order winning a tie. Rows with no
    such metric, or no number for it, are left out. Two queries, however many
    rows and boards, and a third where a board has editorial changes. The rows
    come with their boards (lists.results() reads them so).
    """
    boards = {row.leaderboard_id for row in rows}
    metrics = {
        metric.pk: metric
        for metric in Metric.objects.filter(leaderboard_id__in=boards).order_by("position")
        if metric.direction is not None
    }
    if not metrics:
        return {}
    numbers = {}
    for metric_id, row_id, number in MetricValue.objects.filter(
        metric_id__in=list(metrics), row__withheld=False, number__isnull=False
    ).values_list("metric_id", "row_id", "number"):
        numbers.setdefault(metric_id, {})[row_id] = number
    by_name = {(metric.leaderboard_id, metric.name): pk for pk, metric in metrics.items()}
    # Only a board with an editorial change can hold an added result (adding is one).
    touched = {row.leaderboard_id for row in rows if row.leaderboard.editorial_change_count}
    added = EditorAddition.objects.filter(leaderboard_id__in=touched, withheld=False)
    for pk, board, values in (
        added.values_list("pk", "leaderboard_id", "metrics") if touched else ()
    ):
        for name, raw in values.items() if isinstance(values, dict) else ():
            metric_id = by_name.get((board, name))
            number = parse_metric_value(raw) if isinstance(raw, str) else None
            if metric_id is not None and number is not None:
                numbers.setdefault(metric_id, {})[added_key(pk)] = number
    rankers = {
        metric_id: competition_ranks(values.values(), metrics[metric_id].direction)
        for metric_id, values in numbers.items()
    }
    best = {}
    wanted = {result_key(row) for row in rows}
    for metric_id, metric in metrics.items():
        for row_id, number in numbers.get(metric_id, {}).items():
            if row_id not in wanted:
                continue
            rank = rankers[metric_id](number)
            current = best.get(row_id)
            if current is None or (rank, metric.position) < current[:2]:
                best[row_id] = (rank, metric.position, metric.name)
    return {row_id: (rank, name) for row_id, (rank, _, name) in best.items()}

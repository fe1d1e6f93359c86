"""Ranks the API reports: by a metric's direction, and only where it is known."""

import bisect
from array import array

from django.db.models import Q

from leaderboards.format.values import parse_metric_value
from leaderboards.kept import Kept
from leaderboards.models import Direction, EditorAddition, Metric, MetricValue

# A board of more rows than this has each metric's numbers kept in the process, sorted,
# under the board's version: a page of a 100,000-row board's results read and sorted its
# 400,000 values for the few it shows, every page asked.
KEPT_FROM_ROWS = 5_000
numbers_kept = Kept(max_size=2_000_000)  # 8 bytes a number: 16 MB


def competition_ranks(numbers, direction):
    """rank(x) for values among `numbers`: 1 + how many are strictly better."""
    return _ranker(sorted(numbers), direction)


def _ranker(ordered, direction):
    """competition_ranks() over numbers already in ascending order (a list or an array)."""
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

    The smallest of metric_ranks(), the first metric in page order winning a tie.
    """
    metrics, ranks = _ranked(rows)
    best = {}
    for (row_id, metric_id), rank in ranks.items():
        position = metrics[metric_id].position
        current = best.get(row_id)
        if current is None or (rank, position) < current[:2]:
            best[row_id] = (rank, position, metrics[metric_id].name)
    return {row_id: (rank, name) for row_id, (rank, _, name) in best.items()}


def metric_ranks(rows):
    """{(row pk, metric pk): rank} of each row by each of its board's metrics of known direction.

    The place competition_ranks() gives the row's number among its board's,
    as best_ranks() counts them (below).
    """
    return _ranked(rows)[1]


def _ranked(rows):
    """(the boards' metrics of known direction by pk, {(row key, metric pk): rank}).

    A row ranks among the shown rows and the shown editor-added results of its
    leaderboard (they compete; an added result's key is added_key(pk)), by the
    parsed number of each metric whose direction is known; its best rank is the
    smallest of those, the first metric in page order winning a tie. Rows with no
    such metric, or no number for it, are left out. Two queries, however many
    rows and boards, and a third where a board has editorial changes; a large
    board's numbers, read once a version, add one each of its metrics. The rows
    come with their boards (lists.results() reads them so).
    """
    boards = {row.leaderboard_id: row.leaderboard for row in rows}
    metrics = {
        metric.pk: metric
        for metric in Metric.objects.filter(leaderboard_id__in=boards).order_by("position")
        if metric.direction is not None
    }
    if not metrics:
        return {}, {}
    large = {pk for pk, board in boards.items() if board.row_count > KEPT_FROM_ROWS}
    wanted = {result_key(row) for row in rows}
    # Every number of a small board's metrics; of a large board's, the wanted rows' only.
    every = [pk for pk, metric in metrics.items() if metric.leaderboard_id not in large]
    some = [pk for pk in metrics if pk not in every]
    chosen = Q(metric_id__in=every)
    if some:
        chosen |= Q(metric_id__in=some, row_id__in=[key for key in wanted if isinstance(key, int)])
    numbers = {}
    for metric_id, row_id, number in MetricValue.objects.filter(
        chosen, row__withheld=False, number__isnull=False
    ).values_list("metric_id", "row_id", "number"):
        numbers.setdefault(metric_id, {})[row_id] = number
    by_name = {(metric.leaderboard_id, metric.name): pk for pk, metric in metrics.items()}
    # Only a board with an editorial change can hold an added result (adding is one).
    touched = {pk for pk, board in boards.items() if board.editorial_change_count}
    added = EditorAddition.objects.filter(leaderboard_id__in=touched, withheld=False)
    added_numbers = {}
    for pk, board, values in (
        added.values_list("pk", "leaderboard_id", "metrics") if touched else ()
    ):
        for name, raw in values.items() if isinstance(values, dict) else ():
            metric_id = by_name.get((board, name))
            number = parse_metric_value(raw) if isinstance(raw, str) else None
            if metric_id is not None and number is not None:
                numbers.setdefault(metric_id, {})[added_key(pk)] = number
                added_numbers.setdefault(metric_id, []).append(number)
    ordered = {metric_id: sorted(values.values()) for metric_id, values in numbers.items()}
    for pk in large:
        board_metrics = [metric_id for metric_id in some if metrics[metric_id].leaderboard_id == pk]
        ordered.update(_large_board_numbers(boards[pk], board_metrics, added_numbers))
    rankers = {
        metric_id: _ranker(values, metrics[metric_id].direction)
        for metric_id, values in ordered.items()
    }
    ranks = {
        (row_id, metric_id): rankers[metric_id](number)
        for metric_id in metrics
        for row_id, number in numbers.get(metric_id, {}).items()
        if row_id in wanted
    }
    return metrics, ranks


def ranked_from_kept(board):
    """Whether ranking `board`'s results reads none of its numbers but the page's own."""
    if board.row_count <= KEPT_FROM_ROWS:
        return False
    return numbers_kept.get((board.pk, board.version)) is not None


def _large_board_numbers(board, metric_ids, added_numbers):
    """{metric id: every shown number of it, ascending}, the board's editor-added results'
    among them: kept under the board's version, which every change to its rows raises."""
    key = (board.pk, board.version)
    found = numbers_kept.get(key) or {}
    missing = [metric_id for metric_id in metric_ids if metric_id not in found]
    if missing:
        # A metric's direction set since (an editor's) made it one to rank by.
        found = {**found, **{metric_id: _shown_numbers(metric_id) for metric_id in missing}}
        for metric_id in missing:
            for number in added_numbers.get(metric_id, ()):
                bisect.insort(found[metric_id], number)
        numbers_kept.put(key, found, sum(len(numbers) for numbers in found.values()))
    return found


def _shown_numbers(metric_id):
    shown = MetricValue.objects.filter(
        metric_id=metric_id, row__withheld=False, number__isnull=False
    ).order_by("number")
    # Streamed into an array: as a list of floats, 100,000 of them take 3 MB, not 0.8.
    return array("d", shown.values_list("number", flat=True).iterator(2_000))

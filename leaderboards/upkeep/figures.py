"""Figures kept on rows of the catalogue so lists can sort and filter by them.

They are derived, never edited: the loader, the importer and editors' actions
call these functions after they change rows.
"""

import functools
import operator
from collections import defaultdict

from django.db import connection, transaction
from django.db.models import Count, Exists, F, IntegerField, Max, OuterRef, Q, Subquery, Sum, Window
from django.db.models.functions import Coalesce, RowNumber
from django.utils import timezone

from leaderboards.format.figures import board_figures, order_evidence, top_result
from leaderboards.format.rules import has_code_q
from leaderboards.format.values import parse_metric_value
from leaderboards.models import (
    Area,
    Author,
    BusiestTask,
    Dataset,
    EditorAddition,
    Leaderboard,
    LeaderboardArea,
    Method,
    Metric,
    MetricValue,
    Paper,
    PaperAuthor,
    PaperRepository,
    Repository,
    Row,
    RowVerification,
    SiteState,
    SyntologySnapshot,
    Task,
)

# How many of an area's tasks the home page lists.
BUSIEST_PER_AREA = 5


def refresh_leaderboard(leaderboard):
    refresh_leaderboards([leaderboard.pk])


def refresh_leaderboards(ids):
    """Row count, newest paper date, verified rows and since-archive entries of boards.

    A fixed number of statements however many boards: the loader calls this
    once per chunk, for the boards it re-wrote (format.figures.new_board_figures()
    gives those of the boards it made).
    """
    if not ids:
        return
    figures = {
        entry["leaderboard"]: entry
        for entry in Row.objects.filter(leaderboard__in=ids)
        .shown()
        .order_by()
        .values("leaderboard")
        .annotate(
            rows=Count("pk", distinct=True),
            newest=Max("paper_date"),
            verified=Count("pk", distinct=True, filter=Q(verifications__n_ran__gt=0)),
        )
    }
    newest = {}
    # Newest snapshot first, so the first seen for a board is the one shown.
    for board, read_at, since in (
        SyntologySnapshot.objects.filter(leaderboard__in=ids)
        .order_by("leaderboard", "-read_at")
        .values_list("leaderboard", "read_at", "since_archive")
    ):
        # A block the database holds but the site cannot read (UnreadableJSON)
        # counts no entries (board_figures() reads only a dict).
        newest.setdefault(board, (since, read_at))
    top = _top_results(ids)
    stored = {}
    for pk in ids:
        found = figures.get(pk, {})
        stored[pk] = board_figures(
            found.get("rows", 0),
            found.get("newest"),
            found.get("verified", 0),
            *newest.get(pk, (None, None)),
            top[pk],
        )
    _store(stored)


def _store(figures):
    """Write boards' figures ({pk: field values}) with one plain UPDATE per board,
    sent together: bulk_update's CASE expression over a chunk of boards took
    seconds on SQLite."""
    fields = [Leaderboard._meta.get_field(name) for name in next(iter(figures.values()))]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    values = [
        [*(field.get_db_prep_save(found[field.name], connection) for field in fields), pk]
        for pk, found in figures.items()
    ]
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {quote(Leaderboard._meta.db_table)} SET {assignments} WHERE id = %s", values
        )


def _top_results(ids):
    """top_result of many boards in a fixed number of queries however many boards
    there are; each first metric's order evidence refreshed on the way (the rows
    an editor withholds leave the archive's order)."""
    first = {}
    for metric in (
        Metric.objects.filter(leaderboard__in=ids)
        .order_by("leaderboard", "position")
        .only(
            "leaderboard",
            "name",
            "source_direction",
            "editor_direction",
            "order_lean",
            "order_agree",
            "order_pairs",
        )
    ):
        first.setdefault(metric.leaderboard_id, metric)
    values = {
        row: (raw, number)
        for row, raw, number in MetricValue.objects.filter(
            metric__in=[metric.pk for metric in first.values()]
        ).values_list("row", "raw", "number")
    }
    rows = defaultdict(list)
    for board, pk, model, date in (
        Row.objects.filter(leaderboard__in=ids)
        .shown()
        .order_by("leaderboard", "rank")
        .values_list("leaderboard", "pk", "model", "paper_date")
    ):
        rows[board].append((model, *values.get(pk, (None, None)), date))
    # The archive's order is its rows' alone; editors' results then compete, after them.
    _store_order({board: order_evidence([row[2] for row in rows[board]]) for board in first}, first)
    for board, model, metrics, date in (
        EditorAddition.objects.filter(leaderboard__in=ids, withheld=False)
        .order_by("leaderboard", "added_at", "pk")
        .values_list("leaderboard", "model", "metrics", "paper_date")
    ):
        metric = first.get(board)
        raw = metrics.get(metric.name) if metric is not None and isinstance(metrics, dict) else None
        raw = raw if isinstance(raw, str) else None
        rows[board].append((model, raw, parse_metric_value(raw) if raw else None, date))
    return {pk: top_result(first.get(pk), rows[pk]) for pk in ids}


def _store_order(evidence, first):
    """Write the first metrics' order evidence where it changed, and set it on them."""
    changed = []
    for board, metric in first.items():
        found = evidence[board]
        if found != metric.order:
            metric.order_lean, metric.order_agree, metric.order_pairs = (
                found.lean,
                found.agree,
                found.pairs,
            )
            changed.append(metric)
    if changed:
        Metric.objects.bulk_update(changed, ["order_lean", "order_agree", "order_pairs"])


def _count(queryset, field, aggregate):
    """A correlated subquery giving one aggregate per outer row, 0 when none."""
    return Coalesce(
        Subquery(
            queryset.filter(**{field: OuterRef("pk")})
            .order_by()
            .values(field)
            .annotate(value=aggregate)
            .values("value"),
            output_field=IntegerField(),
        ),
        0,
    )


def refresh_counts():
    """Recompute every catalogue count; a handful of set-based statements."""
    _refresh(None)


def refresh_touched(scope):
    """refresh_counts() for what a load of page files wrote (an upkeep.scope.Scope):
    the counts of its boards' tasks, datasets and papers; the small tables
    (areas, the task tree, the busiest tasks, the totals) whole. Every figure
    ends as refresh_counts() would set it: no other row's inputs changed (such
    a load writes no paper's authors, code links or methods).
    """
    _refresh(scope)


def _refresh(scope):
    """The counts of the rows in scope, or of every row when scope is None."""
    if scope is None:
        boards = tasks = datasets = papers = None
    else:
        boards, tasks, datasets, papers = scope.boards, scope.tasks, scope.datasets, scope.papers
    _link_tasks_to_areas(boards)
    every_board = Leaderboard.objects.all()
    _update_changed(
        Task,
        tasks,
        leaderboard_count=_count(every_board, "task", Count("pk")),
        row_count=_count(every_board, "task", Sum("row_count")),
    )
    _refresh_tree_counts()
    _update_changed(
        Dataset,
        datasets,
        leaderboard_count=_count(every_board, "dataset", Count("pk")),
        row_count=_count(every_board, "dataset", Sum("row_count")),
    )
    _update_changed(
        Area,
        None,
        task_count=_count(Task.areas.through.objects.all(), "area", Count("pk")),
        leaderboard_count=_count(LeaderboardArea.objects.all(), "area", Count("pk")),
    )
    shown = Row.objects.shown().filter(paper=OuterRef("pk"))
    _update_changed(
        Paper,
        papers,
        # A result's code link, or a repository the links file gives it.
        has_code=Exists(shown.filter(has_code_q()))
        | Exists(PaperRepository.objects.shown().filter(paper=OuterRef("pk"))),
        verified=Exists(
            RowVerification.objects.filter(
                row__paper=OuterRef("pk"), row__withheld=False, n_ran__gt=0
            )
        ),
    )
    _refresh_archive_counts(papers, datasets)
    _refresh_busiest_tasks()
    _refresh_totals()


def _refresh_archive_counts(papers=None, datasets=None):
    """How many papers the site holds for each author, repository, method and dataset
    (only the datasets', when `papers` and `datasets` name a load's scope).

    Computed from what is stored, withheld papers and unlinked code left out;
    the archive's own `num_papers` stays beside a method's and a dataset's. A
    load of page files (a scope) writes no paper's authors, code links or
    methods and withholds no paper, so those counts cannot move: counting them
    again for one board's papers read every paper of their methods (8 s on
    PostgreSQL at PwC's size, a popular method holding 100,000).
    """
    if papers is None:
        shown = Q(paper__withheld=False)
        _update_changed(
            Author,
            None,
            paper_count=_count(
                PaperAuthor.objects.filter(shown), "author", Count("paper", distinct=True)
            ),
        )
        _update_changed(
            Repository,
            None,
            paper_count=_count(
                PaperRepository.objects.shown().filter(shown), "repository", Count("pk")
            ),
        )
        _update_changed(
            Method,
            None,
            paper_count=_count(Method.papers.through.objects.filter(shown), "method", Count("pk")),
        )
    # A dataset's papers: those with a shown result on one of its boards.
    _update_changed(
        Dataset,
        datasets,
        paper_count=_count(
            Row.objects.shown().filter(paper__isnull=False, paper__withheld=False),
            "leaderboard__dataset",
            Count("paper", distinct=True),
        ),
    )


def _update_changed(model, only, **values):
    """Set the fields of the rows `only` names (ids or a query of them; every row
    for None) to these expressions, writing only the rows they change.

    An UPDATE writes each row it names again, changed or not, and on
    PostgreSQL a new version of it and of its index entries (the names'
    trigram indexes among them): setting every paper's flags was the largest
    statement of a load there (3.8 s of 31 at the archive's size).
    """
    rows = model.objects.all() if only is None else model.objects.filter(pk__in=only)
    differs = functools.reduce(
        operator.or_, (~Q(**{name: value}) for name, value in values.items())
    )
    rows.filter(differs).update(**values)


def _refresh_busiest_tasks():
    """BusiestTask from the task counts just set: each area's tasks with the most boards."""
    ranked = Task.areas.through.objects.annotate(
        place=Window(
            RowNumber(),
            partition_by=[F("area")],
            order_by=[F("task__leaderboard_count").desc(), F("task__name"), F("task")],
        )
    )
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # Two editors' decisions (or two loads) end here at once. Under READ
            # COMMITTED the second's delete would not see the rows the first
            # inserted, and its inserts would break the unique places: one
            # writer at a time; readers do not wait.
            table = connection.ops.quote_name(BusiestTask._meta.db_table)
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {table} IN SHARE ROW EXCLUSIVE MODE")
        wanted = set(
            ranked.filter(place__lte=BUSIEST_PER_AREA).values_list("area_id", "task_id", "place")
        )
        have = set(BusiestTask.objects.values_list("area_id", "task_id", "place"))
        if wanted != have:
            # A few rows per area: written again whole rather than moved place by place.
            BusiestTask.objects.all().delete()
            BusiestTask.objects.bulk_create(
                BusiestTask(area_id=area, task_id=task, place=place) for area, task, place in wanted
            )


def _refresh_totals():
    """The site's totals on the SiteState row, made if a flushed database has none."""
    boards = Leaderboard.objects.aggregate(
        leaderboards=Count("pk"), rows=Coalesce(Sum("row_count"), 0)
    )
    totals = {
        "leaderboard_count": boards["leaderboards"],
        "row_count": boards["rows"],
        "task_count": Task.objects.filter(leaderboard_count__gt=0).count(),
        "paper_count": Paper.objects.count(),
    }
    SiteState.objects.bulk_create(
        [SiteState(pk=1, changed_at=timezone.now())], ignore_conflicts=True
    )
    SiteState.objects.filter(pk=1).update(**totals)


def tree_totals(parents, own):
    """Each node's own figure plus those of every node below it.

    `parents` maps a node to its parent (or None), `own` a node to its figure.
    A parent chain that loops (editors can set parents) counts each node once.
    """
    totals = dict(own)
    for node, figure in own.items():
        seen = {node}
        parent = parents.get(node)
        while parent is not None and parent not in seen and parent in totals:
            totals[parent] += figure
            seen.add(parent)
            parent = parents.get(parent)
    return totals


def _refresh_tree_counts():
    """Task.tree_leaderboard_count from the own counts just set; only changed tasks written."""
    tasks = list(
        Task.objects.values_list("pk", "parent_id", "leaderboard_count", "tree_leaderboard_count")
    )
    totals = tree_totals(
        {pk: parent for pk, parent, _, _ in tasks}, {pk: own for pk, _, own, _ in tasks}
    )
    changed = [(totals[pk], pk) for pk, _, _, stored in tasks if totals[pk] != stored]
    if changed:
        quote = connection.ops.quote_name
        sql = (
            f"UPDATE {quote(Task._meta.db_table)} SET {quote('tree_leaderboard_count')} = %s "
            "WHERE id = %s"
        )
        with connection.cursor() as cursor:
            cursor.executemany(sql, changed)


def _link_tasks_to_areas(boards=None):
    """A task belongs to every area one of its leaderboards (of `boards`, when given)
    is filed under."""
    through = Task.areas.through
    filed = LeaderboardArea.objects.all()
    if boards is not None:
        filed = filed.filter(leaderboard__in=boards)
    wanted = set(filed.values_list("leaderboard__task_id", "area_id").distinct())
    linked = through.objects.all()
    if boards is not None:
        linked = linked.filter(task__in={task for task, _ in wanted})
    have = set(linked.values_list("task_id", "area_id"))
    through.objects.bulk_create(
        [through(task_id=task, area_id=area) for task, area in wanted - have],
        batch_size=1000,
    )

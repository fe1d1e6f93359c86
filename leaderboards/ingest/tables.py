"""A chunk's pages written a table at a time: boards, their areas, metrics, rows,
metric values, snapshots and verifications, one statement a table for the chunk.

Rows, metrics and values go in as tuples under ids reserved for them, not as
model instances (see insert_rows); the writer calls these in the order the
foreign keys need.
"""

from django.db import connection
from django.utils import timezone

from leaderboards.format import derive
from leaderboards.format.page import PAGE_KEYS, slug_of
from leaderboards.format.rules import archive_says_code, row_tags
from leaderboards.models import (
    Leaderboard,
    LeaderboardArea,
    Metric,
    MetricValue,
    Row,
    RowVerification,
    SyntologySnapshot,
    page_version_now,
)
from leaderboards.upkeep.bulk import insert as _insert
from leaderboards.upkeep.bulk import reserve_ids
from leaderboards.upkeep.bulk import update as _update_rows
from leaderboards.upkeep.snapshot_changes import store_comparisons


def create_boards(items, catalogue):
    """Insert the boards of pages not stored yet, with the figures their pages gave."""
    boards = create(
        Leaderboard,
        [
            Leaderboard(slug=item.slug, **_board_fields(item, catalogue), **item.prepared.figures)
            for item in items
        ],
    )
    for item, board in zip(items, boards, strict=True):
        item.board = board


def replace_boards(items, catalogue):
    """Rewrite stored boards from their newer pages, and clear what the pages
    write again: their rows, metrics and areas. A board keeps its id."""
    now = timezone.now()
    for item in items:
        item.board = Leaderboard(pk=item.current.pk, slug=item.slug)
        # A board this run wrote before (the same page twice) carries its flag on.
        item.board.decided = getattr(item.current, "decided", False)
        for name, value in _board_fields(item, catalogue).items():
            setattr(item.board, name, value)
        item.board.updated_at = now
    _update(Leaderboard, BOARD_FIELDS, [item.board for item in items])
    ids = [item.board.pk for item in items]
    if ids:
        Row.objects.filter(leaderboard__in=ids).delete()
        Metric.objects.filter(leaderboard__in=ids).delete()
        LeaderboardArea.objects.filter(leaderboard__in=ids).delete()


def insert_areas(items, areas):
    """Each board's areas, in the order its page lists them."""
    create(
        LeaderboardArea,
        [
            LeaderboardArea(
                leaderboard_id=item.board.pk,
                area_id=areas[name].pk,
                position=index,
            )
            for item in items
            for index, name in enumerate(item.page["categories"])
        ],
        ids=False,
    )


def insert_values(items):
    _insert(MetricValue, VALUE_FIELDS, [value for item in items for value in _values(item)])


def insert_verifications(items):
    """A snapshot of each page a verification has read, and its rows' verifications,
    each snapshot with its comparison with the board's one read before (the history's).

    A page no verification has read has no snapshot; an older one stays history.
    """
    verified = [item for item in items if item.page["syntology"] is not None]
    snapshots = create(
        SyntologySnapshot,
        [
            SyntologySnapshot(
                leaderboard_id=item.board.pk,
                read_at=item.read_at,
                **_snapshot_fields(item.page, item.sha),
            )
            for item in verified
        ],
    )
    _insert(
        RowVerification,
        VERIFICATION_FIELDS,
        [
            verification
            for snapshot, item in zip(snapshots, verified, strict=True)
            for verification in _verifications(snapshot, item)
        ],
    )
    # Never older than the board's stored snapshots (the writer refuses an older
    # page), so none stored has its comparison changed by these.
    store_comparisons([snapshot.pk for snapshot in snapshots])


def _board_fields(item, catalogue):
    page = item.page
    return {
        "task_id": catalogue.tasks[slug_of(page["task"]["url"])].pk,
        "dataset_id": catalogue.datasets[slug_of(page["dataset"]["url"])].pk,
        "category_id": catalogue.areas[page["category"]].pk if page["category"] else None,
        "category_note": page["category_note"],
        "description": page["description"],
        "description_from": page["description_from"],
        "source": page["source"],
        "direction_note": page["metric_direction"]["note"],
        "extra": {key: page[key] for key in page if key not in PAGE_KEYS},
        "source_sha256": item.sha,
        "read_at": item.read_at,
        # Raised with the rows, in their transaction: retires this board's cached pages.
        "version": page_version_now(),
    }


BOARD_FIELDS = (
    "task",
    "dataset",
    "category",
    "category_note",
    "description",
    "description_from",
    "source",
    "direction_note",
    "extra",
    "source_sha256",
    "read_at",
    "updated_at",
    "version",
)


VALUE_FIELDS = ("row", "metric", "raw", "number", "position")


METRIC_FIELDS = (
    "id",
    "leaderboard",
    "name",
    "position",
    "source_direction",
    "editor_direction",
    "order_lean",
    "order_agree",
    "order_pairs",
)


def insert_metrics(items):
    """Insert each page's metrics, in order, under ids reserved for them; no
    editor's direction (that is a decision, applied after the rows are written).
    The first metric carries how its values run down the archive's order.

    Tuples, not Metric instances: building 50,000 of them was half a second of a load.
    """
    ids = iter(reserve_ids(Metric, sum(len(item.page["metrics"]) for item in items)))
    values = []
    for item in items:
        by_metric = item.page["metric_direction"]["by_metric"]
        item.metric_ids = {name: next(ids) for name in item.page["metrics"]}
        order = item.prepared.order
        for position, (name, pk) in enumerate(item.metric_ids.items()):
            lean, agree, pairs = (
                (order.lean, order.agree, order.pairs) if position == 0 else (None, 0, 0)
            )
            values.append(
                (pk, item.board.pk, name, position, by_metric[name], None, lean, agree, pairs)
            )
    _insert(Metric, METRIC_FIELDS, values)


def _values(item):
    """A page's metric values as inserted, each row's in the order of its `metrics`."""
    metric_ids = item.metric_ids
    return [
        (pk, metric_ids[metric], raw, number, position)
        for pk, data, numbers in zip(
            item.row_ids, item.page["rows"], item.prepared.numbers, strict=True
        )
        for position, ((metric, raw), number) in enumerate(
            zip(data["metrics"].items(), numbers, strict=True)
        )
    ]


def _snapshot_fields(page, sha):
    block = page["syntology"]
    known = {"read_at", "claim", *derive.syntology_figures([]).keys()}
    return {
        "read_at_text": block["read_at"],
        "claim": block["claim"],
        "distinct_papers_note": (block.get("samples_over_distinct_papers") or {}).get("note"),
        "row_weighted_note": (block.get("samples_row_weighted") or {}).get("note"),
        "since_archive": page["since_archive"],
        "extra": {key: block[key] for key in block if key not in known},
        "source_sha256": sha,
    }


VERIFICATION_FIELDS = (
    "snapshot",
    "row",
    "rank",
    "model",
    "n_ran",
    "n_unverified",
    "n_pointer_only_licence",
)


def _verifications(snapshot, item):
    return [
        (
            snapshot.pk,
            pk,
            data["rank_in_archive_order"],
            data["model"],
            data["syntology"]["n_ran"],
            data["syntology"]["n_unverified"],
            data["syntology"]["n_pointer_only_licence"],
        )
        for pk, data in zip(item.row_ids, item.page["rows"], strict=True)
        if data["syntology"] is not None
    ]


ROW_FIELDS = (
    "leaderboard",
    "rank",
    "model",
    "uses_additional_data",
    "paper",
    "paper_title",
    "paper_url",
    "paper_date",
    "code",
    "n_code_links",
    "extra",
    "archive_says_code",
    "tags",
    "key",
    "model_slug",
    "withheld",
    "withheld_reason",
)


def insert_rows(items, papers):
    """Insert the pages' rows (COPY or executemany) under ids reserved for them,
    each item's ids kept in its row_ids.

    Tuples, not Row instances: building 150,000 model instances for a full
    dump cost a fifth of the load, and nothing here needs what one gives.
    """
    ids = iter(reserve_ids(Row, sum(len(item.page["rows"]) for item in items)))
    values = []
    for item in items:
        board, prepared = item.board.pk, item.prepared
        item.row_ids = [next(ids) for _ in item.page["rows"]]
        values += [
            (pk, board, data["rank_in_archive_order"], data["model"],
             data["uses_additional_data"], papers[paper].pk if paper else None,
             data["paper_title"], data["paper_url"], date, data["code"],
             data["n_code_links"], extra, archive_says_code(extra), row_tags(extra),
             key, model, False, "")
            for pk, data, paper, date, extra, key, model in zip(
                item.row_ids, item.page["rows"], prepared.papers, prepared.dates,
                prepared.extras, prepared.keys, prepared.model_slugs, strict=True,
            )
        ]  # fmt: skip
    _insert(Row, ("id", *ROW_FIELDS), values)


def create(model, objects, ids=True):
    """Insert model instances as bulk.insert does, each field's default or auto_now
    applied as the ORM would, under ids reserved for them (none if not `ids`:
    nothing refers to a board's areas).

    Not bulk_create: it compiles every field of every object into its SQL, and
    for the boards, metrics and papers of 15,000 pages that was a quarter of a
    load's time.
    """
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    if ids:
        for obj, pk in zip(objects, reserve_ids(model, len(objects)), strict=True):
            obj.pk = pk
        fields.insert(0, model._meta.pk)
    _insert(
        model,
        [field.name for field in fields],
        [[field.pre_save(obj, True) for field in fields] for obj in objects],
    )
    for obj in objects:
        obj._state.adding = False
        obj._state.db = connection.alias
    return objects


def _update(model, names, objects):
    """UPDATE the named fields of model instances by primary key (bulk.update)."""
    fields = [model._meta.get_field(name) for name in names]
    _update_rows(
        model, names, [(obj.pk, *(getattr(obj, f.attname) for f in fields)) for obj in objects]
    )

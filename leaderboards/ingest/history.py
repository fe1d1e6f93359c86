"""What a load changes in a board's data, recorded inside the load's transaction.

The writer replaces a board's rows whole: before it deletes them, `stored_rows`
reads what they said (only the boards being rewritten, three queries a batch),
and after it writes the page `Recorder.record` compares the two by row key
(format.rules.row_keys: model and paper, numbered if repeated) and keeps a
BoardChange where anything differs. The strings compared and kept are the
metric values as the files wrote them (MetricValue.raw), never numbers read
from them.

`changes`, compact JSON, is
    {"added": [row, ...], "removed": [row, ...], "changed": [value, ...]}
where a row is {"rank", "model", "values": {metric: string}} and a value is
{"rank", "model", "metric", "old", "new"} (a metric the row did not have is
null on that side). Each list keeps its first LIMIT entries in rank order;
the counts of BoardChange are always whole.
"""

from django.db.models import F
from django.utils import timezone

from leaderboards.ingest.tables import create
from leaderboards.models import BoardChange, DataLoad, Metric, MetricValue, Row

# Entries kept per kind and load: a page replaced with 100,000 new rows
# records its counts whole and the first rows only.
LIMIT = 200
# Boards a DataLoad names (the feed's entry), of all it added or changed.
NAMED = 20


def stored_rows(boards):
    """{board id: {row key: (rank, model, {metric: raw})}} of these boards, as stored now.

    Three queries: the metrics' names apart, so the values are read from their own table.
    """
    found: dict[int, dict[str, tuple]] = {board: {} for board in boards}
    if not boards:
        return found
    rows: dict[int, tuple] = {}
    for pk, board, key, rank, model in Row.objects.filter(leaderboard__in=boards).values_list(
        "pk", "leaderboard_id", "key", "rank", "model"
    ):
        rows[pk] = (rank, model, {})
        found[board][key] = rows[pk]
    names = dict(Metric.objects.filter(leaderboard__in=boards).values_list("pk", "name"))
    values = (
        MetricValue.objects.filter(row__leaderboard__in=boards)
        .order_by("row_id", "position")
        .values_list("row_id", "metric_id", "raw")
    )
    for row, metric, raw in values:
        rows[row][2][names[metric]] = raw
    return found


def page_rows(page, keys):
    """A page's rows as stored_rows gives stored ones, by their key digests (prepare.py)."""
    return {
        key: (data["rank_in_archive_order"], data["model"], data["metrics"])
        for key, data in zip(keys, page["rows"], strict=True)
    }


def _row(rank, model, values):
    return {"rank": rank, "model": model, "values": values}


def diff_rows(before, after):
    """(counts, changes) between two boards' rows given as stored_rows gives them.

    counts is (rows added, rows removed, values changed). A row is the same
    row by its key wherever it is ranked; a value changed is a metric whose
    string differs between the two, or that one side lacks.
    """
    added = sorted(after[key] for key in after.keys() - before.keys())
    removed = sorted(before[key] for key in before.keys() - after.keys())
    changed = []
    for key in after.keys() & before.keys():
        _, _, old = before[key]
        rank, model, new = after[key]
        if old == new:
            # Most rows of a changed page: one comparison, not one per metric.
            continue
        for metric in [*old, *(name for name in new if name not in old)]:
            if metric not in old or metric not in new or old[metric] != new[metric]:
                changed.append((rank, model, metric, old.get(metric), new.get(metric)))
    changed.sort(key=lambda entry: entry[:3])
    counts = (len(added), len(removed), len(changed))
    changes = {
        "added": [_row(*row) for row in added[:LIMIT]],
        "removed": [_row(*row) for row in removed[:LIMIT]],
        "changed": [
            {"rank": rank, "model": model, "metric": metric, "old": old, "new": new}
            for rank, model, metric, old, new in changed[:LIMIT]
        ],
    }
    return counts, changes


class Recorder:
    """A load's record of changes: its DataLoad and the BoardChanges of its chunks.

    The DataLoad is made by the first chunk that changes something and its
    counts raised at each chunk's end, both in the chunk's transaction, so a
    chunk rolled back takes its part of the record with it.
    """

    def __init__(self):
        self.started_at = timezone.now()
        self.load_id = None
        # BoardChanges written in the chunk not committed yet.
        self.pending = []
        # The first NAMED boards the load changed, as DataLoad.boards keeps them.
        self.named = []

    def load(self):
        """The load's id, made now if it has none yet.

        Called by the writer in the chunk's transaction before a batch's
        savepoint: a batch rolled back and written again page by page keeps it.
        """
        if self.load_id is None:
            self.load_id = DataLoad.objects.create(started_at=self.started_at).pk
            self._made_in_chunk = True
        return self.load_id

    def begin_chunk(self):
        self.pending = []
        self._kept_load = self.load_id
        self._kept_named = list(self.named)
        self._made_in_chunk = False

    def chunk_failed(self):
        """The chunk's transaction rolled back: so did its DataLoad, if it made it."""
        self.load_id = self._kept_load
        self.named = self._kept_named
        self.pending = []

    def record(self, items, before):
        """Write the BoardChanges of written pages (tables.py set item.board) that changed data.

        `before` is stored_rows() of the rewritten boards, read before their rows went.
        """
        now = timezone.now()
        changes = []
        for item in items:
            after = page_rows(item.page, item.prepared.keys)
            if item.current is None:
                counts, detail, created = (len(after), 0, 0), {}, True
            else:
                counts, detail = diff_rows(before.get(item.current.pk, {}), after)
                created = False
                if not any(counts):
                    continue
            changes.append(
                BoardChange(
                    load_id=self.load_id,
                    leaderboard_id=item.board.pk,
                    made_at=now,
                    version=item.board.version,
                    sha256_before="" if created else item.current.source_sha256,
                    sha256_after=item.sha,
                    created=created,
                    rows_added=counts[0],
                    rows_removed=counts[1],
                    values_changed=counts[2],
                    changes=detail,
                )
            )
            changes[-1].board_slug = item.slug
        if changes:
            # As the boards are inserted (tables.create): a first import records every board.
            create(BoardChange, changes)
        return changes

    def kept(self, changes):
        """The batch's changes committed with it (its savepoint released)."""
        self.pending += changes

    def end_chunk(self):
        """Raise the load's counts by what the chunk's committed writes recorded.

        A DataLoad made in this chunk whose writes all failed is deleted: a
        load that changes nothing leaves nothing.
        """
        if self.load_id is None:
            return
        if not self.pending:
            if self._made_in_chunk:
                DataLoad.objects.filter(pk=self.load_id).delete()
                self.load_id = self._kept_load
            return
        self.named += [[c.board_slug, c.created] for c in self.pending][: NAMED - len(self.named)]
        DataLoad.objects.filter(pk=self.load_id).update(
            boards=self.named,
            boards_added=F("boards_added") + sum(c.created for c in self.pending),
            boards_changed=F("boards_changed") + sum(not c.created for c in self.pending),
            rows_added=F("rows_added") + sum(c.rows_added for c in self.pending),
            rows_removed=F("rows_removed") + sum(c.rows_removed for c in self.pending),
            values_changed=F("values_changed") + sum(c.values_changed for c in self.pending),
        )
        self.pending = []

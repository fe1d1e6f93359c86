"""The boards, written twice in one pass: as page files (SPEC 1) in a tar, and as the
archive's evaluation-tables.json (SPEC 2.0), a tree of tasks holding their tables.

Each board's page file is its `.json` export exactly (web/export.py), so a
restore from the tar gives every board back byte for byte. The task tree is
read once (a few thousand tasks); the boards one at a time, as the tree
reaches them, and each is written to both files before the next is read.
"""

import dataclasses

from leaderboards.dumps.files import GzipOut, PageTar, record_json
from leaderboards.models import Leaderboard, Task
from leaderboards.web.export import page_document, page_json
from leaderboards.web.page_data import PageData, Unservable


@dataclasses.dataclass
class BoardTally:
    boards: int = 0
    rows: int = 0
    rows_withheld: int = 0
    tasks: int = 0
    # Boards a stored value kept from being written (their slugs).
    left_out: list = dataclasses.field(default_factory=list)


def _row(row):
    """A page file's row as evaluation-tables has it."""
    return {
        "model_name": row["model"],
        "paper_title": row["paper_title"],
        "paper_url": row["paper_url"],
        "paper_date": row["paper_date"],
        "code_links": [{"title": "", "url": row["code"]}] if row.get("code") else [],
        "model_links": [],
        "metrics": row["metrics"],
        "uses_additional_data": row["uses_additional_data"],
    }


def _table(page, dataset):
    return {
        "dataset": page["dataset"]["name"],
        "description": dataset.shown_description,
        "dataset_links": [{"title": "", "url": dataset.url}] if dataset.url else [],
        "dataset_citations": [],
        "subdatasets": [],
        "sota": {"metrics": page["metrics"], "rows": [_row(row) for row in page["rows"]]},
    }


class _Tree:
    """Every task, its children and its boards' ids, read once."""

    def __init__(self):
        self.tasks = {}
        self.children: dict[int | None, list[int]] = {}
        for task in Task.objects.prefetch_related("areas").order_by("slug"):
            self.tasks[task.pk] = task
            self.children.setdefault(task.parent_id, []).append(task.pk)
        self.boards: dict[int, list[int]] = {}
        for pk, task in Leaderboard.objects.order_by("slug").values_list("pk", "task_id"):
            self.boards.setdefault(task, []).append(pk)

    def roots(self):
        # A task whose parent is gone, or a cycle's member, would be lost below:
        # every task not reached from a root is written as a root of its own.
        reached = set()
        pending = list(self.children.get(None, []))
        while pending:
            pk = pending.pop()
            if pk not in reached:
                reached.add(pk)
                pending.extend(self.children.get(pk, []))
        return list(self.children.get(None, [])) + [
            pk for pk in self.tasks if pk not in reached and self.tasks[pk].parent_id is not None
        ]


def write_boards(tables_path, pages_path, tally):
    """evaluation-tables.json.gz and the pages' tar written: {name: (size, sha256)}."""
    tree = _Tree()
    tables = GzipOut(tables_path)
    pages = PageTar(pages_path)
    seen = set()
    try:
        tables.write(b"[")
        for index, pk in enumerate(tree.roots()):
            if index:
                tables.write(b",\n")
            _write_task(tree, pk, tables, pages, tally, seen)
        tables.write(b"]\n")
    except BaseException:
        tables.discard()
        pages.discard()
        raise
    tables.close()
    size, sha256 = pages.close()
    return (tables.size, tables.sha256), (size, sha256)


def _write_task(tree, pk, tables, pages, tally, seen):
    """One task as evaluation-tables nests it, its tables and subtasks written as reached."""
    seen.add(pk)
    task = tree.tasks[pk]
    tally.tasks += 1
    head = {
        "task": task.name,
        "description": task.shown_description,
        "categories": sorted(area.name for area in task.areas.all()),
    }
    tables.write(record_json(head)[:-1].encode() + b',"datasets":[')
    written = 0
    for board_pk in tree.boards.get(pk, []):
        table = _board(board_pk, pages, tally)
        if table is not None:
            tables.write((b"," if written else b"") + record_json(table).encode())
            written += 1
    tables.write(b'],"subtasks":[')
    children = [child for child in tree.children.get(pk, []) if child not in seen]
    for index, child in enumerate(children):
        if index:
            tables.write(b",")
        _write_task(tree, child, tables, pages, tally, seen)
    tail = {"synonyms": list(task.synonyms or []), "source_link": _link(task.source_link)}
    tables.write(b"]," + record_json(tail)[1:].encode())


def _link(url):
    return {"title": "", "url": url} if url else None


def _board(pk, pages, tally):
    """The board's page file added to the tar; its table for evaluation-tables, or None
    when a stored value keeps it from being written (counted by slug)."""
    board = Leaderboard.objects.named().get(pk=pk)
    try:
        page = page_document(PageData(board))
        text = page_json(page)
    except Unservable:
        tally.left_out.append(board.slug)
        return None
    pages.add(f"{board.slug}.json", text.encode())
    tally.boards += 1
    tally.rows += len(page["rows"])
    tally.rows_withheld += page["source"].get("rows_withheld_as_spam") or 0
    return _table(page, board.dataset)

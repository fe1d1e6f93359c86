"""The archive's five files (SPEC 2), synthetic, at any size: for tests and benchmarks.

`write_archive(folder, papers, seed)` writes evaluation-tables, papers-with-abstracts,
links-between-papers-and-code, methods and datasets, joined as the real files are:
papers name tasks of the tables and methods of the methods file (and a few that
are in neither), links name papers of the papers file (a few unknown, a few by
arXiv id only), board rows cite papers by arXiv abs or pdf URL or by another URL,
datasets name tasks and papers, methods the papers that introduced them. Counts
follow Papers with Code's at shutdown (SIZES), with small minimums. The oddities
of the real files are each present at least once at any size (ODDITIES).

Generated data never takes a real slug. Every name a slug is made from starts
with MARKER, a word glued to a digit that no real name starts with ("Synthetic
Data Generation" is a real task; "Synthetic0 ..." is not), so every slug starts
with SLUG_MARKER. A row with an empty title names its paper by arXiv id alone;
generated arXiv ids have a month of 13 or more, which arXiv never issues. The
areas are the exception: tasks and methods join the site's fixed areas
(fixtures/areas.json) and PwC's method areas, as real records do.

Papers and links are streamed: paper `i` is a pure function of the seed and
`i`, recomputed wherever another file cites it, so nothing holds a list as long
as the papers file. Tasks, boards, datasets and methods (under 40,000 at full
size) are planned in memory first. The same seed gives the same bytes.
"""

import dataclasses
import gzip
import io
import json
from pathlib import Path

from tools.synthetic_archive.catalogue import dataset_record, plan, sizes_for, task_record
from tools.synthetic_archive.papers import link_records, paper, paper_record

# The five files, in the order an import takes them (leaderboards.ingest.records).
FILES = (
    "evaluation-tables",
    "papers-with-abstracts",
    "links-between-papers-and-code",
    "methods",
    "datasets",
)


class _ArrayFile:
    """A JSON array written one record at a time, gzipped or not."""

    def __init__(self, path, gzipped):
        self.raw = open(path, "wb")  # noqa: SIM115 (closed by close())
        stream = self.raw
        if gzipped:
            # No name and no time in the header, so a seed's bytes never change.
            self.zipped = gzip.GzipFile(
                filename="", mode="wb", fileobj=self.raw, compresslevel=6, mtime=0
            )
            stream = self.zipped
        self.stream = io.BufferedWriter(stream, 1 << 20)
        self.count = 0
        self.stream.write(b"[")

    def write(self, record):
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        self.stream.write((",\n" if self.count else "\n").encode() + text.encode())
        self.count += 1

    def close(self, complete=True):
        """Close the file; one not `complete` is left without its closing bracket."""
        try:
            if complete:
                self.stream.write(b"\n]\n")
            self.stream.close()
        finally:
            self.raw.close()


@dataclasses.dataclass
class Written:
    """What write_archive wrote: records per file, and the board rows."""

    records: dict = dataclasses.field(default_factory=dict)
    rows: int = 0


def file_name(kind, gzipped=False):
    return f"{kind}.json" + (".gz" if gzipped else "")


def write_archive(folder, papers, seed, gzipped=False):
    """Write the five files into `folder` for `papers` papers; return what was written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    catalogue = plan(seed, sizes_for(papers))
    files = {kind: _ArrayFile(folder / file_name(kind, gzipped), gzipped) for kind in FILES}
    written = Written()
    complete = False
    try:
        for task in catalogue.tasks:
            if task.parent is None:
                files["evaluation-tables"].write(task_record(seed, catalogue, task))
        written.rows = sum(board.rows for board in catalogue.boards)
        for index in range(papers):
            item = paper(seed, index)
            files["papers-with-abstracts"].write(paper_record(seed, item, catalogue))
            for link in link_records(seed, item):
                files["links-between-papers-and-code"].write(link)
        for method in catalogue.methods:
            files["methods"].write(method.record)
        for dataset in catalogue.datasets:
            files["datasets"].write(dataset_record(seed, catalogue, dataset))
        complete = True
    finally:
        # A run stopped part way leaves files no reader takes for whole.
        for kind, array in files.items():
            array.close(complete)
            written.records[kind] = array.count
    return written

"""Loading page files into the database.

Each file is read and checked whole before anything is written, then handed
to the one writer (ingest/writer.py), which writes it in a chunk with the
others: a bad file changes nothing and the others go on.
"""

import hashlib
from functools import partial
from pathlib import Path

from leaderboards.format.page import PageError, check_page, check_size, check_unicode, read_page
from leaderboards.format.rules import compact_json, row_keys
from leaderboards.ingest.writer import LoadReport, Source, Writer

__all__ = ["LoadReport", "Loader", "check_built", "page_files", "row_keys"]


def page_files(paths):
    """Every regular, non-hidden file under the given files and folders, sorted."""
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            found.extend(
                child
                for child in path.rglob("*")
                if child.is_file()
                and not any(part.startswith(".") for part in child.relative_to(path).parts)
            )
        else:
            found.append(path)
    return sorted(found)


def _read_file(path):
    try:
        # Refuse an oversized file before reading it into memory.
        check_size(path.stat().st_size)
        data = path.read_bytes()
    except OSError as error:
        raise PageError("(file)", f"cannot read: {error.strerror}") from None
    return read_page(data)


def check_built(page):
    """Check a page dict as if read from a file; its hash is that of its compact JSON."""
    check_unicode(page)
    data = compact_json(page).encode()
    return page, hashlib.sha256(data).hexdigest(), check_page(page)


class Loader:
    def __init__(self, dry_run=False):
        self.writer = Writer(dry_run=dry_run)
        self.report = self.writer.report

    def load(self, paths, progress=None):
        """Load page files from files and folders; progress(done, total) after each chunk."""
        files = page_files(paths)
        sources = (Source(str(path), partial(_read_file, path)) for path in files)
        return self.writer.write(sources, progress and (lambda done: progress(done, len(files))))

    def load_pages(self, pages, progress=None):
        """Load page dicts a program built, as (name, page) pairs, checked as files are.

        progress(done) is called after each chunk.
        """
        sources = (Source(name, partial(check_built, page)) for name, page in pages)
        return self.writer.write(sources, progress)

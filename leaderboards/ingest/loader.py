"""Loading page files into the database.

Each file is read and checked whole before anything is written, then handed
to the one writer (ingest/writer.py), which writes it in a chunk with the
others: a bad file changes nothing and the others go on.
"""

import hashlib
from functools import partial

from leaderboards.format.page import PageError, check_page, check_values, read_page
from leaderboards.format.rules import compact_json, row_keys
from leaderboards.ingest.files import page_files, read_file
from leaderboards.ingest.writer import LoadReport, Source, Writer

__all__ = ["LoadReport", "Loader", "check_built", "page_files", "row_keys"]


def _read_file(path):
    try:
        return read_page(read_file(path))
    except PageError:
        raise
    except (RecursionError, ValueError) as error:
        # The checks are meant to leave nothing for Python to choke on; should
        # one slip through, this file fails alone, by name, and the batch goes on.
        raise PageError("(file)", f"cannot be read as a page: {error!r}") from None


def check_built(page):
    """Check a page dict as if read from a file; its hash is that of its compact JSON."""
    try:
        check_values(page)
        warnings = check_page(page)
        data = compact_json(page).encode()
    except PageError:
        raise
    except (RecursionError, ValueError, TypeError) as error:
        raise PageError("(page)", f"cannot be stored as a page: {error!r}") from None
    return page, hashlib.sha256(data).hexdigest(), warnings


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

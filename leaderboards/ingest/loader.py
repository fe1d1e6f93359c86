"""Loading page files into the database.

Each file is read and checked whole before anything is written, then handed
to the one writer (ingest/writer.py), which writes it in a chunk with the
others: a bad file changes nothing and the others go on.

A large load reads and checks its files in a second process, a few chunks
ahead of the writer: reading and checking was a sixth of a load's time, and
on a machine with more than one core it now runs beside the writing.
"""

import collections
import hashlib
import itertools
import multiprocessing
import os
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor
from functools import partial

from leaderboards.format.page import PageError, check_page, check_values, read_page
from leaderboards.format.rules import compact_json, row_keys
from leaderboards.ingest.files import page_files, read_file, start_reader
from leaderboards.ingest.prepare import prepare
from leaderboards.ingest.sources import LoadReport, ReadPage, Source
from leaderboards.ingest.writer import CHUNK, Writer

# Fewer files than this are read in the writer's process: starting a second
# Python with Django costs about a second, which a small load does not win back.
READ_AHEAD_FILES = 4 * CHUNK
# Chunks read ahead of the writer: enough to keep the reader busy, few enough
# that the pages waiting for the writer stay a few megabytes.
CHUNKS_AHEAD = 2

__all__ = ["LoadReport", "Loader", "check_built", "page_files", "row_keys"]


def _read_file(path):
    """The ReadPage of a page file, or its PageError."""
    try:
        page, sha, warnings = read_page(read_file(path))
        return ReadPage(page, sha, warnings, prepare(page))
    except PageError:
        raise
    except (RecursionError, ValueError) as error:
        # The checks are meant to leave nothing for Python to choke on; should
        # one slip through, this file fails alone, by name, and the batch goes on.
        raise PageError("(file)", f"cannot be read as a page: {error!r}") from None


def check_built(page):
    """Check a page dict as if read from a file, and prepare it for the writer;
    its hash is that of its compact JSON."""
    try:
        check_values(page)
        warnings = check_page(page)
        data = compact_json(page).encode()
        prepared = prepare(page)
    except PageError:
        raise
    except (RecursionError, ValueError, TypeError) as error:
        raise PageError("(page)", f"cannot be stored as a page: {error!r}") from None
    return ReadPage(page, hashlib.sha256(data).hexdigest(), warnings, prepared)


class Loader:
    def __init__(self, dry_run=False):
        self.writer = Writer(dry_run=dry_run)
        self.report = self.writer.report

    def load(self, paths, progress=None):
        """Load page files from files and folders; progress(done, total) after each chunk."""
        files = page_files(paths)
        if len(files) >= READ_AHEAD_FILES and len(os.sched_getaffinity(0)) > 1:
            sources = _read_ahead(files)
        else:
            sources = (Source(str(path), partial(_read_file, path)) for path in files)
        try:
            return self.writer.write(
                sources, progress and (lambda done: progress(done, len(files)))
            )
        finally:
            # Stops the reader at once should the writer stop early.
            sources.close()

    def load_pages(self, pages, progress=None):
        """Load page dicts a program built, as (name, page) pairs, checked as files are.

        progress(done) is called after each chunk.
        """
        sources = (Source(name, partial(check_built, page)) for name, page in pages)
        return self.writer.write(sources, progress)


def _read_ahead(files):
    """Sources for files read and checked in a second process, CHUNKS_AHEAD chunks ahead;
    the first chunk's are read in this one while that process starts.

    Each source gives what reading it in this process would: the checked page,
    or the same PageError. The reader is started fresh ("spawn"), not forked
    from a process that holds database connections and threads.
    """
    batches = itertools.batched(files, CHUNK)
    first = next(batches, ())
    pool = ProcessPoolExecutor(
        1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=start_reader,
        initargs=(os.getpid(),),
    )
    try:
        pending = collections.deque(
            (batch, pool.submit(_read_files, batch))
            for batch in itertools.islice(batches, CHUNKS_AHEAD)
        )
        # The reader takes a second and more to start (a fresh Python and
        # Django) and to read its first chunk, which the writer waited for: 1.9
        # s of a 15,000-board load's 27. The first chunk is read here meanwhile
        # (0.3 s), as a small load's files are.
        for path in first:
            yield Source(str(path), partial(_read_file, path))
        while pending:
            batch, future = pending.popleft()
            try:
                # Submitting to a reader already killed raises as its result does.
                if (following := next(batches, None)) is not None:
                    pending.append((following, pool.submit(_read_files, following)))
                results = future.result()
            except BrokenExecutor as error:
                # Killed (out of memory, say): the writer finishes the chunks
                # it wrote, as for an archive cut short, and the load says why.
                raise OSError(
                    f"the process reading page files stopped before {batch[0]} ({error}); "
                    "the chunks before it are written: run the same load again"
                ) from None
            for path, (ok, result) in zip(batch, results, strict=True):
                yield Source(str(path), partial(_given, ok, result))
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _read_files(paths):
    """In the reading process: each file as (True, its ReadPage) or (False, (path,
    message)) of its PageError, which pickles only as its parts."""
    results = []
    for path in paths:
        try:
            results.append((True, _read_file(path)))
        except PageError as error:
            results.append((False, (error.path, error.message)))
    return results


def _given(ok, result):
    if ok:
        return result
    raise PageError(*result)

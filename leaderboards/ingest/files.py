"""Finding and reading page files (and the archive), refusing anything not a regular file.

A path given to a load may be a device (/dev/zero reads forever), a FIFO (a
read waits for a writer that never comes), a socket, a broken link or a link
loop. Each is refused by name, with what it is, and never opened for reading:
the kind of a file is read from its metadata first, and a file is read only up
to the page size limit. A link to a regular file is followed (a seeds folder
of links is an ordinary way to pick files); a link to a folder inside a
folder is refused rather than followed, so no loop of links can make a load
walk forever. A path named on the command line is followed whatever it is.
Hidden files and folders (a name starting with ".") are left out, as version
control and editors keep their own files there.
"""

import errno
import os
import stat
import threading
import time
from pathlib import Path

import django
from django.utils.module_loading import import_string

from leaderboards.format.page import MAX_FILE_BYTES, PageError, check_size

_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def page_files(paths):
    """Every path a load must account for under the given files and folders, sorted.

    That is each non-hidden entry but the folders walked into: links to folders,
    folders that cannot be listed and entries that are not regular files are
    listed too, so that reading them refuses them by name; nothing is left out
    without a word.
    """
    found = []
    for path in map(Path, paths):
        if not path.is_dir():
            found.append(path)
            continue
        unlisted: list[OSError] = []
        for folder, folders, files in os.walk(path, onerror=unlisted.append):
            here = Path(folder)
            folders[:] = [name for name in folders if not name.startswith(".")]
            found.extend(here / name for name in files if not name.startswith("."))
            # os.walk lists a link to a folder among the folders and does not
            # follow it; read_file refuses it by name.
            found.extend(here / name for name in folders if (here / name).is_symlink())
        # A folder that cannot be listed stands in the list for what it holds.
        found.extend(Path(error.filename) for error in unlisted)
    return sorted(found)


ORPHAN_CHECK_SECONDS = 0.5


def start_reader(parent):
    """Set up a process that reads files for a load (ingest.loader), whose process is `parent`.

    Here, not in the loader, since a new process imports this before Django is set up.
    """
    django.setup()
    # A reader outlives a killed load otherwise: it holds its own end of the
    # pipe it waits on, so the pipe never closes. Within a second of the load
    # going, so does the reader.
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()


def run_in_reader(parent, function, *args):
    """A reader process's whole work: Django set up, then `function` (a dotted path:
    importing it imports the models, which a new process can only after set-up)."""
    start_reader(parent)
    import_string(function)(*args)


def _exit_when_orphaned(parent):
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_SECONDS)
    os._exit(1)


def read_file(path):
    """The bytes of a regular page file, or PageError saying what the path is instead."""
    # Refuse an oversized file before reading it into memory.
    check_size(check_regular(path).st_size)
    try:
        # O_NONBLOCK: should the file be swapped for a FIFO after the check,
        # opening it still returns at once, and the fstat below refuses it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as error:
        raise PageError("(file)", f"cannot open: {error.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        _refuse_special(os.fstat(fd).st_mode)
        try:
            # One byte past the limit tells an oversized file from one at it,
            # should it have grown since its size was read.
            data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as error:
            raise PageError("(file)", f"cannot read: {error.strerror}") from None
    check_size(len(data))
    return data


def check_regular(path):
    """The stat of a regular file (after links), or PageError saying what the path is."""
    try:
        info = path.stat()
    except OSError as error:
        if path.is_symlink():
            if error.errno == errno.ELOOP:
                raise PageError("(file)", "a symbolic link loop; not followed") from None
            target = os.readlink(path)
            raise PageError(
                "(file)", f"a broken symbolic link (to {target}: {error.strerror})"
            ) from None
        raise PageError("(file)", f"cannot read: {error.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        if path.is_symlink():
            raise PageError("(file)", "a symbolic link to a folder; not followed")
        try:
            os.listdir(path)
        except OSError as error:
            raise PageError("(file)", f"a folder that cannot be listed: {error.strerror}") from None
    _refuse_special(info.st_mode)
    return info


def _refuse_special(mode):
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise PageError("(file)", f"{kind}, not a page file; not read")

"""Where dump sets live, how a new one replaces the old, and how the site finds the current one.

    DUMPS_DIR/
      current -> sets/<name>      a symbolic link, replaced in one rename
      sets/<name>/manifest.json   each file's size, sha256, records; data version; made at
      sets/<name>/README.txt      what each file is, how to restore a site from them
      sets/<name>/*.json.gz, pages.tar.gz

A set is written whole into a folder of its own, then `current` is pointed at
it by os.replace() of a new link (atomic on POSIX), then sets older than the
one it replaced are removed. A reader resolves `current` once, so it reads one
set's manifest and files; one already streaming a file keeps its open file
whatever is removed after. An export killed before the switch leaves
`current` as it was; its half-written folder is removed by the next export.
"""

import json
import os
import shutil
from pathlib import Path

MANIFEST = "manifest.json"
CURRENT = "current"
SETS = "sets"


def _sets(root):
    return Path(root) / SETS


def new_set(root, name):
    """A fresh, empty folder for a set named `name`."""
    folder = _sets(root) / name
    folder.mkdir(parents=True)
    return folder


def current_folder(root):
    """The current set's folder, or None when there is none."""
    link = Path(root) / CURRENT
    try:
        target = os.readlink(link)
    except OSError:
        return None
    folder = (link.parent / target).resolve()
    return folder if (folder / MANIFEST).is_file() else None


def switch_to(root, folder):
    """`current` pointed at `folder` in one rename; sets but it and the one before removed."""
    root = Path(root)
    previous = current_folder(root)
    link = root / f".{CURRENT}-{folder.name}"
    if link.is_symlink():
        link.unlink()
    link.symlink_to(Path(SETS) / folder.name)
    os.replace(link, root / CURRENT)
    keep = {folder.resolve(), previous}
    for old in _sets(root).iterdir():
        # The set just replaced stays one export more: a reader that resolved
        # `current` a moment ago still finds the files its manifest lists.
        if old.resolve() not in keep:
            shutil.rmtree(old, ignore_errors=True)


def read_manifest(root):
    """(folder, manifest) of the current set, or (None, None)."""
    folder = current_folder(root)
    if folder is None:
        return None, None
    try:
        return folder, json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, None


def listed_file(root, name):
    """(path, entry) of a file the current manifest lists under `name`, else (None, None).

    Only a name the manifest lists is ever opened: no path from the request
    reaches the filesystem.
    """
    folder, manifest = read_manifest(root)
    if manifest is None:
        return None, None
    for entry in manifest.get("files", []):
        # A listed name is a file of the set's folder, never a path out of it.
        if entry.get("name") == name and "/" not in name and name not in (".", ".."):
            return folder / name, entry
    return None, None

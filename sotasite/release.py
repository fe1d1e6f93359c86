"""What release of the site this is, as the page cache needs to know it."""

import hashlib

# What renders a page: its code, templates and assets.
RENDERING = ("leaderboards", "sotasite", "templates", "static")
RENDERING_SUFFIXES = {".py", ".html", ".txt", ".css", ".js", ".svg"}


def code_version(base):
    """A digest of what renders the pages, under `base`: the page cache's namespace.

    Pages and their prepared parts are kept under the data's versions, which a
    deploy does not change: a shared cache (Redis, a folder) kept serving the
    previous release's pages, and parts pickled by its classes, until the data
    next changed. Under a namespace of its release, a deploy that changes how
    pages render starts with none of them; the old entries age out.
    """
    digest = hashlib.sha256()
    for folder in RENDERING:
        for path in sorted((base / folder).rglob("*")):
            if path.suffix in RENDERING_SUFFIXES and path.is_file():
                digest.update(path.relative_to(base).as_posix().encode() + b"\0")
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]

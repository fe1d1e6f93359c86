"""/dumps/: the full dumps (issue #30), listed with their checksums and downloaded in ranges.

Read from the current set's manifest alone (dumps/sets.py), never the
database. A file is found only by a name its manifest lists, so no part of the
address reaches the filesystem; it is streamed from an open file, so a new set
switched in meanwhile never mixes into it.
"""

import re

from django.conf import settings
from django.http import FileResponse, Http404, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_safe

from leaderboards.dumps import sets

STREAM_CHUNK = 64 * 1024
# One range of bytes: "a-b", "a-" or "-n" (RFC 9110 14.1.2).
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")
CONTENT_TYPES = {".gz": "application/gzip", ".txt": "text/plain; charset=utf-8"}


def _fresh(response):
    # The set changes with each export, which need not change the data
    # version the page cache keys pages by: never kept as a page.
    patch_cache_control(response, no_cache=True)
    return response


def shown_counts(counts):
    """A file's counts as the page words them: [("rows withheld", 3), ...]; a list (the
    boards left out) by its length."""
    return [
        (name.replace("_", " "), len(value) if isinstance(value, list) else value)
        for name, value in counts.items()
        if not isinstance(value, list) or value
    ]


@require_safe
def dumps_index(request):
    _, manifest = sets.read_manifest(settings.SOTASITE_DUMPS_DIR)
    for entry in (manifest or {}).get("files", []):
        entry["shown_counts"] = shown_counts(entry.get("counts") or {})
    return _fresh(render(request, "leaderboards/dumps.html", {"manifest": manifest}))


@require_safe
def dumps_manifest(request):
    _, manifest = sets.read_manifest(settings.SOTASITE_DUMPS_DIR)
    if manifest is None:
        raise Http404("No dumps have been written yet.")
    return _fresh(JsonResponse(manifest, json_dumps_params={"indent": 2}))


def byte_range(header, size):
    """(start, end) inclusive of a single-range header; None to send the whole file;
    "unsatisfiable" for a range that lies past the file's end.

    A header this does not read (several ranges, another unit, garbage) is
    ignored, as RFC 9110 allows: the whole file is answered.
    """
    match = _RANGE.match(header.strip()) if header else None
    if match is None or match.groups() == ("", ""):
        return None
    first, last = match.groups()
    if first == "":
        length = int(last)
        if length == 0:
            return "unsatisfiable"
        return max(size - length, 0), size - 1
    start = int(first)
    end = min(int(last), size - 1) if last else size - 1
    if last and int(last) < start:
        return None
    if start >= size:
        return "unsatisfiable"
    return start, end


class _Part:
    """`length` bytes of an open file from `start`, a chunk at a time; the file closed
    when the response is, read to its end or not (Django calls close())."""

    def __init__(self, handle, start, length):
        self.handle, self.start, self.length = handle, start, length

    def __iter__(self):
        self.handle.seek(self.start)
        left = self.length
        while left > 0:
            data = self.handle.read(min(STREAM_CHUNK, left))
            if not data:
                return
            left -= len(data)
            yield data

    def close(self):
        self.handle.close()


@require_safe
def dumps_file(request, name):
    path, entry = sets.listed_file(settings.SOTASITE_DUMPS_DIR, name)
    if path is None:
        raise Http404("No such file in the current dumps.")
    etag = f'"{entry["sha256"]}"'
    if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
        return _headers(HttpResponse(status=304), etag, name)
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed by the response)
    except FileNotFoundError:
        raise Http404("No such file in the current dumps.") from None
    size = entry["size"]
    wanted = request.headers.get("Range")
    if request.headers.get("If-Range", etag) != etag:
        wanted = None  # the client's part is of another file: send this one whole
    span = byte_range(wanted, size)
    if span == "unsatisfiable":
        handle.close()
        response = HttpResponse(status=416)
        response.headers["Content-Range"] = f"bytes */{size}"
        return _headers(response, etag, name)
    if span is None:
        response = FileResponse(handle, as_attachment=True, filename=name)
        response.headers["Content-Type"] = _content_type(name)
        return _headers(response, etag, name)
    start, end = span
    response = StreamingHttpResponse(_Part(handle, start, end - start + 1), status=206)
    response.headers["Content-Type"] = _content_type(name)
    response.headers["Content-Length"] = str(end - start + 1)
    response.headers["Content-Range"] = f"bytes {start}-{end}/{size}"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return _headers(response, etag, name)


def _content_type(name):
    return next(
        (kind for suffix, kind in CONTENT_TYPES.items() if name.endswith(suffix)),
        "application/octet-stream",
    )


def _headers(response, etag, name):
    response.headers["ETag"] = etag
    response.headers["Accept-Ranges"] = "bytes"
    # The same name holds another file after the next export: a cache asks
    # again each time, and its copy's ETag makes the answer a 304.
    patch_cache_control(response, public=True, no_cache=True)
    return response

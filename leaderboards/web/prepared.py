"""The parts of a board's page that no query string changes, built once a board version.

Most of the leaderboard page is the same whatever its query string asks: the
header, the panels under the table (provenance, verification, since the
archive), the chart of the first metric over every row, the first hundred
rows in the archive's order and the empty filter form. Built from the board's
rows on every request, they were most of an uncached page's cost. They are
built once and kept in the page cache beside the board's pages, under the
same versions (`Versions.data` and the board's `Leaderboard.version`), so the
change that retires a board's pages retires them too, and a page is never
built from one version's rows and another's header.

A request whose query string holds none of the page's own parameters (a
crawler's cache-buster, a campaign tag, nothing at all) is answered from them
without reading the board: only the links, which carry the query string
along, and the badge snippet, which names the host asked, are made for it.
Any other request (a filter, a sort, a page, a chart or a column asked for)
builds its table, its chart and its form from the rows, and still takes the
header and panels from here; the rows are those this process read for its
last view of the board at the same versions (`RowsKept`), or read afresh.

A board too large for a process to keep its rows (RowsKept) has its parts,
and the order of every sort its page offers, also made when it is loaded
(`manage.py prepare_boards`) and stored in the database under the same
versions and the release (PreparedPart): a worker that has kept nothing reads
them there before it would read every row.

Every board's page as asked with no query string at all is stored there too,
whole and compressed: a crawler's first visit since the load is that read and
the scheme and host it asked, filled in where the page names them (the
canonical link, the badge snippet), not a page rendered around the parts.

Nothing here depends on who asks but the stored page, which names the scheme
and host asked, and is served only to a request with no session cookie: a page
for one reads the session, and an editor's has its "Edit" link.
"""

import hashlib
import pickle
import zlib
from array import array
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.db import transaction
from django.template.loader import render_to_string
from django.utils.html import escape

from leaderboards.kept import Kept
from leaderboards.models import Leaderboard, PreparedPart
from leaderboards.web.filters import RowFilter
from leaderboards.web.frame import frame_tag
from leaderboards.web.page_cache import PAGE_CACHE
from leaderboards.web.table import Folding

# Raised whenever what is kept changes shape, so a shared cache filled by an
# older deploy is never read as this one's (2: the class kept was renamed, and an
# older entry would not unpickle; 3: the board's tags were added; 4: rows link their
# model's page).
FORMAT = 4

# The query-string keys that change what the page shows; any other is carried
# along in its links and changes nothing else.
PAGE_PARAMS = frozenset({"sort", "order", "page", "chart", "metrics", *RowFilter.base_filters})


@dataclass(frozen=True, slots=True)
class MetricRef:
    """A metric as the page uses it: what a model instance gave, without the instance."""

    name: str
    direction: str | None
    direction_set_by: str | None

    def __str__(self):
        return self.name


@dataclass(frozen=True, slots=True)
class PreparedBoard:
    """The parts of one board's page that no query string changes (see above)."""

    slug: str
    url: str
    json_url: str
    csv_url: str
    badge_url: str
    editorial_change_count: int
    task_name: str
    dataset_name: str
    metrics: tuple  # MetricRef, in the page's order
    checked: bool  # a verification snapshot was read
    syntology: bool  # its block is shown, so the form offers "a code sample ran"
    rows_count: int  # the page file's counts.rows
    total_count: int  # the archive's rows shown
    added_count: int  # editors' additions, listed after them
    folding: Folding  # with no column asked for and the default sort
    header_html: str  # all but its last part, which names the host asked
    unshown_html: str
    panels_html: str
    chart_html: str  # the first metric's chart over every row
    charted: bool  # that chart has points to plot
    first_rows_html: str  # the first page of rows in the archive's order
    filter_html: str  # the form with nothing filled in
    tag_counts: tuple  # (tag, rows) of the board's tags, most used first: the form offers them


def asks_for_a_view(params):
    """True when the query string holds a parameter that changes what the page shows."""
    return any(key in PAGE_PARAMS for key in params)


# Those that change which rows the .csv holds, or their order: it has every page and column.
CSV_PARAMS = frozenset({"sort", "order", *RowFilter.base_filters})


def asks_for_other_rows(params):
    """True when the query string narrows or sorts the board's .csv."""
    return any(key in CSV_PARAMS for key in params)


def _key(found):
    return f"prepared:{FORMAT}:{found.data}:{found.board_id}:{found.board}"


def _usable(found):
    return settings.SOTASITE_PAGE_CACHE and found is not None and found.board_id is not None


def kept(found):
    """The PreparedBoard kept for these versions (the page cache's for this request, or one
    made when a large board was loaded), or None."""
    if not _usable(found):
        return None
    prepared = caches[PAGE_CACHE].get(_key(found))
    if prepared is None:
        stored = _stored(found, "")
        if stored is not None:
            prepared = pickle.loads(stored)
            caches[PAGE_CACHE].set(_key(found), prepared, settings.SOTASITE_PAGE_CACHE_TIMEOUT)
    return prepared


def keep(found, board_id, prepared):
    """Keep `prepared` for the board these versions were read for, if it is that board."""
    if _usable(found) and found.board_id == board_id:
        caches[PAGE_CACHE].set(_key(found), prepared, settings.SOTASITE_PAGE_CACHE_TIMEOUT)


# Where the request's scheme and host go in the stored page (the canonical link,
# the badge snippet): a scheme no request has and a host no request can name
# (.invalid, RFC 2606). A page whose board holds either is not stored (_fillable).
ASKED_SCHEME = "sotasite-scheme-placeholder"
ASKED_HOST = "sotasite-host-placeholder.invalid"
ASKED_ORIGIN = f"{ASKED_SCHEME}://{ASKED_HOST}"


def _page_part():
    # The frame's URLs are the process's (a script prefix, the static files' names): a
    # worker whose frame differs from prepare_boards' renders the page instead.
    return f":page:{frame_tag()}"


def stored_page(found, scheme, host):
    """The board's page with no query string, as prepare_boards stored it for these
    versions, for a visitor asking on `scheme` and `host`; None where none is stored."""
    if not _usable(found):
        return None
    packed = _stored(found, _page_part())
    if packed is None:
        return None
    # As the templates write them: escaped.
    origin = f"{escape(scheme)}://{escape(host)}".encode()
    return zlib.decompress(packed).replace(ASKED_ORIGIN.encode(), origin)


def _fillable(data, page):
    """Whether the placeholders are in `page` only where the request's scheme and host go,
    so filling them in gives the page the request would have rendered: none in the board's
    `data` (its parts, pickled), and each only within the origin."""
    scheme, host, origin = (text.encode() for text in (ASKED_SCHEME, ASKED_HOST, ASKED_ORIGIN))
    return (
        scheme not in data
        and host not in data
        and page.count(scheme) == page.count(host) == page.count(origin)
    )


def _order_part(sort):
    key, index, order = sort
    # A metric by its place: its name may hold what a cache key must not.
    column = key if index is None else f"metric{index}"
    return f":order:{column}:{order}"


def kept_order(found, sort):
    """The board's shown results in `sort`'s order, as order_ids() wrote them, or None.

    A view of a board too large to keep in a process (RowsKept) that narrows
    nothing reads only its page's rows along this order: sorting a 100,000-row
    board costs a second of a worker's time, and reading one page of it a few
    milliseconds. Kept beside the prepared parts, under the same versions, and
    in the process too: one-off addresses flooding a per-process page cache
    would push it out, and every view would sort the board again.
    """
    if not _usable(found):
        return None
    part = _order_part(sort)
    ids = orders_kept.get(found, part)
    if ids is None:
        packed = caches[PAGE_CACHE].get(_key(found) + part) if _shared() else None
        if packed is None:
            packed = _stored(found, part)
        if packed is None:
            return None
        ids = array("q")
        ids.frombytes(packed)
        orders_kept.put(found, ids, len(ids), part)
    return ids


def keep_order(found, board_id, sort, ids):
    if _usable(found) and found.board_id == board_id:
        ids = ids if isinstance(ids, array) else array("q", ids)
        part = _order_part(sort)
        orders_kept.put(found, ids, len(ids), part)
        if _shared():
            caches[PAGE_CACHE].set(
                _key(found) + part, ids.tobytes(), settings.SOTASITE_PAGE_CACHE_TIMEOUT
            )


def stored_key(found, part=""):
    # The release's namespace too: what the page cache's own keys are under.
    return f"{settings.PAGE_CACHE_PREFIX}:{_key(found)}{part}"


def _prepared_for(found):
    # The board says where its parts are, read with its versions: a board not prepared
    # for them (an editor's change since, a new release) costs its first visit no look.
    return bool(found.board_prepared) and found.board_prepared == stored_key(found, "")


def _large(found):
    # Only a board no worker keeps has its orders and files stored too.
    return found.board_rows is not None and found.board_rows > rows_kept.max_size


def _stored(found, part):
    """What prepare_boards stored of the board for these versions, or None."""
    if not _prepared_for(found):
        return None
    key = stored_key(found, part)
    stored = PreparedPart.objects.filter(key=key).values_list("content", flat=True).first()
    return None if stored is None else bytes(stored)


def stored_file(found, kind):
    """The board's file ("json" or "csv") prepare_boards stored for these versions,
    compressed (zlib), or None."""
    return _stored(found, _file_part(kind)) if _usable(found) else None


def stored_file_tag(found, kind):
    """An ETag for stored_file(found, kind), or None where none could be stored: its key
    names the versions and the release it was made for, so equal keys are equal files;
    hashing the file was a few ms a request."""
    if not _usable(found) or not _prepared_for(found) or not _large(found):
        return None
    return hashlib.sha256(stored_key(found, _file_part(kind)).encode()).hexdigest()[:32]


def has_stored_file(found, kind):
    """Whether stored_file(found, kind) gives a file, without reading its megabytes."""
    key = stored_key(found, _file_part(kind))
    return (
        stored_file_tag(found, kind) is not None and PreparedPart.objects.filter(key=key).exists()
    )


def _file_part(kind):
    # Its page file (.json: 31 MB at 100,000 rows, 340 MB of a worker to make) or its
    # rows' .csv, compressed.
    return f":file:{kind}"


def store(found, board_id, prepared, orders, files, page):
    """Keep a board's PreparedBoard, its page (bytes, rendered with ASKED_ORIGIN for the
    scheme and host), and a large board's orders ({sort: ids}) and files ({"json" or
    "csv": text}), for these versions, in place of any it had: made at load time, read by
    every worker (see _stored)."""
    parts = {"": pickle.dumps(prepared, pickle.HIGHEST_PROTOCOL)}
    if _fillable(parts[""], page):
        parts[_page_part()] = zlib.compress(page, 6)
    parts.update({_order_part(sort): array("q", ids).tobytes() for sort, ids in orders.items()})
    for kind, text in files.items():
        parts[_file_part(kind)] = zlib.compress(text.encode(), 6)
    with transaction.atomic():
        PreparedPart.objects.filter(leaderboard_id=board_id).delete()
        # Two runs at once store the same parts for the same versions: the second's are spare.
        PreparedPart.objects.bulk_create(
            [
                PreparedPart(leaderboard_id=board_id, key=stored_key(found, part), content=content)
                for part, content in parts.items()
            ],
            ignore_conflicts=True,
        )
        # Only while the board is still at those versions: a change since made its parts stale.
        Leaderboard.objects.filter(pk=board_id, version=found.board).update(
            prepared_key=stored_key(found, "")
        )
    return sum(len(content) for content in parts.values())


def _shared():
    """Whether the page cache is shared with other processes: a process's own would
    hold a second copy of what orders_kept holds (14 MB for a 100,000-row board)."""
    return not isinstance(caches[PAGE_CACHE], LocMemCache)


def order_ids(items):
    """The ids of TableRows in order: a row's id, an editor-added result's negated."""
    return [item.row.pk if item.row.added is None else -item.row.added.pk for item in items]


def split_ids(ids):
    """(row ids, editor-added result ids) of order_ids()' `ids`."""
    return tuple(i for i in ids if i > 0), tuple(-i for i in ids if i < 0)


def render_part(name, context):
    return render_to_string(f"leaderboards/leaderboard/{name}.html", context)


class RowsKept(Kept):
    """The rows of the boards this process last built a view of, by the versions they were read at.

    A view of a board (a sort, a page, a filter) needs every row: reading and
    building the 2,000 of the big board cost 25 of a sorted page's 29 ms, and
    the next view of the same board, a visitor's next click, read them again.
    Bounded by rows, not boards, so a few big boards cannot hold a worker's
    memory; a board over the bound is never kept. The views sort and filter copies.
    """

    def get(self, found, part=""):
        """What put() kept for these versions (and `part` of the board), or None."""
        return super().get(_key(found) + part) if _usable(found) else None

    def put(self, found, data, rows, part=""):
        if _usable(found):
            super().put(_key(found) + part, data, rows)


# 20,000 rows of two metrics are about 25 MB of a worker's memory (1.3 KB a row, measured).
rows_kept = RowsKept(max_size=20_000)
# The orders of boards too large for it, 8 bytes a result: 24 MB at most, all the
# orders of a 100,000-row board of four metrics.
orders_kept = RowsKept(max_size=3_000_000)

"""Atom feeds: the newest results, by paper date; the editors' changes, newest first;
what loads changed in one board's data, and what each load changed across the site.

XML 1.0 cannot carry a C0 control. Page files and editors' forms may not give
one now, but text stored before that rule may hold one: the feeds replace it
(rules.xml_text) rather than fail every reader.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, time
from urllib.parse import urlencode

from django.contrib.syndication.views import Feed
from django.db.models import F
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from leaderboards.format.rules import paper_name, xml_text
from leaderboards.models import BoardChange, DataLoad, Leaderboard, Row
from leaderboards.web.views.changes import RecordParams, record_entries
from leaderboards.web.words import counted

ITEMS = 50


def _xml(value):
    """Every string in a feed's or item's fields made XML 1.0, in lists and tuples too."""
    if isinstance(value, list | tuple):
        return type(value)(_xml(item) for item in value)
    return xml_text(value)


class XmlSafeAtom1Feed(Atom1Feed):
    """Atom whatever the stored text holds: each field passes through rules.xml_text."""

    def __init__(self, *args, **kwargs):
        super().__init__(*_xml(args), **{name: _xml(value) for name, value in kwargs.items()})

    def add_item(self, *args, **kwargs):
        super().add_item(*_xml(args), **{name: _xml(value) for name, value in kwargs.items()})


class NewestResultsFeed(Feed):
    feed_type = XmlSafeAtom1Feed
    title = "Newest results · sotasite"
    subtitle = "The newest results on the leaderboards, by the date of their paper."

    def link(self):
        return reverse("leaderboards:home")

    def items(self):
        return Row.objects.newest_results()[:ITEMS]

    def item_title(self, row):
        return f"{row.model} on {row.leaderboard}"

    def item_description(self, row):
        return paper_name(row.paper_title, row.paper_url)

    def item_link(self, row):
        return row.leaderboard.get_absolute_url()

    def item_guid(self, row):
        return f"{row.leaderboard.slug}#{row.rank}"

    item_guid_is_permalink = False

    def item_pubdate(self, row):
        return None

    def item_updateddate(self, row):
        return datetime.combine(row.paper_date, time(), tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class _Record:
    board: object  # a Leaderboard or None
    entries: object  # the entries asked for, newest first


class EditorialChangesFeed(Feed):
    """The record of /changes/ as a feed; `?board=<slug>` keeps to one board, as the page does."""

    feed_type = XmlSafeAtom1Feed

    def get_object(self, request):
        # The page's own parameters (board, kind, batch), read as the page reads them.
        # One Feed serves every request: what a request asks travels in what this returns.
        params = RecordParams(request.GET)
        if not params.is_valid():
            raise Http404("Not a filter of the record.")
        return _Record(*record_entries(params.cleaned_data))

    def title(self, record):
        board = record.board
        return f"Editorial changes{f' to {board}' if board else ''} · sotasite"

    def subtitle(self, record):
        return "What the site's editors changed on the leaderboards, newest first."

    def link(self, record):
        return _record_url(record.board)

    def items(self, record):
        return record.entries[:ITEMS]

    def item_title(self, entry):
        subject = "a result, not named here" if entry.hides_content else entry.subject
        boards = getattr(entry, "batch_boards", 1)
        where = f"{boards:,} boards" if boards > 1 else entry.target_label
        what = f"{subject} on {where}" if subject else where
        many = getattr(entry, "batch_size", 1)
        if many > 1 and boards == 1:
            what += f" ({many:,} at once)"
        return f"{entry.get_kind_display().capitalize()}: {what}"

    def item_description(self, entry):
        text = f"{entry.old_value or '—'} → {entry.shown_new_value or '—'}."
        if entry.reason:
            text += f" Reason: {entry.reason}"
        if entry.suggestion_id:
            text += " Suggested by a visitor."
        return text

    def item_link(self, entry):
        if getattr(entry, "batch_size", 1) > 1:
            return f"{reverse('leaderboards:changes')}?{urlencode({'batch': entry.batch})}"
        board = entry.leaderboard if entry.leaderboard_id else None
        return f"{_record_url(board)}#change-{entry.pk}"

    def item_guid(self, entry):
        return f"editorial-change-{entry.pk}"

    item_guid_is_permalink = False

    def item_author_name(self, entry):
        return entry.editor

    def item_pubdate(self, entry):
        return entry.made_at

    def item_updateddate(self, entry):
        return entry.made_at


def _record_url(board):
    url = reverse("leaderboards:changes")
    return f"{url}?{urlencode({'board': board.slug})}" if board is not None else url


def load_summary(change):
    """What a load changed on one board, in words: the title of its feed entry and page."""
    if change.created:
        return f"board added with {counted(change.rows_added, 'row', 'rows')}"
    return (
        f"{counted(change.rows_added, 'row', 'rows')} added, "
        f"{change.rows_removed:,} removed, "
        f"{counted(change.values_changed, 'value', 'values')} changed"
    )


# Values named in an entry's text; the page and the JSON give the rest.
FEED_VALUES = 20


class BoardHistoryFeed(Feed):
    """What loads changed in one board's data, newest first (/sota/<slug>/history)."""

    feed_type = XmlSafeAtom1Feed

    def get_object(self, request, slug):
        return get_object_or_404(Leaderboard.objects.titled().without_blocks(), slug=slug)

    def title(self, board):
        return f"Data changes to {board} · sotasite"

    def subtitle(self, board):
        return "Rows added and removed and values changed by each load, newest first."

    def link(self, board):
        return reverse("leaderboards:leaderboard_history", args=[board.slug])

    def items(self, board):
        # One Feed serves every request: each change carries its board's slug for its link.
        return BoardChange.objects.of_board(board).annotate(board_slug=F("leaderboard__slug"))[
            :ITEMS
        ]

    def item_title(self, change):
        return load_summary(change).capitalize()

    def item_description(self, change):
        detail = change.changes
        lines = [
            f"{value['model']} (rank {value['rank']}), {value['metric']}: "
            f"{value['old'] if value['old'] is not None else '—'} → "
            f"{value['new'] if value['new'] is not None else '—'}"
            for value in detail.get("changed", [])[:FEED_VALUES]
        ]
        lines += [f"Added: {row['model']}" for row in detail.get("added", [])[:FEED_VALUES]]
        lines += [f"Removed: {row['model']}" for row in detail.get("removed", [])[:FEED_VALUES]]
        return ". ".join(lines) or load_summary(change)

    def item_link(self, change):
        return change.get_absolute_url()

    def item_guid(self, change):
        return f"board-change-{change.pk}"

    item_guid_is_permalink = False

    def item_pubdate(self, change):
        return change.made_at

    def item_updateddate(self, change):
        return change.made_at


class LoadsFeed(Feed):
    """What each load changed across the site: boards added, boards changed, rows added."""

    feed_type = XmlSafeAtom1Feed
    title = "Data loads · sotasite"
    subtitle = "What each load of the archive or of page files changed, newest first."

    def link(self):
        return reverse("leaderboards:leaderboard_list")

    def items(self):
        return DataLoad.objects.order_by("-pk")[:ITEMS]

    def item_title(self, load):
        return (
            f"{counted(load.boards_added, 'board', 'boards')} added, "
            f"{load.boards_changed:,} changed, "
            f"{counted(load.rows_added, 'row', 'rows')} added"
        )

    def item_description(self, load):
        text = (
            f"{counted(load.rows_removed, 'row', 'rows')} removed and "
            f"{counted(load.values_changed, 'value', 'values')} changed."
        )
        for label, added in (("Changed", False), ("Added", True)):
            slugs = [slug for slug, created in load.boards if created == added]
            if slugs:
                text += f" {label}: {', '.join(slugs)}."
        total = load.boards_added + load.boards_changed
        if total > len(load.boards):
            text += (
                f" ({total - len(load.boards):,} more boards; each board's history names its own.)"
            )
        return text

    def item_link(self, load):
        """The history of the first board the load changed, where what changed is shown."""
        if load.boards:
            return reverse("leaderboards:leaderboard_history", args=[load.boards[0][0]])
        return reverse("leaderboards:leaderboard_list")

    def item_guid(self, load):
        return f"data-load-{load.pk}"

    item_guid_is_permalink = False

    def item_pubdate(self, load):
        return load.started_at

    def item_updateddate(self, load):
        return load.started_at

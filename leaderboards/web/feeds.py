"""An Atom feed of the newest results, by paper date."""

from datetime import UTC, datetime, time

from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from leaderboards.format.rules import paper_name
from leaderboards.models import Row

ITEMS = 50


class NewestResultsFeed(Feed):
    feed_type = Atom1Feed
    title = "Newest results · sotasite"
    subtitle = "The newest results on the leaderboards, by the date of their paper."

    def link(self):
        return reverse("leaderboards:home")

    def items(self):
        return (
            Row.objects.shown()
            .filter(paper_date__isnull=False)
            .select_related("leaderboard__task", "leaderboard__dataset")
            .order_by("-paper_date", "-pk")[:ITEMS]
        )

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

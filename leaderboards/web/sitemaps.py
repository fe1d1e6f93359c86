"""sitemap.xml: every public page, one section per kind (Django splits big sections)."""

from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from leaderboards.models import (
    Area,
    Author,
    Conference,
    Dataset,
    Leaderboard,
    Method,
    MethodArea,
    MethodCategory,
    Paper,
    Task,
)


class ListSitemap(Sitemap):
    changefreq = "daily"

    def items(self):
        return [
            "home",
            "area_list",
            "leaderboard_list",
            "task_list",
            "dataset_list",
            "paper_list",
            "method_list",
        ]

    def location(self, item):
        return reverse(f"leaderboards:{item}")


class SlugSitemap(Sitemap):
    """Pages by slug, in slug order so the split into pages is stable."""

    model = None
    # Smaller than the protocol's 50,000 so a section page renders in well under a second.
    limit = 5000

    def items(self):
        return self.model.objects.order_by("slug").only("slug")


class AreaSitemap(SlugSitemap):
    model = Area


class TaskSitemap(SlugSitemap):
    model = Task


class DatasetSitemap(SlugSitemap):
    model = Dataset


class PaperSitemap(SlugSitemap):
    model = Paper

    def items(self):
        # A withheld paper's address answers 410: not a page to index.
        return super().items().filter(withheld=False)


class AuthorSitemap(SlugSitemap):
    model = Author


class ConferenceSitemap(SlugSitemap):
    model = Conference


class MethodAreaSitemap(SlugSitemap):
    model = MethodArea


class MethodCategorySitemap(SlugSitemap):
    model = MethodCategory


class MethodSitemap(SlugSitemap):
    model = Method

    def items(self):
        return super().items().filter(withheld=False)


class LeaderboardSitemap(SlugSitemap):
    model = Leaderboard

    def items(self):
        return self.model.objects.order_by("slug").only("slug", "updated_at")

    def lastmod(self, item):
        return item.updated_at


SITEMAPS = {
    "lists": ListSitemap,
    "areas": AreaSitemap,
    "tasks": TaskSitemap,
    "datasets": DatasetSitemap,
    "papers": PaperSitemap,
    "authors": AuthorSitemap,
    "conferences": ConferenceSitemap,
    "method-areas": MethodAreaSitemap,
    "method-categories": MethodCategorySitemap,
    "methods": MethodSitemap,
    "leaderboards": LeaderboardSitemap,
}

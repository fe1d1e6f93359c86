from django.urls import path

from leaderboards.web.feeds import (
    BoardHistoryFeed,
    EditorialChangesFeed,
    LoadsFeed,
    NewestResultsFeed,
)
from leaderboards.web.views import (
    badges,
    catalogue,
    changes,
    dumps,
    history,
    home,
    leaderboard,
    methods,
    model_pages,
    papers,
    search,
    suggest,
)

app_name = "leaderboards"

urlpatterns = [
    path("sota/<slug:slug>.json", leaderboard.leaderboard_json, name="leaderboard_json"),
    path("sota/<slug:slug>.csv", leaderboard.leaderboard_csv, name="leaderboard_csv"),
    path("sota/<slug:slug>", leaderboard.leaderboard_detail, name="leaderboard"),
    # Issue #30: what each load changed in a board's data.
    path("sota/<slug:slug>/history", history.leaderboard_history, name="leaderboard_history"),
    path(
        "sota/<slug:slug>/history.json",
        history.leaderboard_history_json,
        name="leaderboard_history_json",
    ),
    path("sota/<slug:slug>/history.atom", BoardHistoryFeed(), name="leaderboard_history_feed"),
    path("sota/<slug:slug>/badge.svg", badges.leaderboard_badge, name="leaderboard_badge"),
    path("paper/<slug:slug>/badge.svg", badges.paper_badge, name="paper_badge"),
    path("area/<slug:slug>", catalogue.area_detail, name="area"),
    path("task/<slug:slug>", catalogue.task_detail, name="task"),
    path("dataset/<slug:slug>", catalogue.dataset_detail, name="dataset"),
    path("paper/<slug:slug>", papers.paper_detail, name="paper"),
    # Issue #28: the rest of the archive, at PwC's addresses.
    path("author/<slug:slug>", papers.author_detail, name="author"),
    path("conference/<slug:slug>", papers.conference_detail, name="conference"),
    path("methods/", methods.method_list, name="method_list"),
    path("methods/area/<slug:slug>", methods.method_area, name="method_area"),
    path("methods/category/<slug:slug>", methods.method_category, name="method_category"),
    path("method/<slug:slug>", methods.method_detail, name="method"),
    # Issue #30: a model across boards. "compare" is never a model's slug (it has no digest).
    path("model/compare", model_pages.model_compare, name="model_compare"),
    path("model/<slug:slug>", model_pages.model_detail, name="model"),
    path("badge/<slug:paper_slug>/<slug:board_slug>", badges.pwc_badge, name="pwc_badge"),
    # Issue #4: browsing and search.
    path("", home.home, name="home"),
    path("sota/", catalogue.leaderboard_list, name="leaderboard_list"),
    path("area/", catalogue.area_list, name="area_list"),
    path("task/", catalogue.task_list, name="task_list"),
    path("dataset/", catalogue.dataset_list, name="dataset_list"),
    path("paper/", catalogue.paper_list, name="paper_list"),
    path("search", search.search_page, name="search"),
    path("search/suggest", search.search_suggest, name="search_suggest"),
    path("feeds/newest.atom", NewestResultsFeed(), name="feed_newest"),
    # Issue #13: the public record of editors' work.
    path("changes/", changes.changes, name="changes"),
    path("changes/feed.atom", EditorialChangesFeed(), name="changes_feed"),
    path("changes/loads.atom", LoadsFeed(), name="loads_feed"),
    # Issue #30: the full dumps, so the site's data is never locked in.
    path("dumps/", dumps.dumps_index, name="dumps"),
    path("dumps/manifest.json", dumps.dumps_manifest, name="dumps_manifest"),
    path("dumps/<str:name>", dumps.dumps_file, name="dumps_file"),
    # Issue #31: visitors suggest, editors decide. The site's only public writes.
    path("suggest/", suggest.suggest_about, name="suggest_root"),
    path("suggest/<slug:slug>/correction", suggest.suggest_correction, name="suggest_correction"),
    path("suggest/<slug:slug>/result", suggest.suggest_result, name="suggest_result"),
    path("suggest/<slug:slug>/sent", suggest.suggest_sent, name="suggest_sent"),
]

from django.urls import path

from .views import catalogue, leaderboard

app_name = "leaderboards"

urlpatterns = [
    path("sota/<slug:slug>.json", leaderboard.leaderboard_json, name="leaderboard_json"),
    path("sota/<slug:slug>.csv", leaderboard.leaderboard_csv, name="leaderboard_csv"),
    path("sota/<slug:slug>", leaderboard.leaderboard_detail, name="leaderboard"),
    path("area/<slug:slug>", catalogue.area_detail, name="area"),
    path("task/<slug:slug>", catalogue.task_detail, name="task"),
    path("dataset/<slug:slug>", catalogue.dataset_detail, name="dataset"),
    path("paper/<slug:slug>", catalogue.paper_detail, name="paper"),
]

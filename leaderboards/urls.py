from django.urls import path

from . import views

app_name = "leaderboards"

urlpatterns = [
    path("sota/<slug:slug>.json", views.leaderboard_json, name="leaderboard_json"),
    path("sota/<slug:slug>", views.leaderboard_detail, name="leaderboard"),
    path("area/<slug:slug>", views.area_detail, name="area"),
    path("task/<slug:slug>", views.task_detail, name="task"),
    path("dataset/<slug:slug>", views.dataset_detail, name="dataset"),
    path("paper/<slug:slug>", views.paper_detail, name="paper"),
]

from django.urls import path, re_path

from leaderboards.api import views

app_name = "api"

urlpatterns = [
    path("areas/", views.area_list, name="area_list"),
    path("areas/<str:id>/", views.area_detail, name="area"),
    path("areas/<str:id>/tasks/", views.area_tasks, name="area_tasks"),
    path("tasks/", views.task_list, name="task_list"),
    path("tasks/<str:id>/", views.task_detail, name="task"),
    path("tasks/<str:id>/evaluations/", views.task_evaluations, name="task_evaluations"),
    path("datasets/", views.dataset_list, name="dataset_list"),
    path("datasets/<str:id>/", views.dataset_detail, name="dataset"),
    path("datasets/<str:id>/evaluations/", views.dataset_evaluations, name="dataset_evaluations"),
    path("papers/", views.paper_list, name="paper_list"),
    path("papers/<str:id>/", views.paper_detail, name="paper"),
    path("papers/<str:id>/results/", views.paper_results, name="paper_results"),
    path("evaluations/", views.evaluation_list, name="evaluation_list"),
    path("evaluations/<str:id>/", views.evaluation_detail, name="evaluation"),
    path("evaluations/<str:id>/metrics/", views.evaluation_metrics, name="evaluation_metrics"),
    path(
        "evaluations/<str:id>/metrics/<int:metric_id>/",
        views.evaluation_metric_detail,
        name="evaluation_metric",
    ),
    path("evaluations/<str:id>/results/", views.evaluation_results, name="evaluation_results"),
    path(
        "evaluations/<str:id>/results/<int:result_id>/",
        views.evaluation_result_detail,
        name="evaluation_result",
    ),
    path("search/", views.search, name="search"),
    path("openapi.json", views.openapi, name="openapi"),
    # Ending in a slash, so a missing one still gets its redirect (APPEND_SLASH).
    # [\s\S], not ".": a path with a newline in it is an API path too, whose 404
    # is JSON (it fell through to the site's HTML page).
    re_path(r"^(?P<rest>[\s\S]*/)$", views.not_found),
]

from django.contrib import admin
from django.urls import include, path

from leaderboards.views import health

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", health.healthz, name="healthz"),
    path("", include("leaderboards.urls")),
]

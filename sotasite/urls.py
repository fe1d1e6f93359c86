from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("leaderboards.urls")),
    path("api/v1/", include("leaderboards.api.urls")),
]

from django.contrib import admin
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import TemplateView

from leaderboards.admin.public_name import public_name_view
from leaderboards.web import sitemaps
from leaderboards.web.views import health


def favicon(request):
    # Pages link the SVG; browsers and feed readers still ask for /favicon.ico.
    # static() at request time gives the hashed name production serves.
    return redirect(static("favicon.svg"), permanent=True)


urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    # Before the admin's own addresses, whose catch-all would take it.
    path("admin/public-name/", admin.site.admin_view(public_name_view), name="admin_public_name"),
    path("admin/", admin.site.urls),
    path("healthz", health.healthz, name="healthz"),
    path("", include("leaderboards.web.urls")),
    path("sitemap.xml", sitemaps.index, name="sitemap"),
    path("sitemap-<slug:section>.xml", sitemaps.section, name="sitemap-section"),
    path(
        "robots.txt",
        TemplateView.as_view(template_name="robots.txt", content_type="text/plain"),
        name="robots",
    ),
    path("api/v1/", include("leaderboards.api.urls")),
]

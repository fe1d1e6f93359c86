from django.contrib import admin
from django.contrib.sitemaps import views as sitemap_views
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import TemplateView

from leaderboards.web.sitemaps import SITEMAPS
from leaderboards.web.views import health


def favicon(request):
    # Pages link the SVG; browsers and feed readers still ask for /favicon.ico.
    # static() at request time gives the hashed name production serves.
    return redirect(static("favicon.svg"), permanent=True)


urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("healthz", health.healthz, name="healthz"),
    path("", include("leaderboards.web.urls")),
    path(
        "sitemap.xml",
        sitemap_views.index,
        {"sitemaps": SITEMAPS, "sitemap_url_name": "sitemap-section"},
        name="sitemap",
    ),
    path(
        "sitemap-<section>.xml",
        sitemap_views.sitemap,
        {"sitemaps": SITEMAPS},
        name="sitemap-section",
    ),
    path(
        "robots.txt",
        TemplateView.as_view(template_name="robots.txt", content_type="text/plain"),
        name="robots",
    ),
    path("api/v1/", include("leaderboards.api.urls")),
]

"""The leaderboard page and its exports."""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render

from ..export import PageData, page_json
from ..models import Leaderboard
from .reads import consistent_read


def _page_data(slug):
    return PageData(get_object_or_404(Leaderboard.objects.for_page(), slug=slug))


@consistent_read
def leaderboard_detail(request, slug):
    data = _page_data(slug)
    return render(
        request,
        "leaderboards/leaderboard_detail.html",
        {"leaderboard": data.leaderboard, "page": data},
    )


@consistent_read
def leaderboard_json(request, slug):
    return HttpResponse(page_json(_page_data(slug).document()), content_type="application/json")

"""Badge images for READMEs: a board's best result, a paper's best rank."""

import hashlib

from django.conf import settings
from django.db.models import Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.cache import get_conditional_response, patch_cache_control

from leaderboards.api.ranking import best_ranks
from leaderboards.models import Leaderboard, Paper
from leaderboards.web import badges
from leaderboards.web.views.reads import consistent_read


def _svg(request, svg, etag):
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["ETag"] = etag
    patch_cache_control(response, public=True, max_age=settings.SOTASITE_PAGE_MAX_AGE)
    return get_conditional_response(request, etag=etag, response=response)


def leaderboard_badge(request, slug):
    board = get_object_or_404(Leaderboard.objects.titled().without_blocks(), slug=slug)
    # The board's version is raised with every change to it, and the badge
    # reads the board alone (a task's renaming does not change it).
    return _svg(request, badges.board_badge(board), f'"board-{board.version}"')


def _paper_rows_badge(request, paper, rows):
    ranks = best_ranks(rows)
    placed = [
        (ranks[row.pk][0], ranks[row.pk][1], row.leaderboard) for row in rows if row.pk in ranks
    ]
    best = min(placed, key=lambda item: (item[0], item[2].slug), default=None)
    boards = len({row.leaderboard_id for row in rows})
    svg = badges.paper_badge(paper, best, len(rows), boards)
    # A rank moves with any row of the boards the paper is on: the ETag is the image's own.
    return _svg(request, svg, f'"paper-{hashlib.sha256(svg.encode()).hexdigest()[:32]}"')


@consistent_read
def paper_badge(request, slug):
    paper = get_object_or_404(Paper, slug=slug, withheld=False)
    return _paper_rows_badge(
        request, paper, list(paper.rows.shown().with_boards().without_blocks())
    )


@consistent_read
def pwc_badge(request, paper_slug, board_slug):
    """PwC's README badge address, /badge/<paper>/<board>: the paper's rank on that board.

    The paper by its slug here or its PwC slug, so a README written for PwC
    needs only the domain changed; a paper with no shown row on the board
    gets the board's own badge.
    """
    paper = get_object_or_404(Paper, Q(slug=paper_slug) | Q(pwc_slug=paper_slug), withheld=False)
    board = get_object_or_404(Leaderboard.objects.titled().without_blocks(), slug=board_slug)
    rows = list(paper.rows.shown().with_boards().without_blocks().filter(leaderboard=board))
    if not rows:
        return _svg(request, badges.board_badge(board), f'"board-{board.version}"')
    return _paper_rows_badge(request, paper, rows)

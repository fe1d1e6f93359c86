"""The PwC API's objects (SPEC 4), written by hand from the site's models.

Field names and types are those the `paperswithcode-client` package (0.3.1)
validates; where the site has no such data (abstracts, authors, conferences)
the field is empty rather than invented.
"""

from leaderboards.format.rules import arxiv_id
from leaderboards.models import Direction


def area(obj):
    return {"id": obj.slug, "name": obj.name}


def task(obj):
    return {"id": obj.slug, "name": obj.name, "description": obj.shown_description or ""}


def dataset(obj):
    return {
        "id": obj.slug,
        "name": obj.name,
        "full_name": obj.full_name or obj.name,
        "url": obj.url or None,
    }


def paper(obj):
    # Papers loaded from page files have no stored arXiv id; their URL may give one.
    found = obj.arxiv_id or arxiv_id(obj.url)
    return {
        "id": obj.slug,
        "arxiv_id": found or None,
        "nips_id": None,
        "url_abs": obj.url,
        "url_pdf": f"https://arxiv.org/pdf/{found}" if found else "",
        "title": obj.title,
        "abstract": "",
        "authors": [],
        "published": obj.date.isoformat() if obj.date else None,
        "conference": None,
        "conference_url_abs": None,
        "conference_url_pdf": None,
        "proceeding": None,
    }


def evaluation(obj):
    return {
        "id": obj.slug,
        "task": obj.task.slug,
        "dataset": obj.dataset.slug,
        "description": obj.shown_description or "",
        "mirror_url": None,
    }


def metric(obj):
    direction = obj.direction
    return {
        "id": str(obj.pk),
        "name": obj.name,
        "description": "",
        # The client needs a boolean: only a known "lower" direction is a loss.
        # `direction` says whether false means "higher" or "not known".
        "is_loss": direction == Direction.LOWER,
        "direction": direction,
    }


def result(row, best):
    """A row as a Result; `best` is its (rank, metric name) or None (see ranking.best_ranks)."""
    return {
        "id": str(row.pk),
        "best_rank": best[0] if best else None,
        "metrics": {value.metric.name: value.raw for value in row.values.all()},
        "methodology": row.model,
        "uses_additional_data": row.uses_additional_data,
        "paper": row.paper.slug if row.paper else None,
        "best_metric": best[1] if best else None,
        "evaluated_on": row.paper_date.isoformat() if row.paper_date else None,
        "external_source_url": None,
        "evaluation": row.leaderboard.slug,
        "rank_in_archive_order": row.rank,
    }


def search_hit(obj):
    return {"paper": paper(obj), "repository": None, "is_official": False}

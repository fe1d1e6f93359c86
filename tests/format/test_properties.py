"""Property tests: any valid page round-trips exactly; any mutation loads or is refused."""

import copy
import datetime
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaderboards.format import derive
from leaderboards.format.page import EARLIEST, LATEST
from leaderboards.models import Area, Dataset, Leaderboard, Paper, Task

# Hypothesis tries hundreds of pages: the full run's, not the quick loop's.
pytestmark = pytest.mark.slow

# Text as files carry it: any Unicode the character rule lets a page store (no
# C0 control but tab, newline and carriage return, no lone surrogate).
FORBIDDEN = "".join(chr(code) for code in range(0x20) if chr(code) not in "\t\n\r")
text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters=FORBIDDEN),
    max_size=40,
)
slug = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,30}", fullmatch=True)
maybe_text = st.none() | text
# Moments and dates in the range a page may state (see the README's Data section).
date = st.none() | st.dates(EARLIEST.date(), LATEST.date()).map(lambda d: d.isoformat())
moment = st.datetimes(
    EARLIEST.replace(tzinfo=None), LATEST.replace(tzinfo=None), timezones=st.just(datetime.UTC)
)
count = st.integers(min_value=0, max_value=10**6)


@st.composite
def pages(draw):
    metrics = draw(st.lists(text.filter(str.strip), min_size=1, max_size=4, unique=True))
    paper_slugs = draw(st.lists(slug, min_size=1, max_size=4, unique=True))
    verifications = {
        paper: draw(st.none() | st.tuples(count, count, count)) for paper in paper_slugs
    }
    rows = []
    ranks = draw(st.lists(st.integers(1, 10**6), max_size=12, unique=True))
    for rank in sorted(ranks):
        paper = draw(st.none() | st.sampled_from(paper_slugs))
        block = verifications.get(paper)
        shown = draw(st.lists(st.sampled_from(metrics), unique=True))
        rows.append(
            {
                "rank_in_archive_order": rank,
                "model": draw(text),
                "metrics": {name: draw(maybe_text) for name in shown},
                "uses_additional_data": draw(st.booleans()),
                "paper_date": draw(date),
                "paper": f"/paper/{paper}" if paper else None,
                "paper_url": draw(maybe_text),
                "paper_title": draw(maybe_text),
                "code": draw(maybe_text),
                "n_code_links": draw(count),
                "syntology": None
                if block is None
                else {
                    "n_ran": block[0],
                    "n_unverified": block[1],
                    "n_samples": block[0] + block[1],
                    "n_pointer_only_licence": block[2],
                },
            }
        )
    categories = draw(st.lists(text.filter(str.strip), max_size=3, unique=True))
    judged = draw(st.integers(0, 1000))
    page = {
        "url": f"/sota/{draw(slug)}",
        "task": {"name": draw(text.filter(str.strip)), "url": f"/task/{draw(slug)}",
                 "note": draw(maybe_text)},
        "dataset": {"name": draw(text.filter(str.strip)), "url": f"/dataset/{draw(slug)}"},
        "category": draw(st.none() | st.sampled_from(categories or [None])),
        "categories": categories,
        "category_note": draw(maybe_text),
        "description": draw(maybe_text),
        "description_from": draw(maybe_text),
        "source": {"archive": draw(text), "rows_withheld_as_spam": draw(count)},
        "metrics": metrics,
        "metric_direction": {
            "note": draw(maybe_text),
            "by_metric": {
                name: draw(st.sampled_from([None, "higher", "lower", "bigger"]))
                for name in metrics
            },
        },
        "counts": derive.page_counts(rows),
        "rows": rows,
        "since_archive": draw(
            st.none()
            | st.builds(
                lambda entries, true: {
                    "claim": "c",
                    "measurement": {
                        "judged_true": min(true, judged),
                        "judged": judged,
                        "wilson95_lower": derive.wilson_lower(min(true, judged), judged),
                    },
                    "columns": ["model", "value"],
                    "entries": entries,
                },
                st.lists(st.dictionaries(text, maybe_text | count, max_size=3), max_size=3),
                st.integers(0, 1000),
            )
        ),
        "syntology": {
            "read_at": draw(moment).isoformat(),
            "claim": draw(maybe_text),
            **derive.syntology_figures(rows),
        },
    }  # fmt: skip
    return page


def reset_catalogue():
    Leaderboard.objects.all().delete()
    Paper.objects.all().delete()
    Task.objects.all().delete()
    Dataset.objects.all().delete()
    Area.objects.exclude(pk__lte=16).delete()


def load_file(path):
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("load_seeds", str(path), stdout=out, stderr=err)
    except CommandError:
        return False, err.getvalue()
    return True, err.getvalue()


PROPERTY_SETTINGS = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@PROPERTY_SETTINGS
@given(page=pages())
def test_any_valid_page_round_trips_exactly(db, tmp_path, page):
    reset_catalogue()
    path = tmp_path / "page.json"
    path.write_text(json.dumps(page, ensure_ascii=False), encoding="utf-8")
    ok, err = load_file(path)
    assert ok, err
    response = Client(headers={"host": "localhost"}).get(f"{page['url']}.json")
    assert response.status_code == 200
    assert response.content.decode() == json.dumps(page, ensure_ascii=False, separators=(",", ":"))


def mutations():
    """Replace, drop or retype any one value anywhere in the seed page."""
    junk = st.one_of(
        st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(),
        text, st.text(max_size=5), st.just("\x00"), st.just("\ud800"),
        st.lists(st.integers(), max_size=2), st.dictionaries(text, text, max_size=2),
        # Values no database or Python can give back (issue: every stored value is served).
        st.sampled_from(["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "0001-01-01"]),
        st.integers(1, 700).map(lambda depth: json.loads("[" * depth + "]" * depth)),
        st.integers(1, 1000).map(lambda length: "x" * length),
    )  # fmt: skip
    return st.tuples(st.integers(min_value=0), st.sampled_from(["replace", "drop"]), junk)


def refuse_constant(name):
    raise AssertionError(f"{name} is not JSON")


def paths_in(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths_in(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths_in(item, (*prefix, index))


@PROPERTY_SETTINGS
@given(change=mutations())
def test_any_mutation_loads_or_is_refused_with_a_message(db, tmp_path, seed_page, change):
    reset_catalogue()
    pick, how, junk = change
    page = copy.deepcopy(seed_page)
    places = [path for path in paths_in(page) if path]
    place = places[pick % len(places)]
    parent = page
    for key in place[:-1]:
        parent = parent[key]
    if how == "drop" and isinstance(parent, dict):
        del parent[place[-1]]
    else:
        parent[place[-1]] = junk
    path = tmp_path / "mutant.json"
    # ASCII escapes let the file carry a lone surrogate, as a hostile file could.
    path.write_text(json.dumps(page), encoding="ascii")
    ok, err = load_file(path)
    if not ok:
        assert err.startswith(f"{path}: "), err
        assert "Traceback" not in err and "(database)" not in err, err
    else:
        slug = page["url"].rsplit("/", 1)[1]
        client = Client(headers={"host": "localhost"})
        assert client.get(f"/sota/{slug}").status_code == 200
        assert client.get("/sota/").status_code == 200
        exported = client.get(f"/sota/{slug}.json")
        assert exported.status_code == 200
        json.loads(exported.content, parse_constant=refuse_constant)

"""Visitors' words on the browsing pages (issue #12): dates as dates, figures in plain words."""

import re
from html import unescape

import pytest
from django.template import Context, Template
from django.urls import reverse

from tests.helpers import DATASET, PAPER, TASK, html

PAGES = [
    reverse("leaderboards:home"),
    reverse("leaderboards:area_list"),
    reverse("leaderboards:area", args=["computer-vision"]),
    reverse("leaderboards:task_list"),
    reverse("leaderboards:task", args=[TASK]),
    reverse("leaderboards:dataset_list"),
    reverse("leaderboards:dataset", args=[DATASET]),
    reverse("leaderboards:paper_list"),
    reverse("leaderboards:paper", args=[PAPER]),
    reverse("leaderboards:leaderboard_list"),
    reverse("leaderboards:search") + "?q=out-of-distribution",
]
MACHINE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# A page-format field name: lower-case words joined by underscores (n_ran, read_at).
FIELD_NAME = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")


def visible_text(page):
    """What a reader sees: the body's text, without tags, attributes or the script."""
    body = page[page.index("<body") :]
    return unescape(re.sub(r"<[^>]*>", " ", body))


@pytest.mark.parametrize("url", PAGES)
def test_no_page_shows_a_machine_date_or_a_field_name(seeded, client, url):
    text = visible_text(html(client, url))
    assert not MACHINE_DATE.search(text), url
    assert not FIELD_NAME.search(text), url


@pytest.mark.parametrize(
    ("query", "message"),
    [("?min_rows=abc", "Minimum rows: Enter a number."), ("?area=nowhere", "Area: Select a valid")],
)
def test_a_bad_filter_is_named_by_its_label_not_its_field(seeded, client, query, message):
    text = visible_text(html(client, reverse("leaderboards:leaderboard_list") + query, status=400))
    assert message in text
    assert not FIELD_NAME.search(text)


def test_the_paper_page_gives_its_date_and_check_time_in_words_with_the_machine_value(
    seeded, client
):
    page = html(
        client, reverse("leaderboards:paper", args=["line-out-of-distribution-detection-by"])
    )
    assert '<dt>Date</dt><dd><time datetime="2023-03-24">24 Mar 2023</time></dd>' in page
    assert '(checked <time datetime="2026-09-25T09:33:49+00:00">25 Sep 2026, 09:33 UTC</time>)' in (
        page
    )
    # The counters' names are there for whoever wants them, in the tooltip only.
    assert 'title="Syntology: n_ran 14, n_samples 20, n_unverified 6' in page


def test_lists_and_the_home_page_date_their_rows_in_words(seeded, client):
    home = html(client, reverse("leaderboards:home"))
    assert '<td class="num"><time datetime="2025-03-24">24 Mar 2025</time></td>' in home
    boards = html(client, reverse("leaderboards:leaderboard_list"))
    assert '<time datetime="2025-03-24">24 Mar 2025</time>' in boards
    papers = html(client, reverse("leaderboards:paper_list"))
    assert '<time datetime="2025-03-24">24 Mar 2025</time>' in papers


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("None", "—"),
        ("day", '<time datetime="2021-03-12">12 Mar 2021</time>'),
        # Any zone is shown in UTC, the zone the machine value keeps.
        ("moment", '<time datetime="2026-09-25T07:33:49+00:00">25 Sep 2026, 07:33 UTC</time>'),
    ],
)
def test_human_date_shows_a_day_or_a_minute_in_utc(value, shown):
    import datetime

    context = {
        "day": datetime.date(2021, 3, 12),
        "moment": datetime.datetime(
            2026, 9, 25, 9, 33, 49, tzinfo=datetime.timezone(datetime.timedelta(hours=2))
        ),
    }
    template = Template("{% load sota %}{% human_date " + value + " %}")
    assert template.render(Context(context)) == shown


@pytest.mark.parametrize("text", ["0001-01-01T00:30:00+01:00", "9999-12-31T23:30:00-01:00"])
def test_a_written_moment_past_pythons_range_in_utc_is_shown_as_written(text):
    """A file's timestamp at year 1 or 9999 whose offset crosses the range's end once
    in UTC: the page shows the text, where it once answered 500."""
    template = Template("{% load sota %}{{ value|as_time }}")
    assert template.render(Context({"value": text})) == text


def test_counts_read_with_thousands_separators(seeded, client):
    """ "1496839" and "more than 1000" were hard to read; counts read 1,496,839 now."""
    from leaderboards.models import Leaderboard

    Leaderboard.objects.filter(pk=seeded.pk).update(row_count=1_496_839)
    html = client.get(reverse("leaderboards:leaderboard_list")).content.decode()
    assert "1,496,839" in html and "1496839" not in html

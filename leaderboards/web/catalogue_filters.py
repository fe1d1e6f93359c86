"""The filters of every list page, strict about what they accept.

A value a filter cannot read makes the form invalid and the view answers
400; filters take slugs and text, never a <select> of every row. Areas are
the exception: there are a handful, so they are a menu.
"""

import datetime

import django_filters
from django import forms
from django.db import connection
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from leaderboards.models import (
    BOARDS_CHECKED_FIRST,
    BOARDS_NEWEST_FIRST,
    BOARDS_OLDEST_BEST_FIRST,
    NEWEST_FIRST,
    Area,
    Dataset,
    Leaderboard,
    LeaderboardArea,
    Method,
    Metric,
    Paper,
    PaperRepository,
    Row,
    SiteState,
    Task,
)
from leaderboards.upkeep.bulk import one_of


class AnyYesNo(forms.NullBooleanSelect):
    """Yes / No / Any: an unset filter reads "Any", not Django's "Unknown"."""

    def __init__(self, attrs=None):
        super().__init__(attrs)
        self.choices = (("unknown", "Any"), ("true", "Yes"), ("false", "No"))


class SortFilter(django_filters.ChoiceFilter):
    """`?sort=<key>`: each key an ordering that ends in a unique column, for stable pages."""

    def __init__(self, orders, **kwargs):
        self.orders = orders
        choices = [(key, label) for key, (label, _) in orders.items()]
        super().__init__(choices=choices, empty_label=None, null_label=None, **kwargs)

    def filter(self, qs, value):
        key = value or next(iter(self.orders))
        return qs.order_by(*self.orders[key][1])


class ListFilter(django_filters.FilterSet):
    """The filters of a list page, with what its folded form says about them."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.areas = {}
        if "area" in self.filters:
            # One query gives the menu's options, the check of the value sent and
            # each area's counts (see known_count).
            self.areas = {
                area["slug"]: area
                for area in Area.objects.order_by("name").values(
                    "pk", "slug", "name", "task_count", "leaderboard_count"
                )
            }
            self.filters["area"].extra["choices"] = [
                (slug, area["name"]) for slug, area in self.areas.items()
            ]

    @property
    def narrowing(self):
        """The names of the filters that narrow the list (read once the form is valid)."""
        return {
            name
            for name, value in self.form.cleaned_data.items()
            if name != "sort" and value not in (None, "")
        }

    def known_count(self):
        """How many items the list holds when a count kept by the loader says it, else None.

        Such a count saves the paginator a COUNT over a join: 100 to 190 ms for
        an area of ten times the archive. Subclasses say which of their
        filters a kept count answers.
        """
        return None

    @property
    def active_count(self):
        """How many filters narrow the list; the sort is not one of them."""
        if not self.is_valid():
            return sum(1 for name in self.filters if name != "sort" and self.data.get(name))
        return len(self.narrowing)


def _site_total(field):
    """A total the loader keeps on the SiteState row; None before its first count."""
    return SiteState.objects.filter(pk=1).values_list(field, flat=True).first()


def _area(method):
    """A menu of the areas (filled per request by ListFilter); any other value is a 400."""
    return django_filters.ChoiceFilter(
        method=method, label="Area", empty_label="Any area", null_label=None
    )


def _text(field, label):
    return django_filters.CharFilter(
        field_name=field, lookup_expr="icontains", label=label, max_length=200
    )


# A task or dataset filter matching up to this many is read once and its ids
# sent to the list's queries as an IN list. Past it they match it again as a
# subquery each, which PostgreSQL's planner joins better than a long array
# (measured at ten times the archive). SQLite's LIKE reads every name each
# time: up to SQLITE_MATCHED_IDS are read once and sent as one JSON list
# (`?task=detection&min_rows=5`, 4,044 tasks: 43 → 35 ms); past that a filter
# matches most boards, and reading its ids into Python cost more than matching
# again (`?task=o`, 43,000 tasks: 51 → 64 ms).
MAX_MATCHED_IDS = 1000
SQLITE_MATCHED_IDS = 10 * MAX_MATCHED_IDS


def _slug_or_name(prefix):
    """A filter on the board's task or dataset by its slug, or by part of its name.

    The matching tasks (datasets) are read once with their kept board counts:
    the name's LIKE reads every name, and it ran for the page's count and
    again for its rows. Each board has one task and one dataset, so when this
    is the only filter the counts add up to the list's (see known_count).
    """

    def filter_by(filterset, queryset, name, value):
        related = queryset.model._meta.get_field(prefix).related_model
        value = value.strip()
        matching = related.objects.filter(Q(slug=value) | Q(name__icontains=value))
        found = matching.order_by().values_list("pk", "leaderboard_count")
        read = SQLITE_MATCHED_IDS if connection.vendor == "sqlite" else MAX_MATCHED_IDS
        found = list(found[: read + 1])
        if len(found) > read:
            return queryset.filter(**{f"{prefix}__in": matching})
        filterset.matched_boards[prefix] = sum(count for _, count in found)
        ids = [pk for pk, _ in found]
        if len(ids) > MAX_MATCHED_IDS:
            return queryset.filter(one_of(queryset.model, prefix, ids))
        return queryset.filter(**{f"{prefix}__in": ids})

    return filter_by


# Tasks and datasets carry the same counts, so they sort the same ways.
CATALOGUE_SORTS = {
    "name": ("name", ["name", "pk"]),
    "leaderboards": ("most leaderboards", ["-leaderboard_count", "name", "pk"]),
    "results": ("most results", ["-row_count", "name", "pk"]),
}


class TaskFilter(ListFilter):
    q = _text("name", "Name contains")
    area = _area("by_area")
    sort = SortFilter(CATALOGUE_SORTS, label="Sort by")

    class Meta:
        model = Task
        fields = []

    def by_area(self, queryset, name, value):
        return queryset.in_area(self.areas[value]["pk"])

    def known_count(self):
        # Area.task_count counts the same task-area links the filter follows.
        if self.narrowing == {"area"}:
            return self.areas[self.form.cleaned_data["area"]]["task_count"]
        return None


def _slug(label, method):
    """A filter by a related row's slug: text, not a menu of every row.

    An unknown slug matches no row (an empty list), as a misspelt name would.
    """
    return django_filters.CharFilter(method=method, label=label, max_length=300)


# A filter through a link table (a paper's tasks, a method's papers) that links
# up to this many rows is read as their ids, and the page is sorted from those:
# probing each row of the list in its order for a link walked all 576,000
# papers for a task of a few hundred (300 ms at a sixth of that, SQLite). More
# links are probed in the list's order, which finds a page soon where they
# are that dense.
SORTED_LINKS = 5000


def linked(model, links, own, field):
    """A condition on `model`'s rows: those `links` (rows of a link table, each
    pointing by `own` at a row of `model` and by `field` at one and the same
    row) name. Up to SORTED_LINKS of them as their ids; more are probed in the
    list's order by the linked row's id, not its slug: PostgreSQL then reads
    how many links that id has from its statistics. By slug it guessed 120 of
    a method's 51,611 papers and read them all to sort them (350 ms)."""
    found = list(links.values_list(own, field)[: SORTED_LINKS + 1])
    if len(found) <= SORTED_LINKS:
        return one_of(model, "id", [row for row, _ in found])
    return Exists(links.model.objects.filter(**{field: found[0][1], own: OuterRef("pk")}))


def _linked(through, own, field):
    """A filter method: rows linked through `through` (by `own`) to the `field` of that slug."""

    def filter_by(filterset, queryset, name, value):
        links = through.objects.filter(**{f"{field}__slug": value.strip()})
        return queryset.filter(linked(queryset.model, links, own, field))

    return filter_by


class DatasetFilter(ListFilter):
    q = _text("name", "Name contains")
    modality = _slug("Modality", "by_modality")
    task = _slug("Task", "by_task")
    language = _slug("Language", "by_language")
    sort = SortFilter(CATALOGUE_SORTS, label="Sort by")

    class Meta:
        model = Dataset
        fields = []

    by_modality = _linked(Dataset.modalities.through, "dataset", "datasetmodality")
    by_task = _linked(Dataset.tasks.through, "dataset", "task")
    by_language = _linked(Dataset.languages.through, "dataset", "datasetlanguage")


class PaperFilter(ListFilter):
    q = _text("title", "Title contains")
    year = django_filters.NumberFilter(
        field_name="date", lookup_expr="year", label="Year",
        min_value=1900, max_value=2200, decimal_places=0,
    )  # fmt: skip
    has_code = django_filters.BooleanFilter(label="Has code", widget=AnyYesNo)
    verified = django_filters.BooleanFilter(label="Code ran", widget=AnyYesNo)
    task = _slug("Task", "by_task")
    method = _slug("Method", "by_method")
    dataset = _slug("Dataset", "by_dataset")
    conference = _slug("Conference", "by_conference")
    official_code = django_filters.BooleanFilter(
        method="by_official_code", label="Official code", widget=AnyYesNo
    )
    framework = django_filters.CharFilter(method="by_framework", label="Framework", max_length=100)
    sort = SortFilter(
        {
            # Ties broken within the index each order reads: by slug newest first
            # (NEWEST_FIRST), else by pk, which every index ends in; no sort is needed.
            "date": ("newest", list(NEWEST_FIRST)),
            "oldest": ("oldest", [F("date").asc(nulls_last=True), "pk"]),
            "title": ("title", ["title", "pk"]),
        },
        label="Sort by",
    )

    class Meta:
        model = Paper
        fields = []

    def known_count(self):
        # Every paper listed: the loader has counted them.
        return _site_total("paper_count") if not self.narrowing else None

    by_task = _linked(Paper.tasks.through, "paper", "task")
    by_method = _linked(Method.papers.through, "paper", "method")

    def by_dataset(self, queryset, name, value):
        rows = Row.objects.filter(
            paper=OuterRef("pk"), withheld=False, leaderboard__dataset__slug=value.strip()
        )
        return queryset.filter(Exists(rows))

    def by_conference(self, queryset, name, value):
        return queryset.filter(proceeding__conference__slug=value.strip())

    def by_official_code(self, queryset, name, value):
        official = PaperRepository.objects.shown().official().filter(paper=OuterRef("pk"))
        return queryset.filter(Exists(official) if value else ~Exists(official))

    def by_framework(self, queryset, name, value):
        # The archive writes its frameworks in lower case ("pytorch", "tf"): the
        # value as typed or lowered, compared exactly. PostgreSQL cannot guess how
        # many links UPPER(framework) matches; it guessed 1,539 of pytorch's
        # 97,618, read them all and sorted them (460 ms for page 20).
        value = value.strip()
        links = PaperRepository.objects.shown().filter(
            paper=OuterRef("pk"), framework__in=sorted({value, value.lower()})
        )
        return queryset.filter(Exists(links))


class LeaderboardFilter(ListFilter):
    area = _area("by_area")
    task = django_filters.CharFilter(method="by_task", label="Task", max_length=200)
    dataset = django_filters.CharFilter(method="by_dataset", label="Dataset", max_length=200)
    metric = django_filters.CharFilter(method="by_metric", label="Metric", max_length=200)
    since_archive = django_filters.BooleanFilter(
        method="by_since_archive", label="Newer results", widget=AnyYesNo
    )
    verified = django_filters.BooleanFilter(method="by_verified", label="Code ran", widget=AnyYesNo)
    min_rows = django_filters.NumberFilter(
        field_name="row_count", lookup_expr="gte", label="Minimum rows",
        min_value=0, max_value=10**6, decimal_places=0,
    )  # fmt: skip
    # Both count back from today: see DAY_RELATIVE.
    best_older_than = django_filters.NumberFilter(
        method="by_best_older_than", label="Best result older than (years)",
        min_value=0, max_value=100, decimal_places=0,
    )  # fmt: skip
    checked_within = django_filters.NumberFilter(
        method="by_checked_within", label="Code checked in the last (days)",
        min_value=1, max_value=36500, decimal_places=0,
    )  # fmt: skip
    sort = SortFilter(
        {
            # The slug reads "<task>-on-<dataset>" and has its own index.
            "name": ("name", ["slug"]),
            "rows": ("most rows", ["-row_count", "slug"]),
            "newest": ("newest result", list(BOARDS_NEWEST_FIRST)),
            "oldest_best": ("oldest best result", list(BOARDS_OLDEST_BEST_FIRST)),
            "checked": ("code checked latest", list(BOARDS_CHECKED_FIRST)),
        },
        label="Sort by",
    )

    class Meta:
        model = Leaderboard
        fields = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Boards of the tasks (datasets) a filter matched, by the kept counts.
        self.matched_boards = {}

    by_task = _slug_or_name("task")
    by_dataset = _slug_or_name("dataset")

    def by_area(self, queryset, name, value):
        # A probe of the board-area unique index per board, in the sort's
        # order, until the page is full: an IN list of the area's boards was
        # built whole first, 120 ms for an area of 50,000 boards.
        area = self.areas[value]["pk"]
        return queryset.filter(
            Exists(LeaderboardArea.objects.filter(leaderboard=OuterRef("pk"), area=area))
        )

    def known_count(self):
        # Area.leaderboard_count counts the same board-area links the filter
        # follows, at most one per board and area (leaderboard_area_unique).
        narrowing = self.narrowing
        if narrowing == {"area"}:
            return self.areas[self.form.cleaned_data["area"]]["leaderboard_count"]
        if not narrowing:
            return _site_total("leaderboard_count")
        if len(narrowing) == 1:
            return self.matched_boards.get(narrowing.pop())
        return None

    def by_metric(self, queryset, name, value):
        return queryset.filter(
            Exists(Metric.objects.filter(leaderboard=OuterRef("pk"), name__icontains=value))
        )

    def by_since_archive(self, queryset, name, value):
        has = Q(since_archive_entry_count__gt=0)
        return queryset.filter(has if value else ~has)

    def by_verified(self, queryset, name, value):
        has = Q(verified_row_count__gt=0)
        return queryset.filter(has if value else ~has)

    def by_best_older_than(self, queryset, name, value):
        # A board with no best result (direction unknown, or undated) is unknown,
        # not old: the comparison leaves its null date out.
        return queryset.filter(top_paper_date__lt=years_before(today(), int(value)))

    def by_checked_within(self, queryset, name, value):
        # Whole days, from the start of the day `value` days back (UTC): the
        # answer then holds for all of today, as long as its cached page is kept.
        since = today() - datetime.timedelta(days=int(value))
        return queryset.filter(
            checked_at__gte=datetime.datetime.combine(since, datetime.time(), datetime.UTC)
        )


# The /sota/ filters whose answer depends on today's date, not only on the
# data: the page cache keeps their pages for the day they were made
# (web/page_cache.py), so a cached list never answers for another day.
DAY_RELATIVE = ("best_older_than", "checked_within")


def now():
    """The one clock of the day-relative filters (a test sets it)."""
    return timezone.now()


def today():
    """Today's date in UTC, the day the page cache keeps day-relative lists under."""
    return now().astimezone(datetime.UTC).date()


def years_before(day, years):
    """The same calendar day `years` earlier; 29 February becomes the 28th in a common year."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)

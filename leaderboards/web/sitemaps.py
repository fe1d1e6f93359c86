"""sitemap.xml: an index of files that name every public page, each file at most
SOTASITE_SITEMAP_URLS addresses (the protocol's limit is 50,000).

A kind's file number n holds its pages whose ids are in the n-th run of that
many ids, in id order: the index needs only each kind's largest id, and a file
reads one range of the primary key, so the last file costs what the first
does (Django's sitemaps counted each kind, and read a file past an OFFSET
that walked every page before it). A withheld page leaves a gap in its file,
which then holds fewer addresses than the limit, never more.

The files are written as strings, not through Django's sitemap template: 50,000
addresses rendered by the template took over a second; each address is its
kind's path before the slug (reversed once) and the slug.
"""

from dataclasses import dataclass
from xml.sax.saxutils import escape

from django.conf import settings
from django.db.models import Max, Q
from django.http import Http404, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_safe

from leaderboards.models import (
    Area,
    Author,
    Conference,
    Dataset,
    Leaderboard,
    Method,
    MethodArea,
    MethodCategory,
    Paper,
    Task,
)

XML = '<?xml version="1.0" encoding="UTF-8"?>\n'
NAMESPACE = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
# The lists a visitor starts from, in one file of their own.
LISTS = [
    "home",
    "area_list",
    "leaderboard_list",
    "task_list",
    "dataset_list",
    "paper_list",
    "method_list",
    "changes",
]


@dataclass(frozen=True)
class Kind:
    """The detail pages of one model, by slug: `shown` leaves out those that
    answer 404 or 410; `lastmod`, a date or datetime field, says when one changed."""

    model: type
    url_name: str
    shown: Q = Q()
    lastmod: str = ""

    def path_before_slug(self):
        # Every detail page's path ends in its slug ("/paper/<slug>").
        sample = "slug"
        path = reverse(f"leaderboards:{self.url_name}", args=[sample])
        return path.removesuffix(sample)

    def files(self):
        """How many files the kind's pages take: one per run of ids, up to its largest."""
        largest = self.model.objects.aggregate(largest=Max("pk"))["largest"] or 0
        return -(-largest // settings.SOTASITE_SITEMAP_URLS)

    def entries(self, number):
        """(slug, lastmod datetime or None) of the shown pages of file `number`, in id order."""
        size = settings.SOTASITE_SITEMAP_URLS
        pages = self.model.objects.filter(
            self.shown, pk__gt=(number - 1) * size, pk__lte=number * size
        ).order_by("pk")
        if self.lastmod:
            return pages.values_list("slug", self.lastmod)
        return ((slug, None) for slug in pages.values_list("slug", flat=True))


KINDS = {
    "areas": Kind(Area, "area"),
    "tasks": Kind(Task, "task"),
    "datasets": Kind(Dataset, "dataset"),
    "leaderboards": Kind(Leaderboard, "leaderboard", lastmod="updated_at"),
    # A withheld paper's address answers 410, a withheld method's 404.
    "papers": Kind(Paper, "paper", shown=Q(withheld=False)),
    "authors": Kind(Author, "author"),
    "conferences": Kind(Conference, "conference"),
    "method-areas": Kind(MethodArea, "method_area"),
    "method-categories": Kind(MethodCategory, "method_category"),
    "methods": Kind(Method, "method", shown=Q(withheld=False)),
}


def _xml(body):
    return HttpResponse(XML + body, content_type="application/xml")


def _file_url(request, section, number):
    path = reverse("sitemap-section", args=[section])
    return escape(request.build_absolute_uri(path if number == 1 else f"{path}?p={number}"))


@require_safe
def index(request):
    """Every file: the lists', then each kind's, one query per kind."""
    files = [_file_url(request, "lists", 1)]
    for section, kind in KINDS.items():
        files += [_file_url(request, section, n) for n in range(1, kind.files() + 1)]
    body = "".join(f"<sitemap><loc>{url}</loc></sitemap>\n" for url in files)
    return _xml(f"<sitemapindex {NAMESPACE}>\n{body}</sitemapindex>\n")


def _url(before, slug, changed):
    lastmod = f"<lastmod>{changed.date().isoformat()}</lastmod>" if changed else ""
    return f"<url><loc>{before}{escape(slug)}</loc>{lastmod}</url>\n"


@require_safe
def section(request, section):
    """One file of addresses: ?p=N is the kind's N-th run of ids (1 if absent)."""
    number = request.GET.get("p", "1")
    if not number.isdigit() or int(number) < 1:
        raise Http404("No such sitemap file.")
    number = int(number)
    site = escape(request.build_absolute_uri("/").removesuffix("/"))
    if section == "lists":
        if number != 1:
            raise Http404("No such sitemap file.")
        urls = "".join(
            f"<url><loc>{site}{escape(reverse(f'leaderboards:{name}'))}</loc></url>\n"
            for name in LISTS
        )
    elif section in KINDS:
        kind = KINDS[section]
        before = site + escape(kind.path_before_slug())
        urls = "".join(_url(before, slug, changed) for slug, changed in kind.entries(number))
        # An empty file within the kind's ids (every page of it withheld) is
        # still listed by the index; one past them is not a file.
        if not urls and number > max(kind.files(), 1):
            raise Http404("No such sitemap file.")
    else:
        raise Http404("No such sitemap.")
    return _xml(f"<urlset {NAMESPACE}>\n{urls}</urlset>\n")

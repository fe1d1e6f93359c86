"""The PwC API's objects (SPEC 4): each schema reads a model and describes itself.

A schema is at once what a response is built from and what /api/v1/openapi.json
says about it, so the two cannot drift. Field names and types are those the
`paperswithcode-client` package (0.3.1) validates; where the site has no such
data (a paper known from rows alone has no abstract) the field is empty rather
than invented.
Every field is in every answer, so the description lists each as required,
defaults included (`json_schema_serialization_defaults_required`).
"""

from datetime import date
from typing import Annotated, Literal

from ninja import Field, Schema
from pydantic import AfterValidator, BeforeValidator, ConfigDict

from leaderboards.format.freshness import freshness
from leaderboards.format.rules import SLUG_PATTERN, arxiv_id
from leaderboards.models import EditorAddition

MAX_PER_PAGE = 500
DEFAULT_PER_PAGE = 50
MAX_QUERY = 200
# Every id in a path is a slug (the /sota/, /task/, /paper/ ... one), but a
# repository's, which is its owner and name as its host spells them.
SLUG = rf"^{SLUG_PATTERN}$"
REPOSITORY_PART = r"^[-a-zA-Z0-9_.]+$"
# PostgreSQL text cannot hold a NUL, so the API refuses one (400) and says so.
NO_NUL = "^[^\\u0000]*$"


class Out(Schema):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


def _digits_only(value):
    # pydantic takes " 1", "1.0" or "1_0" as 1 or 10, and Python's int() "١"; PwC took digits.
    if isinstance(value, str) and not (value.isascii() and value.isdigit()):
        raise ValueError("expected a positive integer")
    return value


def _without_nul(text):
    if text is not None and "\x00" in text:
        raise ValueError("a NUL character cannot be in text")
    return text


def _blank_is_zero(value):
    # An empty filter is no filter, as on PwC's API: at least zero stars is every repository.
    return "0" if value == "" else value


def positive_int(maximum=None):
    # The validator after the bounds: one before them hides them from the description.
    return Annotated[int, Field(ge=1, le=maximum), BeforeValidator(_digits_only)]


# At least this many (stars): an empty value is 0, which every row meets.
Minimum = Annotated[
    int, Field(ge=0), BeforeValidator(_digits_only), BeforeValidator(_blank_is_zero)
]

# An empty text filter means no filter (lists.filtered), as on PwC's API.
Text = Annotated[
    str,
    Field(max_length=MAX_QUERY, json_schema_extra={"pattern": NO_NUL}),
    AfterValidator(_without_nul),
]


# Query parameters ------------------------------------------------------------


class PageQuery(Schema):
    page: positive_int() = 1
    items_per_page: positive_int(MAX_PER_PAGE) = DEFAULT_PER_PAGE


class Named(Schema):
    """PwC's list filters: `q` (contains) and `name` (exact)."""

    q: Text = Field(None, description="name contains, case-insensitive")
    name: Text = Field(None, description="exact name")


class DatasetQuery(Named):
    full_name: Text = Field(None, description="exact full name")


class PaperQuery(Schema):
    q: Text = Field(None, description="title contains, case-insensitive")
    arxiv_id: Text = Field(None, description="exact arXiv id")
    title: Text = Field(None, description="exact title")
    abstract: Text = Field(None, description="abstract contains, case-insensitive")


class RepositoryQuery(Schema):
    q: Text = Field(None, description="owner, name or description contains, case-insensitive")
    owner: Text = Field(None, description="exact owner")
    name: Text = Field(None, description="exact name")
    stars: Minimum = Field(None, description="at least this many stars")
    framework: Text = Field(
        None, description="linked as code in this framework (pytorch, tf, jax, ..., none)"
    )


class AuthorQuery(Schema):
    q: Text = Field(None, description="full name contains, case-insensitive")
    full_name: Text = Field(None, description="exact full name")


class MethodQuery(Named):
    q: Text = Field(None, description="name or full name contains, case-insensitive")
    full_name: Text = Field(None, description="exact full name")


class SearchQuery(Schema):
    q: Text = Field(None, description="title contains, case-insensitive")


# Answers ---------------------------------------------------------------------


class Error(Out):
    error: str


class Page[Item](Out):
    """One page of a list, as PwC paginated: `next` and `previous` are full URLs."""

    count: int = Field(ge=0)
    next: str | None
    previous: str | None
    results: list[Item]


class Area(Out):
    id: str = Field(alias="slug")
    name: str


class Task(Out):
    id: str = Field(alias="slug")
    name: str
    description: str

    @staticmethod
    def resolve_description(obj):
        return obj.shown_description or ""


class Dataset(Out):
    id: str = Field(alias="slug")
    name: str
    full_name: str
    url: str | None

    @staticmethod
    def resolve_full_name(obj):
        return obj.full_name or obj.name

    @staticmethod
    def resolve_url(obj):
        return obj.url or None


class Paper(Out):
    """A paper; `conference` and `proceeding` are their ids (slugs), `authors` in order.

    Read with lists.papers(), which joins the proceeding and fetches the authors.
    """

    id: str = Field(alias="slug")
    arxiv_id: str | None
    nips_id: str | None = None
    url_abs: str
    url_pdf: str
    title: str
    abstract: str
    authors: list[str]
    published: date | None = Field(alias="date")
    conference: str | None
    conference_url_abs: str | None
    conference_url_pdf: str | None
    proceeding: str | None

    @staticmethod
    def resolve_arxiv_id(obj):
        # Papers loaded from page files have no stored arXiv id; their URL may give one.
        return obj.arxiv_id or arxiv_id(obj.url) or None

    @staticmethod
    def resolve_url_abs(obj):
        return obj.url_abs or obj.url

    @staticmethod
    def resolve_url_pdf(obj):
        if obj.url_pdf:
            return obj.url_pdf
        found = Paper.resolve_arxiv_id(obj)
        return f"https://arxiv.org/pdf/{found}" if found else ""

    @staticmethod
    def resolve_authors(obj):
        return [authorship.author.name for authorship in obj.authorships.all()]

    @staticmethod
    def resolve_conference(obj):
        return obj.proceeding.conference.slug if obj.proceeding else None

    @staticmethod
    def resolve_conference_url_abs(obj):
        return obj.conference_url_abs or None

    @staticmethod
    def resolve_conference_url_pdf(obj):
        return obj.conference_url_pdf or None

    @staticmethod
    def resolve_proceeding(obj):
        return obj.proceeding.slug if obj.proceeding else None


class Repository(Out):
    """A code repository, read with lists.repositories(): its framework that of its links.

    `stars` is 0 where the count is not known (the client needs a number);
    `is_official` is only said of a paper's own code (CodeLink).
    """

    url: str
    owner: str
    name: str
    description: str
    stars: int = Field(ge=0)
    framework: str = Field(description="pytorch, tf, jax, ..., or none")
    is_official: bool | None = None

    @staticmethod
    def resolve_stars(obj):
        return obj.stars or 0

    @staticmethod
    def resolve_framework(obj):
        return obj.link_framework or "none"


class CodeLink(Repository):
    """A repository as a paper's code: official by an editor's word, else the archive's."""

    @staticmethod
    def resolve_url(obj):
        return obj.repository.url

    @staticmethod
    def resolve_owner(obj):
        return obj.repository.owner

    @staticmethod
    def resolve_name(obj):
        return obj.repository.name

    @staticmethod
    def resolve_description(obj):
        return obj.repository.description

    @staticmethod
    def resolve_stars(obj):
        return obj.repository.stars or 0

    @staticmethod
    def resolve_framework(obj):
        return obj.framework or "none"

    @staticmethod
    def resolve_is_official(obj):
        return obj.official


class Author(Out):
    id: str = Field(alias="slug")
    full_name: str = Field(alias="name")


class Conference(Out):
    id: str = Field(alias="slug")
    name: str


class Proceeding(Out):
    id: str = Field(alias="slug")
    year: int | None
    month: int | None = Field(ge=1, le=12)


class Method(Out):
    """A method; `paper` is the id (slug) of the paper that introduced it, if shown here."""

    id: str = Field(alias="slug")
    name: str
    full_name: str
    description: str
    paper: str | None

    @staticmethod
    def resolve_description(obj):
        return obj.shown_description or ""

    @staticmethod
    def resolve_paper(obj):
        return obj.shown_paper


class Freshness(Out):
    """How fresh a board is (format.freshness): this site's addition to PwC's object."""

    best_result_date: date | None = Field(
        description="paper date of the best result by the first metric; null where the "
        "direction is unknown (no result is best) or the best result is undated"
    )
    best_result_metric: str | None = Field(description="the metric it is best by")
    direction_known: bool = Field(description="false: no result is called best")
    rows_end_at: str | None = Field(description="the archive's source.rows_end_at, as written")
    code_checked_at: str | None = Field(
        description="when Syntology last read the board's code; null: code not checked"
    )
    papers_not_yet_extracted: int | None = Field(
        description="newer papers on the whole site (not this board alone) not yet "
        "extracted, from the snapshot's since_archive.coverage; null without a snapshot"
    )
    papers_not_yet_extracted_as_of: str | None = Field(
        description="the snapshot's read time that count is from"
    )


class EvaluationTable(Out):
    """A leaderboard; its id is the slug of its /sota/ page."""

    id: str = Field(alias="slug")
    task: str
    dataset: str
    description: str
    mirror_url: str | None = None
    freshness: Freshness

    @staticmethod
    def resolve_freshness(obj):
        return freshness(obj, obj.source).as_data()

    @staticmethod
    def resolve_task(obj):
        return obj.task.slug

    @staticmethod
    def resolve_dataset(obj):
        return obj.dataset.slug

    @staticmethod
    def resolve_description(obj):
        return obj.shown_description or ""


class Metric(Out):
    id: str
    name: str
    description: str = ""
    is_loss: bool = Field(description="true only when the direction is known to be lower-is-better")
    direction: Literal["higher", "lower"] | None
    direction_inferred: bool = Field(
        description="true when no editor nor the page file gives the direction and it is "
        "the one the archive's ranking shows (its neighbouring results agree with it)"
    )

    @staticmethod
    def resolve_id(obj):
        return str(obj.pk)

    @staticmethod
    def resolve_direction_inferred(obj):
        return obj.inferred_direction is not None

    @staticmethod
    def resolve_is_loss(obj):
        # The client needs a boolean: only a known "lower" direction is a loss.
        # `direction` says whether false means "higher" or "not known".
        return obj.direction == "lower"

    @staticmethod
    def resolve_direction(obj):
        return str(obj.direction) if obj.direction else None


class Result(Out):
    """A row of a leaderboard; `best_rank` and `best_metric` come from ranking.best_ranks."""

    id: str
    best_rank: int | None = Field(
        ge=1, description="rank by the metrics whose direction is known; null if none is"
    )
    metrics: dict[str, str | None] = Field(
        description="metric name -> value, the archive's string untouched"
    )
    methodology: str = Field(alias="model")
    uses_additional_data: bool
    paper: str | None
    best_metric: str | None
    evaluated_on: date | None = Field(alias="paper_date")
    external_source_url: str | None = None
    evaluation: str
    rank_in_archive_order: int | None = Field(
        ge=1, description="the archive's rank; null for a result editors added after it"
    )
    added_by_editors: bool = Field(
        description="true for a result the site's editors added after the archive, cited by "
        "external_source_url and explained by note; it competes in best_rank like any other"
    )
    note: str | None = Field(description="an added result's note: where it comes from")

    @staticmethod
    def resolve_id(obj):
        # lists.ADDED_PREFIX: the result detail's path reads it back.
        return f"added-{obj.pk}" if _added(obj) else str(obj.pk)

    @staticmethod
    def resolve_rank_in_archive_order(obj):
        return None if _added(obj) else obj.rank

    @staticmethod
    def resolve_added_by_editors(obj):
        return _added(obj)

    @staticmethod
    def resolve_note(obj):
        return obj.note if _added(obj) else None

    @staticmethod
    def resolve_external_source_url(obj):
        return obj.paper_url if _added(obj) else None

    @staticmethod
    def resolve_best_rank(obj):
        return obj.best[0] if obj.best else None

    @staticmethod
    def resolve_best_metric(obj):
        return obj.best[1] if obj.best else None

    @staticmethod
    def resolve_metrics(obj):
        if _added(obj):
            stored = obj.metrics if isinstance(obj.metrics, dict) else {}
            return {name: raw for name, raw in stored.items() if isinstance(raw, str)}
        return {value.metric.name: value.raw for value in obj.values.all()}

    @staticmethod
    def resolve_paper(obj):
        if _added(obj):
            return None  # cited by its URL: no paper page of the archive's
        # A paper an editor withheld is named nowhere, its results' answers included.
        return obj.paper.slug if obj.paper and not obj.paper.withheld else None

    @staticmethod
    def resolve_evaluation(obj):
        return obj.leaderboard.slug


def _added(obj):
    """Whether a result is an editor-added one (an EditorAddition, not a Row)."""
    return isinstance(obj, EditorAddition)


class SearchHit(Out):
    """A paper found, with its first code link (official first), as PwC's search answered."""

    paper: Paper
    repository: CodeLink | None
    is_official: bool

    @staticmethod
    def resolve_paper(obj):
        return obj

    @staticmethod
    def resolve_repository(obj):
        return obj.first_code[0] if obj.first_code else None

    @staticmethod
    def resolve_is_official(obj):
        return bool(obj.first_code) and obj.first_code[0].official


class Endpoint(Out):
    path: str = Field(description="the path, with {placeholders} for ids")
    summary: str


class Root(Out):
    """What /api/v1/ answers: every endpoint of the API, and where it is described."""

    endpoints: list[Endpoint]
    openapi: str = Field(description="the OpenAPI description of every endpoint")
    docs: str = Field(description="the same, as pages to read and try")

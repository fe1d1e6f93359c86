"""Tasks, datasets, papers and leaderboards, as the page files describe them.

Fields named `source_*` (and the verbatim JSON blocks) hold what a file said;
fields named `editor_*` hold what an editor decided. A re-load writes only the
first kind. Decisions about rows and metrics, which a re-load replaces, are
kept by key in RowDecision and DirectionDecision; a row's withheld flag and a
metric's editor direction are their copies where the pages read them.

One module per concern, each importing only those before it: `fields` (what
they share), `catalogue` (areas, tasks, datasets, papers), `papers` (authors,
conferences, code repositories), `methods` (the taxonomy), `boards`
(leaderboards, metrics, rows, values), `verification` (Syntology's snapshots),
`history` (what each load changed in a board's data),
`suggestions` (what visitors suggest), `editorial` (decisions, added results,
the public record), `search` (the search index) and `site` (the site's own
state). Everything is named here too: the rest of the code imports from
`leaderboards.models`, and the migrations name
`leaderboards.models.OrderedJSONField` and
`leaderboards.models.page_version_now` by that path."""

from leaderboards.models.boards import (
    BOARDS_CHECKED_FIRST,
    BOARDS_NEWEST_FIRST,
    BOARDS_OLDEST_BEST_FIRST,
    TOP_RESULT,
    Direction,
    Leaderboard,
    LeaderboardArea,
    LeaderboardQuerySet,
    Metric,
    MetricValue,
    Row,
    RowQuerySet,
    order_settles,
    page_version_now,
)
from leaderboards.models.catalogue import (
    NEWEST_FIRST,
    Area,
    BusiestTask,
    Dataset,
    DatasetLanguage,
    DatasetModality,
    Paper,
    Task,
    TaskQuerySet,
)
from leaderboards.models.editorial import (
    KIND_GROUPS,
    ChangeKind,
    DirectionDecision,
    EditorAddition,
    EditorialChange,
    EditorialChangeQuerySet,
    RowDecision,
    public_name,
)
from leaderboards.models.fields import (
    EARLIEST,
    LATEST,
    LEADING_INDEX,
    OrderedJSONField,
    UnreadableJSON,
    readable_instant,
)
from leaderboards.models.history import BoardChange, BoardChangeQuerySet, DataLoad
from leaderboards.models.methods import Method, MethodArea, MethodCategory, MethodQuerySet
from leaderboards.models.papers import (
    Author,
    Conference,
    PaperAuthor,
    PaperRepository,
    PaperRepositoryQuerySet,
    Proceeding,
    Repository,
)
from leaderboards.models.search import SearchEntry, SearchKind, SearchPrefix
from leaderboards.models.site import PreparedPart, SiteState, UpkeepPending
from leaderboards.models.suggestions import (
    QUEUE_ORDER,
    Suggestion,
    SuggestionKind,
    SuggestionQuerySet,
    SuggestionState,
    SuggestionVoice,
)
from leaderboards.models.verification import RowVerification, SnapshotQuerySet, SyntologySnapshot

__all__ = [
    # fields
    "EARLIEST",
    "LATEST",
    "LEADING_INDEX",
    "OrderedJSONField",
    "UnreadableJSON",
    "readable_instant",
    # catalogue
    "NEWEST_FIRST",
    "Area",
    "BusiestTask",
    "Dataset",
    "DatasetLanguage",
    "DatasetModality",
    "Paper",
    "Task",
    "TaskQuerySet",
    # papers' people and code
    "Author",
    "Conference",
    "PaperAuthor",
    "PaperRepository",
    "PaperRepositoryQuerySet",
    "Proceeding",
    "Repository",
    # methods
    "Method",
    "MethodArea",
    "MethodCategory",
    "MethodQuerySet",
    # boards
    "BOARDS_CHECKED_FIRST",
    "BOARDS_NEWEST_FIRST",
    "BOARDS_OLDEST_BEST_FIRST",
    "TOP_RESULT",
    "Direction",
    "Leaderboard",
    "LeaderboardArea",
    "LeaderboardQuerySet",
    "Metric",
    "MetricValue",
    "Row",
    "RowQuerySet",
    "order_settles",
    "page_version_now",
    # verification
    "RowVerification",
    "SnapshotQuerySet",
    "SyntologySnapshot",
    # history
    "BoardChange",
    "BoardChangeQuerySet",
    "DataLoad",
    # suggestions
    "QUEUE_ORDER",
    "Suggestion",
    "SuggestionKind",
    "SuggestionQuerySet",
    "SuggestionState",
    "SuggestionVoice",
    # editorial
    "ChangeKind",
    "DirectionDecision",
    "EditorAddition",
    "EditorialChange",
    "KIND_GROUPS",
    "EditorialChangeQuerySet",
    "RowDecision",
    "public_name",
    # search
    "SearchEntry",
    "SearchKind",
    "SearchPrefix",
    # site
    "PreparedPart",
    "SiteState",
    "UpkeepPending",
]

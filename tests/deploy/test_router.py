"""Reads to a replica, writes and editors to the primary.

The replica here is a second alias, and a second connection, on the test
database: a mirror, as a streaming replica is of its primary.
"""

import pytest
from django.db import connections, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from leaderboards.models import Area, Leaderboard
from sotasite.routers import ReadDatabaseMiddleware, ReplicaRouter
from tests.helpers import SEED_SLUG

LEADERBOARD = reverse("leaderboards:leaderboard", args=[SEED_SLUG])


# Declared before the test databases are made, so Django sets it up as a test
# mirror of the primary (TEST["MIRROR"]); no other test reads through it.
_primary = connections["default"].settings_dict
_options = dict(_primary["OPTIONS"])
if _primary["ENGINE"].endswith("sqlite3"):
    # SQLite's test database is one shared in-memory cache: its tables are
    # locked to other connections while the primary's test transaction holds
    # writes, where a real replica would read the last commit. A reader that
    # ignores those locks stands in for it, and it never takes the write lock.
    _options.pop("transaction_mode", None)
    _options["init_command"] = _options.get("init_command", "") + "PRAGMA read_uncommitted=1;"
connections.settings.setdefault(
    "replica",
    {**_primary, "OPTIONS": _options, "TEST": {**_primary["TEST"], "MIRROR": "default"}},
)
pytestmark = pytest.mark.django_db(databases=["default", "replica"])


@pytest.fixture(scope="module", autouse=True)
def _close_replica():
    yield
    # Its connection would otherwise outlive the module and, on PostgreSQL,
    # keep the test database from being dropped.
    connections["replica"].close()


@pytest.fixture
def replica(settings):
    """The router sends reads to the 'replica' alias."""
    settings.SOTASITE_READ_REPLICAS = ["replica"]
    return connections["replica"]


def test_without_replicas_everything_uses_the_primary():
    router = ReplicaRouter()
    assert router.db_for_read(Area) == "default"
    assert router.db_for_write(Area) == "default"


def test_reads_go_to_the_replica(replica):
    with CaptureQueriesContext(replica) as on_replica:
        names = list(Area.objects.values_list("name", flat=True))
    # The areas were committed before the test: the replica's own connection sees them.
    assert "Computer Vision" in names
    assert len(on_replica.captured_queries) == 1


def test_a_transaction_that_wrote_reads_from_the_primary(replica):
    assert Area.objects.all().db == "replica"
    with CaptureQueriesContext(replica) as on_replica, transaction.atomic():
        area = Area.objects.create(slug="new-area", name="New area")
        # The replica cannot see this uncommitted row; the primary can.
        assert Area.objects.all().db == "default"
        assert Area.objects.filter(pk=area.pk).exists()
        # Undone here: SQLite's test mirror could not check the tables at
        # teardown while the primary's write holds them.
        transaction.set_rollback(True)
    assert on_replica.captured_queries == []
    # The write was rolled back with its savepoint: nothing left to read back.
    assert Area.objects.all().db == "replica"


def test_public_pages_read_from_the_replica(replica, client, django_assert_num_queries):
    with CaptureQueriesContext(replica) as on_replica, django_assert_num_queries(0):
        response = client.get(LEADERBOARD)
    assert response.status_code == 404
    assert on_replica.captured_queries


def test_editors_and_writes_read_from_the_primary(replica, rf):
    seen = []
    middleware = ReadDatabaseMiddleware(lambda request: seen.append(Area.objects.all().db))
    middleware(rf.get(reverse("admin:index")))
    middleware(rf.post(LEADERBOARD))
    middleware(rf.get(LEADERBOARD))
    assert seen == ["default", "default", "replica"]


def test_replicas_are_never_migrated(replica):
    router = ReplicaRouter()
    assert router.allow_migrate("replica", "leaderboards") is False
    assert router.allow_migrate("default", "leaderboards") is True


def test_objects_from_both_aliases_may_relate(replica):
    router = ReplicaRouter()
    assert router.allow_relation(Area(), Leaderboard()) is True


def test_one_request_reads_from_one_replica(replica, rf, settings):
    # Two aliases on the same database stand for two replicas.
    settings.SOTASITE_READ_REPLICAS = ["replica", "default"]
    seen = []

    def view(request):
        seen.append({Area.objects.all().db for _ in range(20)})

    middleware = ReadDatabaseMiddleware(view)
    for _ in range(20):
        middleware(rf.get(LEADERBOARD))
    assert all(len(aliases) == 1 for aliases in seen)
    assert set().union(*seen) == {"replica", "default"}


def test_a_full_dump_reads_from_the_primary_alone(replica, tmp_path):
    """Its files must agree: one snapshot, which replicas at different lags would not give."""
    from leaderboards.dumps.export import export_set

    with CaptureQueriesContext(replica) as on_replica:
        export_set(tmp_path)
    assert on_replica.captured_queries == []

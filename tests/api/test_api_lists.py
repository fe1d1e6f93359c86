"""Every list call of the API: filters given no value, and what a page costs at any size."""

import pytest

from tests.helpers import DATASET, PAPER, SEED_SLUG, TASK

API = "/api/v1"

# Every list call of paperswithcode-client 0.3.1, with the filters it sends.
LISTS = {
    "/areas/": ["q", "name"],
    "/areas/computer-vision/tasks/": [],
    "/tasks/": ["q", "name"],
    f"/tasks/{TASK}/parents/": [],
    f"/tasks/{TASK}/children/": [],
    f"/tasks/{TASK}/papers/": [],
    f"/tasks/{TASK}/evaluations/": [],
    "/datasets/": ["q", "name", "full_name"],
    f"/datasets/{DATASET}/evaluations/": [],
    "/papers/": ["q", "arxiv_id", "title", "abstract"],
    f"/papers/{PAPER}/datasets/": [],
    f"/papers/{PAPER}/repositories/": [],
    f"/papers/{PAPER}/tasks/": [],
    f"/papers/{PAPER}/methods/": [],
    f"/papers/{PAPER}/results/": [],
    "/repositories/": ["q", "owner", "name", "stars", "framework"],
    "/repositories/grown/": [],
    "/repositories/grown/repo-0/papers/": [],
    "/authors/": ["q", "full_name"],
    "/authors/jeonghyeon-kim/papers/": [],
    "/conferences/": ["q", "name"],
    "/conferences/cvpr/proceedings/": [],
    "/conferences/cvpr/proceedings/cvpr-2023-6/papers/": [],
    "/methods/": ["q", "name", "full_name"],
    "/search/": ["q"],
    "/evaluations/": [],
    f"/evaluations/{SEED_SLUG}/metrics/": [],
    f"/evaluations/{SEED_SLUG}/results/": [],
}


def count(client, path, **params):
    response = client.get(API + path, params)
    assert response.status_code == 200, response.content[:500]
    return response.json()["count"]


@pytest.mark.parametrize(
    ("path", "name"), [(path, name) for path, names in LISTS.items() for name in names]
)
def test_an_empty_filter_is_no_filter(client, grow, path, name):
    grow(1)
    everything = count(client, path)
    assert everything > 0
    assert count(client, path, **{name: ""}) == everything


@pytest.mark.parametrize("path", list(LISTS))
def test_every_list_is_paged_in_a_stable_order(client, grow, path):
    grow(3)
    whole = client.get(API + path, {"items_per_page": 500}).json()["results"]
    assert whole, path
    pages = [
        item
        for page in range(1, len(whole) + 1)
        for item in client.get(API + path, {"items_per_page": 1, "page": page}).json()["results"]
    ]
    assert pages == whole


# What each list reads: [the object it hangs off,] count, page, [prefetches].
BUDGETS = {
    "/areas/": 2,
    "/areas/computer-vision/tasks/": 3,
    "/tasks/": 2,
    f"/tasks/{TASK}/parents/": 3,
    f"/tasks/{TASK}/children/": 3,
    f"/tasks/{TASK}/papers/": 4,
    f"/tasks/{TASK}/evaluations/": 3,
    "/datasets/": 2,
    f"/datasets/{DATASET}/evaluations/": 3,
    "/papers/": 3,
    f"/papers/{PAPER}/datasets/": 3,
    f"/papers/{PAPER}/repositories/": 3,
    f"/papers/{PAPER}/tasks/": 3,
    f"/papers/{PAPER}/methods/": 3,
    # The ranking's values too: the seed's FPR95 has the direction its archive order settles.
    f"/papers/{PAPER}/results/": 6,
    "/repositories/": 2,
    "/repositories/grown/": 2,
    "/repositories/grown/repo-0/papers/": 4,
    "/authors/": 2,
    "/authors/jeonghyeon-kim/papers/": 4,
    "/conferences/": 2,
    "/conferences/cvpr/proceedings/": 3,
    "/conferences/cvpr/proceedings/cvpr-2023-6/papers/": 5,
    "/methods/": 2,
    "/search/": 4,
    "/evaluations/": 2,
    f"/evaluations/{SEED_SLUG}/metrics/": 3,
    f"/evaluations/{SEED_SLUG}/results/": 6,
}


# Lists grow() adds nothing to: their cost is pinned by the seed's board alone.
NOT_GROWN = {
    "/areas/",
    "/areas/computer-vision/tasks/",
    f"/tasks/{TASK}/parents/",
    f"/tasks/{TASK}/evaluations/",
    f"/datasets/{DATASET}/evaluations/",
    f"/papers/{PAPER}/results/",
    "/conferences/",
    "/evaluations/",
    f"/evaluations/{SEED_SLUG}/metrics/",
    f"/evaluations/{SEED_SLUG}/results/",
}


def test_every_list_has_a_budget():
    assert set(BUDGETS) == set(LISTS)


@pytest.mark.slow
@pytest.mark.parametrize(("path", "queries"), BUDGETS.items())
def test_a_list_costs_the_same_queries_at_any_size(
    client, grow, django_assert_num_queries, path, queries
):
    grow(2)
    with django_assert_num_queries(queries):
        small = count(client, path, items_per_page=500)
    grow(25)
    with django_assert_num_queries(queries):
        big = count(client, path, items_per_page=500)
    assert big > small or path in NOT_GROWN, path

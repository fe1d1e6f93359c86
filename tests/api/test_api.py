import json

import pytest
from django.urls import reverse

from leaderboards.api.ranking import competition_ranks
from leaderboards.ingest.loader import Loader
from leaderboards.models import Metric, Row, Task
from tests.helpers import SEED_SLUG, scaled_page

API = "/api/v1"
SEED_RESULTS = f"{API}/evaluations/{SEED_SLUG}/results/"


def get(client, path, status=200, **params):
    response = client.get(path, params)
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == "application/json"
    return response.json()


def all_results(client, path):
    body = get(client, path, items_per_page=500)
    assert body["next"] is None
    return body["results"]


def test_evaluation_of_the_seed(client, seeded):
    body = get(client, f"{API}/evaluations/{SEED_SLUG}/")
    assert body == {
        "id": SEED_SLUG,
        "task": "out-of-distribution-detection",
        "dataset": "imagenet-1k-vs-sun",
        "description": "Detect out-of-distribution or anomalous examples.",
        "mirror_url": None,
        # This site's addition: the archive's ranking settles FPR95 as lower is
        # better, and CMA's 16.84 (2025-03-24) is the lowest.
        "freshness": {
            "best_result_date": "2025-03-24",
            "best_result_metric": "FPR95",
            "direction_known": True,
            "rows_end_at": "2025-07-28",
            "code_checked_at": "2026-09-25T09:33:49+00:00",
            "papers_not_yet_extracted": 2737,
            "papers_not_yet_extracted_as_of": "2026-09-25T09:33:49+00:00",
        },
    }


def test_results_give_the_archive_strings(client, seeded, seed_page):
    results = all_results(client, SEED_RESULTS)
    assert [r["metrics"] for r in results] == [row["metrics"] for row in seed_page["rows"]]
    assert [r["methodology"] for r in results] == [row["model"] for row in seed_page["rows"]]
    first = results[0]
    assert first["paper"] == "enhanced-ood-detection-through-cross-modal"
    assert first["evaluated_on"] == "2025-03-24"
    paper = get(client, f"{API}/papers/{first['paper']}/")
    assert paper["arxiv_id"] == "2503.18817"
    assert paper["url_abs"] == "https://arxiv.org/abs/2503.18817v1"


def test_direction_unknown_means_no_loss_and_no_best_rank(client, unsettled):
    metrics = get(client, f"{API}/evaluations/{SEED_SLUG}/metrics/")["results"]
    assert [(m["name"], m["is_loss"], m["direction"]) for m in metrics] == [
        ("FPR95", False, None),
        ("AUROC", False, None),
    ]
    assert {r["best_rank"] for r in all_results(client, SEED_RESULTS)} == {None}


def test_the_archive_ranking_gives_a_direction_marked_as_inferred(client, seeded):
    # The seed's file gives none; its FPR95 values rise down the archive's order.
    metrics = get(client, f"{API}/evaluations/{SEED_SLUG}/metrics/")["results"]
    assert [
        (m["name"], m["is_loss"], m["direction"], m["direction_inferred"]) for m in metrics
    ] == [
        ("FPR95", True, "lower", True),
        ("AUROC", False, None, False),
    ]
    results = all_results(client, SEED_RESULTS)
    best = [r for r in results if r["best_rank"] == 1]
    assert [(r["methodology"], r["best_metric"]) for r in best] == [
        ("CMA(ViT-B/16, NegLabel)", "FPR95")
    ]
    Metric.objects.filter(name="FPR95").update(editor_direction="lower")
    confirmed = get(client, f"{API}/evaluations/{SEED_SLUG}/metrics/")["results"][0]
    assert (confirmed["direction"], confirmed["direction_inferred"]) == ("lower", False)


def test_best_rank_follows_a_known_direction(client, seeded):
    Metric.objects.filter(name="FPR95").update(editor_direction="lower")
    metrics = get(client, f"{API}/evaluations/{SEED_SLUG}/metrics/")["results"]
    assert metrics[0]["is_loss"] is True
    results = all_results(client, SEED_RESULTS)
    with_fpr = [r for r in results if "FPR95" in r["metrics"]]
    lowest = min(with_fpr, key=lambda r: float(r["metrics"]["FPR95"]))
    assert (lowest["best_rank"], lowest["best_metric"]) == (1, "FPR95")
    ranks = sorted(r["best_rank"] for r in with_fpr)
    assert ranks[0] == 1 and ranks[-1] <= len(with_fpr)
    # MOOD has no FPR95, the only metric with a direction: no rank for it.
    assert all(r["best_rank"] is None for r in results if "FPR95" not in r["metrics"])


def test_withheld_rows_are_not_results_and_do_not_rank(client, seeded):
    Metric.objects.filter(name="FPR95").update(editor_direction="lower")
    best = min(
        Row.objects.filter(leaderboard=seeded, values__metric__name="FPR95"),
        key=lambda row: row.values.get(metric__name="FPR95").number,
    )
    Row.objects.filter(pk=best.pk).update(withheld=True, withheld_reason="spam")
    results = all_results(client, SEED_RESULTS)
    assert len(results) == 21
    assert str(best.pk) not in {r["id"] for r in results}
    assert min(r["best_rank"] for r in results if r["best_rank"]) == 1


def test_result_and_metric_details(client, seeded):
    first = get(client, SEED_RESULTS)["results"][0]
    assert get(client, f"{SEED_RESULTS}{first['id']}/") == first
    metric = get(client, f"{API}/evaluations/{SEED_SLUG}/metrics/")["results"][1]
    assert get(client, f"{API}/evaluations/{SEED_SLUG}/metrics/{metric['id']}/") == metric


def test_pages_are_pwc_envelopes(client, seeded):
    body = get(client, SEED_RESULTS, items_per_page=10, page=2)
    assert body["count"] == 22
    assert len(body["results"]) == 10
    assert body["next"].endswith(f"{SEED_RESULTS}?items_per_page=10&page=3")
    assert body["previous"].endswith(f"{SEED_RESULTS}?items_per_page=10&page=1")
    last = get(client, SEED_RESULTS, items_per_page=10, page=3)
    assert (len(last["results"]), last["next"]) == (2, None)


def test_default_page_size_is_fifty(client, db):
    Task.objects.bulk_create(Task(slug=f"task-{n:02d}", name=f"Task {n:02d}") for n in range(55))
    first = get(client, f"{API}/tasks/")
    assert (first["count"], len(first["results"])) == (55, 50)
    assert first["next"].endswith(f"{API}/tasks/?page=2")
    second = get(client, first["next"])
    assert [t["id"] for t in second["results"]] == [f"task-{n}" for n in range(50, 55)]


def test_catalogue_lists_and_filters(client, seeded):
    areas = get(client, f"{API}/areas/")["results"]
    assert {"id": "computer-vision", "name": "Computer Vision"} in areas
    tasks = get(client, f"{API}/areas/computer-vision/tasks/")["results"]
    assert [t["id"] for t in tasks] == ["out-of-distribution-detection"]
    assert get(client, f"{API}/tasks/", q="distribution")["count"] == 1
    assert get(client, f"{API}/tasks/", q="nothing like it")["count"] == 0
    evaluations = get(client, f"{API}/tasks/out-of-distribution-detection/evaluations/")
    assert [e["id"] for e in evaluations["results"]] == [SEED_SLUG]
    dataset = get(client, f"{API}/datasets/imagenet-1k-vs-sun/")
    assert dataset == {
        "id": "imagenet-1k-vs-sun",
        "name": "ImageNet-1k vs SUN",
        "full_name": "ImageNet-1k vs SUN",
        "url": None,
    }
    assert get(client, f"{API}/datasets/imagenet-1k-vs-sun/evaluations/")["count"] == 1
    assert get(client, f"{API}/evaluations/")["count"] == 1
    hits = get(client, f"{API}/search/", q="OoD Detection")["results"]
    assert hits[0]["paper"]["id"] == "enhanced-ood-detection-through-cross-modal"


def test_paper_results_span_leaderboards(client, seeded):
    results = get(client, f"{API}/papers/on-the-effectiveness-of-sparsification-for/results/")
    assert results["count"] == 2
    assert {r["evaluation"] for r in results["results"]} == {SEED_SLUG}


@pytest.mark.parametrize(
    "params",
    [
        {"page": "0"},
        {"page": "-1"},
        {"page": "two"},
        {"page": "1.5"},
        {"page": "١"},
        {"items_per_page": "0"},
        {"items_per_page": "501"},
        {"items_per_page": ""},
        {"q": "x" * 201},
        {"q": "a\x00b"},
    ],
)
def test_bad_parameters_are_a_json_400(client, seeded, params):
    body = get(client, f"{API}/tasks/", status=400, **params)
    assert body["error"]


@pytest.mark.parametrize(
    "path",
    [
        f"{API}/tasks/no-such-task/",
        f"{API}/evaluations/no-such-board/results/",
        f"{API}/evaluations/{SEED_SLUG}/metrics/999999999999999999999/",
        f"{API}/evaluations/{SEED_SLUG}/results/0/",
        f"{API}/papers/%E2%98%83/",
        f"{API}/no-such-endpoint/",
    ],
)
def test_unknown_ids_are_a_json_404(client, seeded, path):
    assert get(client, path, status=404)["error"]


@pytest.mark.parametrize(
    "path",
    [
        f"{API}/tasks/a%00b/",
        f"{API}/evaluations/%00/results/",
        f"{API}/evaluations/{SEED_SLUG}%00/",
        f"{API}/papers/?title=a%00b",
        f"{API}/no-such-endpoint%00/",
    ],
)
def test_a_nul_anywhere_in_an_api_address_is_a_json_400(client, seeded, path):
    """PostgreSQL takes no NUL in text: an id holding one once answered 500 there."""
    response = client.get(path)
    assert response.status_code == 400
    assert "NUL" in response.json()["error"]


def test_a_page_past_the_last_is_a_json_404(client, seeded):
    assert "Invalid page" in get(client, SEED_RESULTS, status=404, page=3)["error"]


def test_the_api_is_read_only(client, seeded):
    assert client.post(f"{API}/tasks/", {}).status_code == 405
    assert client.delete(f"{API}/evaluations/{SEED_SLUG}/").status_code == 405


def test_results_cost_the_same_queries_at_any_size(
    client, seed_page, db, django_assert_num_queries
):
    Loader().load_pages([("big", scaled_page(seed_page, 300))])
    Metric.objects.filter(name="AUROC").update(editor_direction="higher")
    # board, count, rows, values (prefetch), metrics and values for the ranks
    with django_assert_num_queries(6):
        small = get(client, SEED_RESULTS, items_per_page=5)
    with django_assert_num_queries(6):
        big = get(client, SEED_RESULTS, items_per_page=500)
    assert (len(small["results"]), len(big["results"])) == (5, 300)
    assert small["results"][0]["best_rank"] is not None


@pytest.mark.parametrize(
    ("path", "queries"),
    [
        ("/areas/", 2),
        ("/areas/computer-vision/", 1),
        ("/areas/computer-vision/tasks/", 3),
        ("/tasks/", 2),
        ("/tasks/out-of-distribution-detection/evaluations/", 3),
        ("/datasets/", 2),
        ("/papers/", 3),
        ("/papers/on-the-effectiveness-of-sparsification-for/results/", 6),
        ("/evaluations/", 2),
        (f"/evaluations/{SEED_SLUG}/", 1),
        (f"/evaluations/{SEED_SLUG}/metrics/", 3),
        ("/search/?q=ood", 4),
    ],
)
def test_query_budget(client, seeded, django_assert_num_queries, path, queries):
    with django_assert_num_queries(queries):
        client.get(API + path)


def test_openapi_describes_every_endpoint(client, db):
    document = get(client, reverse("api:openapi-json"))
    assert document["openapi"].startswith("3.")
    assert set(document["paths"]) == {
        "/", "/areas/", "/areas/{id}/", "/areas/{id}/tasks/",
        "/tasks/", "/tasks/{id}/", "/tasks/{id}/evaluations/",
        "/tasks/{id}/parents/", "/tasks/{id}/children/", "/tasks/{id}/papers/",
        "/datasets/", "/datasets/{id}/", "/datasets/{id}/evaluations/",
        "/papers/", "/papers/{id}/", "/papers/{id}/results/", "/papers/{id}/repositories/",
        "/papers/{id}/datasets/", "/papers/{id}/tasks/", "/papers/{id}/methods/",
        "/repositories/", "/repositories/{owner}/", "/repositories/{owner}/{name}/",
        "/repositories/{owner}/{name}/papers/",
        "/authors/", "/authors/{id}/", "/authors/{id}/papers/",
        "/conferences/", "/conferences/{id}/", "/conferences/{id}/proceedings/",
        "/conferences/{id}/proceedings/{proceeding_id}/",
        "/conferences/{id}/proceedings/{proceeding_id}/papers/",
        "/methods/", "/methods/{id}/",
        "/evaluations/", "/evaluations/{id}/", "/evaluations/{id}/metrics/",
        "/evaluations/{id}/metrics/{metric_id}/", "/evaluations/{id}/results/",
        "/evaluations/{id}/results/{result_id}/", "/search/",
    }  # fmt: skip
    # Every schema a path names exists.
    text = json.dumps(document)
    for name in {part.split('"')[0] for part in text.split("#/components/schemas/")[1:]}:
        assert name in document["components"]["schemas"]


def test_result_fields_match_the_openapi_schema(client, seeded):
    schema = get(client, reverse("api:openapi-json"))["components"]["schemas"]["Result"]
    result = get(client, SEED_RESULTS)["results"][0]
    assert set(result) == set(schema["properties"]) == set(schema["required"])


@pytest.mark.parametrize(
    ("direction", "numbers", "expected"),
    [
        ("higher", [90.0, 95.0, 95.0, 80.0], [3, 1, 1, 4]),
        ("lower", [90.0, 95.0, 95.0, 80.0], [2, 3, 3, 1]),
    ],
)
def test_competition_ranks(direction, numbers, expected):
    rank = competition_ranks(numbers, direction)
    assert [rank(x) for x in numbers] == expected

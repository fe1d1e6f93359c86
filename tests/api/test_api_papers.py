"""The API's papers and what hangs off them, read from the archive's catalogue (catalogue)."""

import pytest

from leaderboards.models import Paper, PaperRepository, Row
from tests.helpers import DATASET, PAPER, SEED_SLUG, TASK

API = "/api/v1"


def get(client, path, status=200, **params):
    response = client.get(API + path, params)
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == "application/json"
    return response.json()


def ids(client, path, key="id", **params):
    body = get(client, path, items_per_page=500, **params)
    assert body["count"] == len(body["results"])
    return [item[key] for item in body["results"]]


def test_a_paper_with_its_authors_proceeding_and_abstract(client, catalogue):
    paper = get(client, f"/papers/{PAPER}/")
    assert paper["authors"] == ["Jeonghyeon Kim", "Sangheum Hwang", "Zoë Ångström-Núñez"]
    assert (paper["conference"], paper["proceeding"]) == ("cvpr", "cvpr-2025-6")
    assert paper["abstract"].startswith("Out-of-distribution (OoD) detection flags inputs")
    assert paper["url_abs"] == "https://arxiv.org/abs/2503.18817v1"
    assert paper["url_pdf"] == "https://arxiv.org/pdf/2503.18817v1.pdf"
    assert (paper["arxiv_id"], paper["published"]) == ("2503.18817", "2025-03-24")
    assert paper["conference_url_abs"] is None
    assert get(client, "/papers/", arxiv_id="2503.18817")["results"] == [paper]


def test_a_papers_code_official_first_by_the_editors_word(client, catalogue):
    code = get(client, f"/papers/{PAPER}/repositories/")["results"]
    # The unlinked spam repository is left out; the editor made the reimplementation official.
    assert [(r["owner"], r["name"], r["is_official"], r["framework"]) for r in code] == [
        ("ma-kjh", "CMA-OoDD", True, "pytorch"),
        ("someone", "cma-reimplementation", True, "jax"),
    ]
    assert code[0]["url"] == "https://github.com/ma-kjh/CMA-OoDD"
    assert (code[0]["stars"], code[1]["stars"]) == (42, 0)
    PaperRepository.objects.filter(repository__name="CMA-OoDD").update(editor_official=False)
    code = get(client, f"/papers/{PAPER}/repositories/")["results"]
    assert [(r["name"], r["is_official"]) for r in code] == [
        ("cma-reimplementation", True),
        ("CMA-OoDD", False),
    ]


def test_a_papers_datasets_tasks_and_methods(client, catalogue):
    assert ids(client, f"/papers/{PAPER}/datasets/") == [DATASET]
    assert ids(client, f"/papers/{PAPER}/tasks/") == [TASK]
    methods = get(client, f"/papers/{PAPER}/methods/")["results"]
    assert [(m["id"], m["name"], m["full_name"]) for m in methods] == [
        ("infonce", "InfoNCE", ""),
        ("vision-transformer", "ViT", "Vision Transformer"),
    ]
    # ViT was introduced by the withheld paper, which no answer names.
    assert [m["paper"] for m in methods] == [PAPER, None]
    assert methods[1]["description"].startswith("The **Vision Transformer** splits")


def test_a_tasks_parents_children_and_papers(client, catalogue):
    assert ids(client, f"/tasks/{TASK}/parents/") == ["anomaly-detection"]
    assert ids(client, f"/tasks/{TASK}/children/") == ["near-ood-detection"]
    assert ids(client, "/tasks/anomaly-detection/parents/") == []
    assert ids(client, "/tasks/near-ood-detection/children/") == []
    papers = ids(client, f"/tasks/{TASK}/papers/")
    on_boards = set(Row.objects.exclude(paper=None).values_list("paper__slug", flat=True))
    assert set(papers) == on_boards and PAPER in papers
    assert ids(client, "/tasks/anomaly-detection/papers/") == []


def test_repositories_and_their_filters(client, catalogue):
    listed = get(client, "/repositories/")["results"]
    # Neither the unlinked repository nor the one only the withheld paper links.
    assert [(r["owner"], r["name"], r["framework"], r["is_official"]) for r in listed] == [
        ("ma-kjh", "CMA-OoDD", "pytorch", None),
        ("someone", "cma-reimplementation", "jax", None),
    ]
    name = "name"
    assert ids(client, "/repositories/", name, owner="ma-kjh") == ["CMA-OoDD"]
    assert ids(client, "/repositories/", name, name="cma-reimplementation") == [
        "cma-reimplementation"
    ]
    assert ids(client, "/repositories/", name, stars="1") == ["CMA-OoDD"]
    assert ids(client, "/repositories/", name, stars="43") == []
    assert ids(client, "/repositories/", name, framework="jax") == ["cma-reimplementation"]
    assert ids(client, "/repositories/", name, framework="none") == []
    assert ids(client, "/repositories/", name, q="alignment") == ["CMA-OoDD"]
    assert ids(client, "/repositories/", name, q="casino") == []
    assert ids(client, "/repositories/ma-kjh/", name) == ["CMA-OoDD"]
    assert ids(client, "/repositories/nobody/", name) == []


def test_a_repository_and_its_papers(client, catalogue):
    repository = get(client, "/repositories/ma-kjh/CMA-OoDD/")
    assert repository == {
        "url": "https://github.com/ma-kjh/CMA-OoDD",
        "owner": "ma-kjh",
        "name": "CMA-OoDD",
        "description": "Cross-modal alignment for OoD detection.",
        "stars": 42,
        "framework": "pytorch",
        "is_official": None,
    }
    assert ids(client, "/repositories/ma-kjh/CMA-OoDD/papers/") == [PAPER]


def test_authors_and_their_papers(client, catalogue):
    authors = get(client, "/authors/")["results"]
    # "Spam Bot" wrote only the withheld paper.
    assert [(a["id"], a["full_name"]) for a in authors] == [
        ("jeonghyeon-kim", "Jeonghyeon Kim"),
        ("sangheum-hwang", "Sangheum Hwang"),
        ("zoe-angstrom-nunez", "Zoë Ångström-Núñez"),
    ]
    assert get(client, "/authors/sangheum-hwang/") == authors[1]
    assert ids(client, "/authors/jeonghyeon-kim/papers/") == [PAPER, "vit-study-0"]
    assert ids(client, "/authors/", q="HWANG") == ["sangheum-hwang"]
    assert ids(client, "/authors/", full_name="Sangheum") == []


def test_conferences_and_proceedings(client, catalogue):
    assert get(client, "/conferences/")["results"] == [{"id": "cvpr", "name": "CVPR"}]
    assert get(client, "/conferences/cvpr/") == {"id": "cvpr", "name": "CVPR"}
    assert ids(client, "/conferences/cvpr/proceedings/") == [
        "cvpr-2025-6",
        "cvpr-2024-6",
        "cvpr-2023-6",
    ]
    proceeding = get(client, "/conferences/cvpr/proceedings/cvpr-2023-6/")
    assert proceeding == {"id": "cvpr-2023-6", "year": 2023, "month": 6}
    assert ids(client, "/conferences/cvpr/proceedings/cvpr-2023-6/papers/") == ["vit-study-3"]
    assert ids(client, "/conferences/cvpr/proceedings/cvpr-2024-6/papers/") == []
    assert ids(client, "/conferences/", q="cv") == ["cvpr"]


def test_methods_and_their_filters(client, catalogue):
    methods = get(client, "/methods/")["results"]
    # The withheld method "casino" is left out.
    assert [(m["id"], m["paper"]) for m in methods] == [
        ("bonus-net", None),
        ("infonce", PAPER),
        ("vision-transformer", None),
    ]
    assert get(client, "/methods/infonce/") == methods[1]
    assert ids(client, "/methods/", q="vision") == ["vision-transformer"]
    assert ids(client, "/methods/", name="ViT") == ["vision-transformer"]
    assert ids(client, "/methods/", full_name="Vision Transformer") == ["vision-transformer"]


def test_paper_filters(client, catalogue):
    assert ids(client, "/papers/", abstract="CROSS-MODAL loss") == [PAPER]
    assert ids(client, "/papers/", title="A Vision Transformer Study, part 2") == ["vit-study-1"]
    assert ids(client, "/papers/", q="vision transformer study")[:2] == [
        "vit-study-6",
        "vit-study-5",
    ]


def test_search_gives_a_papers_first_code(client, catalogue):
    hits = get(client, "/search/", q="OoD Detection")["results"]
    assert hits[0]["paper"]["id"] == PAPER
    assert hits[0]["repository"]["name"] == "CMA-OoDD"
    assert hits[0]["is_official"] is True
    assert hits[0]["paper"]["authors"][0] == "Jeonghyeon Kim"
    without_code = get(client, "/search/", q="Vision Transformer Study")["results"][0]
    assert (without_code["repository"], without_code["is_official"]) == (None, False)


@pytest.mark.parametrize(
    "path",
    [
        "/papers/casino-bonus-paper/",
        "/papers/casino-bonus-paper/repositories/",
        "/papers/casino-bonus-paper/methods/",
        "/papers/casino-bonus-paper/results/",
        "/repositories/spam/bonus/",
        "/repositories/spam/casino/",
        "/repositories/spam/casino/papers/",
        "/authors/spam-bot/",
        "/authors/spam-bot/papers/",
        "/methods/casino/",
        "/conferences/nips/",
        "/conferences/cvpr/proceedings/neurips-2021-12/",
        "/conferences/no-such/proceedings/cvpr-2023-6/papers/",
        "/repositories/a%20b/c/",
    ],
)
def test_withheld_and_unknown_are_a_json_404(client, catalogue, path):
    assert get(client, path, status=404)["error"]


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/papers/", {"q": "casino"}),
        ("/papers/", {"abstract": "casino"}),
        ("/search/", {"q": "casino"}),
        ("/authors/", {"q": "spam"}),
        ("/methods/", {"q": "casino"}),
        (f"/tasks/{TASK}/papers/", {}),
        ("/conferences/cvpr/proceedings/cvpr-2024-6/papers/", {}),
        ("/authors/jeonghyeon-kim/papers/", {}),
    ],
)
def test_withheld_papers_and_methods_are_in_no_list(client, catalogue, path, params):
    found = get(client, path, items_per_page=500, **params)["results"]
    assert "casino" not in str(found).lower()


@pytest.mark.parametrize(
    "params", [{"stars": "-1"}, {"stars": "many"}, {"owner": "a\x00b"}, {"q": "x" * 201}]
)
def test_bad_repository_filters_are_a_json_400(client, catalogue, params):
    assert get(client, "/repositories/", status=400, **params)["error"]


def test_a_repository_owner_without_a_slash_is_redirected(client, catalogue):
    response = client.get(f"{API}/repositories/ma-kjh")
    assert response.status_code == 301
    assert response["Location"] == f"{API}/repositories/ma-kjh/"


def test_a_result_names_no_withheld_paper(client, catalogue):
    Paper.objects.filter(slug=PAPER).update(withheld=True)
    results = get(client, f"/evaluations/{SEED_SLUG}/results/", items_per_page=500)["results"]
    assert len(results) == 22
    assert PAPER not in {r["paper"] for r in results}
    assert results[0]["paper"] is None

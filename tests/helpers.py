"""What the tests share besides fixtures: paths, the seed, page builders and small readers.

Tests import these from here, never from conftest.py or from another test module, so a
test file reads on its own and moving one never breaks another. Fixtures live in the
conftest.py files; child processes a test starts import what they run from here too.
"""

import copy
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from django.core.management import call_command
from django.urls import URLResolver, get_resolver, reverse

ROOT = Path(__file__).resolve().parent.parent
SEED_FILE = ROOT / "seeds" / "000_fb04590d24745268.txt"
SEED_SLUG = "out-of-distribution-detection-on-imagenet-1k-8"


def _pwc_data():
    """Real Papers with Code data, read where it lies (never copied in).

    SOTASITE_PWC_DATA names it; otherwise it sits beside the checkout, or, for a
    fresh clone made elsewhere (`git clone . $(mktemp -d)`), beside the
    repository it was cloned from.
    """
    if "SOTASITE_PWC_DATA" in os.environ:
        return Path(os.environ["SOTASITE_PWC_DATA"])
    beside = [ROOT.parent]
    origin = subprocess.run(
        ["git", "-C", str(ROOT), "config", "--get", "remote.origin.url"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if origin and Path(origin).is_dir():
        beside.append(Path(origin).resolve().parent)
    found = [folder / "shared" / "data" / "pwc" for folder in beside]
    return next((path for path in found if path.is_dir()), found[0])


PWC_DATA = _pwc_data()
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"

# Editors (issue #5): an account made the way the README says, signed in.
EDITOR_PASSWORD = "a-long-editor-passphrase-42"

# Names in the seed page, as the catalogue's pages link them.
TASK = "out-of-distribution-detection"
DATASET = "imagenet-1k-vs-sun"
PAPER = "enhanced-ood-detection-through-cross-modal"

SPAM_MODEL = "LINe (ResNet50)"  # rank 2 of the seed
NEW_MODEL = "NewOOD (ViT-L/14)"

PRODUCTION_ENV = {
    "SOTASITE_PRODUCTION": "1",
    "SOTASITE_SECRET_KEY": "test-only-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJ",
    "SOTASITE_ALLOWED_HOSTS": "example.org",
}


# Page files -----------------------------------------------------------------


def scaled_page(page, rows):
    """The seed page with its rows repeated to `rows` rows, figures kept true."""
    from leaderboards.format import derive

    page = copy.deepcopy(page)
    base = page["rows"]
    page["rows"] = []
    for index in range(rows):
        row = copy.deepcopy(base[index % len(base)])
        row["rank_in_archive_order"] = index + 1
        row["model"] = f"{row['model']} #{index}"
        page["rows"].append(row)
    page["counts"] = derive.page_counts(page["rows"])
    page["syntology"].update(derive.syntology_figures(page["rows"]))
    for name in ("samples_over_distinct_papers", "samples_row_weighted"):
        page["syntology"][name]["note"] = "n"
    return page


def unranked(page):
    """The page with its rows in an order that settles no direction for its first
    metric: lowest, highest, next lowest, next highest... (a zigzag), ranks renumbered."""
    from leaderboards.format.values import parse_metric_value

    page = copy.deepcopy(page)
    first = page["metrics"][0]

    def number(row):
        return parse_metric_value(row["metrics"].get(first))

    numbered = sorted((row for row in page["rows"] if number(row) is not None), key=number)
    rest = [row for row in page["rows"] if number(row) is None]
    zigzag = []
    while numbered:
        zigzag.append(numbered.pop(0))
        if numbered:
            zigzag.append(numbered.pop())
    page["rows"] = zigzag + rest
    for rank, row in enumerate(page["rows"], start=1):
        row["rank_in_archive_order"] = rank
    return page


def write_board_files(folder, seed_page, count, rows=3):
    """Make `folder` with `count` page files, board-0000.json on: the seed page at `rows` rows."""
    folder.mkdir()
    for index in range(count):
        page = scaled_page(seed_page, rows)
        page["url"] = f"/sota/board-{index:04d}"
        (folder / f"board-{index:04d}.json").write_text(json.dumps(page))


def board(seed_page, index, task="Out-of-Distribution Detection", rows=None):
    """The seed page as another leaderboard, on its own dataset."""
    page = copy.deepcopy(seed_page)
    dataset = f"Board Set {index}"
    slug = f"{task.lower().replace(' ', '-')}-on-board-set-{index}"
    page["url"] = f"/sota/{slug}"
    page["task"] = {**page["task"], "name": task, "url": f"/task/{task.lower().replace(' ', '-')}"}
    page["dataset"] = {"name": dataset, "url": f"/dataset/board-set-{index}"}
    if rows is not None:
        page["rows"] = page["rows"][:rows]
        from leaderboards.format import derive

        page["counts"] = derive.page_counts(page["rows"])
        page["syntology"].update(derive.syntology_figures(page["rows"]))
        for name in ("samples_over_distinct_papers", "samples_row_weighted"):
            page["syntology"][name]["note"] = "n"
    return page


def board_with_metrics(seed_page, slug, rows, metrics):
    """The seed page as another board: `rows` rows, its two metrics renamed to `metrics`."""
    page = scaled_page(seed_page, rows)
    page["url"] = f"/sota/{slug}"
    names = dict(zip(page["metrics"], metrics, strict=True))
    page["metrics"] = list(metrics)
    page["metric_direction"]["by_metric"] = dict.fromkeys(metrics)
    for row in page["rows"]:
        row["metrics"] = {names[old]: value for old, value in row["metrics"].items()}
    return page


# Two of the seed's models, each named by its paper as model_slug() reads them.
CMA = "CMA(ViT-B/16, NegLabel)"
CMA_PAPER = "/paper/enhanced-ood-detection-through-cross-modal"
LINE = "LINe (ResNet50)"
LINE_PAPER = "/paper/line-out-of-distribution-detection-by"
SECOND_BOARD = "out-of-distribution-detection-on-board-set-1"


def a_second_board_with_directions(seed_page, rows=5):
    """The seed as a second board (SECOND_BOARD), its directions stated: FPR95 lower,
    AUROC higher; LINe (second) ahead of CMA (first) on AUROC, behind it on FPR95."""
    page = board(copy.deepcopy(seed_page), 1, rows=rows)
    page["metric_direction"]["by_metric"] = {"FPR95": "lower", "AUROC": "higher"}
    page["rows"][1]["metrics"] = {"AUROC": "97.01", "FPR95": "18.5"}
    return page


def a_newer_seed(seed_page):
    """The seed read a month later, its source text changed and the spam row moved first."""
    seed_page["syntology"]["read_at"] = "2026-10-25T09:33:49+00:00"
    seed_page["description"] = "A newer source description."
    seed_page["task"]["note"] = "A newer source note."
    seed_page["rows"].insert(0, seed_page["rows"].pop(1))
    for rank, row in enumerate(seed_page["rows"], start=1):
        row["rank_in_archive_order"] = rank
    return seed_page


NEW_MODEL_2026 = "A New Model (2026)"


def a_reloaded_seed(seed_page, day=26):
    """The seed read on a later day of September 2026, its data changed: row 1's AUROC
    96.36 -> 96.40, its last row gone, a row NEW_MODEL_2026 added last. Returns
    (page, the row gone)."""
    seed_page["syntology"]["read_at"] = f"2026-09-{day:02d}T09:33:49+00:00"
    seed_page["rows"][0]["metrics"]["AUROC"] = "96.40"
    gone = seed_page["rows"].pop()
    new = dict(seed_page["rows"][1], model=NEW_MODEL_2026, syntology=None)
    new["metrics"] = {"AUROC": "97.01", "FPR95": "12.5"}
    seed_page["rows"].append(new)
    for rank, row in enumerate(seed_page["rows"], start=1):
        row["rank_in_archive_order"] = rank
    return seed_page, gone


# Papers with Code's archive, as import_pwc reads it ---------------------------


def row(model, metrics, paper_url="", title="", code=(), date=None):
    return {
        "model_name": model,
        "paper_title": title,
        "paper_url": paper_url,
        "paper_date": date,
        "code_links": [{"title": "", "url": url} for url in code],
        "model_links": [],
        "metrics": metrics,
        "uses_additional_data": False,
    }


def table(name, rows, metrics=None, sub=()):
    return {
        "dataset": name,
        "description": "",
        "dataset_links": [],
        "dataset_citations": [],
        "subdatasets": list(sub),
        "sota": {"metrics": metrics or list(rows[0]["metrics"]) if rows else [], "rows": rows},
    }


def task(name, datasets, subtasks=(), categories=(), synonyms=()):
    return {
        "task": name,
        "description": f"About {name}.",
        "categories": list(categories),
        "datasets": datasets,
        "subtasks": list(subtasks),
        "synonyms": list(synonyms),
        "source_link": None,
    }


def archive_file(folder, name, records, gz=False):
    """One of the archive's files (`name`: "methods.json", ...) holding `records`, in a
    folder of its own under `folder`, so a test can write the same file twice."""
    data = json.dumps(records).encode()
    path = Path(tempfile.mkdtemp(dir=folder)) / (name + (".gz" if gz else ""))
    path.write_bytes(gzip.compress(data) if gz else data)
    return str(path)


def run_import_pwc(*paths, dry_run=False):
    """import_pwc on these files (a fixed snapshot date for boards): (stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    args = [*map(str, paths), "--snapshot=2025-07-28", *(["--dry-run"] if dry_run else [])]
    call_command("import_pwc", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


# Reading what the site serves and stores ---------------------------------------


def html(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, url
    return response.content.decode()


def links(page, kind):
    """How many detail pages of a kind a page links to (the nav's list links aside)."""
    import re

    return len(re.findall(rf'href="/{kind}/[^"?]+"', page))


def models_in_order(page):
    """The model names of a leaderboard page's table, top to bottom."""
    import html as htmllib
    import re

    cells = re.findall(r'<td class="model"><span class="clamp"[^>]*>(.*?)</span>', page)
    # A row's name is a link to its model's page; an editor's added result's is not.
    return [htmllib.unescape(re.sub(r"<[^>]*>", "", name)) for name in cells]


# A board row's rank cell: the row's "Suggest a correction" pencil, then its rank.
RANK_CELL = r'<td class="num rank">(?:<a class="suggest-row"[^>]*>(?:(?!</td>).)*?</a> )?{}</td>'


def exported(client):
    """The seed board's JSON export, as a visitor downloads it."""
    board = reverse("leaderboards:leaderboard_json", args=[SEED_SLUG])
    return json.loads(client.get(board).content)


def database_dump():
    out = io.StringIO()
    call_command("dumpdata", "leaderboards", "--indent=0", stdout=out)
    return out.getvalue()


def cached_entries():
    """Every page the page cache holds, as the middleware stored it.

    The boards' prepared parts, kept in the same cache (web/prepared.py), are left out.
    """
    import pickle

    from django.core.cache import caches

    from leaderboards.web.page_cache import PAGE_CACHE

    cache = caches[PAGE_CACHE]
    if isinstance(cache._cache, dict):
        entries = [pickle.loads(entry) for entry in cache._cache.values()]
    else:
        client = cache._cache.get_client()
        entries = [cache._cache._serializer.loads(client.get(key)) for key in client.keys("*")]
    return [entry for entry in entries if isinstance(entry, tuple)]


def upkeep_state():
    """What the end-of-load work keeps, and whether it equals a fresh rebuild (rolled back).

    With the data version and the markers left; run in tests and in child processes.
    """
    from django.db import transaction

    from leaderboards.models import (
        Area,
        Author,
        Dataset,
        Method,
        Paper,
        Repository,
        SearchEntry,
        Task,
        UpkeepPending,
    )
    from leaderboards.search import refresh_index
    from leaderboards.upkeep.cache import versions
    from leaderboards.upkeep.figures import refresh_counts

    def kept():
        return {
            "tasks": sorted(Task.objects.values_list("slug", "leaderboard_count", "row_count")),
            "datasets": sorted(
                Dataset.objects.values_list("slug", "leaderboard_count", "row_count")
            ),
            "areas": sorted(Area.objects.values_list("slug", "task_count", "leaderboard_count")),
            "papers": sorted(Paper.objects.values_list("slug", "has_code", "verified")),
            "archive": [
                sorted(model.objects.values_list("pk", "paper_count"))
                for model in (Author, Method, Repository)
            ],
            "search": sorted(SearchEntry.objects.values_list("kind", "name", "slug", "context")),
        }

    now = kept()
    with transaction.atomic():
        refresh_counts()
        refresh_index()
        fresh = kept()
        transaction.set_rollback(True)
    return {
        "right": now == fresh,
        "search_entries": len(now["search"]),
        "version": versions().catalogue,
        "pending": UpkeepPending.objects.count(),
    }


# The admin, as editors use it -------------------------------------------------


def admin_url(model, view, *args):
    return reverse(f"admin:leaderboards_{model._meta.model_name}_{view}", args=args)


def spam_row():
    from leaderboards.models import Row

    return Row.objects.get(model=SPAM_MODEL)


def withhold_in_admin(client, row, reason="Paper retracted; results not reproducible."):
    from leaderboards.models import Row

    return client.post(
        admin_url(Row, "change", row.pk),
        {
            "withheld": "on",
            "withheld_reason": reason,
            "values-TOTAL_FORMS": "0",
            "values-INITIAL_FORMS": "0",
            "_save": "Save",
        },
    )


def set_direction_in_admin(client, metric, direction):
    from leaderboards.models import Metric

    return client.post(
        admin_url(Metric, "change", metric.pk),
        {"editor_direction": direction, "_save": "Save"},
    )


def add_in_admin(client, board, **changes):
    """An editor's added result on `board`: NEW_MODEL, cited, with both seed metrics."""
    from leaderboards.models import EditorAddition

    data = {
        "leaderboard": board.pk,
        "model": NEW_MODEL,
        "value_0": "9.87",  # FPR95, the seed's first metric
        "value_1": "98.1 ± 0.1",  # AUROC
        "paper_title": "NewOOD: a newer paper",
        "paper_url": "https://arxiv.org/abs/2511.00001",
        "paper_date": "2025-11-02",
        "code": "",
        "note": "Table 2 of the paper; found by Syntology since the archive.",
        "_save": "Save",
        **changes,
    }
    return client.post(admin_url(EditorAddition, "add") + f"?board={SEED_SLUG}", data)


# Child processes ---------------------------------------------------------------


def child_env(database_url):
    """The environment of a child process that runs the site on database_url."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "sotasite.settings",
    }


def manage(*args, env):
    # As a deploy would run it: no test-only switches (conftest's async one) carried over.
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SOTASITE_") and k != "DJANGO_ALLOW_ASYNC_UNSAFE"
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def reader_that_waits(paths):
    """A load's reader that never reads: it says so, then hangs until killed."""
    print("reading", file=sys.stderr, flush=True)
    time.sleep(60)


# The site's URL patterns, walked from the resolver ------------------------------

# A path parameter as a route writes it (<slug:slug>, <id>) or a regex does ((?P<id>...)).
PARAMETER = re.compile(r"<(?:[^>:]+:)?[^>]+>|\(\?P<[^>]+>[^)]*\)")


def public_routes(resolver=None, prefix=""):
    """Every URL pattern as one string, with its includes' prefixes; admin left out."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        text = prefix + str(entry.pattern).removeprefix("^").removesuffix("$").removesuffix("\\Z")
        if text.startswith("admin/"):
            continue  # the admin's own, and the editor's pages beside it
        if isinstance(entry, URLResolver):
            if "admin" not in (entry.app_name, entry.namespace):
                yield from public_routes(entry, text)
        else:
            # A regex's escaped dot and optional slash, as a URL would have them.
            yield text.replace("\\.", ".").replace("/?", "/")


def fill(route, values):
    """The route with its parameters replaced, in order, by values (the last repeated)."""
    values = iter(values)
    last = None

    def value(match):
        nonlocal last
        last = next(values, last)
        return last

    return "/" + PARAMETER.sub(value, route)


# The archive's catalogue, made directly (issue #28's pages) ---------------------


def make_paper(slug, title=None, date="2021-06-01", **fields):
    """A paper as the papers file describes it (described=True unless told)."""
    from leaderboards.models import Paper

    fields.setdefault("described", True)
    return Paper.objects.create(
        slug=slug, title=title if title is not None else slug.replace("-", " ").title(),
        date=date, **fields,
    )  # fmt: skip


def make_authors(paper, *names):
    """The paper's author list, in order; an author per name, shared across papers."""
    from django.utils.text import slugify

    from leaderboards.models import Author, PaperAuthor

    authors = []
    for position, name in enumerate(names):
        author, _ = Author.objects.get_or_create(name=name, defaults={"slug": slugify(name)})
        PaperAuthor.objects.create(paper=paper, author=author, position=position)
        authors.append(author)
    return authors


def make_proceeding(name, conference=None, year=None, month=None):
    """A proceeding "NeurIPS 2021 12" of its conference (made as needed)."""
    from django.utils.text import slugify

    from leaderboards.models import Conference, Proceeding

    conference = conference or name.split()[0]
    conference, _ = Conference.objects.get_or_create(
        name=conference, defaults={"slug": slugify(conference)}
    )
    return Proceeding.objects.create(
        name=name, slug=slugify(name), conference=conference, year=year, month=month
    )


def make_code_link(paper, url, **fields):
    """A link from the paper to a repository (made as needed), as the links file gives it."""
    from leaderboards.models import PaperRepository, Repository

    repository, _ = Repository.objects.get_or_create(url=url)
    return PaperRepository.objects.create(paper=paper, repository=repository, **fields)


def make_method(slug, name=None, categories=(), papers=(), **fields):
    """A method, in these categories, used by these papers."""
    from leaderboards.models import Method

    method = Method.objects.create(slug=slug, name=name or slug.replace("-", " ").title(), **fields)
    method.categories.set(categories)
    method.papers.set(papers)
    return method


def make_category(name, area=None, parent=None, **fields):
    """A methods category (PwC's collection), in an area (made as needed by its name)."""
    from django.utils.text import slugify

    from leaderboards.models import MethodArea, MethodCategory

    if isinstance(area, str):
        area, _ = MethodArea.objects.get_or_create(name=area, defaults={"slug": slugify(area)})
    return MethodCategory.objects.create(
        name=name, slug=slugify(name), area=area, parent=parent, **fields
    )


def make_showcase():
    """The seed's paper and dataset as the other four archive files describe them.

    For the browser tests (screenshots, axe): every new page type with
    realistic data, some of it hostile. Needs the seed page loaded.
    """
    from leaderboards.models import Dataset, DatasetLanguage, DatasetModality, Paper, Task

    paper = Paper.objects.get(slug=PAPER)
    Paper.objects.filter(pk=paper.pk).update(
        described=True,
        abstract=(
            "Out-of-distribution (OoD) detection flags inputs unlike the training data. We align "
            "image and text embeddings with a cross-modal loss and bound the $\\ell_2$ distance "
            "$\\|f(x) - g(t)\\|_2 \\le \\epsilon$ between the two, so that the score "
            "$$S(x) = \\max_i \\frac{e^{s_i / \\tau}}{\\sum_j e^{s_j / \\tau}}$$ separates in- "
            "from "
            "out-of-distribution inputs. On ImageNet-1k our method cuts FPR95 by 10% "
            "<script>alert(1)</script>.\n\nCode is public."
        ),
        url_abs="https://arxiv.org/abs/2503.18817v1",
        url_pdf="https://arxiv.org/pdf/2503.18817v1.pdf",
        proceeding=make_proceeding("CVPR 2025 6", year=2025, month=6),
    )
    paper.refresh_from_db()
    make_authors(paper, "Jeonghyeon Kim", "Sangheum Hwang", "Zoë Ångström-Núñez")
    make_code_link(
        paper, "https://github.com/ma-kjh/CMA-OoDD", is_official=True, framework="pytorch",
        mentioned_in_paper=True, mentioned_in_github=True,
    )  # fmt: skip
    make_code_link(paper, "https://github.com/someone/cma-reimplementation", framework="jax",
                   mentioned_in_github=True)  # fmt: skip
    make_code_link(paper, "https://github.com/spam/casino", editor_unlinked=True,
                   editor_reason="Not this paper's code.")  # fmt: skip
    paper.tasks.add(*Task.objects.filter(slug=TASK))
    cnn = make_category(
        "Vision Transformers", area="Computer Vision",
        description="Transformers applied to **images**, patch by patch.",
    )  # fmt: skip
    losses = make_category("Loss Functions", area="General")
    contrastive = make_category("Contrastive Losses", area=losses.area, parent=losses)
    older = []
    for index, year in enumerate((2021, 2021, 2022, 2023, 2023, 2023, 2024)):
        older.append(
            make_paper(
                f"vit-study-{index}",
                f"A Vision Transformer Study, part {index + 1}",
                f"{year}-03-0{index + 1}",
            )  # fmt: skip
        )
    make_authors(older[0], "Jeonghyeon Kim")
    Paper.objects.filter(pk=older[3].pk).update(
        proceeding=make_proceeding("CVPR 2023 6", conference="CVPR", year=2023, month=6)
    )
    make_method(
        "vision-transformer", "ViT", full_name="Vision Transformer", categories=[cnn],
        papers=[paper, *older], paper_count=8, num_papers=1411, introduced_year=2020,
        description=(
            "The **Vision Transformer** splits an image into patches and feeds them to a "
            "[Transformer](https://arxiv.org/abs/1706.03762).\n\n| Model | Layers | Params |\n"
            "|---|---|---|\n| ViT-B/16 | 12 | 86M |\n| ViT-L/16 | 24 | 307M |\n\n"
            "[click](javascript:alert(1)) <img src=x onerror=alert(1)>"
        ),
        code_snippet_url="https://github.com/google-research/vision_transformer",
        source_url="https://arxiv.org/abs/2010.11929v2",
        source_title="An Image is Worth 16x16 Words",
        paper_title="An Image is Worth 16x16 Words: Transformers for Image Recognition at Scale",
        paper_url="https://arxiv.org/abs/2010.11929v2",
    )  # fmt: skip
    make_method("infonce", "InfoNCE", categories=[contrastive], papers=[paper], paper_count=1)
    make_method("casino", "Best online casino", categories=[cnn], withheld=True,
                withheld_reason="Spam.")  # fmt: skip
    dataset = Dataset.objects.get(slug=DATASET)
    Dataset.objects.filter(pk=dataset.pk).update(
        full_name="ImageNet-1k (in-distribution) versus SUN (out-of-distribution)",
        homepage="https://vision.princeton.edu/projects/2010/SUN/",
        description=(
            "**SUN** holds scenes; as an OoD set it is paired with ImageNet-1k.\n\n"
            "| Split | Images |\n|---|---|\n| test | 10,000 |"
        ),
        introduced_date="2010-06-13",
        warning="Some SUN images overlap ImageNet classes.",
        variants=["SUN (OoD)", "iNaturalist/SUN"],
        data_loaders=[
            {"url": "https://github.com/deeplearning-wisc/large_scale_ood",
             "repo": "https://github.com/deeplearning-wisc/large_scale_ood",
             "frameworks": ["pytorch"]},
        ],
        num_papers=41,
        paper_count=19,
    )  # fmt: skip
    dataset.modalities.add(DatasetModality.objects.create(slug="images", name="Images"))
    dataset.languages.add(DatasetLanguage.objects.create(slug="english", name="English"))
    dataset.tasks.add(*Task.objects.filter(slug=TASK))
    return paper


def sign_in(client, user):
    """Sign `user` in as the admin's login would: the session, and on the admin's
    next page the mark that lets an editor's session skip the page cache."""
    client.force_login(user)
    client.get(reverse("admin:index"))
    return client


def plan_of(sql, sorts=True, dropped=()):
    """The database's plan for `sql`; on PostgreSQL with whole reads (and without `sorts`,
    sorts) priced out, as the test's tables are a page each, which the planner would read
    whole, and the `dropped` indexes dropped in the test's transaction: on such tables
    the planner's choice between two that serve is a toss."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            for scan in ("seqscan", "bitmapscan", *([] if sorts else ["sort"])):
                cursor.execute(f"SET LOCAL enable_{scan} = off")
            for index in dropped:
                cursor.execute(f"DROP INDEX {index}")
            cursor.execute(f"EXPLAIN {sql}")
        else:
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
        return " ".join(str(line) for line in cursor.fetchall())

"""A page file whose text fields carry attacks, for tests that the site shows them as text.

Every script in the payloads sets `window.pwned`; a test checks it stays undefined.
"""

from leaderboards.format import derive
from tests.helpers import scaled_page

HOSTILE_SLUG = "hostile-board"
HOSTILE_PAPER = "hostile-paper"

SCRIPT = "<script>window.pwned=1;alert('script')</script>"
ONERROR = "<img src=x onerror=\"window.pwned=1;alert('onerror')\">"
BREAKOUT = "\"'><svg onload=window.pwned=1>"
RTL = "model\u202egnp.exe"
JS_URL = "javascript:window.pwned=1;alert('href')"
DATA_URL = "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="
SPACED_JS_URL = " JaVaScRiPt:window.pwned=1"

# Strings that must show on the page exactly as written.
SHOWN = [SCRIPT, ONERROR, BREAKOUT, RTL]


def hostile_page(seed_page):
    """The seed page at 6 rows, with an attack in each place a file puts text or a URL."""
    page = scaled_page(seed_page, 6)
    page["url"] = f"/sota/{HOSTILE_SLUG}"
    page["task"]["name"] = f"Task {SCRIPT} {RTL}"
    page["task"]["note"] = f"note {ONERROR}"
    page["dataset"]["name"] = f"Dataset {BREAKOUT}"
    page["description"] = f"Described {SCRIPT} {RTL}"
    page["category_note"] = BREAKOUT
    page["categories"] = [*page["categories"], f"Area {SCRIPT}"]
    _rename_metric(page, page["metrics"][0], f"{page['metrics'][0]} {ONERROR}")
    texts = [SCRIPT, ONERROR, BREAKOUT, RTL, SCRIPT, ONERROR]
    urls = [JS_URL, DATA_URL, SPACED_JS_URL, "vbscript:msgbox(1)", JS_URL, DATA_URL]
    for row, text, url in zip(page["rows"], texts, urls, strict=True):
        row["model"] = text
        row["paper_title"] = f"Title {text}"
        row["paper_url"] = url
        row["code"] = url
    # One row leads to a paper page, so the paper page carries the attacks too.
    page["rows"][0]["paper"] = f"/paper/{HOSTILE_PAPER}"
    page["rows"][1]["paper"] = f"/paper/{HOSTILE_PAPER}"
    since = page["since_archive"]
    since["columns"] = ["model", "metric", "value", "paper", "arxiv_id", "month", "url"]
    since["entries"] = [
        {
            "model": SCRIPT,
            "metric": "AUROC",
            "value": ONERROR,
            "paper": RTL,
            "arxiv_id": "2510.00001",
            "month": "2025-10",
            "url": JS_URL,
        },
        {
            "model": BREAKOUT,
            "metric": "FPR95",
            "value": "1.0",
            "paper": SCRIPT,
            "arxiv_id": "2510.00002",
            "month": "2025-10",
            "url": DATA_URL,
        },
    ]
    page["counts"] = derive.page_counts(page["rows"])
    page["syntology"].update(derive.syntology_figures(page["rows"]))
    return page


def _rename_metric(page, old, new):
    page["metrics"] = [new if name == old else name for name in page["metrics"]]
    by_metric = page["metric_direction"]["by_metric"]
    page["metric_direction"]["by_metric"] = {
        new if name == old else name: value for name, value in by_metric.items()
    }
    for row in page["rows"]:
        row["metrics"] = {
            new if name == old else name: value for name, value in row["metrics"].items()
        }

"""Attacks carried in page files are shown as text: no script runs, no dangerous link."""

import json
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from leaderboards.models import Area
from tests.hostile import HOSTILE_PAPER, HOSTILE_SLUG, SCRIPT, SHOWN, hostile_page

# Schemes that run code or carry a document of their own when followed.
UNSAFE_SCHEMES = ("javascript:", "data:", "vbscript:")
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "srcset", "poster"}


class Page(HTMLParser):
    """What a browser would act on: elements, their attributes, scripts and text."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.tags, self.attributes, self.scripts, self.text = [], [], [], []
        self._script = None  # inside a script: "code" or "data"
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += [(tag, name, value or "") for name, value in attrs]
        # Data blocks (<script type="application/json">) hold data, not code.
        kind = dict(attrs).get("type") or "text/javascript"
        if tag == "script":
            self._script = "code" if "javascript" in kind or kind == "module" else "data"

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None

    def handle_data(self, data):
        if self._script == "code":
            self.scripts.append(data)
        elif self._script is None:
            self.text.append(data)


@pytest.fixture
def hostile(load, write_page, seed_page):
    ok, out, err = load(write_page(hostile_page(seed_page)))
    assert ok, err
    area = Area.objects.get(name=f"Area {SCRIPT}")
    return {
        "leaderboard": reverse("leaderboards:leaderboard", args=[HOSTILE_SLUG]),
        "paper": reverse("leaderboards:paper", args=[HOSTILE_PAPER]),
        "task": reverse("leaderboards:task", args=["out-of-distribution-detection"]),
        "dataset": reverse("leaderboards:dataset", args=["imagenet-1k-vs-sun"]),
        "area": area.get_absolute_url(),
    }


def unsafe_links(parsed):
    return [
        (tag, name, value)
        for tag, name, value in parsed.attributes
        if name in URL_ATTRIBUTES and value.strip().lower().startswith(UNSAFE_SCHEMES)
    ]


@pytest.mark.parametrize("name", ["leaderboard", "paper", "task", "dataset", "area"])
def test_attacks_in_the_data_are_text_in_the_html(client, hostile, name):
    response = client.get(hostile[name])
    assert response.status_code == 200
    parsed = Page(response.content.decode())
    assert unsafe_links(parsed) == []
    assert [a for a in parsed.attributes if a[1].startswith("on")] == []
    # The payloads' own elements would carry their handlers, caught above.
    assert not any("pwned" in script for script in parsed.scripts)


def test_the_leaderboard_shows_every_attack_literally(client, hostile):
    text = "".join(Page(client.get(hostile["leaderboard"]).content.decode()).text)
    for shown in SHOWN:
        assert shown in text


def test_the_paper_page_shows_the_title_literally(client, hostile):
    text = "".join(Page(client.get(hostile["paper"]).content.decode()).text)
    assert f"Title {SCRIPT}" in text


def test_the_json_export_gives_the_attacks_back_verbatim_as_json(client, hostile, seed_page):
    response = client.get(reverse("leaderboards:leaderboard_json", args=[HOSTILE_SLUG]))
    assert response["Content-Type"] == "application/json"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert json.loads(response.content) == hostile_page(seed_page)


@pytest.mark.browser
def test_no_script_runs_and_no_dialog_opens_in_chromium(hostile, live_server, page, screenshot):
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for name, path in hostile.items():
        page.goto(live_server.url + path)
        page.wait_for_load_state("load")
        assert page.evaluate("typeof window.pwned") == "undefined", name
        hrefs = page.eval_on_selector_all(
            "[href], [src], [action]",
            "els => els.map(e => e.getAttribute('href') || e.getAttribute('src')"
            " || e.getAttribute('action'))",
        )
        assert not [h for h in hrefs if h.strip().lower().startswith(UNSAFE_SCHEMES)], name
        if name == "leaderboard":
            body = page.inner_text("body")
            for shown in SHOWN:
                assert shown in body
            screenshot(page, "hostile-leaderboard")
    assert dialogs == []


@pytest.mark.browser
def test_a_right_to_left_override_in_a_name_does_not_reorder_the_heading(
    hostile, live_server, page
):
    # The task's name ends in U+202E: unless contained, it reverses the rest of
    # the heading, and the dataset's link would show left of the task's.
    page.goto(live_server.url + hostile["leaderboard"])
    task_end, dataset_start = page.evaluate(
        """() => {
            const [task, dataset] = document.querySelectorAll("h1 a");
            const lines = task.getClientRects();
            const end = lines[lines.length - 1], start = dataset.getClientRects()[0];
            return [{top: end.top, right: end.right}, {top: start.top, left: start.left}];
        }"""
    )
    # On the same line, the dataset's link comes after the task's; or on a later line.
    same_line = abs(dataset_start["top"] - task_end["top"]) < 1
    assert (
        dataset_start["left"] >= task_end["right"]
        if same_line
        else (dataset_start["top"] > task_end["top"])
    )

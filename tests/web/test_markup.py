"""Descriptions and abstracts come from the public: hostile input renders as harmless HTML."""

import time
from html.parser import HTMLParser

import pytest

from leaderboards.web.markup import MAX_CHARS, abstract_html, markdown_html

HOSTILE_LINKS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "jav&#x61;script:alert(1)",
    "&#106;avascript:alert(1)",
    "java%0ascript:alert(1)",
    "<java\tscript:alert(1)>",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "DATA:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
]


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags(markup):
    """The elements a browser would build, with their attributes (text is not one)."""
    parser = _Tags()
    parser.feed(str(markup))
    return parser.tags


def hrefs(markup):
    return [attrs[name] for _, attrs in tags(markup) for name in ("href", "src") if name in attrs]


def assert_inert(markup):
    """Nothing in it that runs, loads or links outside http(s) and relative URLs."""
    for tag, attrs in tags(markup):
        assert tag not in {"script", "style", "iframe", "svg", "object", "embed", "img", "form"}
        assert not any(name.startswith("on") or name == "style" for name in attrs), (tag, attrs)
    for href in hrefs(markup):
        assert href.startswith(("http://", "https://", "/", "#")) or ":" not in href, href


def test_tables_lists_and_emphasis_are_kept():
    html = markdown_html(
        "**ResNet** is *deep*.\n\n| Layer | Size |\n|---|---|\n| conv1 | 7x7 |\n\n"
        "- one\n- two\n\n1. first"
    )
    assert "<strong>ResNet</strong>" in html and "<em>deep</em>" in html
    assert "<table>" in html and "<th>Layer</th>" in html and "<td>7x7</td>" in html
    assert "<ul>" in html and "<li>two</li>" in html and "<ol>" in html


def test_http_and_relative_links_are_kept_with_nofollow():
    html = markdown_html(
        "[paper](https://arxiv.org/abs/1512.03385) and [task](/task/image-classification)"
    )
    assert '<a href="https://arxiv.org/abs/1512.03385" rel="nofollow noopener">paper</a>' in html
    assert '<a href="/task/image-classification" rel="nofollow noopener">task</a>' in html


@pytest.mark.parametrize("url", HOSTILE_LINKS)
def test_a_link_outside_http_is_not_a_link(url):
    html = markdown_html(f"[click me](<{url}>) [again]({url}) <{url}>")
    assert_inert(html)
    assert "<a" not in html
    assert "click me" in html


@pytest.mark.parametrize(
    "hostile",
    [
        "<script>alert(1)</script>",
        "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
        '<img src=x onerror="alert(1)">',
        "<a href=\"javascript:alert(1)\" onclick='alert(2)'>x</a>",
        "<svg onload=alert(1)><script>alert(2)</script></svg>",
        '<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">x</maction>',
        "<iframe src=https://evil.example></iframe>",
        "<style>body{display:none}</style>",
        "<div style='background:url(javascript:alert(1))'>",
        "<b>unclosed <i>tags <a href='https://evil.example'",
        "<!-- a comment --><p onmouseover=alert(1)>hover</p>",
    ],
)
def test_raw_html_in_markdown_is_shown_as_text(hostile):
    html = markdown_html(f"Before {hostile} after")
    assert_inert(html)
    assert "Before" in html and "after" in html
    # The reader sees what was written, escaped, not a missing paragraph.
    assert "&lt;" in html


def test_an_image_is_a_link_to_it_and_a_data_image_is_its_alt_text():
    html = markdown_html(
        "![diagram](https://example.org/d.png) ![pixel](data:image/png;base64,AAAA)"
    )
    assert_inert(html)
    assert '<a href="https://example.org/d.png" rel="nofollow noopener">diagram</a>' in html
    assert "data:" not in html.split("pixel")[0].split("diagram")[-1]


def test_a_megabyte_description_is_cut_in_bounded_time():
    text = "A *word* [link](https://example.org) <b>x</b> | a | b |\n" * 20_000
    started = time.monotonic()
    html = markdown_html(text)
    assert time.monotonic() - started < 5
    assert f"cut: the text goes on past {MAX_CHARS:,} characters" in html
    assert len(html) < 10 * MAX_CHARS


def test_empty_and_none_give_nothing():
    assert markdown_html("") == ""
    assert markdown_html(None) == ""
    assert abstract_html(None) == ""


def test_abstract_tex_becomes_mathml_and_text_stays_text():
    html = abstract_html("We bound the $\\ell_2$ norm of <b>W</b>.\n\n$$\\frac{a}{b}$$")
    assert '<math display="inline"><mrow><msub><mi>ℓ</mi><mn>2</mn></msub>' in html
    assert '<math display="block">' in html and "<mfrac>" in html
    assert "&lt;b&gt;W&lt;/b&gt;" in html
    assert html.count("<p>") == 2


def test_abstract_dollars_for_money_stay_text():
    html = abstract_html("It costs $5 and $10 per run.")
    assert "<math" not in html and "costs $5 and $10" in html


def test_unreadable_tex_shows_its_source():
    html = abstract_html("Broken: $x^$ and deep $" + "{" * 100 + "x" + "}" * 100 + "$.")
    assert '<span class="tex">$x^$</span>' in html
    assert "<math" not in html


@pytest.mark.parametrize(
    "tex",
    [
        "\\text{<script>alert(1)</script>}",
        "\\href{javascript:alert(1)}{x}",
        "\\style{background:url(javascript:alert(1))}{x}",
        "\\text{</math><img src=x onerror=alert(1)>}",
    ],
)
def test_hostile_tex_renders_inert(tex):
    html = abstract_html(f"Formula ${tex}$ ends.")
    assert_inert(html)
    assert "javascript" not in html
    assert "Formula" in html and "ends." in html


def test_a_megabyte_abstract_is_cut_in_bounded_time():
    started = time.monotonic()
    html = abstract_html("Loss $x_i^2$ and <i>more</i>. " * 40_000)
    assert time.monotonic() - started < 5
    assert "cut: the text goes on past" in html
    assert_inert(html)

"""Text from the public made into HTML: Markdown descriptions and abstracts with TeX.

Methods' and datasets' descriptions are Markdown anyone could write on Papers
with Code, and papers' abstracts are plain text with TeX in dollars. Both are
rendered on the server (no script runs on the page) and every result passes
through one sanitiser allowlist (nh3) before it is marked safe: raw HTML in
the Markdown is shown as text, links are http(s) or relative, and nothing a
description holds can run, load or style anything.
"""

import html
import inspect
import re
from urllib.parse import unquote

import latex2mathml.converter
import latex2mathml.exceptions
import nh3
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

# Past this a description or abstract is cut, and says so: no real one comes
# near it, and rendering this many takes well under a second where a hostile
# megabyte would hold a page for several.
MAX_CHARS = 100_000
CUT_NOTE = "… (cut: the text goes on past {:,} characters)"

# Only these schemes may start a link; anything else with a scheme is text.
LINK_SCHEMES = {"http", "https"}
_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):", re.IGNORECASE)
# What browsers ignore inside a URL's scheme ("java\tscript:", "\x00javascript:").
_IGNORED_IN_URL = re.compile(r"[\x00-\x20\x7f]+")

MARKDOWN_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
    "ul", "ol", "li", "pre", "code", "em", "strong", "s", "a",
    "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
MARKDOWN_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}

# MathML that latex2mathml writes, without anything that links or styles.
MATHML_TAGS = {
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup",
    "msubsup", "mfrac", "msqrt", "mroot", "munder", "mover", "munderover",
    "mtable", "mtr", "mtd", "mstyle", "mpadded", "mphantom", "menclose", "semantics",
    "annotation",
}  # fmt: skip
MATHML_ATTRIBUTES = {
    "math": {"display"},
    "mo": {"stretchy", "fence", "separator", "lspace", "rspace", "movablelimits", "form"},
    "mstyle": {"displaystyle", "scriptlevel", "mathvariant"},
    "mi": {"mathvariant"},
    "mfrac": {"linethickness"},
    "mspace": {"width"},
    "mtable": {"columnalign", "rowspacing", "columnspacing"},
    "mtd": {"columnalign"},
    "menclose": {"notation"},
    "munderover": {"accent", "accentunder"},
    "mover": {"accent"},
    "munder": {"accentunder"},
}
ABSTRACT_TAGS = MATHML_TAGS | {"p", "span"}
ABSTRACT_ATTRIBUTES = MATHML_ATTRIBUTES | {"span": {"class"}}

# The errors latex2mathml raises on TeX it cannot read, and a too-deep nesting.
TEX_ERRORS = (
    *(
        error
        for _, error in inspect.getmembers(latex2mathml.exceptions, inspect.isclass)
        if issubclass(error, Exception)
    ),
    RecursionError,
    IndexError,
    KeyError,
    ValueError,
)
# A formula longer or deeper than any real abstract's is shown as its source.
MAX_TEX_CHARS = 2000
MAX_TEX_DEPTH = 40

# $$display$$, then $inline$ (Pandoc's rule, so "costs $5 and $10" stays text:
# no space just inside the dollars, no digit just after the closing one).
_MATH = re.compile(
    r"(?<!\\)\$\$(?P<display>.+?)(?<!\\)\$\$"
    r"|(?<![\\$])\$(?P<inline>[^\s$](?:[^$]*?[^\s\\$])?)\$(?![\d$])",
    re.DOTALL,
)


def _cut(text):
    text = text or ""
    if len(text) > MAX_CHARS:
        return text[:MAX_CHARS] + CUT_NOTE.format(MAX_CHARS)
    return text


def safe_link(url):
    """Whether a link's URL may stand: http(s), or relative with no colon before its path.

    Read as a browser might after any decoding (entities, percent escapes, the
    tabs and newlines it skips), so "jav&#x61;script:" and "java%0ascript:"
    are refused rather than left to a browser's reading of them.
    """
    url = _IGNORED_IN_URL.sub("", unquote(html.unescape(url)))
    match = _SCHEME.match(url)
    if match:
        return match.group(1).lower() in LINK_SCHEMES
    return ":" not in re.split(r"[/?#]", url, maxsplit=1)[0]


def _image_as_link(renderer, tokens, index, options, env):
    """An image is shown as a link to it: the CSP loads no image from elsewhere."""
    token = tokens[index]
    alt = html.escape(token.content or "image")
    src = token.attrGet("src") or ""
    if not safe_link(src):
        return alt
    return f'<a href="{html.escape(src)}">{alt}</a>'


def _markdown():
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(
        ["table", "strikethrough"]
    )
    md.validateLink = safe_link
    md.add_render_rule("image", _image_as_link)
    return md


_MD = _markdown()


def _clean(markup, tags, attributes):
    return nh3.clean(
        markup,
        tags=tags,
        attributes=attributes,
        url_schemes=LINK_SCHEMES,
        link_rel="nofollow noopener",
        strip_comments=True,
    )


def markdown_html(text):
    """Markdown from the public as sanitised HTML: tables, lists and http(s) links kept."""
    rendered = _MD.render(_cut(text))
    return mark_safe(_clean(rendered, MARKDOWN_TAGS, MARKDOWN_ATTRIBUTES))  # noqa: S308


def _depth(tex):
    deepest = depth = 0
    for char in tex:
        if char == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif char == "}":
            depth -= 1
    return deepest


def tex_mathml(tex, display=False):
    """One formula as MathML, or None where it cannot be read (its source is shown then)."""
    if len(tex) > MAX_TEX_CHARS or _depth(tex) > MAX_TEX_DEPTH:
        return None
    try:
        return latex2mathml.converter.convert(tex, display="block" if display else "inline")
    except TEX_ERRORS:
        return None


def _with_math(paragraph):
    parts = []
    last = 0
    for match in _MATH.finditer(paragraph):
        parts.append(html.escape(paragraph[last : match.start()]))
        display = match.group("display") is not None
        tex = match.group("display") if display else match.group("inline")
        mathml = tex_mathml(tex, display)
        if mathml is None:
            parts.append(f'<span class="tex">{html.escape(match.group(0))}</span>')
        else:
            parts.append(mathml)
        last = match.end()
    parts.append(html.escape(paragraph[last:]))
    return "".join(parts)


def abstract_html(text):
    """Plain text with TeX in dollars: the text escaped, each formula MathML (or its source)."""
    paragraphs = [part.strip() for part in re.split(r"\n\s*\n", _cut(text)) if part.strip()]
    rendered = "".join(f"<p>{_with_math(part)}</p>" for part in paragraphs)
    return mark_safe(_clean(rendered, ABSTRACT_TAGS, ABSTRACT_ATTRIBUTES))  # noqa: S308

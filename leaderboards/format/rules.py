"""Rules of the data that more than one part of the site applies, each defined once.

The page checker, the loader, the archive importer, the exports, the figures
kept for lists and the synthetic page generator all import these, so a rule
cannot drift between two copies.
"""

import datetime
import hashlib
import json
import re
from collections import Counter
from json.encoder import encode_basestring

from django.db.models import Q
from django.utils.text import slugify

# Slugs -----------------------------------------------------------------------


# What a slug may hold: Django's <slug:...> path converter, so every slug a page
# file gives is a URL the site answers.
SLUG_PATTERN = r"[-a-zA-Z0-9_]+"


def slug_for(text, fallback, limit=200):
    """A slug made from a name: lower-case and hyphenated, at most `limit` long."""
    return slugify(text or "")[:limit].strip("-") or fallback


def free_slug(base, taken, limit=200):
    """`base`, or the first of `base-2`, `base-3`, ... that `taken` does not hold.

    The suffix never takes a slug past `limit` (its column's length): the base
    gives up characters for it instead.
    """
    slug, n = base, 1
    while slug in taken:
        n += 1
        suffix = f"-{n}"
        slug = base[: limit - len(suffix)].rstrip("-") + suffix
    return slug


# Dates -----------------------------------------------------------------------

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_date(text):
    """A YYYY-MM-DD date that is a real day; ValueError otherwise.

    Stricter than date.fromisoformat, which also takes "20250728" and "2025-W31-1".
    """
    if isinstance(text, str) and _DATE.fullmatch(text):
        try:
            return datetime.date.fromisoformat(text)
        except ValueError:
            pass
    raise ValueError(f"expected a date YYYY-MM-DD, found {text!r}")


def date_or_none(text):
    """A checked page's date field: a date, or None for null."""
    return None if text is None else parse_date(text)


# Row counters (SPEC 1.1) -------------------------------------------------------

ROW_COUNTERS = ("n_ran", "n_unverified", "n_samples", "n_pointer_only_licence")


def n_samples(n_ran, n_unverified):
    """Every harvested sample either ran or is unverified.

    Works on numbers and on query expressions (F("n_ran")) alike.
    """
    return n_ran + n_unverified


# JSON ----------------------------------------------------------------------------


def compact_json(value):
    """JSON as the page files come: no spaces, non-ASCII kept as it is.

    Strict JSON: a NaN or an infinity raises ValueError rather than being
    written as a token no JSON reader accepts.
    """
    if type(value) is dict and not value:
        # Most rows' extra fields: a load writes hundreds of thousands.
        return "{}"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# An editor's description in the archive's record files ------------------------------

# PwC's methods carry one description. The site's dumps write an editor's text
# there and add this key, which PwC's files lack, so that a site restored from
# them still knows the text is an editor's. Any other value is no mark.
DESCRIPTION_SOURCE = "description_source"
EDITORS_SOURCE = "editor"


def editors_mark(editor_description):
    """The key a record file adds where the description it gives is an editor's."""
    return {} if editor_description is None else {DESCRIPTION_SOURCE: EDITORS_SOURCE}


def marked_as_editors(record):
    """Whether a record says its description is an editor's text (editors_mark()).

    Never an empty one: an editor who clears their text gives the archive's back.
    """
    description = record.get("description")
    return (
        record.get(DESCRIPTION_SOURCE) == EDITORS_SOURCE
        and isinstance(description, str)
        and description != ""
    )


# Links -----------------------------------------------------------------------------

# One rule for "an http(s) URL": what the pages link, what counts as a row's
# code (SPEC 1.1's rows_with_code) and what the stored counters count. A scheme
# of http or https in any case, then "://" and a host: "http://" alone, a
# path-only "http:///x" and every other scheme are text, never a link.
# Written once for Python and once for the database's regular expressions
# (SQLite's through Django's REGEXP, PostgreSQL's ~*), which read it alike.
HTTP_URL_PATTERN = r"^\s*https?://[^/?#\s]"
_HTTP_URL = re.compile(HTTP_URL_PATTERN, re.IGNORECASE)


def http_url(value):
    """The URL, stripped, if it is http(s) with a host; else "". Data decides no other scheme."""
    if isinstance(value, str) and _HTTP_URL.match(value):
        return value.strip()
    return ""


def has_code(code):
    """Whether a row's `code` is a link to its code (SPEC 1.1: rows_with_code)."""
    return bool(http_url(code))


def has_code_q(field="code"):
    """has_code() as a query condition on a field holding a code URL."""
    return Q(**{f"{field}__iregex": HTTP_URL_PATTERN})


# What a PwC page said of a row beyond the format: its unknown keys
# `paper_has_code` (PwC's yes/no for the paper, without a URL) and `tags`
# (PwC's row tags, "JFT-3B", "Transformer"), as tools/pwc_scrape.py keeps them.
# The row keeps them verbatim among its unknown keys (the export gives them
# back); these read them for the columns pages show and filter by.

TAG_SEPARATOR = "\n"


def archive_says_code(extra):
    """True or False when the row's source said whether its paper has code, else None."""
    said = extra.get("paper_has_code") if isinstance(extra, dict) else None
    return said if isinstance(said, bool) else None


def row_tags(extra):
    """The row's tags as one string, TAG_SEPARATOR between them ("" for none).

    Only text tags count, each with its whitespace folded (so none holds the
    separator), empty and repeated ones left out, the source's order kept.
    """
    tags = extra.get("tags") if isinstance(extra, dict) else None
    if not isinstance(tags, list):
        return ""
    kept = []
    for tag in tags:
        name = " ".join(tag.split()) if isinstance(tag, str) else ""
        if name and name not in kept:
            kept.append(name)
    return TAG_SEPARATOR.join(kept)


def tag_q(name, field="tags"):
    """Rows holding the tag `name` in a row_tags() field."""
    sep = TAG_SEPARATOR
    return (
        Q(**{field: name})
        | Q(**{f"{field}__startswith": name + sep})
        | Q(**{f"{field}__endswith": sep + name})
        | Q(**{f"{field}__contains": sep + name + sep})
    )


# A since-archive entry, as editors promote it --------------------------------------

MONTH_PATTERN = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


def entry_key(entry):
    """What identifies a since-archive entry (an object of the block's `entries`):
    the sha256 of its canonical JSON. A promoted result keeps it, so an entry is
    promoted once (EditorAddition.promoted_from)."""
    text = json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# A paper's identity ----------------------------------------------------------------

# An old-style id is an archive's name (cond-mat.stat-mech, the longest, has 18
# letters) and 7 digits; the bound keeps every id within Paper.arxiv_id's 32.
_ARXIV = re.compile(
    r"arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5}|[a-z][a-z.-]{0,23}/\d{7})(?:v\d+)?(?:\.pdf)?/?$",
    re.IGNORECASE,
)


def arxiv_id(url):
    """The arXiv id of an abs or pdf URL, without its version; "" if not arXiv."""
    match = _ARXIV.search((url or "").strip())
    return match.group(1) if match else ""


def paper_key(url):
    """What makes two external paper URLs the same paper: the arXiv id, else the URL."""
    url = (url or "").strip()
    if not url:
        return None
    found = arxiv_id(url)
    return arxiv_key(found) if found else f"url:{url.rstrip('/')}"


def arxiv_key(found):
    """paper_key() of any URL of this arXiv id."""
    return f"arxiv:{found}"


def paper_name(title, url):
    """What a paper is called where its title is missing: its arXiv id, else its URL.

    The archive leaves many titles empty; a paper page's slug (a bare number
    like 210409376 for an arXiv id) names nothing a reader knows.
    """
    title = (title or "").strip()
    if title:
        return title
    found = arxiv_id(url)
    if found:
        return f"arXiv:{found}"
    return (url or "").strip()


def paper_identity(row):
    """What makes two rows of a page the same paper.

    Its paper page; else its external URL, an arXiv abs and pdf link being one
    paper; else its title. None when the row names no paper at all.
    """
    return row["paper"] or paper_key(row["paper_url"]) or row["paper_title"] or None


def row_keys(rows):
    """A key per row that survives re-ranking: model and paper, numbered if repeated.

    Editors' decisions about a row follow this key from one file to a newer one.
    """
    seen: Counter[tuple[str, str]] = Counter()
    keys = []
    for row in rows:
        base = (row["model"], paper_identity(row) or "")
        seen[base] += 1
        keys.append((*base, seen[base]))
    return keys


# A model's identity ---------------------------------------------------------------

# The readable part of a model's slug; the digest after it tells models apart.
MODEL_SLUG_NAME_LIMIT = 60
MODEL_SLUG_DIGEST = 12  # hex digits: 48 bits, no collision to expect among millions of models
MODEL_SLUG_PATTERN = rf"[a-z0-9-]{{1,{MODEL_SLUG_NAME_LIMIT}}}-[0-9a-f]{{{MODEL_SLUG_DIGEST}}}"
_MODEL_SLUG = re.compile(rf"{MODEL_SLUG_PATTERN}\Z")


def model_name_key(model):
    """What makes two spellings of a model's name the same name: case and spacing aside.

    "ResNet-50", "resnet-50 " and "ResNet-50" with a double space are one
    name; "ResNet50" is another (a hyphen is not spacing).
    """
    return " ".join((model or "").split()).casefold()


def model_slug(model, identity):
    """The slug of the model a row names: its normalised name on its paper's identity.

    The same on every load of the same row, whatever board or rank it has:
    made of nothing but the model's name and paper_identity() (None, a row
    naming no paper: such rows of one name are one model). Readable (the
    slugified name) and unique (a digest of the pair, since two papers'
    models often share a name).
    """
    name = model_name_key(model)
    digest = hashlib.sha256(f"{name}\n{identity or ''}".encode()).hexdigest()
    readable = slug_for(name, "model", MODEL_SLUG_NAME_LIMIT)
    return f"{readable}-{digest[:MODEL_SLUG_DIGEST]}"


def is_model_slug(text):
    """Whether `text` could be a model_slug(): the URL and the compare view check it first."""
    return bool(_MODEL_SLUG.match(text or ""))


def key_digest(key):
    """What Row.key and RowDecision.key store: a fixed-size digest of a row_keys() key.

    Model names and paper titles have no length limit; an index over them would.
    The digest is of the key as `json.dumps(key, ensure_ascii=False)` writes it,
    spelled out here for the (model, paper, n) a key is: json.dumps builds an
    encoder per call, a second of a 15,000-board load's rows.
    """
    model, paper, n = key
    text = f"[{encode_basestring(model)}, {encode_basestring(paper)}, {int(n)}]"
    return hashlib.sha256(text.encode()).hexdigest()


def stored_keys(rows):
    """row_keys() of stored rows, given as dicts of model, paper slug, paper_url, paper_title.

    The rows must be one board's, in rank order.
    """
    return row_keys(
        {
            "model": row["model"],
            "paper": row["paper__slug"] and f"/paper/{row['paper__slug']}",
            "paper_url": row["paper_url"],
            "paper_title": row["paper_title"],
        }
        for row in rows
    )


# Stored text --------------------------------------------------------------------

# What stored text may hold: everything every writer (HTML, JSON, CSV, Atom,
# SVG, sitemap XML) can carry. XML 1.0 forbids the C0 controls but tab, newline
# and carriage return, and UTF-8 cannot encode a lone surrogate. Page files and
# editors' forms are refused a string breaking it (text_problem), the archive's
# records get the character replaced (storable_text), and the XML writers
# replace it in what an older build stored (xml_text).
UNSTORABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]")


def text_problem(text):
    """Why stored text may not hold this string, naming its first bad character; None if it may."""
    match = UNSTORABLE.search(text)
    if match is None:
        return None
    char = match.group()
    if char == "\x00":
        # PostgreSQL text cannot hold NUL either.
        return "contains a NUL character"
    if char >= "\ud800":
        return "contains a lone surrogate: not valid Unicode"
    return (
        f"contains the control character U+{ord(char):04X}, which stored text may not hold "
        "(only tab, newline and carriage return)"
    )


def storable_text(text):
    """(text, how many characters were replaced): a C0 control by a space, a lone
    surrogate by U+FFFD. For the archive's records, whose abstracts carry stray
    form feeds; a page file holding one is refused instead."""
    count = 0

    def replace(match):
        nonlocal count
        count += 1
        return " " if match.group() < "\ud800" else "\ufffd"

    return UNSTORABLE.sub(replace, text), count


def xml_text(text):
    """Text an XML 1.0 writer can carry: storable_text() without the count.

    For what is already stored, which an older build or a hand may have
    written past the rule: a feed or badge answers for it, never fails.
    """
    if not isinstance(text, str) or UNSTORABLE.search(text) is None:
        return text
    return storable_text(text)[0]


def storable(value):
    """(value, replaced): storable_text() over every string in a JSON value."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, list):
        total, out = 0, []
        for item in value:
            item, n = storable(item)
            out.append(item)
            total += n
        return out, total
    if isinstance(value, dict):
        total, result = 0, {}
        for key, item in value.items():
            key, n = storable(key)
            item, m = storable(item)
            result[key] = item
            total += n + m
        return result, total
    return value, 0

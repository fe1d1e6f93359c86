"""The archive's links between papers and code (SPEC 2.2): repositories and which papers they
hold the code of.

A link's paper is found as the papers file finds its own (papers.PaperFinder: PwC's
slug, else the arXiv id, else url_abs); a paper found nowhere is made, undescribed,
from the link's words, so no link is lost. A repository is one row by its URL,
however many papers link it; a link is one row by (paper, repository), its
archive columns updated in place and an editor's columns never written. No
link is ever deleted.
"""

import re
from urllib.parse import urlsplit

from leaderboards.format.rules import http_url
from leaderboards.ingest import chunks
from leaderboards.ingest.papers import (
    NEW_PAPER_FIELDS,
    URL_LIMIT,
    PaperFinder,
    identity,
    new_paper_columns,
)
from leaderboards.ingest.record_fields import text
from leaderboards.ingest.records import RecordError
from leaderboards.models import Paper, PaperRepository, Repository

KIND = "code links"
FLAGS = ("is_official", "mentioned_in_paper", "mentioned_in_github")
LINK_FIELDS = (*FLAGS, "framework")
# Hosts whose URL path is /<owner>/<name>.
_FORGES = re.compile(r"^(?:www\.)?(?:github\.com|gitlab\.com)$", re.IGNORECASE)


def import_file(path, report):
    """The links file's records imported into report (see chunks.import_file)."""
    chunks.import_file(path, KIND, prepare, write, report, read_ahead=True)


def prepare(record):
    """One link checked: its paper's identity, its repository, its flags."""
    paper = identity(record, prefix="paper_")
    url = text(record, "repo_url", URL_LIMIT).strip()
    if not http_url(url):
        raise RecordError("repo_url", f"expected an http(s) URL, got {url[:200]!r}")
    link = {}
    for flag in FLAGS:
        value = record.get(flag)
        if value is not None and not isinstance(value, bool):
            raise RecordError(flag, f"expected true, false or null, got {value!r}")
        link[flag] = bool(value)
    framework = text(record, "framework").strip()
    limit = PaperRepository._meta.get_field("framework").max_length
    if len(framework) > limit:
        raise RecordError("framework", f"{len(framework):,} characters, over {limit}")
    link["framework"] = framework
    return {"paper": paper, "repository": url, "link": link}


def owner_and_name(url):
    """("owner", "name") of a GitHub or GitLab repository's URL; ("", "") for any other."""
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    if not _FORGES.match(parts.hostname or "") or len(segments) < 2:
        return "", ""
    owner, name = segments[0], segments[1].removesuffix(".git")
    if len(owner) > 300 or len(name) > 300:
        return "", ""
    return owner, name


def write(items, counted):
    """A chunk of links: papers found or made, repositories and links upserted."""
    finder = PaperFinder([item["paper"] for item in items], describing=False)
    targets = finder.resolve([item["paper"] for item in items])
    made = {
        found.slug: new_paper_columns(item["paper"], found)
        for item, found in zip(items, targets, strict=True)
        if found.row is None
    }
    papers = {found.slug: found.row["pk"] for found in targets if found.row is not None}
    papers |= chunks.Upsert(Paper, "slug", NEW_PAPER_FIELDS).write(made, counted.kind("papers"))
    repositories = chunks.Upsert(Repository, "url", ("owner", "name")).write(
        {
            item["repository"]: dict(
                zip(("owner", "name"), owner_and_name(item["repository"]), strict=True)
            )
            for item in items
        },
        counted.kind("repositories"),
    )
    chunks.Upsert(PaperRepository, ("paper_id", "repository_id"), LINK_FIELDS).write(
        {
            (papers[found.slug], repositories[item["repository"]]): item["link"]
            for item, found in zip(items, targets, strict=True)
        },
        counted.kind(KIND),
    )

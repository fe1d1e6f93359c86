"""Editors' decisions on the archive's catalogue: papers' code, spam methods and papers, texts.

The importers update papers, methods, datasets and code links in place by
their identity (a slug; a paper's slug and a repository's URL) and never
write the `editor_*` and `withheld` columns, so what is decided here outlasts
every re-import. Each function takes its targets by that identity, never by
id: it locks their rows (select_for_update, in pk order, as decisions.py
locks boards), reads them again under the lock, writes the decision, the
admin's log and the public record's entry (record.catalogue_decided) in one
transaction, and retires every cached page once it commits: a paper, a
method or a dataset may show on any page.

The spam queue's signs (`with_spam_signs`) are here too: the queue lists
methods showing any of them that no editor has withheld yet.
"""

import operator
from functools import reduce

from django.contrib.admin.models import CHANGE, LogEntry
from django.db import models, transaction
from django.db.models import ExpressionWrapper, Q, Value
from django.db.models.functions import Length, Replace
from django.utils import timezone

from leaderboards import record, search
from leaderboards.decisions import Gone, Outcome
from leaderboards.models import ChangeKind, Dataset, Method, Paper, PaperRepository
from leaderboards.upkeep.cache import data_changed

ARCHIVE_TEXT, EDITOR_TEXT = "the archive's text", "an editor's text"
SHOWN, WITHHELD = record.SHOWN, record.WITHHELD


class CodeDecision(models.TextChoices):
    """What an editor may say about a paper's link to a repository."""

    OFFICIAL = "official", "official: the authors' own code"
    NOT_OFFICIAL = "not_official", "not official"
    UNLINKED = "unlinked", "not this paper's code"
    ARCHIVE = "archive", "as the archive has it"


class Changed(Gone):
    """Another editor changed the text since the form was opened: nothing was saved."""


def code_state(link):
    """A link's state as the record says it: `official`, `not official (the archive's word)` ..."""
    if link.editor_unlinked:
        return "not this paper's code"
    state = "official" if link.official else "not official"
    return f"{state} (the archive's word)" if link.editor_official is None else state


def _code_columns(link, decision):
    """(editor_official, editor_unlinked) the decision leaves on the link."""
    if decision == CodeDecision.UNLINKED:
        return link.editor_official, True
    official = {CodeDecision.OFFICIAL: True, CodeDecision.NOT_OFFICIAL: False}
    return official.get(decision), False


def decide_code(pairs, decision, reason, user, *, log=True):
    """Decide about code links named by (paper slug, repository URL) pairs; an Outcome.

    `missing` holds the pairs no stored link has (perhaps gone from the archive).
    """
    decision = CodeDecision(decision)
    if not reason:
        raise ValueError("a decision about a paper's code needs a reason")
    pairs = list(dict.fromkeys(pairs))
    outcome = Outcome()
    if not pairs:
        return outcome
    with transaction.atomic():
        wanted = reduce(
            operator.or_, (Q(paper__slug=slug, repository__url=url) for slug, url in pairs)
        )
        links = list(
            PaperRepository.objects.filter(wanted)
            .select_related("paper", "repository")
            .select_for_update(of=("self",))
            .order_by("pk")
        )
        found = {(link.paper.slug, link.repository.url): link for link in links}
        outcome.missing = [pair for pair in pairs if pair not in found]
        entries = []
        for link in links:
            official, unlinked = _code_columns(link, decision)
            if (official, unlinked) == (link.editor_official, link.editor_unlinked):
                outcome.unchanged.append(link)
                continue
            before = code_state(link)
            link.editor_official, link.editor_unlinked = official, unlinked
            link.editor_reason = "" if decision == CodeDecision.ARCHIVE else reason
            link.save(update_fields=["editor_official", "editor_unlinked", "editor_reason"])
            outcome.changed.append(link)
            entries.append(
                (
                    ChangeKind.CODE,
                    link.paper.slug,
                    link.repository.url,
                    before,
                    code_state(link),
                    reason,
                )
            )
        _written(outcome.changed, entries, user, f"Code: {decision.label}. {reason}", log)
    return outcome


def withhold_methods(slugs, reason, user, *, log=True):
    return _decide_withheld(Method, slugs, True, reason, user, log)


def restore_methods(slugs, reason, user, *, log=True):
    return _decide_withheld(Method, slugs, False, reason, user, log)


def withhold_papers(slugs, reason, user, *, log=True):
    return _decide_withheld(Paper, slugs, True, reason, user, log)


def restore_papers(slugs, reason, user, *, log=True):
    return _decide_withheld(Paper, slugs, False, reason, user, log)


WITHHOLDING = {
    Method: (ChangeKind.METHOD_WITHHELD, ChangeKind.METHOD_RESTORED),
    Paper: (ChangeKind.PAPER_WITHHELD, ChangeKind.PAPER_RESTORED),
}


def _decide_withheld(model, slugs, withheld, reason, user, log):
    """Withhold or restore methods or papers by slug; those already so keep their reason."""
    if not reason:
        raise ValueError("withholding or restoring needs a reason")
    slugs = list(dict.fromkeys(slugs))
    outcome = Outcome()
    with transaction.atomic():
        found = {obj.slug: obj for obj in _locked(model, slugs)}
        outcome.missing = [slug for slug in slugs if slug not in found]
        for obj in found.values():
            (outcome.unchanged if obj.withheld == withheld else outcome.changed).append(obj)
        if not outcome.changed:
            return outcome
        # A restored one keeps no reason: the record keeps why it was withheld.
        model.objects.filter(pk__in=[obj.pk for obj in outcome.changed]).update(
            withheld=withheld, withheld_reason=reason if withheld else ""
        )
        for obj in outcome.changed:
            obj.withheld, obj.withheld_reason = withheld, reason if withheld else ""
        # A bulk update sends no signal: the search follows at once all the same.
        search.refresh_pages(model._meta.model_name, [obj.slug for obj in outcome.changed])
        kind = WITHHOLDING[model][0 if withheld else 1]
        before, after = (SHOWN, WITHHELD) if withheld else (WITHHELD, SHOWN)
        entries = [(kind, obj.slug, "", before, after, reason) for obj in outcome.changed]
        message = f"Withheld: {reason}" if withheld else f"Restored: {reason}"
        _written(outcome.changed, entries, user, message, log)
    return outcome


DESCRIBED = {Method: ChangeKind.METHOD_DESCRIPTION, Dataset: ChangeKind.DATASET_DESCRIPTION}
UNSEEN = object()


def describe(model, slug, text, reason, user, *, was=UNSEEN, log=True):
    """Set a method's or dataset's description (empty: back to the archive's); True if changed.

    `was` is the editor's text the form showed (None: the archive's): if
    another editor has changed it since, Changed is raised and nothing saved.
    """
    if not reason:
        raise ValueError("a description's correction needs a reason")
    text = text or None
    with transaction.atomic():
        obj = next(iter(_locked(model, [slug])), None)
        if obj is None:
            raise Gone(f"Nothing changed: no {model._meta.verbose_name} {slug} is stored now.")
        if was is not UNSEEN and obj.editor_description != was:
            raise Changed(
                f"Nothing saved: another editor changed the description of {obj} since the "
                "form was opened. Open it again to see their text."
            )
        if obj.editor_description == text:
            return False
        before = ARCHIVE_TEXT if obj.editor_description is None else EDITOR_TEXT
        obj.editor_description = text
        obj.save(update_fields=["editor_description"])
        after = ARCHIVE_TEXT if text is None else EDITOR_TEXT
        entries = [(DESCRIBED[model], obj.slug, "", before, after, reason)]
        _written([obj], entries, user, f"Description: {after}. {reason}", log)
    return True


def _locked(model, slugs):
    """The stored objects with these slugs, locked until the transaction ends, in pk order."""
    return list(model.objects.filter(slug__in=slugs).select_for_update().order_by("pk"))


def _written(objects, entries, user, message, log):
    """The record's entries and the admin's log for what changed; the pages retired on commit."""
    if not objects:
        return
    record.catalogue_decided(entries, user, timezone.now())
    if log:
        LogEntry.objects.log_actions(user.pk, objects, CHANGE, message[:2000])
    data_changed()


# -- the spam queue -----------------------------------------------------------------

AD_WORDS = (
    "casino",
    "betting",
    "viagra",
    "cialis",
    "pharmacy",
    "escort",
    "porn",
    "loan",
    "essay writing",
    "seo service",
    "promo code",
    "coupon",
    "bitcoin",
    "forex",
    "followers",
    "whatsapp",
    "call girl",
    "replica",
)
# Portable between SQLite's and PostgreSQL's regular expressions: no \b, no [\s\S].
ADS = "(" + "|".join(AD_WORDS) + ")"
A_URL = r"^\s*(https?://|www\.)"
ONLY_A_LINK = r"^\s*(https?://|www\.)\S*\s*$"
MANY_LINKS = 3

SPAM_SIGNS = {
    "unused": ("no paper uses it", Q(paper_count=0, paper__isnull=True)),
    "links": (
        "its text is a link, or many",
        Q(description__iregex=ONLY_A_LINK) | Q(link_count__gte=MANY_LINKS),
    ),
    "ads": (
        "ad words",
        Q(name__iregex=ADS) | Q(full_name__iregex=ADS) | Q(description__iregex=ADS),
    ),
    "nameless": (
        "no name, or a URL for one",
        Q(name__regex=r"^\s*$", full_name__regex=r"^\s*$")
        | Q(name__iregex=A_URL)
        | Q(full_name__iregex=A_URL),
    ),
}


def with_spam_signs(methods):
    """Methods annotated `spam_<sign>` for each of SPAM_SIGNS, and `link_count`."""
    http = Value("http")
    methods = methods.annotate(
        link_count=(Length("description") - Length(Replace("description", http, Value(""))))
        / Length(http)
    )
    return methods.annotate(
        **{
            f"spam_{sign}": ExpressionWrapper(condition, output_field=models.BooleanField())
            for sign, (_, condition) in SPAM_SIGNS.items()
        }
    )


def likely_spam(methods, sign=None):
    """The methods not yet withheld that show this sign (any sign, without one)."""
    methods = with_spam_signs(methods).filter(withheld=False)
    if sign is not None:
        return methods.filter(**{f"spam_{sign}": True})
    return methods.filter(reduce(operator.or_, (Q(**{f"spam_{s}": True}) for s in SPAM_SIGNS)))


def spam_signs(method):
    """The signs an annotated method shows, in words."""
    return [words for sign, (words, _) in SPAM_SIGNS.items() if getattr(method, f"spam_{sign}")]

"""Visitors' suggestions: taken in under limits, decided by editors.

A suggestion is stored as a Suggestion and one SuggestionVoice per address
that made it: the same suggestion (the same board, row and words) from a
second address adds to its support rather than to the queue, and each
address is held to SOTASITE_SUGGESTIONS_PER_ADDRESS an hour, the whole site
to SOTASITE_SUGGESTIONS_PER_HOUR, counted from the voices in the database
(the page cache may be down; the limits hold without it). Addresses are
kept as keyed digests, an IPv6 address by its /64 (what one household holds).

Nothing is public until an editor accepts: the decision it asks for is made
inside accept(), whose entries in the public record credit the suggestion.
"""

import hashlib
import hmac
import ipaddress
import re
import unicodedata
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from leaderboards import record
from leaderboards.models import Suggestion, SuggestionState, SuggestionVoice

# What a visitor writes is plain text: a tag-like run is refused, not stripped,
# so nothing the visitor meant is silently dropped.
MARKUP = re.compile(r"<\s*[a-zA-Z/!?]")


class Limited(Exception):
    """Too many suggestions from this address, or from everyone, this hour."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class NothingDecided(Exception):
    """The decision changed nothing (the row was withheld already, the direction set):
    the suggestion stays waiting, for an editor to reject with that reason."""


class AlreadyDecided(Exception):
    """Another editor accepted or rejected the suggestion first."""

    def __init__(self, suggestion):
        super().__init__(f"suggestion {suggestion.pk} is {suggestion.state} already")
        self.suggestion = suggestion


def address_digest(address):
    """The address as kept: a digest keyed with the site's key; IPv6 by its /64."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        parsed = None
    if parsed is not None and parsed.version == 6 and parsed.ipv4_mapped is None:
        address = str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    elif parsed is not None and parsed.version == 6:
        address = str(parsed.ipv4_mapped)
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, f"suggestion-address:{address}".encode(), hashlib.sha256).hexdigest()


def fingerprint(fields):
    """What makes two suggestions the same: their fields, case and spacing folded."""
    folded = [
        " ".join(unicodedata.normalize("NFKC", str(value)).casefold().split()) for value in fields
    ]
    return hashlib.sha256("\x1f".join(folded).encode()).hexdigest()


def submit(suggestion, address):
    """Store a visitor's suggestion (unsaved, its fingerprint set), or add the
    address's support to the same one waiting. Returns the stored suggestion.

    Raises Limited past either hourly limit; an address that made this
    suggestion before adds nothing, and is told as any other is.
    """
    digest = address_digest(address)
    since = timezone.now() - timedelta(hours=1)
    voices = SuggestionVoice.objects.filter(made_at__gte=since)
    if voices.filter(address=digest).count() >= settings.SOTASITE_SUGGESTIONS_PER_ADDRESS:
        raise Limited(
            "You have sent as many suggestions as one address may in an hour. "
            "Thank you: please send the rest later."
        )
    if voices.count() >= settings.SOTASITE_SUGGESTIONS_PER_HOUR:
        raise Limited(
            "The editors have more suggestions this hour than they can read. "
            "Please send yours again in an hour."
        )
    with transaction.atomic():
        stored = (
            Suggestion.objects.pending()
            .select_for_update()
            .filter(leaderboard_id=suggestion.leaderboard_id, fingerprint=suggestion.fingerprint)
            .first()
        )
        if stored is None:
            try:
                with transaction.atomic():
                    suggestion.save()
            except IntegrityError:
                # The same suggestion, stored by another request since the read above.
                stored = (
                    Suggestion.objects.pending()
                    .select_for_update()
                    .get(
                        leaderboard_id=suggestion.leaderboard_id,
                        fingerprint=suggestion.fingerprint,
                    )
                )
            else:
                SuggestionVoice.objects.create(suggestion=suggestion, address=digest)
                return suggestion
        _, new = SuggestionVoice.objects.get_or_create(suggestion=stored, address=digest)
        if new:
            Suggestion.objects.filter(pk=stored.pk).update(support=F("support") + 1)
    return stored


def accept(suggestion_id, user, decide):
    """Accept a waiting suggestion by making its decision: `decide()`, whose
    record entries credit it. Returns what decide() returns.

    Raises AlreadyDecided if another editor decided it first, NothingDecided if
    the decision wrote nothing to the record; then nothing is done.
    """
    with transaction.atomic():
        suggestion = Suggestion.objects.select_for_update().get(pk=suggestion_id)
        if suggestion.state != SuggestionState.PENDING:
            raise AlreadyDecided(suggestion)
        with record.crediting(suggestion) as written:
            outcome = decide()
        if not written:
            raise NothingDecided
        suggestion.state = SuggestionState.ACCEPTED
        suggestion.decided_at, suggestion.decided_by = timezone.now(), user
        suggestion.save(update_fields=["state", "decided_at", "decided_by"])
    return outcome


def reject(chosen, reason, user):
    """Reject the waiting ones of `chosen` (a queryset of suggestions), with the
    editors' reason, in one statement however many; returns how many."""
    if not reason:
        raise ValueError("a rejected suggestion needs a reason")
    return (
        Suggestion.objects.pending()
        .filter(pk__in=chosen.order_by().values("pk"))
        .update(
            state=SuggestionState.REJECTED,
            decided_at=timezone.now(),
            decided_by=user,
            decision_reason=reason,
        )
    )

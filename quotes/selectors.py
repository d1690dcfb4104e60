"""Reads of quotes: the owner's own (another buyer's quote does not exist for you), or by share token.

Staff (`User.is_curator`) curate everything: they read every quote but change (share, revoke) only their
own; a write on a quote they can read but do not own is a 403, not a 404.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.db.models.fields.json import KT
from django.http import Http404
from django.shortcuts import get_object_or_404

from quotes.models import Quote
from sizing.selectors import readable_q


def quote_list(*, owner: Any) -> QuerySet[Quote]:
    """The quotes `owner` may read (their own; every quote for staff), newest first, each with the snapshot's
    names of the provider and the offering (Quote.shown_offering_name) but not the whole snapshot."""
    return (
        Quote.objects.filter(readable_q(user=owner))
        .defer("snapshot")
        .annotate(
            snapshot_provider=KT("snapshot__offering__provider"),
            snapshot_provider_native_name=KT("snapshot__offering__provider_native_name"),
            snapshot_offering=KT("snapshot__offering__name"),
        )
        .order_by("-created_at", "-id")
    )


def quote_get(*, owner: Any, quote_id: int, for_write: bool = False) -> Quote:
    """The quote if `owner` may read it (Http404 otherwise, also for anonymous users); with `for_write`,
    PermissionDenied when they may read it but it is not theirs (staff)."""
    if not getattr(owner, "is_authenticated", False):
        raise Http404("no such quote")
    quote = get_object_or_404(Quote.objects.filter(readable_q(user=owner)), pk=quote_id)
    if for_write and quote.owner_id != owner.pk:
        raise PermissionDenied("staff may read another user's quote but not change it")
    return quote


def quote_get_shared(*, token: str) -> Quote:
    """The quote behind a live share link (Http404 for an unknown or revoked token)."""
    if not token or len(token) < 20:
        raise Http404("no such quote")
    return get_object_or_404(Quote, share_token=token)

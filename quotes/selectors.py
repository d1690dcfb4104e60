"""Reads of quotes: the owner's own (another user's quote does not exist for you) or by share token."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404

from quotes.models import Quote


def quote_list(*, owner: Any) -> QuerySet[Quote]:
    return Quote.objects.filter(owner=owner).defer("snapshot").order_by("-created_at", "-id")


def quote_get(*, owner: Any, quote_id: int) -> Quote:
    """The quote if it is the owner's (Http404 otherwise, also for anonymous users)."""
    if not getattr(owner, "is_authenticated", False):
        raise Http404("no such quote")
    return get_object_or_404(Quote, pk=quote_id, owner=owner)


def quote_get_shared(*, token: str) -> Quote:
    """The quote behind a live share link (Http404 for an unknown or revoked token)."""
    if not token or len(token) < 20:
        raise Http404("no such quote")
    return get_object_or_404(Quote, share_token=token)

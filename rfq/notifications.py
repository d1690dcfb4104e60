"""E-mail about requests for quote, through Django's mail framework (the console backend in the demo):
the addressed providers' representatives when a request arrives, the buyer when an answer arrives."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail

from rfq.models import Answer, RequestForQuote

logger = logging.getLogger(__name__)


def _link(path: str) -> str:
    return f"{getattr(settings, 'SITE_URL', '').rstrip('/')}{path}"


def _send(subject: str, body: str, to: list[str]) -> bool:
    """Send one mail; a mail server that is down is logged, never undoes the request or answer stored."""
    try:
        send_mail(subject, body, None, to, fail_silently=False)
    except Exception:  # SMTP refusal, connection error, timeout
        logger.warning("could not send %r to %s", subject, to, exc_info=True)
        return False
    return True


def notify_representatives(rfq: RequestForQuote) -> list[str]:
    """One mail per active representative of each addressed provider, naming their offerings asked for.
    Returns the addresses written to (a failed send is logged and left out)."""
    by_provider: dict[int, list[Any]] = {}
    for offering in rfq.offerings.all():
        by_provider.setdefault(offering.provider_id, []).append(offering)
    reps = get_user_model().objects.filter(role="provider", provider_id__in=by_provider, is_active=True)
    sent = []
    for rep in reps.exclude(email="").order_by("pk"):
        offerings = by_provider.get(rep.provider_id or 0, [])
        names = "\n".join(f"  - {o.name} ({o.slug})" for o in offerings)
        questions = "\n".join(f"  - {q}" for q in rfq.questions) or "  (none)"
        body = (
            f"{rfq.buyer.get_username()} asks for a quote for {rfq.gpus} GPUs to train "
            f"'{rfq.workload.name}', on:\n{names}\n\nQuestions:\n{questions}\n\n"
            f"Answer with a price, terms, delivery and a source document: {_link(rfq.get_absolute_url())}\n"
        )
        if _send(f"Request for quote #{rfq.pk}: {rfq.gpus} GPUs", body, [rep.email]):
            sent.append(rep.email)
    return sent


def notify_buyer(answer: Answer) -> list[str]:
    """Tell the buyer an answer arrived. Returns the addresses written to (none without an address)."""
    rfq = answer.rfq
    email = rfq.buyer.email
    if not email:
        return []
    offering = answer.offering
    body = (
        f"{offering.provider.name} answered your request for quote #{rfq.pk} for {offering.name}: "
        f"${answer.price_usd_per_gpu_hour} per GPU-hour, delivery in {answer.delivery_weeks} weeks, "
        f"payment {answer.get_payment_terms_display().lower()}.\n"
        f"See the answers side by side and the comparison: {_link(rfq.get_absolute_url())}\n"
    )
    subject = f"Answer to your request for quote #{rfq.pk} from {offering.provider.name}"
    return [email] if _send(subject, body, [email]) else []

"""Requests for quote: a buyer asks chosen offerings for a price on one workload and GPU count; each
addressed provider's representatives answer per offering with terms, facts, a source and a date.

An answer is sized once when it arrives (`result`: the planner's result with the answer's facts and price
in place of the catalog's, for this request only); the comparison ranks the latest answer per offering.
Every view and answer is written to `RfqEvent`, the audit log.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from portal.constraints import in_range, positive_or_null, value_known
from portal.model_bases import NewestFirst
from providers.facts import PAYMENT_TERM_NAMES, PLAN_BOUNDS
from providers.models import Offering


class PaymentTerms(models.TextChoices):
    # The catalog's codes and names (providers.facts.PAYMENT_TERM_NAMES), translated where shown.
    UPFRONT = "upfront", _(PAYMENT_TERM_NAMES["upfront"])
    MONTHLY = "monthly", _(PAYMENT_TERM_NAMES["monthly"])
    NET_30 = "net-30", _(PAYMENT_TERM_NAMES["net-30"])
    NET_60 = "net-60", _(PAYMENT_TERM_NAMES["net-60"])


class RequestForQuote(NewestFirst):
    buyer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rfqs")
    workload = models.ForeignKey("sizing.Workload", on_delete=models.CASCADE, related_name="rfqs")
    offerings = models.ManyToManyField(Offering, related_name="rfqs")
    gpus = models.PositiveIntegerField(help_text="the cluster size asked for, in GPUs")
    questions = models.JSONField(default=list, blank=True, help_text="the buyer's questions, as text")
    objective = models.CharField(max_length=10, default="cheapest")

    class Meta(NewestFirst.Meta):
        constraints = [
            models.CheckConstraint(condition=Q(gpus__gt=0), name="rfq_gpus_positive"),
            value_known("objective", ("cheapest", "fastest"), name="rfq_objective_known"),
        ]

    def __str__(self) -> str:
        return f"RFQ {self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("rfq:detail", args=[self.pk])


class Answer(models.Model):
    """One representative's proposal for one addressed offering. A later answer for the same offering
    supersedes the earlier one in the comparison; both stay (the audit keeps what was said when)."""

    PaymentTerms = PaymentTerms

    rfq = models.ForeignKey(RequestForQuote, on_delete=models.CASCADE, related_name="answers")
    offering = models.ForeignKey(Offering, on_delete=models.CASCADE, related_name="rfq_answers")
    representative = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="rfq_answers"
    )
    price_usd_per_gpu_hour = models.DecimalField(max_digits=12, decimal_places=4)
    term_months = models.PositiveIntegerField(null=True, blank=True)
    delivery_weeks = models.PositiveIntegerField()
    payment_terms = models.CharField(max_length=10, choices=PaymentTerms.choices)
    min_nodes = models.PositiveIntegerField(null=True, blank=True)
    facts = models.JSONField(default=dict, blank=True, help_text="facts in place of the catalog's")
    source_url = models.URLField(max_length=500)
    as_of = models.DateField()
    message = models.TextField(blank=True, help_text="answers to the buyer's questions")
    # The planner's result for this proposal (run result fields and the sizing), computed on arrival.
    result = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["rfq", "-created_at", "-id"]
        constraints = [
            # The plans' price bound, which the form, the API and the service hold too (not null: an
            # answer always names a price).
            in_range(
                "price_usd_per_gpu_hour",
                PLAN_BOUNDS["price_usd_per_gpu_hour"],
                name="answer_price_in_plan_range",
                nullable=False,
            ),
            models.CheckConstraint(condition=~Q(source_url=""), name="answer_source_required"),
            value_known("payment_terms", PaymentTerms.values, name="answer_payment_terms_known"),
            positive_or_null("term_months", name="answer_term_positive"),
            positive_or_null("min_nodes", name="answer_min_nodes_positive"),
        ]

    def __str__(self) -> str:
        return f"answer {self.pk} to RFQ {self.rfq_id} for {self.offering_id}"


class RfqAction(models.TextChoices):
    CREATED = "created", _("created")
    VIEWED = "viewed", _("viewed")
    ANSWERED = "answered", _("answered")
    NOTIFIED = "notified", _("notified")
    QUOTED = "quoted", _("turned into a quote")


class RfqEvent(models.Model):
    """The audit log: who created, viewed, answered or quoted which request, for which offering, when."""

    Action = RfqAction

    rfq = models.ForeignKey(RequestForQuote, on_delete=models.CASCADE, related_name="events")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="rfq_events"
    )
    username = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=10, choices=RfqAction.choices)
    offering = models.ForeignKey(Offering, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    detail = models.CharField(max_length=500, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["rfq", "at", "id"]
        constraints = [value_known("action", RfqAction.values, name="rfqevent_action_known")]

    def __str__(self) -> str:
        return f"{self.username} {self.action} RFQ {self.rfq_id} at {self.at:%Y-%m-%d %H:%M}"

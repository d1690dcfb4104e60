"""Pitfall findings of one offering, as the rules of checks/rules/ produced them (docs/CHECKS.md)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from checks.severity import SEVERITY_RANK
from checks.severity import Severity as SeverityLevel
from portal.i18n import translated, translated_sentences
from providers.models import Offering

# The database choices of checks.severity.Severity: the same values, its words as labels (django-stubs
# types only the class form of TextChoices, hence the ignore). SEVERITY_RANK (most severe first) is
# re-exported for the selectors that order by it.
Severity = models.TextChoices(  # type: ignore[call-overload]
    "Severity", [(level.name, (level.value, level.word)) for level in SeverityLevel]
)

# "claims": the offering's published facts (plus its parsed public uploads); "run:<id>": the findings of
# one sizing run's workload; "evidence:<user id>": what one buyer's private uploads show against the
# offering's claims (seen by that buyer and staff); "evidence" is reserved for uploads judged on their own.
CONTEXT_CLAIMS = "claims"
CONTEXT_EVIDENCE = "evidence"


def context_for_run(run_id: int) -> str:
    return f"run:{run_id}"


def context_for_private_evidence(user_id: int) -> str:
    return f"evidence:{user_id}"


class Finding(models.Model):
    offering = models.ForeignKey(Offering, on_delete=models.CASCADE, related_name="findings")
    code = models.CharField(max_length=64)
    severity = models.CharField(max_length=16, choices=Severity.choices)
    title = models.CharField(max_length=500)
    evidence = models.JSONField(default=list, blank=True)
    advice = models.TextField(blank=True)
    impact = models.JSONField(default=dict, blank=True)
    # The title's message id and values (checks.rules.base.Msg) so pages can show it in their language.
    messages = models.JSONField(default=dict, blank=True)
    context = models.CharField(max_length=64, default=CONTEXT_CLAIMS)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["offering", "code", "context"], name="checks_finding_one_per_code_and_context"
            ),
            models.CheckConstraint(
                condition=Q(severity__in=[s.value for s in Severity]), name="checks_finding_severity_valid"
            ),
            models.CheckConstraint(
                condition=Q(context__in=[CONTEXT_CLAIMS, CONTEXT_EVIDENCE])
                | Q(context__regex=r"^run:[0-9]+$")
                | Q(context__regex=r"^evidence:[0-9]+$"),
                name="checks_finding_context_valid",
            ),
            models.CheckConstraint(condition=~Q(code=""), name="checks_finding_code_not_empty"),
        ]
        indexes = [models.Index(fields=["offering", "context"])]

    def __str__(self) -> str:
        return f"{self.offering_id} {self.code} ({self.severity}, {self.context})"

    @property
    def shown_title(self) -> str:
        """The title in the active language (the stored English when it has no translation)."""
        return translated((self.messages or {}).get("title"), self.title)

    @property
    def shown_advice(self) -> str:
        """The advice in the active language when every sentence of it is translated, else as stored."""
        return translated_sentences((self.messages or {}).get("advice"), self.advice)

    @property
    def shown_impact(self) -> str:
        """The impact sentence in the active language when every part of it is translated, else as stored."""
        return translated_sentences((self.messages or {}).get("impact"), (self.impact or {}).get("text", ""))

    @property
    def severity_rank(self) -> int:
        return SEVERITY_RANK.get(SeverityLevel(self.severity), len(SEVERITY_RANK))

"""The filters of a run's results (the run page), declared once as a FilterSet.

They narrow the stored results and the objective re-ranks them; nothing is sized again.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db.models import QuerySet
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from portal.filters import FormFieldFilter, unchanged
from sizing import selectors
from sizing.models import Objective, PlanResult, PlanRun

# The empty choice of the menus whose choices are the run's own GPUs and fabrics.
ANY_CHOICE = {"gpu": _("any GPU"), "fabric": _("any fabric")}


class RunResultFilterSet(django_filters.FilterSet):
    # Validated here; the ranking is selectors.run_results' (a sort in Python by the objective).
    # Labelled as the run page shows them, beside the control and in an error that names the field.
    objective = FormFieldFilter(
        forms.ChoiceField, label=_("Rank by"), choices=Objective.choices, method=unchanged
    )
    gpu = FormFieldFilter(forms.ChoiceField, label=_("GPU"), field_name="offering__gpu__key")
    fabric = FormFieldFilter(forms.ChoiceField, label=_("Fabric"), field_name="offering__fabric")
    feasible_only = FormFieldFilter(
        forms.BooleanField,
        label=_("only offerings that can train it"),
        field_name="feasible",
        method="only_if_true",
    )
    complete_only = FormFieldFilter(
        forms.BooleanField, label=_("only complete bills"), field_name="cost_complete", method="only_if_true"
    )
    within_budget = FormFieldFilter(
        forms.BooleanField, label=_("only within the budget"), method="filter_within_budget"
    )

    class Meta:
        model = PlanResult
        fields: list[str] = []

    def __init__(self, data: QueryDict | None = None, *, run: PlanRun, **kwargs: Any) -> None:
        # "Rank by" shows the objective the page ranks by: the run's own until another is chosen, also when
        # other filters come without one (an unknown one stays, and the form names it)
        if data is not None and not data.get("objective"):
            data = data.copy()
            data["objective"] = run.objective
        super().__init__(data, queryset=selectors.run_result_queryset(run=run), **kwargs)
        self.run = run
        self.form.fields["objective"].initial = run.objective
        for name, choices in selectors.run_filter_choices(run=run).items():
            field = self.form.fields[name]
            assert isinstance(field, forms.ChoiceField)
            field.choices = [("", ANY_CHOICE[name]), *choices]

    @property
    def narrows(self) -> bool:
        """Whether a valid filter other than the objective is set."""
        return self.is_valid() and any(
            value for name, value in self.form.cleaned_data.items() if name != "objective"
        )

    def only_if_true(self, queryset: QuerySet[PlanResult], name: str, value: bool) -> QuerySet[PlanResult]:
        return queryset.filter(**{name: True}) if value else queryset

    def filter_within_budget(
        self, queryset: QuerySet[PlanResult], name: str, value: bool
    ) -> QuerySet[PlanResult]:
        # A workload without a budget keeps every result.
        budget = self.run.workload.budget_usd
        if not value or budget is None:
            return queryset
        return queryset.filter(cost_total_usd__lte=budget)
